/* Tests for core/run_reports.c: rows handed over are kept and written to every
 * open report, the reports end finished at the close, and the run fails by a
 * row's status (not by PASS or SKIP) or by an incomplete dump. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "run_reports.h"
#include "support/scratch_dir.h"

static char json_path[128];

static void make_dir(void)
{
  scratch_dir_make();
  scratch_dir_path(json_path, sizeof json_path, "r.json");
}

TestSuite(run_reports, .init = make_dir, .fini = scratch_dir_remove);

static khost__row row_of(khost__row_status status, int dump_incomplete)
{
  khost__row r = {.id = {.case_name = "c", .op = "reduce_sum", .backend = "reference", .device = "cpu"},
                  .measured = {.status = status, .dump_incomplete = dump_incomplete}};
  return r;
}

static int failed_after(khost__row row)
{
  khost__run_reports r = {.quiet = 1};
  khost__options o = {.json = json_path, .report_mode = 0644};
  khost__err err;
  cr_assert_eq(khost__run_reports_open(&r, &o, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__run_reports_add(&r, &row, 1, 0, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__run_reports_close(&r, "reference", 1, &err), KHOST__OK, "%s", err.msg);
  json_t *doc = json_load_file(json_path, 0, NULL);
  cr_assert_not_null(doc);
  cr_expect_eq(json_array_size(json_object_get(doc, "rows")), 1, "the row reached the report");
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  json_decref(doc);
  return khost__run_reports_failed(&r);
}

Test(run_reports, the_run_fails_by_a_failing_status_or_an_incomplete_dump)
{
  cr_expect_eq(failed_after(row_of(KHOST__ROW_PASS, 0)), 0);
  cr_expect_eq(failed_after(row_of(KHOST__ROW_SKIP, 0)), 0);
  cr_expect_eq(failed_after(row_of(KHOST__ROW_FAIL, 0)), 1);
  cr_expect_eq(failed_after(row_of(KHOST__ROW_TIMEOUT, 0)), 1);
  cr_expect_eq(failed_after(row_of(KHOST__ROW_PASS, 1)), 1);
}
