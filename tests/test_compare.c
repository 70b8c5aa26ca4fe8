/* Tests for core/compare.c: each verdict (SAME, FAST, SLOW) against the
 * tolerance and the noise limit, the exit-status count of rows beyond the
 * tolerance, LOST rows (another status, missing), rows only in one run, rows
 * left out (untimed, under --min-us), variant and SM clock changes, a key
 * twice, and the order of the result. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report_doc.h"

TestSuite(compare, .init = scratch_dir_make, .fini = scratch_dir_remove);

static khost__report_doc run, base;
static khost__comparison c;

static void compare_with(const char *run_rows, const char *base_rows, double min_us, double tolerance)
{
  khost__err err;
  khost__compare_options o = {.min_us = min_us, .tolerance_pct = tolerance};
  cr_assert_eq(report_of("run.json", run_rows, &run, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(report_of("base.json", base_rows, &base, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__compare(&run, &base, &o, &c, &err), KHOST__OK, "%s", err.msg);
}

static void done(void)
{
  khost__comparison_free(&c);
  khost__report_free(&run);
  khost__report_free(&base);
}

Test(compare, within_tolerance_is_same)
{
  compare_with(ROW("a", "k", "PASS", "1.005e-3", "0.1", "null", "null"),
               ROW("a", "k", "PASS", "1.0e-3", "0.1", "null", "null"), 0, 1.0);
  cr_assert_eq(c.nrows, 1);
  cr_expect_float_eq(c.rows[0].diff_pct, 0.5, 1e-9);
  cr_expect_float_eq(c.rows[0].limit_pct, 1.0, 1e-12);
  cr_expect_eq(c.rows[0].verdict, KHOST__SAME);
  cr_expect_eq(c.beyond, 0);
  cr_expect_eq(c.nlost, 0);
  done();
}

Test(compare, slower_and_faster_beyond_the_limit)
{
  compare_with(ROW("a", "k", "PASS", "1.05e-3", "0.1", "null", "null") "," ROW("b", "k", "PASS", "0.95e-3",
                                                                               "0.1", "null", "null"),
               ROW("a", "k", "PASS", "1.0e-3", "0.2", "null", "null") "," ROW("b", "k", "PASS", "1.0e-3",
                                                                              "0.2", "null", "null"),
               0, 1.0);
  cr_assert_eq(c.nrows, 2);
  cr_expect_eq(c.rows[0].verdict, KHOST__SLOW);
  cr_expect_eq(c.rows[1].verdict, KHOST__FAST);
  cr_expect_eq(c.beyond, 2);
  cr_expect_float_eq(c.worst_pct, 5.0, 1e-9);
  cr_expect_str_eq(khost__verdict_name(c.rows[0].verdict), "SLOW");
  cr_expect_str_eq(khost__verdict_name(c.rows[1].verdict), "FAST");
  done();
}

/* The limit is the larger of the tolerance and twice the larger noise; a row
 * inside it is SAME, yet one beyond the tolerance still counts (the exit status). */
Test(compare, the_noise_limit)
{
  static const struct {
    const char *run, *base;
    double tolerance, limit, diff;
    khost__verdict verdict;
    int beyond;
  } cases[] = {
      {ROW("a", "k", "PASS", "1.03e-3", "2.0", "null", "null"),
       ROW("a", "k", "PASS", "1.0e-3", "0.5", "null", "null"), 1.0, 4.0, 3.0, KHOST__SAME, 1},
      {ROW("a", "k", "PASS", "1.25e-3", "null", "null", "null"),
       ROW("a", "k", "PASS", "1.0e-3", "null", "null", "null"), 25.0, 25.0, 25.0, KHOST__SAME, 0},
      {ROW("a", "k", "PASS", "1.05e-3", "2.6", "null", "null"),
       ROW("a", "k", "PASS", "1.0e-3", "0.5", "null", "null"), 1.0, 5.2, 5.0, KHOST__SAME, 1},
      {ROW("a", "k", "PASS", "1.06e-3", "2.6", "null", "null"),
       ROW("a", "k", "PASS", "1.0e-3", "0.5", "null", "null"), 1.0, 5.2, 6.0, KHOST__SLOW, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    compare_with(cases[i].run, cases[i].base, 0, cases[i].tolerance);
    cr_assert_eq(c.nrows, 1);
    cr_expect_float_eq(c.rows[0].limit_pct, cases[i].limit, 1e-9, "case %zu", i);
    cr_expect_float_eq(c.rows[0].diff_pct, cases[i].diff, 1e-9, "case %zu", i);
    cr_expect_eq(c.rows[0].verdict, cases[i].verdict, "case %zu", i);
    cr_expect_eq(c.beyond, cases[i].beyond, "case %zu", i);
    done();
  }
}

Test(compare, lost_rows_name_the_new_status_or_missing)
{
  compare_with(ROW("a", "k", "FAIL", "null", "null", "null", "null"),
               ROW("a", "k", "PASS", "1e-3", "0.1", "null",
                   "null") "," ROW("b", "k", "PASS", "1e-3", "0.1", "null",
                                   "null") "," ROW("c", "k", "FAIL", "null", "null", "null", "null"),
               0, 1.0);
  cr_expect_eq(c.nrows, 0);
  cr_assert_eq(c.nlost, 2, "a (now FAIL) and b (missing); c never passed");
  cr_expect_str_eq(c.lost[0].key.case_name, "a");
  cr_expect_str_eq(c.lost[0].status, "FAIL");
  cr_expect_str_eq(c.lost[0].message, "why FAIL");
  cr_expect_str_eq(c.lost[1].key.case_name, "b");
  cr_expect_str_eq(c.lost[1].status, "missing");
  cr_expect_str_eq(c.lost[1].message, "");
  done();
}

Test(compare, rows_only_in_the_run_are_neither_compared_nor_lost)
{
  compare_with(ROW("a", "k", "PASS", "1e-3", "0.1", "null", "null") "," ROW("new", "k", "PASS", "1e-3", "0.1",
                                                                            "null", "null"),
               ROW("a", "k", "PASS", "1e-3", "0.1", "null", "null"), 0, 1.0);
  cr_expect_eq(c.nrows, 1);
  cr_expect_eq(c.nlost, 0);
  done();
}

Test(compare, untimed_and_short_rows_are_left_out)
{
  compare_with(ROW("a", "k", "PASS", "null", "null", "null",
                   "null") "," ROW("b", "k", "PASS", "5e-6", "0.1", "null",
                                   "null") "," ROW("c", "k", "PASS", "0", "null", "null", "null"),
               ROW("a", "k", "PASS", "1e-3", "0.1", "null",
                   "null") "," ROW("b", "k", "PASS", "9e-6", "0.1", "null",
                                   "null") "," ROW("c", "k", "PASS", "1e-3", "null", "null", "null"),
               10, 1.0);
  cr_expect_eq(c.nrows, 0, "a untimed, b under --min-us 10, c a median of 0");
  cr_expect_eq(c.nlost, 0);
  done();
}

Test(compare, variant_and_clock_changes_are_noted)
{
  compare_with(ROW("a", "k", "PASS", "1e-3", "0.1", "\"v2\"", "1980") "," ROW("b", "k", "PASS", "1e-3", "0.1",
                                                                              "\"v1\"", "1990"),
               ROW("a", "k", "PASS", "1e-3", "0.1", "\"v1\"", "1755") "," ROW("b", "k", "PASS", "1e-3", "0.1",
                                                                              "\"v1\"", "1980"),
               0, 1.0);
  cr_assert_eq(c.nrows, 2);
  cr_expect_str_eq(c.rows[0].base_variant, "v1");
  cr_expect_str_eq(c.rows[0].run_variant, "v2");
  cr_expect_float_eq(c.rows[0].base_mhz, 1755, 1e-9);
  cr_expect_float_eq(c.rows[0].run_mhz, 1980, 1e-9);
  cr_expect_null(c.rows[1].base_variant, "the same variant is no change");
  cr_expect_float_eq(c.rows[1].base_mhz, 0, 0, "10 MHz of 1980 is under 1%%");
  done();
}

/* A row of timer t with %sol sol, as a report of this khost writes it. */
#define TIMED_ROW(case_name, timer, sol)                                                                     \
  "{\"case\": \"" case_name                                                                                  \
  "\", \"op\": \"reduce_sum\", \"backend\": \"k\", \"device\": \"cuda\", \"status\": \"PASS\","              \
  " \"message\": \"\", \"variant\": null, \"sol_fraction\": " sol ","                                        \
  " \"time\": {\"median_s\": 1e-3, \"noise_pct\": 0.1, \"timer\": \"" timer "\"}}"

/* Each run's %sol is carried; a median made by another timer in each run says so. */
Test(compare, each_run_s_sol_and_a_change_of_timer_are_carried)
{
  compare_with(TIMED_ROW("a", "cupti", "0.95") "," TIMED_ROW("b", "events", "null"),
               TIMED_ROW("a", "events", "0.8") "," TIMED_ROW("b", "events", "0.5"), 0, 1.0);
  cr_assert_eq(c.nrows, 2);
  cr_expect_float_eq(c.rows[0].base_sol, 0.8, 1e-12);
  cr_expect_float_eq(c.rows[0].run_sol, 0.95, 1e-12);
  cr_expect_str_eq(c.rows[0].base_timer, "events");
  cr_expect_str_eq(c.rows[0].run_timer, "cupti");
  cr_expect_float_eq(c.rows[1].base_sol, 0.5, 1e-12);
  cr_expect_float_eq(c.rows[1].run_sol, 0, 0, "a %%sol of null is none");
  cr_expect_null(c.rows[1].base_timer, "the same timer is no change");
  done();
}

Test(compare, a_key_twice_is_its_last_row_and_rows_come_sorted)
{
  compare_with(ROW("b", "k", "PASS", "2e-3", "0.1", "null",
                   "null") "," ROW("a", "k", "PASS", "1e-3", "0.1", "null",
                                   "null") "," ROW("b", "k", "PASS", "1e-3", "0.1", "null", "null"),
               ROW("b", "k", "PASS", "1e-3", "0.1", "null", "null") "," ROW("a", "k", "PASS", "1e-3", "0.1",
                                                                            "null", "null"),
               0, 1.0);
  cr_assert_eq(c.nrows, 2);
  cr_expect_str_eq(c.rows[0].key.case_name, "a");
  cr_expect_str_eq(c.rows[1].key.case_name, "b");
  cr_expect_eq(c.rows[1].verdict, KHOST__SAME, "the later b row (1e-3) is the run's");
  done();
}
