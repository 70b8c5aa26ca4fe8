/* End to end, fresh inputs for every timed call: each cheat that keeps results
 * (tests/plugins/cache.c) fails, naming the call, or never served a kept result
 * (so it worked on every call and was timed on its work); one wrong call of many
 * fails its row; honest rows pass with every timed call checked. */
#include "support.h"

#include <criterion/parameterized.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(fresh, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

typedef struct cheat {
  char backend[32];
  int must_fail; /* its key sees every call as a repeat: it wins only if khost is fooled */
} cheat;

static cheat cheats[] = {
    {"cache_sample", 0},    {"cache_samples", 0}, {"cache_address", 1},
    {"cache_workspace", 1}, {"cache_count", 1},
};

ParameterizedTestParameters(fresh, a_kept_result_never_passes)
{
  return cr_make_param_array(cheat, cheats, sizeof cheats / sizeof cheats[0]);
}

/* Enough timed calls (0.05 s of them) that a cache keyed by content would meet a repeat if there were one. */
ParameterizedTest(cheat *c, fresh, a_kept_result_never_passes)
{
  char plugin[64], *log = scratch_path("hits.log"), *entry = NULL;
  snprintf(plugin, sizeof plugin, "@%s.so", c->backend);
  cr_assert(asprintf(&entry, "KHOST_TEST_CACHE_LOG=%s", log) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, "--max-time", "0.05", "--min-time", "0.05", "--warmup", "0", "--case", COPY_CASE,
            "--plugin", plugin, "--backends", c->backend, "--json", report_path());
  char *hits = slurp(log);
  /* A hit on pass 1's inputs (the timed check's, again) returns their right output: no win. */
  int won = hits && strstr(hits, "hit\n");
  json_t *row = json_row(report(&o), COPY_CASE, c->backend);
  cr_assert_not_null(row, "no row; stdout:\n%s", o.out);
  const char *status = json_text(row, "status"), *message = json_text(row, "message");
  if (c->must_fail || won) {
    cr_expect_str_eq(status, "FAIL", "%s served %s kept results and was not failed", c->backend,
                     won ? "some" : "no");
    cr_expect(strstr(message, "timed call ") && strstr(message, "on inputs no earlier call had seen"),
              "message: %s", message);
    cr_expect_eq(o.status, 1);
  } else {
    /* Never a repeat, so never a kept result: its time is that of its work. */
    cr_expect_str_eq(status, "PASS", "message: %s", message);
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(row, "time"), "samples")), 1);
  }
  free(hits);
  free(entry);
  free(log);
  free_outcome(&o);
}

/* A failure names the call: the first kept result (call 1 of the warm-up for a
 * cache keyed by address) is the one reported, with that call's counts (all but
 * the elements the variation happened to leave as they were). */
Test(fresh, the_failing_call_is_named_with_its_counts)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--plugin", "@cache_address.so", "--backends", "cache_address");
  json_t *row = json_row(report(&o), COPY_CASE, "cache_address");
  cr_assert_not_null(row);
  const char *message = json_text(row, "message");
  cr_expect_eq(strncmp(message, "timed call 1 (warm-up) left ", 28), 0, "message: %s", message);
  cr_expect(strstr(message,
                   " of 6400 elements out of tolerance (0 never written) on inputs no earlier call had "
                   "seen: a result kept from an earlier call, or work skipped?"),
            "message: %s", message);
  json_t *check = json_object_get(row, "check");
  cr_expect_gt(json_integer_value(json_object_get(check, "mismatches")), 6000);
  free_outcome(&o);
}

/* One element one bit off on one timed call of many (fault_once: its process's
 * 6th call; the 1st is pass 1's, the 2nd the warm-up's) fails the row, naming
 * that call and only its counts. */
Test(fresh, one_wrong_call_of_many_fails_the_row)
{
  outcome o;
  KHOST_JSON(&o, "--max-time", "0.05", "--min-time", "0.05", "--warmup", "0", "--case", COPY_CASE, "--plugin",
             "@fault_once.so", "--backends", "fault_once");
  json_t *row = json_row(report(&o), COPY_CASE, "fault_once");
  cr_assert_not_null(row, "no row; stdout:\n%s", o.out);
  cr_expect_str_eq(json_text(row, "status"), "FAIL");
  cr_expect_str_eq(
      json_text(row, "message"),
      "timed call 5 (sample 4) left 1 of 6400 elements out of tolerance (0 never written) on inputs no "
      "earlier call had seen: a result kept from an earlier call, or work skipped?");
  cr_expect_eq(json_integer_value(json_object_get(json_object_get(row, "check"), "mismatches")), 1);
  cr_expect_eq(o.status, 1);
  free_outcome(&o);
}

/* The reference's CPU kernel on every op: each timed call on its own inputs, each
 * checked against the oracle's outputs moved and signed alike, and all pass. */
Test(fresh, honest_rows_pass_with_every_timed_call_checked)
{
  outcome o;
  KHOST(&o, "--max-time", "0.02", "--warmup", "0.005", "--backends", "reference");
  cr_expect_eq(o.status, 0, "stdout:\n%s\nstderr:\n%s", o.out, o.err);
  summary s = read_summary(o.out);
  cr_expect_eq(s.failed + s.errored, 0, "stdout:\n%s", o.out);
  free_outcome(&o);
}
