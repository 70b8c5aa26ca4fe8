/* End to end, which backends run and how they are ranked: --backends,
 * --reference and --baseline, and the speedups a failing row or baseline loses. */
#include "support.h"

#include <string.h>

TestSuite(backends, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

Test(backends, unknown_backend_or_baseline_exits_2_listing_loaded_backends)
{
  static const struct {
    const char *flag, *value, *message;
  } cases[] = {
      {"--backends", "fault_free,nope", "unknown backend 'nope'"},
      {"--backends", " , ", "--backends ' , ' names no backend"},
      {"--backends", "", "--backends '' names no backend"},
      {"--baseline", "nope", "unknown baseline backend 'nope'"},
      {"--reference", "nope", "unknown reference backend 'nope'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    outcome o;
    KHOST(&o, FAST, "--plugin", "@fault_free.so", cases[i].flag, cases[i].value);
    cr_expect_eq(o.status, 2, "%s %s: exit %d", cases[i].flag, cases[i].value, o.status);
    cr_expect_not_null(strstr(o.err, cases[i].message), "stderr lacks '%s':\n%s", cases[i].message, o.err);
    const char *loaded = strstr(o.err, "loaded backends:");
    cr_expect(loaded && strstr(loaded, "reference") && strstr(loaded, "fault_free"),
              "the loaded backends should be listed:\n%s", o.err);
    cr_expect_null(strstr(o.out, "summary:"));
    free_outcome(&o);
  }
}

/* The oracle checks every row: a reference without a CPU kernel for a selected op
 * is refused before anything runs (it once left such cases with no row at all). */
Test(backends, a_reference_without_a_cpu_kernel_for_a_selected_op_exits_2)
{
  outcome o;
  KHOST(&o, FAST, "--op", "reduce_sum", "--plugin", "@fault_free.so", "--reference", "fault_free",
        "--backends", "fault_free");
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "reference backend 'fault_free' has no CPU kernel for reduce_sum"),
                     "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"), "nothing should run:\n%s", o.out);
  free_outcome(&o);
}

/* A backend named in --backends with no kernel for any selected case would get
 * no row at all: refused before anything runs, naming the ops. */
Test(backends, a_backend_with_no_kernel_for_any_selected_op_exits_2)
{
  outcome o;
  KHOST(&o, FAST, "--op", "reduce_sum", "--plugin", "@fault_free.so", "--backends", "reference,fault_free");
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err,
                            "backend 'fault_free' has no kernel for any selected op (reduce_sum); leave "
                            "it out of --backends"),
                     "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"), "nothing should run:\n%s", o.out);
  free_outcome(&o);
  /* One selected case of its ops is enough. */
  KHOST(&o, FAST, "--case", "tiny_single,reduce_sum_*", "--plugin", "@fault_free.so", "--backends",
        "fault_free");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, GEMV_CASE, "fault_free", "PASS");
  free_outcome(&o);
}

Test(backends, backends_selects_plugins_and_the_reference_always_runs)
{
  outcome o;
  /* Read as --op and --case are: blanks around a name and empty items do not count. */
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_free.so", "--plugin", "@fault_status.so",
        "--backends", " fault_free ,");
  cr_assert_eq(o.status, 0, "the erroring plugin was not selected, so nothing fails; stdout:\n%s", o.out);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  cr_expect_not(find_row(o.out, COPY_CASE, "fault_status").found, "fault_status was not selected:\n%s",
                o.out);
  free_outcome(&o);
}

Test(backends, baseline_is_the_backend_speedups_are_relative_to)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_free.so", "--backends", "fault_free",
             "--baseline", "fault_free");
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.out, "speedup is relative to backend fault_free\n"), "stdout:\n%s", o.out);
  json_t *doc = report(&o);
  json_t *base = json_row(doc, COPY_CASE, "fault_free"), *ref = json_row(doc, COPY_CASE, "reference");
  cr_assert(base && ref);
  cr_expect(json_is_true(json_object_get(base, "is_baseline")));
  cr_expect(json_is_false(json_object_get(ref, "is_baseline")));
  cr_expect_float_eq(json_real_value(json_object_get(base, "speedup")), 1.0, 1e-12);
  /* The other row's speedup is the baseline's time over its own, and its rate
   * its bytes over its time: the numbers the table ranks by. */
  double base_s = json_number_value(json_object_get(json_object_get(base, "time"), "median_s"));
  double ref_s = json_number_value(json_object_get(json_object_get(ref, "time"), "median_s"));
  cr_assert(base_s > 0 && ref_s > 0, "medians %g and %g", base_s, ref_s);
  cr_expect_float_eq(json_number_value(json_object_get(ref, "speedup")), base_s / ref_s,
                     1e-9 * base_s / ref_s);
  double bytes = json_number_value(json_object_get(ref, "bytes"));
  cr_expect_gt(bytes, 0);
  cr_expect_float_eq(json_number_value(json_object_get(ref, "gbps")), bytes / ref_s / 1e9,
                     1e-9 * bytes / ref_s / 1e9);
  free_outcome(&o);
}

/* --baseline names any loaded plugin, the vendor libraries too; without a GPU its
 * row is a SKIP and the run still succeeds (tests/e2e/gpu.c checks the speedups on one). */
Test(backends, the_vendor_plugin_is_accepted_as_the_baseline)
{
  const char *path = getenv("KHOST_VENDOR_PLUGIN");
  if (!path || !*path) cr_skip_test("this build has no vendor plugin");
  outcome o;
  KHOST_JSON(&o, FAST, "--case", "reduce_sum_fp16_128x512", "--baseline", "vendor");
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.out, "speedup is relative to backend vendor\n"), "stdout:\n%s", o.out);
  json_t *row = json_row(report(&o), "reduce_sum_fp16_128x512", "vendor");
  cr_assert_not_null(row, "stdout:\n%s", o.out);
  /* Here the GPU row may not pass (no GPU), and a baseline that did not pass marks no row. */
  if (!strcmp(json_text(row, "status"), "PASS"))
    cr_expect(json_is_true(json_object_get(row, "is_baseline")));
  else
    cr_expect(json_is_false(json_object_get(row, "is_baseline")), "%s", json_text(row, "status"));
  free_outcome(&o);
}

Test(backends, a_failing_row_gets_no_speedup)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_no_write.so", "--backends", "fault_no_write");
  cr_assert_eq(o.status, 1, "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  json_t *bad = json_row(doc, COPY_CASE, "fault_no_write");
  cr_assert_not_null(bad);
  cr_expect_str_eq(json_text(bad, "status"), "FAIL");
  cr_expect(json_is_null(json_object_get(bad, "speedup")), "a FAIL row must not be ranked");
  free_outcome(&o);
}

/* A baseline that failed (at its first timed call, a result kept from its first
 * check) is no yardstick: nobody gets a speedup. */
Test(backends, a_failing_baseline_gives_no_speedups)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_cached.so", "--plugin", "@fault_free.so",
             "--backends", "fault_cached,fault_free", "--baseline", "fault_cached");
  cr_assert_eq(o.status, 1, "stderr:\n%s", o.err);
  json_t *doc = report(&o);
  json_t *cached = json_row(doc, COPY_CASE, "fault_cached"),
         *free_row = json_row(doc, COPY_CASE, "fault_free");
  cr_assert(cached && free_row);
  cr_expect_str_eq(json_text(cached, "status"), "FAIL");
  cr_expect_str_eq(json_text(free_row, "status"), "PASS");
  cr_expect(json_is_null(json_object_get(free_row, "speedup")), "no speedup over a failed baseline");
  cr_expect(json_is_null(json_object_get(json_row(doc, COPY_CASE, "reference"), "speedup")));
  free_outcome(&o);
}
