/* Tests for core/table.c (and the row helpers of core/result.c it prints with):
 * header, one block per case, details under rows that did not pass, aligned
 * columns, and the summary's counts, geometric means and wins. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static khost__row make_row(const char *case_name, const char *backend, khost__row_status status,
                           double median, double speedup)
{
  khost__row r;
  memset(&r, 0, sizeof r);
  snprintf(r.id.case_name, sizeof r.id.case_name, "%s", case_name);
  snprintf(r.id.op, sizeof r.id.op, "reduce_sum");
  snprintf(r.id.params, sizeof r.id.params, "m=7 n=33 dtype=bf16");
  snprintf(r.id.backend, sizeof r.id.backend, "%s", backend);
  snprintf(r.id.device, sizeof r.id.device, "cuda");
  r.measured.status = status;
  r.id.atol = 1e-3;
  r.id.rtol = 2e-2;
  r.id.bytes = 1e6;
  r.id.flops = 2e6;
  if (status == KHOST__ROW_PASS || status == KHOST__ROW_FAIL) {
    r.measured.check.count = 4096;
    r.measured.check.max_abs = 1.5e-4;
    r.measured.check.max_rel = 3e-3;
  }
  if (median > 0) {
    r.measured.time.samples = 50;
    r.measured.time.median = median;
    r.measured.time.noise = 0.75;
    r.derived.gbps = r.id.bytes / median / 1e9;
    r.derived.tflops = r.id.flops / median / 1e12;
  }
  r.derived.speedup = speedup;
  return r;
}

/* The table as one string (caller frees). */
static char *render(const khost__run_info *info, const khost__row *rows, int nrows, const char *baseline)
{
  char *text = NULL;
  size_t size = 0;
  khost__err err = {{0}};
  FILE *f = open_memstream(&text, &size);
  cr_assert_not_null(f);
  cr_assert_eq(khost__table_print(f, info, rows, nrows, baseline, &err), KHOST__OK, "%s", err.msg);
  fclose(f);
  return text;
}

/* The line of text that starts with prefix, copied to line (or "" when none). */
static void find_line(const char *text, const char *prefix, char *line, size_t size)
{
  size_t plen = strlen(prefix);
  line[0] = '\0';
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, prefix, plen) == 0) {
      snprintf(line, size, "%.*s", (int)strcspn(p, "\n"), p);
      return;
    }
  }
}

static khost__run_info sample_info(double peak_gbps)
{
  khost__run_info info;
  memset(&info, 0, sizeof info);
  snprintf(info.khost_version, sizeof info.khost_version, "0.1.0");
  snprintf(info.host, sizeof info.host, "node7");
  snprintf(info.cpu, sizeof info.cpu, "AMD EPYC 9654");
  info.ncpus = 16;
  snprintf(info.device, sizeof info.device, "NVIDIA H100 80GB HBM3");
  info.sm_count = 132;
  info.l2_bytes = (size_t)50 << 20;
  info.sm_clock_mhz = 1980;
  info.mem_clock_mhz = 2619;
  info.peak_gbps = peak_gbps;
  info.cuda_driver = 12080;
  info.cuda_runtime = 13000;
  snprintf(info.suite, sizeof info.suite, "suites/smoke.ini");
  return info;
}

Test(table, header_describes_host_device_and_suite)
{
  khost__run_info info = sample_info(3012.5);
  khost__row row = make_row("c1", "cute", KHOST__ROW_PASS, 1e-3, 1);
  char *text = render(&info, &row, 1, "reference");
  const char *expected[] = {
      "khost 0.1.0",
      "host node7",
      "cpu AMD EPYC 9654",
      "16 cpus",
      "device NVIDIA H100 80GB HBM3",
      "132 SMs",
      "L2 50.0 MiB",
      "SM 1980 MHz",
      "memory 2619 MHz",
      "measured copy peak 3012.5 GB/s",
      "CUDA driver 12.8, runtime 13.0",
      "suite suites/smoke.ini",
      "relative to backend reference",
  };
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
    cr_expect_not_null(strstr(text, expected[i]), "missing \"%s\" in:\n%s", expected[i], text);
  free(text);
}

/* Under twice the empty kernel's time a GPU row says that overhead dominates it;
 * a longer one, a CPU row, or a run without the measurement says nothing. */
Test(table, gpu_times_near_the_empty_kernel_are_noted_under_their_row)
{
  khost__run_info info = sample_info(3012.5);
  info.empty_call_s = 2.5e-6;
  khost__row rows[3] = {make_row("c1", "short", KHOST__ROW_PASS, 4.9e-6, 1),
                        make_row("c1", "long", KHOST__ROW_PASS, 5.1e-6, 1),
                        make_row("c1", "host", KHOST__ROW_PASS, 1e-6, 1)};
  snprintf(rows[2].id.device, sizeof rows[2].id.device, "cpu");
  static const char note[] =
      "      half or more of this time is launch and event overhead: an empty kernel takes "
      "2.50 us timed the same way\n";
  char *text = render(&info, rows, 3, NULL);
  cr_expect_not_null(strstr(text, "empty kernel 2.50 us"), "header:\n%s", text);
  const char *at = strstr(text, note);
  cr_expect_not_null(at, "%s", text);
  cr_expect(at && strstr(text, "  short ") < at && at < strstr(text, "  long "), "under the short row:\n%s",
            text);
  cr_expect(at && !strstr(at + 1, note), "once:\n%s", text);
  free(text);
  info.empty_call_s = 0;
  text = render(&info, rows, 3, NULL);
  cr_expect_null(strstr(text, "launch and event overhead"), "%s", text);
  cr_expect_null(strstr(text, "empty kernel"), "%s", text);
  free(text);
}

/* A kernel's call overhead (call_overhead()) is noted under its row: inside a
 * CPU row's time, most of it under twice the overhead; host time on a CUDA row.
 * A row without one says nothing. */
Test(table, a_kernels_call_overhead_is_noted_under_its_row)
{
  khost__run_info info = sample_info(0);
  khost__row rows[4] = {
      make_row("c1", "quick", KHOST__ROW_PASS, 5e-6, 1), make_row("c1", "slow", KHOST__ROW_PASS, 50e-6, 1),
      make_row("c1", "gpu", KHOST__ROW_PASS, 5e-6, 1), make_row("c1", "plain", KHOST__ROW_PASS, 1e-6, 1)};
  for (int i = 0; i < 3; i++) rows[i].measured.call_overhead_s = 3e-6;
  snprintf(rows[0].id.device, sizeof rows[0].id.device, "cpu");
  snprintf(rows[1].id.device, sizeof rows[1].id.device, "cpu");
  snprintf(rows[3].id.device, sizeof rows[3].id.device, "cpu");
  char *text = render(&info, rows, 4, NULL);
  const char *tail = ": an empty kernel of this plugin takes 3.00 us called the same way\n";
  const char *heads[3] = {"half or more of this time is call overhead", "call overhead, inside this time",
                          "call overhead, host time"};
  const char *rows_at[5] = {strstr(text, "  quick "), strstr(text, "  slow "), strstr(text, "  gpu "),
                            strstr(text, "  plain "), text + strlen(text)};
  for (int i = 0; i < 3; i++) {
    char note[256];
    snprintf(note, sizeof note, "      %s%s", heads[i], tail);
    const char *at = strstr(text, note);
    cr_expect(at && rows_at[i] < at && at < rows_at[i + 1], "'%s' under row %d:\n%s", note, i, text);
  }
  cr_expect_null(strstr(rows_at[3], "call overhead"), "none under a row without it:\n%s", text);
  free(text);
}

/* A row that --graph was not applied to (its kernel cannot be captured) says so
 * under it; the row beside it, timed in a graph, says nothing. */
Test(table, a_row_timed_without_the_asked_graph_is_noted)
{
  khost__run_info info = sample_info(0);
  khost__row rows[2] = {make_row("c1", "batched", KHOST__ROW_PASS, 5e-6, 1),
                        make_row("c1", "graphed", KHOST__ROW_PASS, 5e-6, 1)};
  rows[0].measured.graph_not_applied = 1;
  char *text = render(&info, rows, 2, NULL);
  const char *note = "      --graph not applied: the kernel waits on the host or enqueues work a CUDA graph "
                     "cannot hold; timed call by call\n";
  const char *at = strstr(text, note), *batched = strstr(text, "  batched "),
             *graphed = strstr(text, "  graphed ");
  cr_assert(batched && graphed, "both rows shown:\n%s", text);
  cr_expect(at && batched < at && at < graphed, "the note under the first row:\n%s", text);
  cr_expect_null(strstr(graphed, "--graph not applied"), "none under the graphed row:\n%s", text);
  free(text);
}

Test(table, no_device_line_without_a_gpu)
{
  khost__run_info info = sample_info(0);
  info.device[0] = '\0';
  khost__row row = make_row("c1", "reference", KHOST__ROW_PASS, 1e-3, 1);
  char *text = render(&info, &row, 1, NULL);
  cr_expect_null(strstr(text, "\ndevice "), "%s", text);
  cr_expect_null(strstr(text, "%peak"), "no peak known, so no %%peak column:\n%s", text);
  free(text);
}

Test(table, row_shows_every_column)
{
  khost__run_info info = sample_info(2000);
  khost__row row = make_row("c1", "cute", KHOST__ROW_PASS, 12.5e-6, 3.25);
  row.derived.gbps = 1234.4;
  row.derived.tflops = 0.0456;
  row.derived.peak_fraction = 0.617;
  row.measured.check.mismatches = 0;
  char *text = render(&info, &row, 1, "reference");
  char line[512];
  find_line(text, "  cute", line, sizeof line);
  const char *cells[] = {"cuda", "PASS", "0.00015", "0.003", "12.50 us",
                         "0.8%", "1234", "0.0456",  "61.7%", "3.25x"};
  for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
    cr_expect_not_null(strstr(line, cells[i]), "missing \"%s\" in \"%s\"", cells[i], line);
  cr_expect_not_null(strstr(text, "case c1 | op reduce_sum | m=7 n=33 dtype=bf16"), "%s", text);
  free(text);
}

Test(table, untimed_and_unchecked_cells_show_a_dash)
{
  khost__row row = make_row("c1", "late", KHOST__ROW_TIMEOUT, 0, 0);
  snprintf(row.measured.message, sizeof row.measured.message, "no answer within 10 s");
  char *text = render(NULL, &row, 1, NULL);
  char line[512], rebuilt[512] = "";
  find_line(text, "  late", line, sizeof line);
  /* backend, device, status, then max abs, max rel, mismatches, time, noise, GB/s, TFLOP/s, speedup. */
  char *save = NULL;
  int n = 0;
  for (char *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), n++)
    if (n >= 3) strcat(rebuilt, tok);
  cr_expect_eq(n, 11, "%s", text);
  cr_expect_str_eq(rebuilt, "--------", "%s", text);
  free(text);
}

Test(table, a_single_sample_shows_no_noise)
{
  khost__row row = make_row("c1", "once", KHOST__ROW_PASS, 1.5, 0);
  row.measured.time.samples = 1;
  row.measured.time.noise = NAN;
  char *text = render(NULL, &row, 1, NULL);
  char line[512];
  find_line(text, "  once", line, sizeof line);
  cr_expect_null(strstr(line, "nan"), "%s", line);
  cr_expect_not_null(strstr(line, " 1.50 s      -  "), "the time, then no noise: %s", line);
  free(text);
}

Test(table, every_status_with_its_details)
{
  khost__row rows[6] = {
      make_row("c1", "reference", KHOST__ROW_PASS, 2e-3, 1),
      make_row("c1", "wrong", KHOST__ROW_FAIL, 1e-3, 0),
      make_row("c1", "picky", KHOST__ROW_SKIP, 0, 0),
      make_row("c1", "broken", KHOST__ROW_ERROR, 0, 0),
      make_row("c1", "segv", KHOST__ROW_CRASH, 0, 0),
      make_row("c1", "slow", KHOST__ROW_TIMEOUT, 0, 0),
  };
  rows[1].measured.check.mismatches = 12;
  rows[1].measured.check.unwritten = 2;
  rows[1].measured.check.nshown = 2;
  rows[1].measured.check.shown[0] = (khost__mismatch){3, "out[row=3]", 1.5, 1.25};
  rows[1].measured.check.shown[1] = (khost__mismatch){40, "out[row=40]", -7, 0.5};
  snprintf(rows[2].measured.message, sizeof rows[2].measured.message,
           "declines n=33: needs a multiple of 64");
  snprintf(rows[3].measured.message, sizeof rows[3].measured.message, "kernel returned 1: bad launch");
  snprintf(rows[4].measured.message, sizeof rows[4].measured.message, "killed by SIGSEGV\nin worker 1234");
  char *text = render(NULL, rows, 6, "reference");
  const char *expected[] = {
      "  reference",
      "PASS",
      "FAIL",
      "SKIP",
      "ERROR",
      "CRASH",
      "TIMEOUT",
      "\n      12 of 4096 elements outside atol 0.001 + rtol 0.02 * |expected|, 2 never written\n",
      "\n        out[row=3] (flat index 3): got 1.5, expected 1.25\n",
      "\n        out[row=40] (flat index 40): got -7, expected 0.5\n",
      "\n      declines n=33: needs a multiple of 64\n",
      "\n      kernel returned 1: bad launch\n",
      "\n      killed by SIGSEGV\n      in worker 1234\n",
      "  slow",
      "\n      (no reason recorded)\n",
      "summary: 6 rows: 1 passed, 1 failed, 1 skipped, 1 errored, 1 crashed, 1 timed out\n",
  };
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
    cr_expect_not_null(strstr(text, expected[i]), "missing \"%s\" in:\n%s", expected[i], text);
  free(text);
}

Test(table, the_sm_clock_column_appears_only_where_a_clock_was_measured)
{
  khost__row rows[2] = {make_row("c1", "reference", KHOST__ROW_PASS, 2e-3, 1),
                        make_row("c1", "cute", KHOST__ROW_PASS, 1e-3, 2)};
  char *text = render(NULL, rows, 2, NULL);
  cr_expect_null(strstr(text, "SM MHz"), "no clock measured, no column:\n%s", text);
  free(text);
  rows[1].measured.time.sm_mhz = 1975.4;
  text = render(NULL, rows, 2, NULL);
  char titles[512], line[512];
  find_line(text, "  backend", titles, sizeof titles);
  find_line(text, "  cute", line, sizeof line);
  const char *title = strstr(titles, "SM MHz"), *cell = strstr(line, " 1975 ");
  cr_assert(title && cell, "%s", text);
  cr_expect_eq(cell + 5 - line, title + 6 - titles, "the clock is right-aligned under its title:\n%s", text);
  free(text);
}

Test(table, discarded_throttled_samples_are_noted_under_their_row)
{
  khost__row rows[2] = {make_row("c1", "reference", KHOST__ROW_PASS, 2e-3, 1),
                        make_row("c1", "cute", KHOST__ROW_PASS, 1e-3, 2)};
  rows[1].measured.time.throttled = 3;
  char *text = render(NULL, rows, 2, NULL);
  const char *note =
      strstr(text, "3 more samples were discarded: the SM clock ran under the --throttle floor");
  cr_assert_not_null(note, "%s", text);
  cr_expect_gt(note, strstr(text, "  cute"), "the note follows its row:\n%s", text);
  cr_expect_null(strstr(strchr(note, '\n'), "discarded"), "one note, for the one row:\n%s", text);
  free(text);
}

Test(table, pass_rows_have_no_detail_line)
{
  khost__row rows[2] = {make_row("c1", "reference", KHOST__ROW_PASS, 2e-3, 1),
                        make_row("c1", "other", KHOST__ROW_PASS, 1e-3, 2)};
  snprintf(rows[0].measured.message, sizeof rows[0].measured.message, "ignored note");
  char *text = render(NULL, rows, 2, NULL);
  cr_expect_null(strstr(text, "ignored note"), "%s", text);
  free(text);
}

/* Every line of a block (titles and rows) has the same width: the columns line up. */
Test(table, columns_are_aligned_across_cases)
{
  khost__run_info info = sample_info(3000);
  khost__row rows[4] = {
      make_row("short", "reference", KHOST__ROW_PASS, 2.5, 1),
      make_row("short", "a-much-longer-backend-name", KHOST__ROW_PASS, 1e-7, 25000000),
      make_row("other", "reference", KHOST__ROW_SKIP, 0, 0),
      make_row("other", "x", KHOST__ROW_PASS, 3e-4, 0),
  };
  rows[1].derived.peak_fraction = 0.5;
  char *text = render(&info, rows, 4, "reference");
  size_t width = 0;
  int lines = 0;
  for (char *p = strstr(text, "\ncase "); p; p = strchr(p + 1, '\n')) {
    const char *line = p + 1;
    size_t len = strcspn(line, "\n");
    if (strncmp(line, "summary:", 8) == 0) break; /* the summary has columns of its own */
    if (strncmp(line, "  ", 2) != 0 || strncmp(line, "      ", 6) == 0) continue;
    if (width == 0) width = len;
    cr_expect_eq(len, width, "line \"%.*s\" is %zu wide, not %zu", (int)len, line, len, width);
    lines++;
  }
  cr_expect_eq(lines, 6, "two title lines and four rows:\n%s", text);
  free(text);
}

/* The variant column appears once a row names its implementation, left-aligned
 * and last, without trailing blanks; rows without a name show a dash. */
Test(table, a_named_implementation_ends_its_row)
{
  khost__run_info info = sample_info(3000);
  khost__row rows[3] = {
      make_row("c1", "reference", KHOST__ROW_PASS, 2e-5, 1),
      make_row("c1", "triton_aot", KHOST__ROW_PASS, 1e-5, 2),
      make_row("c1", "cute", KHOST__ROW_PASS, 1e-5, 2),
  };
  snprintf(rows[1].measured.variant, sizeof rows[1].measured.variant, "softmax_fp16_cluster_c8_n8192_w4");
  snprintf(rows[2].measured.variant, sizeof rows[2].measured.variant, "x");
  char *text = render(&info, rows, 3, "reference");
  char line[512];
  find_line(text, "  backend", line, sizeof line);
  cr_expect(strstr(line, "speedup  variant") && line[strlen(line) - 1] == 't', "titles: \"%s\"", line);
  find_line(text, "  triton_aot", line, sizeof line);
  size_t len = strlen(line), name = strlen("softmax_fp16_cluster_c8_n8192_w4");
  cr_expect(len > name && !strcmp(line + len - name, "softmax_fp16_cluster_c8_n8192_w4"), "\"%s\"", line);
  size_t start = len - name;
  find_line(text, "  cute", line, sizeof line);
  cr_expect_eq(strlen(line), start + 1, "the short name starts in the same column, unpadded: \"%s\"", line);
  cr_expect_eq(line[start], 'x', "\"%s\"", line);
  find_line(text, "  reference", line, sizeof line);
  cr_expect_eq(line[strlen(line) - 1], '-', "no name shows a dash: \"%s\"", line);
  free(text);
  text = render(&info, rows, 1, "reference");
  cr_expect_null(strstr(text, "variant"), "no row names one, no column:\n%s", text);
  free(text);
}

/* The summary line of backend name: device, speedup text, cases and wins. */
static void summary_of(const char *text, const char *name, char *speedup, int *cases, int *wins)
{
  char prefix[80], line[256], backend[64], device[16];
  snprintf(prefix, sizeof prefix, "  %s ", name);
  find_line(strstr(text, "\nsummary:"), prefix, line, sizeof line);
  cr_assert_eq(sscanf(line, "%63s %15s %15s %d %d", backend, device, speedup, cases, wins), 5, "\"%s\"",
               line);
}

Test(table, summary_geomean_and_wins)
{
  khost__row rows[] = {
      make_row("c1", "reference", KHOST__ROW_PASS, 8e-3, 1),
      make_row("c1", "fast", KHOST__ROW_PASS, 4e-3, 2),
      make_row("c1", "wrong", KHOST__ROW_FAIL, 1e-4, 80), /* fastest, but wrong: no win, no speedup */
      make_row("c2", "reference", KHOST__ROW_PASS, 16e-3, 1),
      make_row("c2", "fast", KHOST__ROW_PASS, 2e-3, 8),
      make_row("c3", "reference", KHOST__ROW_PASS, 1e-3, 1),
      make_row("c3", "fast", KHOST__ROW_SKIP, 0, 0),
      make_row("c2", "wrong", KHOST__ROW_FAIL, 1e-4, 160), /* rows of one case need not be adjacent */
  };
  char *text = render(NULL, rows, sizeof rows / sizeof rows[0], "reference");
  char speedup[16];
  int cases, wins;
  summary_of(text, "fast", speedup, &cases, &wins);
  cr_expect_str_eq(speedup, "4.00x");
  cr_expect_eq(cases, 2);
  cr_expect_eq(wins, 2);
  summary_of(text, "reference", speedup, &cases, &wins);
  cr_expect_str_eq(speedup, "1.00x");
  cr_expect_eq(cases, 3);
  cr_expect_eq(wins, 1);
  summary_of(text, "wrong", speedup, &cases, &wins);
  cr_expect_str_eq(speedup, "-");
  cr_expect_eq(cases, 0);
  cr_expect_eq(wins, 0);
  cr_expect_not_null(strstr(text, "summary: 8 rows: 5 passed, 2 failed, 1 skipped, 0 errored"), "%s", text);
  cr_expect_eq(strstr(strstr(text, "\ncase c2"), "  wrong") < strstr(text, "\nsummary"), 1,
               "the late c2 row is printed in the c2 block");
  free(text);
}

Test(table, write_error_is_reported)
{
  FILE *f = fopen("/dev/full", "w");
  if (!f) cr_skip_test("/dev/full is not available");
  khost__row row = make_row("c1", "reference", KHOST__ROW_PASS, 1e-3, 1);
  khost__err err = {{0}};
  cr_expect_eq(khost__table_print(f, NULL, &row, 1, NULL, &err), KHOST__E_IO);
  cr_expect_gt(strlen(err.msg), 0);
  fclose(f);
}

struct seconds_case {
  double seconds;
  const char *text;
};

Test(table, durations_pick_a_readable_unit)
{
  const struct seconds_case cases[] = {
      {8e-7, "800.00 ns"},
      {12.5e-6, "12.50 us"},
      {1.5e-3, "1.50 ms"},
      {2, "2.00 s"},
      {999e-6, "999.00 us"},
      {1e-3, "1.00 ms"},
      {4e-10, "0.40 ns"},
      {0, "-"},
      {-1, "-"},
      {NAN, "-"},
      {INFINITY, "-"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[32];
    khost__format_seconds(cases[i].seconds, buf, sizeof buf);
    cr_expect_str_eq(buf, cases[i].text, "%g s", cases[i].seconds);
  }
}

Test(table, a_plugin_on_two_devices_is_summarised_per_device)
{
  khost__row rows[] = {
      make_row("c1", "reference", KHOST__ROW_PASS, 8e-3, 1),
      make_row("c1", "reference", KHOST__ROW_PASS, 2e-3, 4),
  };
  snprintf(rows[0].id.device, sizeof rows[0].id.device, "cpu");
  khost__summary s;
  khost__summarize(rows, 2, &s);
  cr_assert_eq(s.nbackends, 2);
  cr_expect_str_eq(s.backends[0].device, "cpu");
  cr_expect_str_eq(s.backends[1].device, "cuda");
  cr_expect_float_eq(s.backends[1].geomean_speedup, 4.0, 1e-12);
  cr_expect_eq(s.backends[1].wins, 1);
  cr_expect_eq(s.backends[0].wins, 0);
}
