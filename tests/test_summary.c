/* Tests for core/summary.c: the totals over rows, built one row at a time and at
 * a cost that does not grow with the rows before; the table's summary tests
 * (test_table.c) read the same totals through the printed table. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static khost__row row(const char *case_name, const char *backend, khost__row_status status, double median,
                      double speedup)
{
  khost__row r;
  memset(&r, 0, sizeof r);
  snprintf(r.id.case_name, sizeof r.id.case_name, "%s", case_name);
  snprintf(r.id.backend, sizeof r.id.backend, "%s", backend);
  snprintf(r.id.device, sizeof r.id.device, "cuda");
  r.measured.status = status;
  r.measured.time.samples = median > 0 ? 10 : 0;
  r.measured.time.median = median;
  r.derived.speedup = speedup;
  return r;
}

static void add(khost__summary_builder *b, khost__row r)
{
  cr_assert_eq(khost__summary_builder_add(b, &r), KHOST__OK);
}

static int wins(const khost__summary_builder *b, int backend)
{
  return b->summary.backends[backend].wins;
}

/* A case's win is its fastest timed PASS row's, whichever arrives last: rows of
 * one case need not be adjacent. */
Test(summary, a_faster_row_that_comes_later_takes_the_case_s_win)
{
  khost__summary_builder b;
  khost__summary_builder_init(&b);
  add(&b, row("c1", "reference", KHOST__ROW_PASS, 8e-3, 1));
  cr_expect_eq(wins(&b, 0), 1);
  add(&b, row("c2", "reference", KHOST__ROW_PASS, 16e-3, 1));
  add(&b, row("c1", "fast", KHOST__ROW_PASS, 4e-3, 2));
  cr_expect_eq(wins(&b, 0), 1, "c2 only");
  cr_expect_eq(wins(&b, 1), 1, "c1");
  add(&b, row("c1", "wrong", KHOST__ROW_FAIL, 1e-4, 80));
  add(&b, row("c2", "fast", KHOST__ROW_PASS, 16e-3, 1));
  cr_expect_eq(wins(&b, 0), 1, "a tie keeps the first row's win");
  add(&b, row("c2", "untimed", KHOST__ROW_PASS, 0, 0));
  cr_expect_eq(wins(&b, 0) + wins(&b, 1) + wins(&b, 2) + wins(&b, 3), 2, "one win per case");
  cr_expect_eq(b.summary.nrows, 6);
  cr_expect_eq(b.summary.by_status[KHOST__ROW_PASS], 5);
  cr_expect_eq(b.summary.by_status[KHOST__ROW_FAIL], 1);
  khost__summary_builder_free(&b);
}

Test(summary, the_geomean_is_over_passed_rows_with_a_finite_speedup)
{
  khost__summary_builder b;
  khost__summary_builder_init(&b);
  add(&b, row("c1", "fast", KHOST__ROW_PASS, 1e-3, 2));
  add(&b, row("c2", "fast", KHOST__ROW_PASS, 1e-3, 8));
  add(&b, row("c3", "fast", KHOST__ROW_FAIL, 1e-3, 1000));
  add(&b, row("c4", "fast", KHOST__ROW_PASS, 1e-3, INFINITY));
  cr_expect_eq(b.summary.backends[0].speedup_cases, 2);
  cr_expect_float_eq(b.summary.backends[0].geomean_speedup, 4, 1e-12);
  khost__summary_builder_free(&b);
}

/* Backends past the first 64 are counted by status only: their rows win nothing,
 * but a faster one still takes the case's win from the row it beats. */
Test(summary, rows_of_backends_past_the_first_64_are_counted_by_status_only)
{
  khost__summary_builder b;
  char name[16];
  khost__summary_builder_init(&b);
  for (int i = 0; i < KHOST__SUMMARY_MAX_BACKENDS; i++) {
    snprintf(name, sizeof name, "b%d", i);
    add(&b, row("c1", name, KHOST__ROW_PASS, 1e-3 * (i + 1), 1));
  }
  cr_expect_eq(wins(&b, 0), 1);
  add(&b, row("c1", "one_too_many", KHOST__ROW_PASS, 1e-6, 1000));
  cr_expect_eq(b.summary.nbackends, KHOST__SUMMARY_MAX_BACKENDS);
  cr_expect_eq(b.summary.rows_omitted, 1);
  cr_expect_eq(b.summary.nrows, KHOST__SUMMARY_MAX_BACKENDS + 1);
  cr_expect_eq(wins(&b, 0), 0, "b0 is no longer the fastest");
  khost__summary_builder_free(&b);
}

/* The batch form is the builder's: the same totals from an array. */
Test(summary, summarize_gives_the_builder_s_totals)
{
  khost__row rows[] = {row("c1", "reference", KHOST__ROW_PASS, 8e-3, 1),
                       row("c1", "fast", KHOST__ROW_PASS, 4e-3, 2),
                       row("c2", "reference", KHOST__ROW_ERROR, 0, 0)};
  khost__summary s;
  cr_assert_eq(khost__summarize(rows, 3, &s), KHOST__OK);
  cr_expect_eq(s.nrows, 3);
  cr_expect_eq(s.nbackends, 2);
  cr_expect_eq(s.backends[1].wins, 1);
  cr_expect_float_eq(s.backends[1].geomean_speedup, 2, 1e-12);
  cr_expect_eq(s.by_status[KHOST__ROW_ERROR], 1);
}

/* 200,000 cases take a fraction of a second: a row's cost does not grow with the
 * rows before it. A search through them (2e10 comparisons) would run past the
 * test's time limit in tests/meson.build. */
Test(summary, many_cases_cost_each_row_the_same)
{
  khost__summary_builder b;
  char name[32];
  khost__summary_builder_init(&b);
  for (int i = 0; i < 200000; i++) {
    snprintf(name, sizeof name, "case_%d", i);
    add(&b, row(name, i % 2 ? "fast" : "reference", KHOST__ROW_PASS, i % 2 ? 1e-3 : 2e-3, i % 2 ? 2 : 1));
  }
  cr_expect_eq(b.summary.nrows, 200000);
  cr_expect_eq(wins(&b, 0) + wins(&b, 1), 200000, "each case its own win");
  khost__summary_builder_free(&b);
}
