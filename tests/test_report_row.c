/* Tests for core/report_row.c: a row written to a JSON report (json.c) and read
 * back is the row written, column by column: texts, counts, flags, numbers, the
 * first mismatches, and values the report holds as null (no variant, one
 * sample's spread, an untimed row's times). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "json.h"
#include "report_read.h"
#include "report_row.h"
#include "support/scratch_dir.h"

TestSuite(report_row, .init = scratch_dir_make, .fini = scratch_dir_remove);

/* A row of case (at place index in its suite) and backend on device, its counts given. */
static khost__row identified(const char *case_params, int index, const char *backend_device, double flops,
                             double bytes)
{
  khost__row r;
  memset(&r, 0, sizeof r);
  sscanf(case_params, "%63s %31s", r.id.case_name, r.id.op);
  snprintf(r.id.params, sizeof r.id.params, "%s", strchr(strchr(case_params, ' ') + 1, ' ') + 1);
  sscanf(backend_device, "%64s %7s", r.id.backend, r.id.device);
  r.id.case_index = index;
  r.id.flops = flops;
  r.id.bytes = bytes;
  return r;
}

static khost__row timed_fail(void)
{
  khost__row r = identified("gemv_small nvfp4_gemv m=128 k=256 l=2", 7, "cute cuda", 131072, 24576);
  khost__check_stats check = {.count = 256,
                              .mismatches = 2,
                              .unwritten = 1,
                              .max_abs = 0.5,
                              .max_rel = 0.0625,
                              .mean_abs = 0.03125,
                              .max_mixed = 0.75,
                              .nshown = 2};
  khost__timing time = {20, 2e-6, 3e-6, 1e-6, 4e-6, 5e-7, 1.5, 1980, 3, 1755};
  r.id.atol = 0.25;
  r.id.rtol = 0.125;
  r.measured.status = KHOST__ROW_FAIL;
  snprintf(r.measured.message, sizeof r.measured.message,
           "wrong result: 2 of 256 elements\nout of tolerance");
  snprintf(r.measured.variant, sizeof r.measured.variant, "gemv_rows<tpr=32,w=2>");
  r.measured.check = check;
  r.measured.check.shown[0] = (khost__mismatch){17, "c[batch=0, row=17]", 1.5, -2.25};
  r.measured.check.shown[1] = (khost__mismatch){99, "c[batch=1, row=3]", NAN, 0.5};
  r.measured.time = time;
  r.derived = (khost__derived){.gbps = 12.288, .tflops = 0.065536, .peak_fraction = 0.003};
  return r;
}

/* A reference row timed once (no spread), with no variant, on the CPU. */
static khost__row one_sample_pass(void)
{
  khost__row r = identified("copy copy_transpose m=64 n=100 dtype=fp16", 0, "reference cpu", 0, 25600);
  khost__timing time = {1, 0.125, 0.125, 0.125, 0.125, NAN, NAN, 0, 0, 0};
  r.measured.status = KHOST__ROW_PASS;
  r.measured.check.count = 6400;
  r.measured.time = time;
  r.derived = (khost__derived){.gbps = 2.048e-4, .speedup = 1, .is_baseline = 1};
  return r;
}

static void write_and_read(const khost__row *rows, int n, khost__report_doc *doc)
{
  char path[128];
  scratch_dir_path(path, sizeof path, "report.json");
  static const khost__run_info info = {.khost_version = "0.1.0"};
  khost__json_writer *w;
  khost__err err;
  cr_assert_eq(khost__json_open(path, &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  for (int i = 0; i < n; i++) cr_assert_eq(khost__json_append(w, &rows[i], &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  cr_assert_eq(khost__report_read(path, doc, &err), KHOST__OK, "%s", err.msg);
}

/* Each column of back holds what it holds in row: the value, or none. */
static void expect_same_columns(const khost__row *row, const khost__row *back)
{
  for (int c = 0; c < khost__ncolumns; c++) {
    const khost__column *col = &khost__columns[c];
    khost__value a, b;
    int has_a = khost__column_read(col, row, &a), has_b = khost__column_read(col, back, &b);
    cr_expect_eq(has_a, has_b, "%s: has a value in both or neither", col->name);
    if (!has_a || !has_b || col->format == KHOST__FORMAT_MISMATCHES) continue;
    char x[256], y[256];
    khost__column_format(col->format == KHOST__FORMAT_TEXT ? col->format : KHOST__FORMAT_NUMBER, &a, x,
                         sizeof x);
    khost__column_format(col->format == KHOST__FORMAT_TEXT ? col->format : KHOST__FORMAT_NUMBER, &b, y,
                         sizeof y);
    if (col->format == KHOST__FORMAT_COUNT || col->format == KHOST__FORMAT_FLAG)
      cr_expect_eq(a.count, b.count, "%s", col->name);
    else
      cr_expect_str_eq(x, y, "%s", col->name);
  }
}

Test(report_row, a_row_read_back_is_the_row_written)
{
  khost__row rows[2] = {timed_fail(), one_sample_pass()};
  khost__report_doc doc;
  write_and_read(rows, 2, &doc);
  for (int i = 0; i < 2; i++) {
    khost__row back;
    memset(&back, 0x5a, sizeof back); /* poisoned: every field must be written */
    khost__report_row_read(khost__report_row(&doc, (size_t)i), &back);
    expect_same_columns(&rows[i], &back);
    cr_expect_eq(back.measured.status, rows[i].measured.status);
    cr_expect_str_eq(back.measured.variant, rows[i].measured.variant);
    cr_expect_eq(back.id.case_index, rows[i].id.case_index);
    cr_expect_eq(back.measured.check.nshown, rows[i].measured.check.nshown);
    cr_expect_eq(back.measured.dump_incomplete, 0);
  }
  khost__row back;
  khost__report_row_read(khost__report_row(&doc, 0), &back);
  cr_expect_eq(back.measured.check.shown[0].index, 17);
  cr_expect_str_eq(back.measured.check.shown[0].where, "c[batch=0, row=17]");
  cr_expect_float_eq(back.measured.check.shown[0].expected, -2.25, 0);
  cr_expect(isnan(back.measured.check.shown[1].got), "a NaN written as null reads back as NaN");
  khost__report_row_read(khost__report_row(&doc, 1), &back);
  cr_expect(isnan(back.measured.time.stddev), "one sample's spread is none, as a run leaves it");
  khost__report_free(&doc);
}

Test(report_row, a_run_description_read_back_is_the_one_written)
{
  static const khost__run_info info = {.khost_version = "0.1.0",
                                       .host = "node7",
                                       .ncpus = 64,
                                       .device = "NVIDIA H200 (sm_90)",
                                       .l2_bytes = (size_t)60 << 20,
                                       .peak_gbps = 4100.5,
                                       .suite = "suites/smoke.ini",
                                       .baseline = "vendor:cuda",
                                       .shard_index = 2,
                                       .shard_count = 4,
                                       .shard_cases = 3,
                                       .selected_cases = 12};
  char path[128];
  khost__json_writer *w;
  khost__err err;
  khost__report_doc doc;
  scratch_dir_path(path, sizeof path, "run.json");
  cr_assert_eq(khost__json_open(path, &info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__json_end(w, 1, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  cr_assert_eq(khost__report_read(path, &doc, &err), KHOST__OK, "%s", err.msg);
  khost__run_info back;
  memset(&back, 0x5a, sizeof back);
  khost__report_run_info(&doc, &back);
  cr_expect_eq(memcmp(&back, &info, sizeof info), 0, "every field, the unknown ones 0");
  khost__report_free(&doc);
}
