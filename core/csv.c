#include "csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Column names, in the order khost__csv_write_row writes the fields. */
static const char *const columns[] = {
    "case",        "op",      "params",   "backend",    "device",     "status",        "message",
    "atol",        "rtol",    "count",    "mismatches", "unwritten",  "max_abs",       "max_rel",
    "mean_abs",    "samples", "median_s", "mean_s",     "min_s",      "max_s",         "stddev_s",
    "noise_pct",   "flops",   "bytes",    "gbps",       "tflops",     "peak_fraction", "speedup",
    "is_baseline", "variant", "sm_mhz",   "throttled",  "sm_mhz_min",
};

typedef struct line {
  FILE *f;
  int nfields;
} line;

static void separate(line *l)
{
  if (l->nfields++ > 0) fputc(',', l->f);
}

static int needs_quotes(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strchr(",\"\r\n", s[i])) return 1;
  return 0;
}

/* RFC 4180: a field holding a comma, quote or line break is quoted, quotes doubled.
 * size bounds the field, as a row that crossed a pipe may lack its NUL. */
static void text(line *l, const char *s, size_t size)
{
  size_t n = strnlen(s, size);
  separate(l);
  if (!needs_quotes(s, n)) {
    fwrite(s, 1, n, l->f);
    return;
  }
  fputc('"', l->f);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') fputc('"', l->f);
    fputc(s[i], l->f);
  }
  fputc('"', l->f);
}
#define TEXT(l, field) text((l), (field), sizeof(field))

/* An empty field when the row has no such value (not timed, not checked, not
 * comparable, no spread in one sample). */
static void number(line *l, double v, int known)
{
  separate(l);
  if (known && isfinite(v)) fprintf(l->f, "%.15g", v);
}

static void integer(line *l, uint64_t v)
{
  separate(l);
  fprintf(l->f, "%" PRIu64, v);
}

static void check_fields(line *l, const khost__check_stats *s)
{
  int checked = s->count > 0;
  integer(l, s->count);
  integer(l, s->mismatches);
  integer(l, s->unwritten);
  number(l, s->max_abs, checked);
  number(l, s->max_rel, checked);
  number(l, s->mean_abs, checked);
}

static void time_fields(line *l, const khost__timing *t)
{
  int timed = t->samples > 0;
  integer(l, t->samples);
  number(l, t->median, timed);
  number(l, t->mean, timed);
  number(l, t->min, timed);
  number(l, t->max, timed);
  number(l, t->stddev, timed);
  number(l, t->noise, timed);
}

static int finish_line(FILE *f, khost__err *err)
{
  fputc('\n', f);
  if (fflush(f) != 0 || ferror(f))
    return khost__errorf(err, KHOST__E_IO, "CSV report: write failed: %s", strerror(errno));
  return KHOST__OK;
}

int khost__csv_write_header(FILE *out, khost__err *err)
{
  for (size_t k = 0; k < sizeof columns / sizeof columns[0]; k++)
    fprintf(out, "%s%s", k ? "," : "", columns[k]);
  return finish_line(out, err);
}

int khost__csv_write_row(FILE *out, const khost__row *r, khost__err *err)
{
  const char *status = khost__row_status_name(r->status);
  int timed = r->time.samples > 0;
  line l = {out, 0};
  TEXT(&l, r->case_name);
  TEXT(&l, r->op);
  TEXT(&l, r->params);
  TEXT(&l, r->backend);
  TEXT(&l, r->device);
  text(&l, status, strlen(status) + 1);
  TEXT(&l, r->message);
  number(&l, r->atol, 1);
  number(&l, r->rtol, 1);
  check_fields(&l, &r->check);
  time_fields(&l, &r->time);
  number(&l, r->flops, 1);
  number(&l, r->bytes, 1);
  number(&l, r->gbps, timed && r->gbps > 0);
  number(&l, r->tflops, timed && r->tflops > 0);
  number(&l, r->peak_fraction, r->peak_fraction > 0);
  number(&l, r->speedup, r->speedup > 0);
  integer(&l, r->is_baseline != 0);
  TEXT(&l, r->variant);
  number(&l, r->time.sm_mhz, timed && r->time.sm_mhz > 0);
  integer(&l, r->time.throttled);
  number(&l, r->time.sm_mhz_min, timed && r->time.sm_mhz_min > 0);
  return finish_line(out, err);
}

int khost__csv_open(const char *path, FILE **out, khost__err *err)
{
  int rc;
  FILE *f = fopen(path, "w");
  if (!f) return khost__errorf(err, KHOST__E_IO, "CSV report: cannot create %s: %s", path, strerror(errno));
  rc = khost__csv_write_header(f, err);
  if (rc != KHOST__OK) {
    fclose(f);
    return rc;
  }
  *out = f;
  return KHOST__OK;
}

int khost__csv_close(FILE *f, khost__err *err)
{
  if (f && fclose(f) != 0)
    return khost__errorf(err, KHOST__E_IO, "CSV report: closing failed: %s", strerror(errno));
  return KHOST__OK;
}
