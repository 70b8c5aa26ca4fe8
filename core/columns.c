#include "columns.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static int text(khost__value *v, const char *s, size_t size)
{
  v->text = s;
  v->size = size;
  return 1;
}

static int number(khost__value *v, double x)
{
  v->number = x;
  return 1;
}

/* Zero means "not measured" (not timed, no peak, not comparable, no clock read). */
static int if_positive(khost__value *v, double x)
{
  v->number = x;
  return x > 0;
}

/* One sample has no spread: NaN, shown as none rather than as a perfect 0. */
static int if_finite(khost__value *v, double x)
{
  v->number = x;
  return isfinite(x);
}

static int count(khost__value *v, uint64_t n)
{
  v->count = n;
  return 1;
}

static int flag(khost__value *v, int set)
{
  v->count = set != 0;
  return 1;
}

/* A reader fn that takes the value of one field of the row by one of the rules above. */
#define READ(fn, rule, field)                                                                                \
  static int fn(const khost__row *r, khost__value *v)                                                        \
  {                                                                                                          \
    return rule(v, r->field);                                                                                \
  }
/* The same for a text field, which is read no further than its size. */
#define READ_TEXT(fn, field)                                                                                 \
  static int fn(const khost__row *r, khost__value *v)                                                        \
  {                                                                                                          \
    return text(v, r->field, sizeof r->field);                                                               \
  }

READ_TEXT(row_case, id.case_name)
READ_TEXT(row_op, id.op)
READ_TEXT(row_params, id.params)
READ_TEXT(row_backend, id.backend)
READ_TEXT(row_device, id.device)
READ_TEXT(row_message, measured.message)
READ(row_atol, number, id.atol)
READ(row_rtol, number, id.rtol)
READ(row_checked, count, measured.check.count)
READ(row_mismatches, count, measured.check.mismatches)
READ(row_unwritten, count, measured.check.unwritten)
READ(row_max_abs, number, measured.check.max_abs)
READ(row_max_rel, number, measured.check.max_rel)
READ(row_mean_abs, number, measured.check.mean_abs)
READ(row_samples, count, measured.time.samples)
READ(row_median, number, measured.time.median)
READ(row_mean, number, measured.time.mean)
READ(row_min, number, measured.time.min)
READ(row_max, number, measured.time.max)
READ(row_stddev, if_finite, measured.time.stddev)
READ(row_noise, if_finite, measured.time.noise)
READ(row_sm_mhz, if_positive, measured.time.sm_mhz)
READ(row_throttled, count, measured.time.throttled)
READ(row_sm_mhz_min, if_positive, measured.time.sm_mhz_min)
READ(row_flops, number, id.flops)
READ(row_bytes, number, id.bytes)
READ(row_gbps, if_positive, derived.gbps)
READ(row_tflops, if_positive, derived.tflops)
READ(row_peak_fraction, if_positive, derived.peak_fraction)
READ(row_speedup, if_positive, derived.speedup)
READ(row_is_baseline, flag, derived.is_baseline)
READ(row_sol, if_positive, measured.sol_s)
READ(row_sol_fraction, if_positive, derived.sol_fraction)

/* A row that crossed a pipe from an old worker, or was blamed by the parent, names no timer. */
static int row_timer(const khost__row *r, khost__value *v)
{
  return text(v, r->measured.timer, sizeof r->measured.timer) && r->measured.timer[0];
}

/* No name is no variant (JSON null), not an empty one. */
static int row_variant(const khost__row *r, khost__value *v)
{
  return text(v, r->measured.variant, sizeof r->measured.variant) && r->measured.variant[0];
}

static int row_status(const khost__row *r, khost__value *v)
{
  const char *name = khost__row_status_name(r->measured.status);
  return text(v, name, strlen(name));
}

static int row_first_mismatches(const khost__row *r, khost__value *v)
{
  v->check = &r->measured.check;
  return 1;
}

/* The order of a row's JSON object. CSV places only grow: the columns added since
 * the first layout (variant, the clock columns, then after the run's `finished`
 * at 34 the timer and the speed of light) went to the end of the line. */
const khost__column khost__columns[] = {
    {.name = "case", .read = row_case, .json = "case", .csv = {"case", 1}},
    {.name = "op", .read = row_op, .json = "op", .csv = {"op", 2}},
    {.name = "params", .read = row_params, .json = "params", .csv = {"params", 3}},
    {.name = "backend",
     .read = row_backend,
     .json = "backend",
     .csv = {"backend", 4},
     .table = {"backend", 1}},
    {.name = "device", .read = row_device, .json = "device", .csv = {"device", 5}, .table = {"device", 2}},
    {.name = "variant",
     .read = row_variant,
     .json = "variant",
     .csv = {"variant", 30},
     .table = {"variant", 15},
     .show = KHOST__SHOW_IF_ANY},
    {.name = "status", .read = row_status, .json = "status", .csv = {"status", 6}, .table = {"status", 3}},
    {.name = "message", .read = row_message, .json = "message", .csv = {"message", 7}},
    {.name = "atol", .format = KHOST__FORMAT_NUMBER, .read = row_atol, .json = "atol", .csv = {"atol", 8}},
    {.name = "rtol", .format = KHOST__FORMAT_NUMBER, .read = row_rtol, .json = "rtol", .csv = {"rtol", 9}},
    {.name = "count",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_checked,
     .json = "check.count",
     .csv = {"count", 10}},
    {.name = "mismatches",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_mismatches,
     .json = "check.mismatches",
     .csv = {"mismatches", 11},
     .table = {"mismatches", 6}},
    {.name = "unwritten",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_unwritten,
     .json = "check.unwritten",
     .csv = {"unwritten", 12}},
    {.name = "max_abs",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_max_abs,
     .json = "check.max_abs",
     .csv = {"max_abs", 13},
     .table = {"max abs", 4}},
    {.name = "max_rel",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_max_rel,
     .json = "check.max_rel",
     .csv = {"max_rel", 14},
     .table = {"max rel", 5}},
    {.name = "mean_abs",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_mean_abs,
     .json = "check.mean_abs",
     .csv = {"mean_abs", 15}},
    {.name = "first_mismatches",
     .format = KHOST__FORMAT_MISMATCHES,
     .read = row_first_mismatches,
     .json = "check.first_mismatches"},
    {.name = "samples",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_samples,
     .json = "time.samples",
     .csv = {"samples", 16}},
    {.name = "median_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_median,
     .json = "time.median_s",
     .csv = {"median_s", 17},
     .table = {"time", 7}},
    {.name = "mean_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_mean,
     .json = "time.mean_s",
     .csv = {"mean_s", 18}},
    {.name = "min_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_min,
     .json = "time.min_s",
     .csv = {"min_s", 19}},
    {.name = "max_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_max,
     .json = "time.max_s",
     .csv = {"max_s", 20}},
    {.name = "stddev_s",
     .format = KHOST__FORMAT_NUMBER,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_stddev,
     .json = "time.stddev_s",
     .csv = {"stddev_s", 21}},
    {.name = "noise_pct",
     .format = KHOST__FORMAT_PERCENT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_noise,
     .json = "time.noise_pct",
     .csv = {"noise_pct", 22},
     .table = {"noise", 8}},
    {.name = "timer",
     .needs = KHOST__NEEDS_TIMING,
     .read = row_timer,
     .json = "time.timer",
     .csv = {"timer", 35}},
    {.name = "sm_mhz",
     .format = KHOST__FORMAT_MHZ,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_sm_mhz,
     .json = "time.sm_mhz",
     .csv = {"sm_mhz", 31},
     .table = {"SM MHz", 9},
     .show = KHOST__SHOW_IF_ANY},
    {.name = "throttled",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_throttled,
     .json = "time.throttled",
     .csv = {"throttled", 32}},
    {.name = "sm_mhz_min",
     .format = KHOST__FORMAT_MHZ,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_sm_mhz_min,
     .json = "time.sm_mhz_min",
     .csv = {"sm_mhz_min", 33}},
    {.name = "flops",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_flops,
     .json = "flops",
     .csv = {"flops", 23}},
    {.name = "bytes",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_bytes,
     .json = "bytes",
     .csv = {"bytes", 24}},
    {.name = "gbps",
     .format = KHOST__FORMAT_RATE,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_gbps,
     .json = "gbps",
     .csv = {"gbps", 25},
     .table = {"GB/s", 10}},
    {.name = "tflops",
     .format = KHOST__FORMAT_RATE,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_tflops,
     .json = "tflops",
     .csv = {"tflops", 26},
     .table = {"TFLOP/s", 11}},
    {.name = "peak_fraction",
     .format = KHOST__FORMAT_FRACTION,
     .read = row_peak_fraction,
     .json = "peak_fraction",
     .csv = {"peak_fraction", 27},
     .table = {"%peak", 12},
     .show = KHOST__SHOW_IF_PEAK},
    {.name = "sol_s",
     .format = KHOST__FORMAT_SECONDS,
     .read = row_sol,
     .json = "sol_s",
     .csv = {"sol_s", 36}},
    {.name = "sol_fraction",
     .format = KHOST__FORMAT_FRACTION,
     .read = row_sol_fraction,
     .json = "sol_fraction",
     .csv = {"sol_fraction", 37},
     .table = {"%sol", 13},
     .show = KHOST__SHOW_IF_ANY},
    {.name = "speedup",
     .format = KHOST__FORMAT_RATIO,
     .read = row_speedup,
     .json = "speedup",
     .csv = {"speedup", 28},
     .table = {"speedup", 14}},
    {.name = "is_baseline",
     .format = KHOST__FORMAT_FLAG,
     .read = row_is_baseline,
     .json = "is_baseline",
     .csv = {"is_baseline", 29}},
};
const int khost__ncolumns = (int)(sizeof khost__columns / sizeof khost__columns[0]);
_Static_assert(sizeof khost__columns / sizeof khost__columns[0] <= KHOST__MAX_COLUMNS,
               "raise KHOST__MAX_COLUMNS");

int khost__column_measured(const khost__column *c, const khost__row *row)
{
  switch (c->needs) {
  case KHOST__NEEDS_CHECK: return row->measured.check.count > 0;
  case KHOST__NEEDS_TIMING: return row->measured.time.samples > 0;
  default: return 1;
  }
}

int khost__column_read(const khost__column *c, const khost__row *row, khost__value *v)
{
  memset(v, 0, sizeof *v);
  int has = c->read(row, v);
  return has && (c->format == KHOST__FORMAT_COUNT || khost__column_measured(c, row));
}

static int place(const khost__column *c, khost__placement in)
{
  return in == KHOST__IN_CSV ? c->csv.at : c->table.at;
}

int khost__columns_placed(khost__placement in, const khost__column **out)
{
  int n = 0;
  for (int at = 1; at <= khost__ncolumns; at++)
    for (int i = 0; i < khost__ncolumns; i++)
      if (place(&khost__columns[i], in) == at) out[n++] = &khost__columns[i];
  return n;
}

/* Three significant digits, without an exponent from 1 up: 3012 GB/s reads better than 3.01e+03. */
static void three_digits(char *cell, size_t size, double v)
{
  if (v < 1)
    snprintf(cell, size, "%.3g", v);
  else
    snprintf(cell, size, "%.*f", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
}

void khost__column_format(khost__format format, const khost__value *v, char *cell, size_t size)
{
  switch (format) {
  case KHOST__FORMAT_TEXT: snprintf(cell, size, "%.*s", (int)strnlen(v->text, v->size), v->text); break;
  case KHOST__FORMAT_COUNT:
  case KHOST__FORMAT_FLAG: snprintf(cell, size, "%" PRIu64, v->count); break;
  case KHOST__FORMAT_ERROR: snprintf(cell, size, "%.3g", v->number); break;
  case KHOST__FORMAT_SECONDS: khost__format_seconds(v->number, cell, size); break;
  case KHOST__FORMAT_PERCENT: snprintf(cell, size, "%.1f%%", v->number); break;
  case KHOST__FORMAT_FRACTION: snprintf(cell, size, "%.1f%%", 100 * v->number); break;
  case KHOST__FORMAT_MHZ: snprintf(cell, size, "%.0f", v->number); break;
  case KHOST__FORMAT_RATE: three_digits(cell, size, v->number); break;
  case KHOST__FORMAT_RATIO: snprintf(cell, size, "%.2fx", v->number); break;
  default: snprintf(cell, size, "%.15g", v->number); break; /* a plain number, as the CSV has it */
  }
}
