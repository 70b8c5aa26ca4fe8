/* End to end, suites and filters: a suite found by name, by file or through
 * KHOST_SUITE_PATH, broken suite files, and --op and --case. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog.h"
#include "list.h"
#include "support/endless_line.h"

TestSuite(suites, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

Test(suites, a_named_suite_is_found_in_the_suite_folder)
{
  outcome o;
  KHOST(&o, FAST, "--suite", "correctness", "--case", "copy_transpose_fp16_1x1");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.out, "/correctness.ini\n"), "header should name correctness.ini:\n%s", o.out);
  cr_expect_eq(count_cases(o.out), 1);
  expect_row(&o, "copy_transpose_fp16_1x1", "reference", "PASS");
  free_outcome(&o);
}

Test(suites, a_suite_file_runs_exactly_its_cases)
{
  char *path = scratch_path("mine.ini");
  write_file(path, "; two cases of our own\n"
                   "[mine_transpose]\nop = copy_transpose\ndtype = fp32\nm = 3\nn = 5\nseed = 7\n\n"
                   "[mine_sum]\nop = reduce_sum\ndtype = fp16\nm = 2\nn = 9\n");
  outcome o;
  KHOST(&o, FAST, "--suite", path);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_eq(count_cases(o.out), 2, "stdout:\n%s", o.out);
  cr_expect_not_null(strstr(o.out, "\ncase mine_transpose | op copy_transpose | m=3 n=5"));
  cr_expect_not_null(strstr(o.out, "\ncase mine_sum | op reduce_sum | m=2 n=9"));
  expect_row(&o, "mine_transpose", "reference", "PASS");
  expect_row(&o, "mine_sum", "reference", "PASS");
  char header[700];
  snprintf(header, sizeof header, "suite %s\n", path);
  cr_expect_not_null(strstr(o.out, header), "header should name %s", path);
  free_outcome(&o);
  free(path);
}

/* The table's header and the JSON report name the suite by its whole path, however long. */
Test(suites, a_long_suite_path_is_reported_whole)
{
  char *dir = NULL, *path = NULL;
  cr_assert(asprintf(&dir, "%s/%0200d", scratch, 0) >= 0);
  cr_assert(asprintf(&path, "%s/%0100d.ini", dir, 0) >= 0);
  cr_assert_eq(mkdir(dir, 0700), 0);
  write_file(path, "[long_path]\nop = reduce_sum\ndtype = fp32\nm = 2\nn = 9\n");
  outcome o;
  KHOST_JSON(&o, FAST, "--suite", path);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_gt(strlen(path), 300);
  char *header = NULL;
  cr_assert(asprintf(&header, "suite %s\n", path) >= 0);
  cr_expect_not_null(strstr(o.out, header), "the header should name %s:\n%s", path, o.out);
  cr_expect_str_eq(json_string_value(json_object_get(json_object_get(report(&o), "run"), "suite")), path);
  free_outcome(&o);
  free(header);
  free(path);
  free(dir);
}

Test(suites, khost_suite_path_adds_a_suite_folder)
{
  char *path = scratch_path("private.ini"), *entry = NULL;
  write_file(path, "[private_case]\nop = softmax_online\ndtype = fp32\nm = 2\nn = 33\n");
  cr_assert(asprintf(&entry, "KHOST_SUITE_PATH=%s", scratch) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--suite", "private");
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, "private_case", "reference", "PASS");
  free_outcome(&o);
  free(entry);
  free(path);
}

Test(suites, an_unknown_suite_exits_2_and_lists_the_known_ones)
{
  outcome o;
  KHOST(&o, FAST, "--suite", "no_such_suite");
  cr_expect_eq(o.status, 2);
  cr_expect_not_null(strstr(o.err, "no_such_suite"), "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, "smoke"), "known suites should be listed:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, "correctness"), "known suites should be listed:\n%s", o.err);
  free_outcome(&o);
}

/* khost --suite path exits 2 before running anything, naming path:line and the reason. */
static void expect_suite_refused(const char *path, const char *line, const char *reason)
{
  char where[4400];
  outcome o;
  KHOST(&o, FAST, "--suite", path);
  snprintf(where, sizeof where, "%s%s", path, line);
  cr_expect_eq(o.status, 2, "%s: exit %d", reason, o.status);
  cr_expect_not_null(strstr(o.err, where), "stderr lacks '%s':\n%s", where, o.err);
  cr_expect_not_null(strstr(o.err, reason), "stderr lacks '%s':\n%s", reason, o.err);
  cr_expect_null(strstr(o.out, "summary:"), "%s: something ran", path);
  free_outcome(&o);
}

Test(suites, a_broken_suite_file_exits_2_naming_file_and_line)
{
  static const struct {
    const char *text, *line, *reason;
  } cases[] = {
      {"[fine]\nop = copy_transpose\ndtype = fp16\nm = 4\nn = 4\nthis line has no equals sign\n",
       ":6:", "syntax error"},
      {"[sum]\nop = reduce_sum\ndtype = fp32\nm = 4\nn = 8\ncolour = blue\n", ":6:", "unknown key 'colour'"},
      {"[first]\nop = reduce_sum\ndtype = fp32\nm = 4\nn = 8\n\n[second]\nop = no_such_op\n",
       ":8:", "unknown op 'no_such_op'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "broken%zu.ini", i);
    char *path = scratch_path(name);
    write_file(path, cases[i].text);
    expect_suite_refused(path, cases[i].line, cases[i].reason);
    free(path);
  }
}

/* Each bad KV-cache case of tests/fixtures/suites/ is refused before anything runs. */
Test(suites, a_bad_kv_cache_case_exits_2_naming_file_and_line)
{
  static const struct {
    const char *file, *line, *reason;
  } cases[] = {
      {"bad_kv_zero_dim.ini", ":11:", "kv_block_to_universal needs nh to be at least 1, got 0"},
      {"bad_kv_negative_dim.ini", ":1:", "kv_operational_to_block needs nb to be at least 0, got -1"},
      {"bad_kv_outer_three.ini", ":1:", "kv_universal_to_block needs no to be at most 2, got 3"},
      {"bad_kv_unknown_layout.ini",
       ":10:", "kv_block_to_universal needs layout to be one of NHD, HND, got 'NDH'"},
      {"bad_kv_size_overflow.ini",
       ":1:", "needs tensor src to take at most 34359738368 bytes, but its size overflows"},
      {"bad_kv_too_large.ini",
       ":1:", "needs tensor src to take at most 34359738368 bytes, got 1374456643584"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/fixtures/suites/%s", env("KHOST_SOURCE_ROOT"), cases[i].file);
    expect_suite_refused(path, cases[i].line, cases[i].reason);
  }
}

/* khost with `flag value` runs the smoke cases of op and no other: every case
 * block of its table has op `op` and each smoke case of that op is there. */
static void expect_filter_keeps_exactly_op(const char *flag, const char *value, const char *op)
{
  outcome o;
  KHOST(&o, FAST, flag, value);
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  smoke_case cases[MAX_SMOKE_CASES];
  int n = read_smoke(cases, MAX_SMOKE_CASES), want = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(cases[i].op, op)) continue;
    want++;
    expect_row(&o, cases[i].name, "reference", "PASS");
  }
  cr_expect_gt(want, 0, "smoke.ini has no %s case", op);
  cr_expect_eq(count_cases(o.out), want, "expected only the %d %s cases:\n%s", want, op, o.out);
  free_outcome(&o);
}

Test(suites, op_filter_keeps_only_that_op)
{
  expect_filter_keeps_exactly_op("--op", "reduce_sum", "reduce_sum");
}

Test(suites, case_filter_takes_names_and_globs)
{
  expect_filter_keeps_exactly_op("--case", "copy_transpose_*", "copy_transpose");
  outcome o;
  KHOST(&o, FAST, "--case", "tiny_single,reduce_sum_bf16_64x100");
  cr_assert_eq(o.status, 0, "stderr:\n%s", o.err);
  cr_expect_eq(count_cases(o.out), 2);
  expect_row(&o, "tiny_single", "reference", "PASS");
  expect_row(&o, "reduce_sum_bf16_64x100", "reference", "PASS");
  free_outcome(&o);
}

Test(suites, unknown_op_or_case_exits_2_listing_what_exists)
{
  outcome o;
  KHOST(&o, FAST, "--op", "matmul");
  cr_expect_eq(o.status, 2);
  cr_expect_not_null(strstr(o.err, "unknown op 'matmul'"), "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, khost__catalog_names()), "the known ops should be listed:\n%s", o.err);
  free_outcome(&o);
  KHOST(&o, FAST, "--case", "no_such_case");
  cr_expect_eq(o.status, 2);
  cr_expect_not_null(strstr(o.err, "no_such_case"), "stderr:\n%s", o.err);
  cr_expect_not_null(strstr(o.err, GEMV_CASE), "the suite's cases should be listed:\n%s", o.err);
  free_outcome(&o);
}

/* A pattern is never cut to fit: '*' x 255 followed by a name would, cut, match every case or op. */
Test(suites, a_pattern_too_long_to_hold_exits_2_before_it_matches_anything)
{
  char pattern[KHOST__LIST_ITEM_MAX + 16];
  memset(pattern, '*', KHOST__LIST_ITEM_MAX);
  strcpy(pattern + KHOST__LIST_ITEM_MAX, "no_such_name");
  static const char *const flags[][3] = {{"--case", "--op", "reduce_sum"}, {"--op", "--case", GEMV_CASE}};
  for (size_t i = 0; i < 2; i++) {
    outcome o;
    KHOST(&o, FAST, flags[i][0], pattern, flags[i][1], flags[i][2]);
    char want[128];
    snprintf(want, sizeof want, "khost: %s: '%.40s...' is longer than 255 characters\n", flags[i][0],
             pattern);
    cr_expect_eq(o.status, 2, "%s: exit %d", flags[i][0], o.status);
    cr_expect_str_eq(o.err, want);
    cr_expect_eq(count_cases(o.out), 0, "%s: nothing may run:\n%s", flags[i][0], o.out);
    free_outcome(&o);
  }
}

/* A suite line is refused as soon as it breaks its rule, the rest unread: a
 * line without an end is a usage error (exit 2), not a run out of memory. */
Test(suites, a_suite_line_without_an_end_exits_2_at_once)
{
  endless_line line;
  endless_line_start(&line, 'x');
  outcome o;
  KHOST(&o, FAST, "--suite", line.path);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, ":1: line is longer than 198 characters"), "stderr:\n%s", o.err);
  free_outcome(&o);
  cr_assert(endless_line_stopped_early(&line), "khost read the whole line before refusing it");
  /* Only now, with khost shown to stop, the devices that never end. */
  static const char *const devices[] = {"/dev/zero", "/dev/full"};
  for (size_t i = 0; i < 2; i++) {
    KHOST(&o, FAST, "--suite", devices[i]);
    char want[64];
    snprintf(want, sizeof want, "khost: %s:1: line holds a NUL byte", devices[i]);
    cr_expect_eq(o.status, 2, "%s: exit %d", devices[i], o.status);
    cr_expect_not_null(strstr(o.err, want), "stderr lacks '%s':\n%s", want, o.err);
    cr_expect_null(strstr(o.out, "summary:"));
    free_outcome(&o);
  }
}
