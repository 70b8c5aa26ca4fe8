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

int khost__row_status_fails(khost__row_status s)
{
  return s != KHOST__ROW_PASS && s != KHOST__ROW_SKIP;
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

int khost__row_opens_case(const khost__row *rows, int i)
{
  for (int j = 0; j < i; j++)
    if (strcmp(rows[j].id.case_name, rows[i].id.case_name) == 0) return 0;
  return 1;
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
