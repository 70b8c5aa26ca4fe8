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

/* Text put back into a field of size bytes, cut to fit; none is "". */
static void store_text(char *field, size_t size, const khost__value *v)
{
  snprintf(field, size, "%.*s", v ? (int)strnlen(v->text, v->size) : 0, v ? v->text : "");
}

/* What a field holds for a value of each rule, and for none (a JSON null read back). */
#define TAKE_number(v)      ((v)->number)
#define TAKE_if_positive(v) ((v)->number)
#define TAKE_if_finite(v)   ((v)->number)
#define TAKE_count(v)       ((v)->count)
#define TAKE_flag(v)        ((v)->count != 0)
#define NONE_number         0
#define NONE_if_positive    0
#define NONE_if_finite      NAN
#define NONE_count          0
#define NONE_flag           0

/* A reader fn that takes the value of one field of the row by one of the rules
 * above, and its inverse fn##_store, which puts a value (NULL: none) back. */
#define READ(fn, rule, field)                                                                                \
  static int fn(const khost__row *r, khost__value *v)                                                        \
  {                                                                                                          \
    return rule(v, r->field);                                                                                \
  }                                                                                                          \
  static void fn##_store(khost__row *r, const khost__value *v)                                               \
  {                                                                                                          \
    r->field = v ? TAKE_##rule(v) : NONE_##rule;                                                             \
  }
/* The same for a text field, which is read no further than its size. */
#define READ_TEXT(fn, field)                                                                                 \
  static int fn(const khost__row *r, khost__value *v)                                                        \
  {                                                                                                          \
    return text(v, r->field, sizeof r->field);                                                               \
  }                                                                                                          \
  static void fn##_store(khost__row *r, const khost__value *v)                                               \
  {                                                                                                          \
    store_text(r->field, sizeof r->field, v);                                                                \
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
READ(row_max_mixed, number, measured.check.max_mixed)
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
READ(row_call_overhead, if_positive, measured.call_overhead_s)
READ(row_graph_not_applied, flag, measured.graph_not_applied)
READ(row_flops, number, id.flops)
READ(row_bytes, number, id.bytes)
READ(row_gbps, if_positive, derived.gbps)
READ(row_tflops, if_positive, derived.tflops)
READ(row_peak_fraction, if_positive, derived.peak_fraction)
READ(row_speedup, if_positive, derived.speedup)
READ(row_is_baseline, flag, derived.is_baseline)
READ(row_case_index, count, id.case_index)

/* The same for a name that may be missing: none (JSON null), not an empty one. */
#define READ_NAME(fn, field)                                                                                 \
  static int fn(const khost__row *r, khost__value *v)                                                        \
  {                                                                                                          \
    return text(v, r->field, sizeof r->field) && r->field[0];                                                \
  }                                                                                                          \
  static void fn##_store(khost__row *r, const khost__value *v)                                               \
  {                                                                                                          \
    store_text(r->field, sizeof r->field, v);                                                                \
  }

READ_NAME(row_variant, measured.variant)
READ_NAME(row_device_name, id.device_name)
READ_NAME(row_device_uuid, id.device_uuid)
READ(row_device_ordinal, count, id.device_ordinal)

static int row_status(const khost__row *r, khost__value *v)
{
  const char *name = khost__row_status_name(r->measured.status);
  return text(v, name, strlen(name));
}

/* A name that is no status (never in a report read back: report_read.c refuses it) is ERROR. */
static void row_status_store(khost__row *r, const khost__value *v)
{
  r->measured.status = KHOST__ROW_ERROR;
  for (int k = 0; v && k < KHOST__ROW_STATUS_COUNT; k++)
    if (strlen(khost__row_status_name(k)) == v->size && !memcmp(khost__row_status_name(k), v->text, v->size))
      r->measured.status = (khost__row_status)k;
}

static int row_first_mismatches(const khost__row *r, khost__value *v)
{
  v->check = &r->measured.check;
  return 1;
}

static void row_first_mismatches_store(khost__row *r, const khost__value *v)
{
  khost__check_stats *c = &r->measured.check;
  c->nshown = v ? v->check->nshown : 0;
  if (v) memcpy(c->shown, v->check->shown, sizeof c->shown);
}

/* The order of a row's JSON object. CSV places only grow: the columns added since
 * the first layout (variant, the clock columns) went to the end of the line. */
const khost__column khost__columns[] = {
    {.name = "case", .read = row_case, .store = row_case_store, .json = "case", .csv = {"case", 1}},
    {.name = "op", .read = row_op, .store = row_op_store, .json = "op", .csv = {"op", 2}},
    {.name = "params", .read = row_params, .store = row_params_store, .json = "params", .csv = {"params", 3}},
    {.name = "backend",
     .read = row_backend,
     .store = row_backend_store,
     .json = "backend",
     .csv = {"backend", 4},
     .table = {"backend", 1}},
    {.name = "device",
     .read = row_device,
     .store = row_device_store,
     .json = "device",
     .csv = {"device", 5},
     .table = {"device", 2}},
    {.name = "variant",
     .read = row_variant,
     .store = row_variant_store,
     .json = "variant",
     .csv = {"variant", 30},
     .table = {"variant", 15},
     .show = KHOST__SHOW_IF_ANY},
    {.name = "status",
     .read = row_status,
     .store = row_status_store,
     .json = "status",
     .csv = {"status", 6},
     .table = {"status", 4}},
    {.name = "message",
     .read = row_message,
     .store = row_message_store,
     .json = "message",
     .csv = {"message", 7}},
    {.name = "atol",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_atol,
     .store = row_atol_store,
     .json = "atol",
     .csv = {"atol", 8}},
    {.name = "rtol",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_rtol,
     .store = row_rtol_store,
     .json = "rtol",
     .csv = {"rtol", 9}},
    {.name = "count",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_checked,
     .store = row_checked_store,
     .json = "check.count",
     .csv = {"count", 10}},
    {.name = "mismatches",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_mismatches,
     .store = row_mismatches_store,
     .json = "check.mismatches",
     .csv = {"mismatches", 11},
     .table = {"mismatches", 7}},
    {.name = "unwritten",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_unwritten,
     .store = row_unwritten_store,
     .json = "check.unwritten",
     .csv = {"unwritten", 12}},
    {.name = "max_abs",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_max_abs,
     .store = row_max_abs_store,
     .json = "check.max_abs",
     .csv = {"max_abs", 13},
     .table = {"max abs", 5}},
    {.name = "max_rel",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_max_rel,
     .store = row_max_rel_store,
     .json = "check.max_rel",
     .csv = {"max_rel", 14},
     .table = {"max rel", 6}},
    {.name = "mean_abs",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_mean_abs,
     .store = row_mean_abs_store,
     .json = "check.mean_abs",
     .csv = {"mean_abs", 15}},
    {.name = "max_mixed",
     .format = KHOST__FORMAT_ERROR,
     .needs = KHOST__NEEDS_CHECK,
     .read = row_max_mixed,
     .store = row_max_mixed_store,
     .json = "check.max_mixed",
     .csv = {"max_mixed", 34}},
    {.name = "first_mismatches",
     .format = KHOST__FORMAT_MISMATCHES,
     .read = row_first_mismatches,
     .store = row_first_mismatches_store,
     .json = "check.first_mismatches"},
    {.name = "samples",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_samples,
     .store = row_samples_store,
     .json = "time.samples",
     .csv = {"samples", 16}},
    {.name = "median_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_median,
     .store = row_median_store,
     .json = "time.median_s",
     .csv = {"median_s", 17},
     .table = {"time", 8}},
    {.name = "mean_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_mean,
     .store = row_mean_store,
     .json = "time.mean_s",
     .csv = {"mean_s", 18}},
    {.name = "min_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_min,
     .store = row_min_store,
     .json = "time.min_s",
     .csv = {"min_s", 19}},
    {.name = "max_s",
     .format = KHOST__FORMAT_SECONDS,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_max,
     .store = row_max_store,
     .json = "time.max_s",
     .csv = {"max_s", 20}},
    {.name = "stddev_s",
     .format = KHOST__FORMAT_NUMBER,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_stddev,
     .store = row_stddev_store,
     .json = "time.stddev_s",
     .csv = {"stddev_s", 21}},
    {.name = "noise_pct",
     .format = KHOST__FORMAT_PERCENT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_noise,
     .store = row_noise_store,
     .json = "time.noise_pct",
     .csv = {"noise_pct", 22},
     .table = {"noise", 9}},
    {.name = "sm_mhz",
     .format = KHOST__FORMAT_MHZ,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_sm_mhz,
     .store = row_sm_mhz_store,
     .json = "time.sm_mhz",
     .csv = {"sm_mhz", 31},
     .table = {"SM MHz", 10},
     .show = KHOST__SHOW_IF_ANY},
    {.name = "throttled",
     .format = KHOST__FORMAT_COUNT,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_throttled,
     .store = row_throttled_store,
     .json = "time.throttled",
     .csv = {"throttled", 32}},
    {.name = "sm_mhz_min",
     .format = KHOST__FORMAT_MHZ,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_sm_mhz_min,
     .store = row_sm_mhz_min_store,
     .json = "time.sm_mhz_min",
     .csv = {"sm_mhz_min", 33}},
    /* The table notes it under the row (table.c); not in the CSV, whose last column stays `finished`. */
    {.name = "call_overhead_s",
     .format = KHOST__FORMAT_SECONDS,
     .read = row_call_overhead,
     .store = row_call_overhead_store,
     .json = "time.call_overhead_s"},
    /* The table notes it under the row (table.c); not in the CSV, as above. */
    {.name = "graph_not_applied",
     .format = KHOST__FORMAT_FLAG,
     .read = row_graph_not_applied,
     .store = row_graph_not_applied_store,
     .json = "time.graph_not_applied"},
    {.name = "flops",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_flops,
     .store = row_flops_store,
     .json = "flops",
     .csv = {"flops", 23}},
    {.name = "bytes",
     .format = KHOST__FORMAT_NUMBER,
     .read = row_bytes,
     .store = row_bytes_store,
     .json = "bytes",
     .csv = {"bytes", 24}},
    {.name = "gbps",
     .format = KHOST__FORMAT_RATE,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_gbps,
     .store = row_gbps_store,
     .json = "gbps",
     .csv = {"gbps", 25},
     .table = {"GB/s", 11}},
    {.name = "tflops",
     .format = KHOST__FORMAT_RATE,
     .needs = KHOST__NEEDS_TIMING,
     .read = row_tflops,
     .store = row_tflops_store,
     .json = "tflops",
     .csv = {"tflops", 26},
     .table = {"TFLOP/s", 12}},
    {.name = "peak_fraction",
     .format = KHOST__FORMAT_FRACTION,
     .read = row_peak_fraction,
     .store = row_peak_fraction_store,
     .json = "peak_fraction",
     .csv = {"peak_fraction", 27},
     .table = {"%peak", 13},
     .show = KHOST__SHOW_IF_PEAK},
    {.name = "speedup",
     .format = KHOST__FORMAT_RATIO,
     .read = row_speedup,
     .store = row_speedup_store,
     .json = "speedup",
     .csv = {"speedup", 28},
     .table = {"speedup", 14}},
    {.name = "is_baseline",
     .format = KHOST__FORMAT_FLAG,
     .read = row_is_baseline,
     .store = row_is_baseline_store,
     .json = "is_baseline",
     .csv = {"is_baseline", 29}},
    {.name = "case_index",
     .format = KHOST__FORMAT_COUNT,
     .read = row_case_index,
     .store = row_case_index_store,
     .json = "case_index"},
    /* Which device ran the case (--devices spreads cases over several): the
     * ordinal always, the GPU's name and UUID on a cuda row whose GPU came up. */
    {.name = "device_ordinal",
     .format = KHOST__FORMAT_COUNT,
     .read = row_device_ordinal,
     .store = row_device_ordinal_store,
     .json = "device_ordinal",
     .csv = {"device_ordinal", 35},
     .table = {"ordinal", 3},
     .show = KHOST__SHOW_IF_DEVICES},
    {.name = "device_name",
     .read = row_device_name,
     .store = row_device_name_store,
     .json = "device_name",
     .csv = {"device_name", 36}},
    {.name = "device_uuid",
     .read = row_device_uuid,
     .store = row_device_uuid_store,
     .json = "device_uuid",
     .csv = {"device_uuid", 37}},
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

int khost__column_cell(const khost__column *c, const khost__row *row, char *cell, size_t size)
{
  khost__value v;
  int has = khost__column_read(c, row, &v) && khost__column_measured(c, row);
  if (has)
    khost__column_format(c->format, &v, cell, size);
  else
    snprintf(cell, size, "-");
  return has;
}

int khost__column_shown_for_run(const khost__column *c, const khost__run_info *info)
{
  if (c->show == KHOST__SHOW_IF_PEAK) return info && info->peak_gbps > 0;
  if (c->show == KHOST__SHOW_IF_DEVICES) return info && info->ndevices > 1;
  return c->show == KHOST__SHOW_ALWAYS;
}

int khost__column_shown_by_row(const khost__column *c, const khost__row *row, char *cell, size_t size)
{
  return khost__column_cell(c, row, cell, size) && c->show != KHOST__SHOW_IF_DEVICES;
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
