/* Tests for core/shard.c: --shard I/N and its refusals, the Slurm job array's
 * variables (ids from MIN, in STEPs) and their refusals, and the split itself:
 * disjoint, whole, in suite order, and stable when a case is added. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "shard.h"
#include "suite.h"

static void clear_slurm(void)
{
  const char *names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                         "SLURM_ARRAY_TASK_STEP"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) unsetenv(names[i]);
}

TestSuite(shard, .init = clear_slurm);

Test(shard, i_of_n_is_read)
{
  khost__shard s;
  khost__err err;
  cr_assert_eq(khost__shard_parse("3/4", &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(s.index, 3);
  cr_expect_eq(s.count, 4);
  cr_assert_eq(khost__shard_parse("0/1", &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(s.index + s.count, 1);
  cr_assert_eq(khost__shard_parse("08/010", &s, &err), KHOST__OK, "%s", err.msg); /* decimal, as --device */
  cr_expect(s.index == 8 && s.count == 10);
}

Test(shard, a_malformed_or_out_of_range_spec_is_refused)
{
  const char *bad[] = {"4/4",
                       "-1/4",
                       "1/0",
                       "a/b",
                       "1",
                       "1/4x",
                       "",
                       "/4",
                       "1/",
                       "0/100001",
                       " 1/4",
                       "+1/4",
                       "1/+4",
                       "1/-4",
                       "99999999999999999999/4",
                       "0/99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    khost__shard s = {7, 9};
    khost__err err = {{0}};
    cr_expect_eq(khost__shard_parse(bad[i], &s, &err), KHOST__E_CONFIG, "'%s' is refused", bad[i]);
    cr_expect(strstr(err.msg, "--shard needs I/N"), "%s", err.msg);
    cr_expect(s.index == 7 && s.count == 9, "'%s' leaves the shard as it was", bad[i]);
  }
}

Test(shard, slurm_takes_the_task_place_in_the_array)
{
  khost__shard s;
  khost__err err;
  setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  cr_assert_eq(khost__shard_parse("slurm", &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect(s.index == 2 && s.count == 4, "no MIN: ids from 0");
  setenv("SLURM_ARRAY_TASK_ID", "5", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "4", 1);
  cr_assert_eq(khost__shard_parse("slurm", &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect(s.index == 1 && s.count == 4, "--array=4-7: id 5 is shard 1");
  setenv("SLURM_ARRAY_TASK_ID", "12", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "0", 1);
  setenv("SLURM_ARRAY_TASK_STEP", "4", 1);
  cr_assert_eq(khost__shard_parse("slurm", &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect(s.index == 3 && s.count == 4, "--array=0-12:4: id 12 is shard 3");
}

Test(shard, slurm_variables_missing_or_malformed_are_refused)
{
  khost__shard s;
  khost__err err;
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "--shard slurm: SLURM_ARRAY_TASK_ID is not set"), "%s", err.msg);
  setenv("SLURM_ARRAY_TASK_ID", "1", 1);
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "SLURM_ARRAY_TASK_COUNT is not set"), "%s", err.msg);
  setenv("SLURM_ARRAY_TASK_COUNT", "four", 1);
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "SLURM_ARRAY_TASK_COUNT is 'four', not a whole number"), "%s", err.msg);
  setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  setenv("SLURM_ARRAY_TASK_ID", "4", 1);
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG, "id 4 of an array 0-3");
  cr_expect(strstr(err.msg, "SLURM_ARRAY_TASK_ID 4 is not one of 4 tasks from 0"), "%s", err.msg);
  setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "4", 1);
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG, "an id under MIN");
  setenv("SLURM_ARRAY_TASK_MIN", "0", 1);
  setenv("SLURM_ARRAY_TASK_STEP", "2", 1);
  cr_expect_eq(khost__shard_parse("slurm", &s, &err), KHOST__E_CONFIG, "id 3 is between steps of 2");
}

/* The documented rule, FNV-1a 64 of the name mod N, from the hash's published constants. */
Test(shard, a_case_belongs_to_fnv1a_of_its_name_mod_n)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const char *p = "tiny_single"; *p; p++) h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
  for (int n = 1; n <= 64; n++) cr_expect_eq(khost__shard_of("tiny_single", n), (int)(h % (uint64_t)n));
}

static khost__suite suite_of(int ncases)
{
  khost__suite s = {.ncases = ncases, .cases = calloc((size_t)ncases, sizeof(khost__case))};
  for (int i = 0; i < ncases; i++) {
    snprintf(s.cases[i].name, sizeof s.cases[i].name, "case_%d", i);
    s.cases[i].index = i;
  }
  return s;
}

/* Every case is in exactly one of the N shards, each shard keeps suite order,
 * and a case appended to the suite moves no other case. */
Test(shard, shards_are_disjoint_whole_ordered_and_stable_under_an_added_case)
{
  enum { CASES = 200, N = 7 };
  int seen[CASES + 1] = {0};
  for (int i = 0; i < N; i++) {
    khost__suite s = suite_of(CASES), grown = suite_of(CASES + 1);
    khost__shard_select(&s, &(khost__shard){i, N});
    khost__shard_select(&grown, &(khost__shard){i, N});
    for (int k = 0; k < s.ncases; k++) {
      seen[s.cases[k].index]++;
      cr_expect(k == 0 || s.cases[k].index > s.cases[k - 1].index, "suite order");
      cr_expect_str_eq(grown.cases[k].name, s.cases[k].name, "the added case moves no other");
    }
    cr_expect(grown.ncases == s.ncases ||
              (grown.ncases == s.ncases + 1 && strcmp(grown.cases[s.ncases].name, "case_200") == 0));
    free(s.cases);
    free(grown.cases);
  }
  for (int k = 0; k < CASES; k++) cr_expect_eq(seen[k], 1, "case_%d is in one shard", k);
}

Test(shard, no_shard_keeps_every_case)
{
  khost__suite s = suite_of(5);
  khost__shard_select(&s, &(khost__shard){0, 0});
  cr_expect_eq(s.ncases, 5);
  free(s.cases);
}
