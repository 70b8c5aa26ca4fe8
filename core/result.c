#include "report.h"
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *khost__row_status_name(khost__row_status s)
{
  static const char *const names[KHOST__ROW_STATUS_COUNT] = {
      [KHOST__ROW_PASS] = "PASS",   [KHOST__ROW_FAIL] = "FAIL",   [KHOST__ROW_SKIP] = "SKIP",
      [KHOST__ROW_ERROR] = "ERROR", [KHOST__ROW_CRASH] = "CRASH", [KHOST__ROW_TIMEOUT] = "TIMEOUT",
  };
  /* A row arrives from a worker as raw bytes, so an out-of-range value is possible. */
  if ((unsigned)s >= KHOST__ROW_STATUS_COUNT) return "?";
  return names[s];
}

void khost__measurement_settle(khost__measurement *m, khost__row_status status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  khost__measurement_vsettle(m, status, fmt, ap);
  va_end(ap);
}

void khost__measurement_vsettle(khost__measurement *m, khost__row_status status, const char *fmt, va_list ap)
{
  m->status = status;
  vsnprintf(m->message, sizeof m->message, fmt, ap);
}

/* Index of the row's backend (name and device) in out->backends, added if new;
 * -1 when there is no room. */
static int backend_slot(khost__summary *out, const khost__row *r)
{
  for (int i = 0; i < out->nbackends; i++)
    if (strcmp(out->backends[i].name, r->id.backend) == 0 &&
        strcmp(out->backends[i].device, r->id.device) == 0)
      return i;
  if (out->nbackends == KHOST__SUMMARY_MAX_BACKENDS) return -1;
  khost__backend_summary *b = &out->backends[out->nbackends];
  snprintf(b->name, sizeof b->name, "%s", r->id.backend);
  snprintf(b->device, sizeof b->device, "%s", r->id.device);
  return out->nbackends++;
}

static int is_timed_pass(const khost__row *r)
{
  return r->measured.status == KHOST__ROW_PASS && r->measured.time.samples > 0 && r->measured.time.median > 0;
}

static int has_speedup(const khost__row *r)
{
  return r->measured.status == KHOST__ROW_PASS && r->derived.speedup > 0 && isfinite(r->derived.speedup);
}

int khost__row_opens_case(const khost__row *rows, int i)
{
  for (int j = 0; j < i; j++)
    if (strcmp(rows[j].id.case_name, rows[i].id.case_name) == 0) return 0;
  return 1;
}

/* The fastest timed PASS row of the case of rows[first], or NULL. */
static const khost__row *case_winner(const khost__row *rows, int nrows, int first)
{
  const khost__row *best = NULL;
  for (int k = first; k < nrows; k++) {
    const khost__row *r = &rows[k];
    if (strcmp(r->id.case_name, rows[first].id.case_name) == 0 && is_timed_pass(r) &&
        (!best || r->measured.time.median < best->measured.time.median))
      best = r;
  }
  return best;
}

static void count_wins(const khost__row *rows, int nrows, khost__summary *out)
{
  for (int i = 0; i < nrows; i++) {
    if (!khost__row_opens_case(rows, i)) continue;
    const khost__row *w = case_winner(rows, nrows, i);
    int slot = w ? backend_slot(out, w) : -1;
    if (slot >= 0) out->backends[slot].wins++;
  }
}

void khost__summarize(const khost__row *rows, int nrows, khost__summary *out)
{
  double log_sum[KHOST__SUMMARY_MAX_BACKENDS] = {0};
  memset(out, 0, sizeof *out);
  out->nrows = nrows;
  for (int i = 0; i < nrows; i++) {
    const khost__row *r = &rows[i];
    if ((unsigned)r->measured.status < KHOST__ROW_STATUS_COUNT) out->by_status[r->measured.status]++;
    int slot = backend_slot(out, r);
    if (slot < 0) {
      out->rows_omitted++;
      continue;
    }
    if (has_speedup(r)) {
      log_sum[slot] += log(r->derived.speedup);
      out->backends[slot].speedup_cases++;
    }
  }
  for (int b = 0; b < out->nbackends; b++)
    if (out->backends[b].speedup_cases > 0)
      out->backends[b].geomean_speedup = exp(log_sum[b] / out->backends[b].speedup_cases);
  count_wins(rows, nrows, out);
}

void khost__format_seconds(double seconds, char *buf, size_t size)
{
  static const struct {
    double scale;
    const char *unit;
  } units[] = {
      {1.0, "s"},
      {1e-3, "ms"},
      {1e-6, "us"},
      {1e-9, "ns"},
  };
  const int last = (int)(sizeof units / sizeof units[0]) - 1;
  if (!(seconds > 0) || !isfinite(seconds)) {
    snprintf(buf, size, "-");
    return;
  }
  int u = 0;
  while (u < last && seconds < units[u].scale) u++;
  snprintf(buf, size, "%.2f %s", seconds / units[u].scale, units[u].unit);
}
