/* End to end, --devices: a run spread over several workers gives a plain run's
 * rows (statuses, messages, counts, errors), in its order, each with the
 * ordinal of its lane; its wall time falls with the lanes; khost merge takes
 * such reports; bad lists and flags that exclude it exit 2. GPUs are hidden
 * (CUDA_VISIBLE_DEVICES empty), so that a list names CPU workers on any machine
 * and every CUDA row is SKIP alike in both runs. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

TestSuite(devices, .init = make_scratch, .fini = remove_scratch, .timeout = 180);

static const char *const no_gpu[] = {"CUDA_VISIBLE_DEVICES=", NULL};

/* khost with no GPU visible, which must pass (exit 0); its stdout, which the caller frees. */
static char *pass(const char *const *args)
{
  outcome o;
  run_env(&o, no_gpu, args);
  cr_assert_eq(o.status, 0, "%s", o.err);
  char *out = strdup(o.out);
  free_outcome(&o);
  return out;
}
#define PASS(...) pass((const char *const[]){__VA_ARGS__, NULL})

static double number_at(json_t *row, const char *object, const char *key)
{
  return json_number_value(json_object_get(json_object_get(row, object), key));
}

/* spread's rows are whole's, one for one and in order, but for times; the
 * case at place p (in order of appearance) ran on ordinals[p % nlanes]
 * (ordinals NULL: not checked). */
static void expect_same_rows(json_t *whole, json_t *spread, const int *ordinals, int nlanes)
{
  json_t *a = json_object_get(whole, "rows"), *b = json_object_get(spread, "rows");
  cr_assert_gt(json_array_size(a), 0);
  cr_assert_eq(json_array_size(a), json_array_size(b));
  int place = -1;
  const char *last_case = "";
  for (size_t i = 0; i < json_array_size(a); i++) {
    json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
    static const char *const same[] = {"case", "op", "params", "backend", "device", "status", "message"};
    for (size_t k = 0; k < sizeof same / sizeof *same; k++)
      cr_expect_str_eq(json_text(x, same[k]), json_text(y, same[k]), "rows[%zu].%s", i, same[k]);
    static const char *const check[] = {"count", "mismatches", "unwritten", "max_abs", "max_rel", "mean_abs"};
    for (size_t k = 0; k < sizeof check / sizeof *check; k++)
      cr_expect(number_at(x, "check", check[k]) == number_at(y, "check", check[k]), "rows[%zu].check.%s", i,
                check[k]);
    cr_expect_eq(json_integer_value(json_object_get(x, "case_index")),
                 json_integer_value(json_object_get(y, "case_index")));
    if (strcmp(last_case, json_text(x, "case"))) place++, last_case = json_text(x, "case");
    if (ordinals)
      cr_expect_eq(json_integer_value(json_object_get(y, "device_ordinal")), ordinals[place % nlanes],
                   "rows[%zu] (case %s) ran on lane %d", i, last_case, place % nlanes);
    cr_expect(json_is_null(json_object_get(y, "device_name")), "no GPU came up");
  }
  json_t *ca = json_object_get(json_object_get(whole, "summary"), "counts");
  json_t *cb = json_object_get(json_object_get(spread, "summary"), "counts");
  cr_expect(json_equal(ca, cb), "the summary's counts are equal");
}

Test(devices, a_spread_run_has_the_plain_run_s_rows_in_order)
{
  char *whole = scratch_path("whole.json"), *spread = scratch_path("spread.json");
  free(PASS("--suite", "smoke", "--backends", "reference", FAST, "--quiet", "--json", whole));
  char *out = PASS("--suite", "smoke", "--backends", "reference", FAST, "--quiet", "--devices", "2,0,1",
                   "--json", spread);
  cr_expect(strstr(out, "  backend    device  ordinal  status"), "the table shows the ordinal:\n%s", out);
  free(out);
  json_t *a = load_json(whole), *b = load_json(spread);
  static const int ordinals[] = {2, 0, 1};
  expect_same_rows(a, b, ordinals, 3);
  json_t *devices = json_object_get(json_object_get(b, "run"), "devices");
  cr_assert_eq(json_array_size(devices), 3, "one entry per listed device");
  for (size_t i = 0; i < 3; i++)
    cr_expect_eq(json_integer_value(json_object_get(json_array_get(devices, i), "ordinal")), ordinals[i]);
  cr_expect_eq(json_array_size(json_object_get(json_object_get(a, "run"), "devices")), 0,
               "a plain run without a GPU has no device");
  json_decref(a);
  json_decref(b);
  free(whole), free(spread);
}

/* Eight cases of 0.4 s asleep each: four lanes at once take about a quarter of
 * one lane's time. Sleeps overlap however loaded the CPU is. */
Test(devices, four_lanes_take_about_a_quarter_of_the_time)
{
  char *suite = NULL;
  cr_assert_geq(asprintf(&suite, "%s/tests/fixtures/suites/good_eight_copies.ini", env("KHOST_SOURCE_ROOT")),
                0);
  double took[2];
  const char *lanes[2] = {"0", "0,1,2,3"};
  for (int i = 0; i < 2; i++) {
    outcome o;
    double start = khost__now_s();
    KHOST_ENV(&o, no_gpu, "--suite", suite, "--plugin", "@fault_sleep.so", "--backends", "fault_sleep", FAST,
              "--min-samples", "1", "--quiet", "--devices", lanes[i]);
    took[i] = khost__now_s() - start;
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_expect_eq(read_summary(o.out).passed, 16, "fault_sleep and the reference's CPU row pass:\n%s", o.out);
    free_outcome(&o);
  }
  cr_expect_geq(took[0], 8 * 0.4, "one lane sleeps 8 x 0.4 s: %.2f s", took[0]);
  cr_expect_lt(took[1], 0.5 * took[0], "four lanes: %.2f s, one lane: %.2f s (ideal ratio 0.25)", took[1],
               took[0]);
  free(suite);
}

/* Shards each spread over lanes merge into the whole run's rows. */
Test(devices, merge_takes_spread_shards)
{
  char *whole = scratch_path("whole.json"), *merged = scratch_path("merged.json");
  char *s0 = scratch_path("s0.json"), *s1 = scratch_path("s1.json");
  free(PASS("--op", "copy_transpose", FAST, "--quiet", "--json", whole));
  free(PASS("--op", "copy_transpose", FAST, "--quiet", "--shard", "0/2", "--devices", "0,1", "--json", s0));
  free(PASS("--op", "copy_transpose", FAST, "--quiet", "--shard", "1/2", "--devices", "0,1", "--json", s1));
  char *out = PASS("merge", s0, s1, "--json", merged);
  cr_expect(strstr(out, " ordinal "), "the merged table shows the ordinal:\n%s", out);
  free(out);
  json_t *a = load_json(whole), *b = load_json(merged);
  expect_same_rows(a, b, NULL, 0);
  cr_expect_eq(json_array_size(json_object_get(json_object_get(b, "run"), "devices")), 2,
               "devices 0 and 1, named alike by both shards, once each");
  json_decref(a);
  json_decref(b);
  free(whole), free(merged), free(s0), free(s1);
}

static void expect_refused(const char *const *envs, const char *message, const char *const *args)
{
  outcome o;
  run_env(&o, envs, args);
  cr_expect_eq(o.status, 2, "%s", o.err);
  cr_expect(strstr(o.err, message), "'%s' not in:\n%s", message, o.err);
  cr_expect_eq(o.out[0], '\0', "nothing ran:\n%s", o.out);
  free_outcome(&o);
}

#define REFUSED(envs, message, ...)                                                                          \
  expect_refused((envs), (message), (const char *const[]){__VA_ARGS__, NULL})

Test(devices, bad_lists_and_excluded_flags_exit_2)
{
  REFUSED(NULL, "--devices '0,x': 'x' is not a device ordinal", "--devices", "0,x");
  REFUSED(NULL, "--devices '1,1' names device 1 twice", "--devices", "1,1");
  REFUSED(NULL, "--device and --devices together", "--devices", "0", "--device", "0");
  REFUSED(NULL, "--devices needs isolated workers", "--devices", "0,1", "--no-isolate");
  REFUSED(no_gpu, "--devices all: no CUDA device is visible", "--devices", "all");
}
