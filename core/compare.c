#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A report's rows by key: sorted, one entry per key. */
typedef struct keyed {
  khost__row_key key;
  const json_t *row;
  size_t at; /* its place in the report: of two rows with one key, the later wins */
} keyed;

static int key_cmp(const khost__row_key *a, const khost__row_key *b)
{
  int c = strcmp(a->case_name, b->case_name);
  if (!c) c = strcmp(a->backend, b->backend);
  return c ? c : strcmp(a->device, b->device);
}

static int keyed_cmp(const void *pa, const void *pb)
{
  const keyed *a = pa, *b = pb;
  int c = key_cmp(&a->key, &b->key);
  return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* The report's rows sorted by key, the last of each key only; *n of them. NULL
 * when out of memory. */
static keyed *index_rows(const khost__report_doc *doc, size_t *n)
{
  keyed *k = calloc(doc->nrows ? doc->nrows : 1, sizeof *k);
  size_t kept = 0;
  if (!k) return NULL;
  for (size_t i = 0; i < doc->nrows; i++) {
    const json_t *row = khost__report_row(doc, i);
    k[i] = (keyed){{khost__report_text(row, "case"), khost__report_text(row, "backend"),
                    khost__report_text(row, "device")},
                   row,
                   i};
  }
  qsort(k, doc->nrows, sizeof *k, keyed_cmp);
  for (size_t i = 0; i < doc->nrows; i++) {
    int last_of_key = i + 1 == doc->nrows || key_cmp(&k[i].key, &k[i + 1].key) != 0;
    if (last_of_key) k[kept++] = k[i];
  }
  *n = kept;
  return k;
}

static int passed(const json_t *row)
{
  return row && strcmp(khost__report_text(row, "status"), "PASS") == 0;
}

/* A PASS row with a median (a median of 0 is none, as in the reports). */
static int timed(const json_t *row, double *median)
{
  return passed(row) && khost__report_number(row, "time.median_s", median) && *median != 0;
}

static double number_or_zero(const json_t *row, const char *path)
{
  double v = 0;
  return khost__report_number(row, path, &v) ? v : 0;
}

static void note_changes(khost__compared *c)
{
  const char *was = khost__report_text(c->base_row, "variant"),
             *now = khost__report_text(c->run_row, "variant");
  double mhz_was = number_or_zero(c->base_row, "time.sm_mhz"),
         mhz_now = number_or_zero(c->run_row, "time.sm_mhz");
  /* A new variant or an SM clock that moved explains a change other than the code's. */
  if (was[0] && now[0] && strcmp(was, now) != 0) c->base_variant = was, c->run_variant = now;
  if (mhz_was != 0 && mhz_now != 0 && fabs(mhz_now - mhz_was) > 0.01 * mhz_was)
    c->base_mhz = mhz_was, c->run_mhz = mhz_now;
  /* Events and CUPTI time different spans of one call: a difference between them is not the code's. */
  const char *timer_was = khost__report_text(c->base_row, "time.timer"),
             *timer_now = khost__report_text(c->run_row, "time.timer");
  if (timer_was[0] && timer_now[0] && strcmp(timer_was, timer_now) != 0)
    c->base_timer = timer_was, c->run_timer = timer_now;
  c->base_sol = number_or_zero(c->base_row, "sol_fraction");
  c->run_sol = number_or_zero(c->run_row, "sol_fraction");
}

/* Compares one key's rows into out->rows when both were timed and long enough. */
static void compare_row(const keyed *base, const keyed *run, const khost__compare_options *o,
                        khost__comparison *out)
{
  khost__compared c = {.key = run->key, .base_row = base->row, .run_row = run->row};
  if (!timed(base->row, &c.base_s) || !timed(run->row, &c.run_s)) return;
  if (fmin(c.base_s, c.run_s) * 1e6 < o->min_us) return;
  double noise =
      fmax(number_or_zero(base->row, "time.noise_pct"), number_or_zero(run->row, "time.noise_pct"));
  c.diff_pct = 100.0 * (c.run_s - c.base_s) / c.base_s;
  c.limit_pct = fmax(o->tolerance_pct, 2 * noise);
  c.verdict = fabs(c.diff_pct) <= c.limit_pct ? KHOST__SAME : c.diff_pct > 0 ? KHOST__SLOW : KHOST__FAST;
  c.beyond_tolerance = fabs(c.diff_pct) > o->tolerance_pct;
  note_changes(&c);
  out->beyond += c.beyond_tolerance;
  out->worst_pct = fmax(out->worst_pct, fabs(c.diff_pct));
  out->rows[out->nrows++] = c;
}

static void note_lost(const keyed *base, const keyed *run, khost__comparison *out)
{
  if (!passed(base->row) || (run && passed(run->row))) return;
  out->lost[out->nlost++] = (khost__lost){base->key, run ? khost__report_text(run->row, "status") : "missing",
                                          run ? khost__report_text(run->row, "message") : ""};
}

/* Walks both sorted indexes together, key by key. */
static void walk(const keyed *b, size_t nb, const keyed *r, size_t nr, const khost__compare_options *o,
                 khost__comparison *out)
{
  size_t i = 0, j = 0;
  while (i < nb) {
    int c = j < nr ? key_cmp(&b[i].key, &r[j].key) : -1;
    if (c > 0) {
      j++;
      continue;
    }
    const keyed *run = c == 0 ? &r[j] : NULL;
    if (run) compare_row(&b[i], run, o, out);
    note_lost(&b[i], run, out);
    i++;
    j += c == 0;
  }
}

int khost__compare(const khost__report_doc *run, const khost__report_doc *base,
                   const khost__compare_options *o, khost__comparison *out, khost__err *err)
{
  size_t nb = 0, nr = 0;
  int rc = KHOST__OK;
  memset(out, 0, sizeof *out);
  keyed *b = index_rows(base, &nb), *r = index_rows(run, &nr);
  out->rows = calloc(nb ? nb : 1, sizeof *out->rows);
  out->lost = calloc(nb ? nb : 1, sizeof *out->lost);
  if (!b || !r || !out->rows || !out->lost) {
    khost__comparison_free(out);
    rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory comparing the reports");
    goto out;
  }
  walk(b, nb, r, nr, o, out);
out:
  free(b);
  free(r);
  return rc;
}

void khost__comparison_free(khost__comparison *c)
{
  free(c->rows);
  free(c->lost);
  memset(c, 0, sizeof *c);
}

const char *khost__verdict_name(khost__verdict v)
{
  return v == KHOST__FAST ? "FAST" : v == KHOST__SLOW ? "SLOW" : "SAME";
}
