/* Tests for core/merge.c: shards' reports merged into the one report of the
 * whole run (rows in suite order, totals, finished, the exit status), and every
 * refusal: another khost version, suite or selection, a shard given twice; a
 * missing or unfinished shard makes the merge exit 1 with an unfinished report. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "exit_status.h"
#include "json.h"
#include "merge.h"
#include "support/scratch_dir.h"

static char out[128];

static void make_dir(void)
{
  scratch_dir_make();
  scratch_dir_path(out, sizeof out, "merged.json");
}

TestSuite(merge, .init = make_dir, .fini = scratch_dir_remove);

/* The shard's description: its place, of 2 shards of a selection of 3 cases. */
static khost__run_info shard_info(int index, const char *version, const char *suite)
{
  khost__run_info info = {0};
  snprintf(info.khost_version, sizeof info.khost_version, "%s", version);
  snprintf(info.suite, sizeof info.suite, "%s", suite);
  snprintf(info.baseline, sizeof info.baseline, "reference");
  info.shard_index = index;
  info.shard_count = 2;
  info.selected_cases = 3;
  info.shard_cases = index == 0 ? 2 : 1;
  return info;
}

static khost__row row_of(const char *case_name, int case_index, khost__row_status status)
{
  khost__row r = {
      .id = {.op = "reduce_sum", .backend = "reference", .device = "cpu", .case_index = case_index},
      .measured = {.status = status, .check = {.count = 64}}};
  snprintf(r.id.case_name, sizeof r.id.case_name, "%s", case_name);
  return r;
}

/* Writes a shard's report named name with rows, finished as given; returns its path. */
static const char *write_shard(const char *name, const khost__run_info *info, const khost__row *rows, int n,
                               int finished)
{
  static char paths[16][128]; /* more than a test writes */
  static int next;
  char *path = paths[next++ % 16];
  khost__json_writer *w;
  khost__err err;
  scratch_dir_path(path, 128, name);
  cr_assert_eq(khost__json_open(path, info, 0644, &w, &err), KHOST__OK, "%s", err.msg);
  for (int i = 0; i < n; i++) cr_assert_eq(khost__json_append(w, &rows[i], &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__json_end(w, finished, &err), KHOST__OK, "%s", err.msg);
  khost__json_free(w);
  return path;
}

static int merge(const char *const *files, int n, khost__err *err)
{
  khost__options o = {.json = out, .report_mode = 0644};
  memset(err, 0, sizeof *err);
  return khost__merge(files, n, &o, err);
}

/* Shard 1 holds the middle case (place 1), shard 0 the first and last. */
static void two_shards(const char **files, khost__row_status middle, int finished1)
{
  khost__run_info i0 = shard_info(0, "0.1.0", "suites/smoke.ini"),
                  i1 = shard_info(1, "0.1.0", "suites/smoke.ini");
  khost__row r0[] = {row_of("first", 0, KHOST__ROW_PASS), row_of("last", 2, KHOST__ROW_SKIP)};
  khost__row r1[] = {row_of("middle", 1, middle)};
  files[0] = write_shard("s0.json", &i0, r0, 2, 1);
  files[1] = write_shard("s1.json", &i1, r1, 1, finished1);
}

Test(merge, rows_come_in_suite_order_with_the_totals_of_the_whole)
{
  const char *files[2];
  khost__err err;
  two_shards(files, KHOST__ROW_PASS, 1);
  const char *reversed[] = {files[1], files[0]};
  cr_assert_eq(merge(reversed, 2, &err), KHOST__EXIT_PASS, "%s", err.msg);
  json_error_t jerr;
  json_t *doc = json_load_file(out, 0, &jerr);
  cr_assert_not_null(doc, "%s", jerr.text);
  json_t *rows = json_object_get(doc, "rows"), *run = json_object_get(doc, "run");
  cr_assert_eq(json_array_size(rows), 3);
  const char *order[] = {"first", "middle", "last"};
  for (int i = 0; i < 3; i++)
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rows, (size_t)i), "case")), order[i]);
  cr_expect(json_is_true(json_object_get(doc, "finished")));
  cr_expect_eq(json_integer_value(json_object_get(run, "merged_shards")), 2);
  cr_expect(json_is_null(json_object_get(run, "shard")), "the merged run is the whole, no shard");
  json_t *counts = json_object_get(json_object_get(doc, "summary"), "counts");
  cr_expect_eq(json_integer_value(json_object_get(counts, "PASS")), 2);
  cr_expect_eq(json_integer_value(json_object_get(counts, "SKIP")), 1);
  json_decref(doc);
}

Test(merge, a_failed_row_of_any_shard_exits_1)
{
  const char *files[2];
  khost__err err;
  two_shards(files, KHOST__ROW_CRASH, 1);
  cr_expect_eq(merge(files, 2, &err), KHOST__EXIT_FAILED, "%s", err.msg);
}

Test(merge, a_missing_or_unfinished_shard_exits_1_and_the_report_is_unfinished)
{
  const char *files[2];
  khost__err err;
  two_shards(files, KHOST__ROW_PASS, 0);
  cr_expect_eq(merge(files, 2, &err), KHOST__EXIT_FAILED, "shard 1 did not finish");
  json_t *doc = json_load_file(out, 0, NULL);
  cr_assert_not_null(doc);
  cr_expect(json_is_false(json_object_get(doc, "finished")));
  json_decref(doc);
  cr_expect_eq(merge(files, 1, &err), KHOST__EXIT_FAILED, "shard 1 is missing");
}

Test(merge, reports_of_another_khost_suite_or_selection_or_a_shard_twice_are_refused)
{
  const char *files[2];
  khost__err err;
  two_shards(files, KHOST__ROW_PASS, 1);
  khost__row r[] = {row_of("middle", 1, KHOST__ROW_PASS)};
  struct {
    khost__run_info info;
    const char *message;
  } cases[] = {
      {shard_info(1, "0.2.0", "suites/smoke.ini"), "khost_version 0.2.0 is not"},
      {shard_info(1, "0.1.0", "suites/other.ini"), "suite 'suites/other.ini' is not"},
      {shard_info(0, "0.1.0", "suites/smoke.ini"), "are both shard 0/2"},
      {shard_info(1, "0.1.0", "suites/smoke.ini"), "a shard of 4 selected cases"},
      {shard_info(1, "0.1.0", "suites/smoke.ini"), "is not one of"},
  };
  cases[3].info.selected_cases = 4;
  cases[4].info.shard_count = 3;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *pair[] = {files[0], write_shard("bad.json", &cases[i].info, r, 1, 1)};
    cr_expect_eq(merge(pair, 2, &err), KHOST__EXIT_USAGE, "%s", cases[i].message);
    cr_expect(strstr(err.msg, cases[i].message), "%s", err.msg);
  }
}
