/* End to end on a GPU: the CUDA faults, the timing modes, the built GPU
 * plugins on the smoke suite, and the SM clock. Every test skips where there is
 * no GPU. meson test runs this file alone and one test at a time (--jobs 1), as
 * parallel contexts would time-slice the GPU under timed kernels; so does
 * tools/gpu-check.sh. */
#include "support.h"

#include <criterion/parameterized.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda.h"

/* Ends the test as skipped, with the reason, where there is no usable GPU. */
static void skip_without_gpu(void)
{
  char why[512];
  if (!khost__cuda_available(0, why, sizeof why)) SKIP_TEST("%s", why);
}

/* --------------------------------------------------------------- GPU faults */

TestSuite(gpu_faults, .init = make_scratch, .fini = remove_scratch, .timeout = 180);

/* A plugin whose supports() queues a faulting kernel breaks the context outside any
 * call: its row is the CRASH, and the backend after it, in a fresh worker, passes. */
Test(gpu_faults, a_fault_left_by_a_plugin_s_preparation_is_blamed_on_it)
{
  skip_without_gpu();
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_cuda_supports_faults.so", "--plugin",
             "@fault_cuda_free.so", "--backends", "reference,fault_cuda_supports_faults,fault_cuda_free");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_cuda_supports_faults", "CRASH");
  expect_row(&o, COPY_CASE, "fault_cuda_free", "PASS");
  json_t *doc = report(&o);
  expect_json_row(doc, COPY_CASE, "fault_cuda_supports_faults", "CRASH",
                  "after the plugin's init and preparation");
  expect_json_row(doc, COPY_CASE, "fault_cuda_supports_faults", "CRASH", "cudaErrorIllegalAddress");
  free_outcome(&o);
}

/* The GPU-specific faults in one run, next to passing rows. */
Test(gpu_faults, each_cuda_fault_is_caught_and_the_rest_still_pass)
{
  skip_without_gpu();
  static const struct {
    const char *plugin, *status, *message;
  } faults[] = {
      {"fault_cuda_free", "PASS", NULL},
      {"fault_cuda_no_write", "FAIL", "never written"},
      {"fault_cuda_other_stream", "ERROR", "another stream"},
      {"fault_cuda_illegal_address", "CRASH", "cudaErrorIllegalAddress"},
      {"fault_cuda_write_past_end", "FAIL", "past the end"},
  };
  outcome o;
  KHOST_JSON(
      &o, FAST, "--case", COPY_CASE, "--plugin", "@fault_cuda_free.so", "--plugin", "@fault_cuda_no_write.so",
      "--plugin", "@fault_cuda_other_stream.so", "--plugin", "@fault_cuda_illegal_address.so", "--plugin",
      "@fault_cuda_write_past_end.so", "--backends",
      "reference,fault_cuda_free,fault_cuda_no_write,fault_cuda_other_stream,fault_cuda_illegal_address,"
      "fault_cuda_write_past_end");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  json_t *doc = report(&o);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
    expect_row(&o, COPY_CASE, faults[i].plugin, faults[i].status);
    json_t *row = json_row(doc, COPY_CASE, faults[i].plugin);
    cr_assert_not_null(row, "%s: no JSON row", faults[i].plugin);
    if (faults[i].message)
      cr_expect_not_null(strstr(json_text(row, "message"), faults[i].message), "%s: message '%s' lacks '%s'",
                         faults[i].plugin, json_text(row, "message"), faults[i].message);
  }
  /* Only a poisoned device output shows what the kernel never wrote: the message's
   * "never written" would match "(0 never written)" too. */
  json_t *check = json_object_get(json_row(doc, COPY_CASE, "fault_cuda_no_write"), "check");
  cr_expect_eq(json_integer_value(json_object_get(check, "unwritten")), COPY_ELEMENTS);
  free_outcome(&o);
}

/* ------------------------------------------------------------ GPU timing modes */

TestSuite(gpu_modes, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* Each way of timing a CUDA call other than the default cold one: the flag and
 * its value ("" for none). */
typedef struct gpu_mode {
  char flag[24], value[8];
} gpu_mode;

static gpu_mode gpu_mode_table[] = {{"--graph", "20"}, {"--hot", ""}, {"--no-blocking-kernel", ""}};

ParameterizedTestParameters(gpu_modes, each_mode_times_the_reference_cuda_row_and_it_passes)
{
  return cr_make_param_array(gpu_mode, gpu_mode_table, sizeof gpu_mode_table / sizeof gpu_mode_table[0]);
}

ParameterizedTest(gpu_mode *m, gpu_modes, each_mode_times_the_reference_cuda_row_and_it_passes)
{
  skip_without_gpu();
  outcome o;
  if (m->value[0])
    KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--backends", "reference", m->flag, m->value);
  else
    KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--backends", "reference", m->flag);
  cr_expect_eq(o.status, 0, "%s: exit %d; stderr:\n%s", m->flag, o.status, o.err);
  json_t *doc = report(&o), *row;
  size_t i, timed = 0;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    if (strcmp(json_text(row, "device"), "cuda") != 0) continue;
    cr_expect_str_eq(json_text(row, "status"), "PASS", "%s: %s", m->flag, json_text(row, "message"));
    json_t *time = json_object_get(row, "time");
    cr_expect_gt(json_integer_value(json_object_get(time, "samples")), 0, "%s: no samples", m->flag);
    cr_expect_gt(json_number_value(json_object_get(time, "median_s")), 0, "%s: no time", m->flag);
    timed++;
  }
  cr_expect_eq(timed, 1, "%s: %zu CUDA rows; stdout:\n%s", m->flag, timed, o.out);
  /* The empty kernel is timed as the calls are; a graph's calls have no launch gap to weigh. */
  json_t *empty = json_object_get(json_object_get(doc, "run"), "empty_call_s");
  if (!strcmp(m->flag, "--graph"))
    cr_expect(json_is_null(empty), "--graph: an empty call was measured");
  else
    cr_expect(json_number_value(empty) > 0.3e-6 && json_number_value(empty) < 50e-6, "%s: empty call %g s",
              m->flag, json_number_value(empty));
  free_outcome(&o);
}

/* Where there is a GPU, the build's own GPU plugins must load (--strict) and
 * pass every smoke case on it: a plugin that declined everything, or failed to
 * load, would otherwise leave the suite green. */
Test(gpu_modes, the_built_gpu_plugins_load_and_pass_every_smoke_case)
{
  char backends[64] = "";
  skip_without_gpu();
  static const char *const plugins[][2] = {{"KHOST_CUTE_PLUGIN", "cute"},
                                           {"KHOST_TRITON_AOT_PLUGIN", "triton_aot"},
                                           {"KHOST_VENDOR_PLUGIN", "vendor"}};
  for (int p = 0; p < 3; p++) {
    const char *path = getenv(plugins[p][0]);
    if (path && access(path, R_OK) == 0)
      snprintf(backends + strlen(backends), sizeof backends - strlen(backends), "%s%s",
               backends[0] ? "," : "", plugins[p][1]);
  }
  if (!backends[0]) SKIP_TEST("this build has none of the cute, triton_aot and vendor plugins");
  outcome o;
  KHOST_JSON(&o, FAST, "--strict", "--backends", backends);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  json_t *doc = report(&o), *row;
  size_t i, passed = 0;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    if (!strcmp(json_text(row, "backend"), "reference")) continue;
    /* vendor declines the block shapes cuBLASLt has no scale mode for (docs/VENDOR.md). */
    if (!strcmp(json_text(row, "backend"), "vendor") && !strcmp(json_text(row, "status"), "SKIP") &&
        !strncmp(json_text(row, "message"), "declined: ", 10))
      continue;
    cr_expect_str_eq(json_text(row, "status"), "PASS", "%s on %s: %s", json_text(row, "backend"),
                     json_text(row, "case"), json_text(row, "message"));
    passed += !strcmp(json_text(row, "status"), "PASS");
  }
  cr_expect_gt(passed, 0, "no GPU plugin row; stdout:\n%s", o.out);
  free_outcome(&o);
}

/* --baseline vendor: the speedups of a reduce_sum case are relative to CUB's row,
 * which passes; the reference CUDA row's speedup is CUB's time over its own. */
Test(gpu_modes, the_vendor_libraries_serve_as_the_baseline)
{
  skip_without_gpu();
  const char *path = getenv("KHOST_VENDOR_PLUGIN");
  if (!path || access(path, R_OK) != 0) SKIP_TEST("this build has no vendor plugin");
  outcome o;
  KHOST_JSON(&o, FAST, "--case", "reduce_sum_fp16_128x512", "--baseline", "vendor");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.out, "speedup is relative to backend vendor\n"), "stdout:\n%s", o.out);
  json_t *doc = report(&o), *row, *base = NULL, *cuda = NULL;
  size_t i;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    if (strcmp(json_text(row, "device"), "cuda") != 0) continue;
    if (!strcmp(json_text(row, "backend"), "vendor")) base = row;
    if (!strcmp(json_text(row, "backend"), "reference")) cuda = row;
  }
  cr_assert(base && cuda, "stdout:\n%s", o.out);
  cr_expect_str_eq(json_text(base, "status"), "PASS", "%s", json_text(base, "message"));
  cr_expect(json_is_true(json_object_get(base, "is_baseline")));
  cr_expect(json_is_false(json_object_get(cuda, "is_baseline")));
  double base_s = json_number_value(json_object_get(json_object_get(base, "time"), "median_s"));
  double cuda_s = json_number_value(json_object_get(json_object_get(cuda, "time"), "median_s"));
  cr_assert(base_s > 0 && cuda_s > 0, "medians %g and %g", base_s, cuda_s);
  cr_expect_float_eq(json_number_value(json_object_get(cuda, "speedup")), base_s / cuda_s,
                     1e-9 * base_s / cuda_s);
  free_outcome(&o);
}

/* Runs COPY_CASE with the reference and the CUDA fixture `fixture` under --graph
 * graph ("0": off); expects the exit status, the fixture's row status and, unless
 * NULL, message in stdout. */
static void expect_fixture(const char *fixture, const char *graph, int exit_status, const char *status,
                           const char *message)
{
  char plugin[64], backends[96];
  snprintf(plugin, sizeof plugin, "@%s.so", fixture);
  snprintf(backends, sizeof backends, "reference,%s", fixture);
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--graph", graph, "--plugin", plugin, "--backends", backends);
  cr_expect_eq(o.status, exit_status, "%s: exit %d; stdout:\n%s", fixture, o.status, o.out);
  expect_row(&o, COPY_CASE, fixture, status);
  if (message)
    cr_expect_not_null(strstr(o.out, message), "%s: no '%s' in stdout:\n%s", fixture, message, o.out);
  free_outcome(&o);
}

/* A graph of the calls would not hold work sent to another stream either. */
Test(gpu_modes, under_graph_timing_work_on_another_stream_is_still_an_error)
{
  skip_without_gpu();
  expect_fixture("fault_cuda_other_stream", "20", 1, "ERROR", "another stream");
}

/* --graph really captures the timed calls: a kernel that refuses a second captured
 * call passes the default timing (whose stream check captures one call) and fails
 * under --graph. */
Test(gpu_modes, graph_timing_captures_the_calls_it_times)
{
  skip_without_gpu();
  expect_fixture("fault_cuda_captured_once", "0", 0, "PASS", NULL);
  expect_fixture("fault_cuda_captured_once", "20", 1, "ERROR", "a second capture is refused on purpose");
}

/* A kernel flagged KHOST_KERNEL_NOT_CAPTURABLE that waits for its stream inside
 * run() is checked and timed without a graph: it passes, and under --graph its row
 * says the graph was not applied (the table's note, the JSON's flag). */
Test(gpu_modes, a_kernel_that_waits_on_the_host_is_timed_without_a_graph)
{
  skip_without_gpu();
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--graph", "20", "--plugin", "@fault_cuda_host_wait.so",
             "--backends", "reference,fault_cuda_host_wait");
  cr_expect_eq(o.status, 0, "exit %d; stdout:\n%s", o.status, o.out);
  expect_row(&o, COPY_CASE, "fault_cuda_host_wait", "PASS");
  cr_expect_not_null(strstr(o.out, "--graph not applied: the kernel waits on the host"), "stdout:\n%s",
                     o.out);
  json_t *doc = report(&o);
  json_t *time = json_object_get(json_row(doc, COPY_CASE, "fault_cuda_host_wait"), "time");
  cr_expect(json_is_true(json_object_get(time, "graph_not_applied")));
  cr_expect_gt(json_integer_value(json_object_get(time, "samples")), 0);
  time = json_object_get(json_row(doc, COPY_CASE, "reference"), "time");
  cr_expect(json_is_false(json_object_get(time, "graph_not_applied")), "the reference's calls are captured");
  free_outcome(&o);
}

/* Such a kernel's stream check runs one call uncaptured and waits for its stream
 * alone: work it leaves unfinished on another stream shows as poison, an ERROR. */
Test(gpu_modes, an_uncaptured_call_s_unfinished_work_on_another_stream_is_an_error)
{
  skip_without_gpu();
  expect_fixture("fault_cuda_late_other_stream", "0", 1, "ERROR",
                 "waiting for its stream alone after one call left");
}

/* ---------------------------------------------------------------- SM clock */

TestSuite(gpu_clock, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* The rated SM clock of the run's device (0 without one). */
static double rated_mhz(json_t *doc)
{
  return json_number_value(json_object_get(json_object_get(doc, "run"), "sm_clock_mhz"));
}

/* A CPU row has no SM clock; a timed CUDA row has the one its samples measured:
 * at most the rated clock (plus the stamps' error), and far above zero. */
Test(gpu_clock, timed_cuda_rows_carry_the_measured_sm_clock_and_cpu_rows_none)
{
  skip_without_gpu();
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--backends", "reference");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  json_t *doc = report(&o);
  size_t i, cuda_rows = 0;
  json_t *row;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    json_t *time = json_object_get(row, "time");
    double mhz = json_number_value(json_object_get(time, "sm_mhz"));
    if (strcmp(json_text(row, "device"), "cuda") != 0) {
      cr_expect(json_is_null(json_object_get(time, "sm_mhz")), "CPU row with a clock");
      continue;
    }
    if (json_integer_value(json_object_get(time, "samples")) == 0) continue;
    cuda_rows++;
    cr_expect(mhz >= 100 && mhz <= 1.02 * rated_mhz(doc), "CUDA row at %g MHz, rated %g", mhz,
              rated_mhz(doc));
  }
  cr_expect_eq(cuda_rows, (size_t)reference_cuda_rows(), "every reference CUDA row timed, with its clock");
  free_outcome(&o);
}

/* A cold run measures the empty kernel, heads the table with it, and notes every
 * CUDA row timed under twice its time, and no other row. */
Test(gpu_clock, rows_near_the_empty_kernels_time_are_noted_and_no_others)
{
  skip_without_gpu();
  outcome o;
  KHOST_JSON(&o, FAST);
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  json_t *doc = report(&o), *row;
  double empty = json_number_value(json_object_get(json_object_get(doc, "run"), "empty_call_s"));
  cr_assert(empty > 0.3e-6 && empty < 50e-6, "empty call %g s", empty);
  cr_expect_not_null(strstr(o.out, " | empty kernel "), "header; stdout:\n%s", o.out);
  /* CUDA event times are quantized, so a median can equal twice the empty time exactly, and the
   * JSON's 15 significant digits may round either of them across the line: such a row may or may
   * not carry a note. Every row clearly under the line must, and none clearly above it may. */
  const double line = 2 * empty, margin = 1e-12;
  size_t i, under = 0, at_most = 0, notes = 0;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    json_t *time = json_object_get(row, "time");
    if (strcmp(json_text(row, "device"), "cuda") || !json_integer_value(json_object_get(time, "samples")))
      continue;
    double median = json_number_value(json_object_get(time, "median_s"));
    under += median < line * (1 - margin);
    at_most += median < line * (1 + margin);
  }
  for (const char *p = o.out; (p = strstr(p, "is launch and event overhead")); p++) notes++;
  /* Smoke's cases are tiny: on an H200 every one of its CUDA rows times under the line, so some must. */
  cr_expect_gt(under, 0, "no row under %g s; stdout:\n%s", line, o.out);
  cr_expect(notes >= under && notes <= at_most,
            "%zu notes for %zu rows under %g s (%zu at most); stdout:\n%s", notes, under, line, at_most,
            o.out);
  free_outcome(&o);
}

/* With the floor at the rated clock, no kept sample may have run under it: each
 * timed row's lowest kept clock is at or above the floor, and a row left with
 * no sample is an ERROR that says why. That holds on any GPU. Whether samples
 * are dropped at all is the hardware's doing: on an H100 and an H200 the stamps
 * of short kernels read 1971-1987 MHz around a 1980 MHz clock, so there some
 * are; a GPU whose stamps never read low gets a note that the dropping path went
 * unexercised (test_bench covers that path). Notes are logged as info, not as
 * warnings: Criterion 2.4.1 exits 1 after any warning, though every test passed. */
Test(gpu_clock, a_floor_at_the_rated_clock_keeps_only_samples_at_or_above_it)
{
  skip_without_gpu();
  outcome o;
  KHOST_JSON(&o, "--max-time", "0.3", "--warmup", "0.05", "--case", COPY_CASE "," GEMV_CASE, "--backends",
             "reference", "--throttle", "100");
  json_t *doc = report(&o);
  size_t i, cuda_rows = 0;
  json_int_t all_dropped = 0;
  json_t *row;
  json_array_foreach(json_object_get(doc, "rows"), i, row)
  {
    if (strcmp(json_text(row, "device"), "cuda") != 0) continue;
    cuda_rows++;
    json_t *time = json_object_get(row, "time");
    json_int_t kept = json_integer_value(json_object_get(time, "samples"));
    json_int_t dropped = json_integer_value(json_object_get(time, "throttled"));
    all_dropped += dropped;
    json_t *lowest = json_object_get(time, "sm_mhz_min");
    if (kept > 0) {
      /* null: no kept sample's clock was known (SM 0 ran no stamp), so none could be dropped. */
      if (json_is_null(lowest))
        cr_log_info("%s: no clock known, the floor was not applied", json_text(row, "case"));
      else
        cr_expect_geq(json_number_value(lowest), rated_mhz(doc),
                      "%s: a kept sample ran at %g MHz, under the floor %g", json_text(row, "case"),
                      json_number_value(lowest), rated_mhz(doc));
      cr_expect_str_eq(json_text(row, "status"), "PASS");
    } else {
      cr_expect_str_eq(json_text(row, "status"), "ERROR");
      cr_expect_gt(dropped, 0);
      cr_expect(strstr(json_text(row, "message"), "--throttle"), "%s", json_text(row, "message"));
    }
  }
  cr_expect_eq(cuda_rows, 2, "one CUDA reference row per case:\n%s", o.out);
  if (all_dropped == 0) cr_log_info("no sample fell under the rated clock: only the kept side was checked");
  free_outcome(&o);
}
