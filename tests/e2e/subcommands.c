/* End to end, the subcommands that read reports: `khost compare` prints what
 * it decides and exits 1 on a change or a lost row; `khost report` writes one
 * page and refuses bad input with a message and exit 2, or exit 1 when the
 * page cannot be made. The page in a browser: tests/report_browser.py. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(subcommands, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

static char *fixture(const char *name)
{
  char *s = NULL;
  cr_assert_geq(asprintf(&s, "%s/tests/fixtures/reports/%s", env("KHOST_SOURCE_ROOT"), name), 0);
  return s;
}

Test(subcommands, compare_prints_each_verdict_and_exits_1_on_a_change)
{
  outcome o;
  char *run = fixture("gpu_run.json"), *base = fixture("gpu_base.json");
  KHOST(&o, "compare", run, base);
  cr_expect_eq(o.status, 1, "%s", o.err);
  cr_expect(
      strstr(o.out,
             "perf_large                           cute         cuda     41.20u     38.91u    -5.56  FAST\n"),
      "%s", o.out);
  cr_expect(strstr(o.out, "SLOW (variant gemv_m4_k1024_w1_top -> gemv_m2_k2048_w1_top)"), "%s", o.out);
  cr_expect(strstr(o.out, "SAME (SM clock 1755 -> 1980 MHz)"), "%s", o.out);
  cr_expect(strstr(o.out, "LOST: PASS -> missing"), "%s", o.out);
  cr_expect(strstr(o.out, "LOST: PASS -> CRASH worker ended by signal 11"), "%s", o.out);
  cr_expect(strstr(o.out, "rows compared: 14, largest difference 5.56%, beyond 1%: 4, lost: 3\n"), "%s",
            o.out);
  free_outcome(&o);
  KHOST(&o, "compare", run, run);
  cr_expect_eq(o.status, 0, "a run against itself: %s", o.out);
  free_outcome(&o);
  KHOST(&o, "compare", run, base, "--tolerance", "10", "--min-us", "20");
  cr_expect(strstr(o.out, "perf_medium ") == NULL || strstr(o.out, "LOST"), "rows under 20 us are left out");
  cr_expect(strstr(o.out, "beyond 10%: 0, lost: 3"), "%s", o.out);
  free_outcome(&o);
  free(run);
  free(base);
}

Test(subcommands, report_writes_a_page_with_the_comparison)
{
  outcome o;
  char *run = fixture("gpu_run.json"), *base = fixture("gpu_base.json"), *page = scratch_path("r.html");
  KHOST(&o, "report", run, base, "-o", page);
  cr_expect_eq(o.status, 0, "%s", o.err);
  char *html = slurp(page);
  cr_assert_not_null(html);
  cr_expect(strstr(html, "<!DOCTYPE html>") == html);
  cr_expect(strstr(html, "class=\"chart roofline\" data-op=\"fp8_block_gemm\""));
  cr_expect(strstr(html, "class=\"chart ratios\""));
  cr_expect(strstr(html, "class=\"banner unfinished\""), "the base run did not finish");
  cr_expect(strstr(html, "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;"));
  cr_expect(strstr(html, "<script") == NULL, "the page runs no script, and no message becomes one");
  cr_expect(strstr(html, "http:") == NULL && strstr(html, "https:") == NULL && strstr(html, "<img") == NULL &&
                strstr(html, "<link") == NULL,
            "the page names nothing to load");
  free(html);
  free_outcome(&o);
  free(run);
  free(base);
  free(page);
}

/* A row's bar is its fraction of the case's speed of light (sol_fraction, as
 * khost writes it) where it has one, before its fraction of the copy peak. */
Test(subcommands, a_bar_is_the_speed_of_light_fraction_where_a_row_has_one)
{
  outcome o;
  char *run = scratch_path("sol.json"), *page = scratch_path("sol.html");
  write_file(run, "{\"schema_version\": 1, \"finished\": true, \"run\": {\"device\": \"H100\"}, \"rows\": ["
                  "{\"case\": \"c\", \"op\": \"reduce_sum\", \"backend\": \"b\", \"device\": \"cuda\","
                  " \"status\": \"PASS\", \"peak_fraction\": 0.25, \"sol_fraction\": 0.875}]}");
  KHOST(&o, "report", run, "-o", page);
  cr_assert_eq(o.status, 0, "%s", o.err);
  char *html = slurp(page);
  cr_assert_not_null(html);
  /* The chart alone: the rows' table under it shows both columns. */
  char *chart = strstr(html, "class=\"chart bars\""), *end = chart ? strstr(chart, "</svg>") : NULL;
  cr_assert(chart && end, "no bar chart");
  *end = '\0';
  cr_expect(strstr(chart, ">87.5%<"), "the bar's label is its %%sol:\n%s", chart);
  cr_expect(strstr(chart, ">25.0%<") == NULL, "not its %% of peak");
  free(html);
  free_outcome(&o);
  free(run);
  free(page);
}

static void expect_refused(int status, const char *part, const char *const *args)
{
  outcome o;
  run_env(&o, NULL, args);
  cr_expect_eq(o.status, status, "%s: %s", args[1], o.err);
  cr_expect(strstr(o.err, part), "'%s' lacks '%s'", o.err, part);
  free_outcome(&o);
}
#define REFUSED(status, part, ...) expect_refused((status), (part), (const char *const[]){__VA_ARGS__, NULL})

Test(subcommands, bad_input_is_refused_with_a_message)
{
  char *run = fixture("gpu_run.json"), *bad = scratch_path("bad.json"), *page = scratch_path("p.html");
  char *nowhere = scratch_path("no/such/folder/p.html");
  write_file(bad, "{\"schema_version\": 1, \"rows\": 3}");
  REFUSED(2, "absent.json: cannot read: No such file or directory", "report", "absent.json", "-o", page);
  REFUSED(2, "not a khost report", "report", bad, "-o", page);
  REFUSED(2, "needs -o FILE", "report", run);
  REFUSED(2, "HTML report: / is a folder", "report", run, "-o", "/");
  REFUSED(1, "cannot create", "report", run, "-o", nowhere);
  REFUSED(2, "-o names the report it reads", "report", run, "-o", run);
  REFUSED(2, "unexpected argument", "report", run, run, run, "-o", page);
  REFUSED(2, "needs RUN.json and BASE.json", "compare", run);
  REFUSED(2, "--tolerance needs a number", "compare", run, run, "--tolerance", "-1");
  REFUSED(2, "unknown option '--json'", "compare", run, run, "--json", "x");
  free(run);
  free(bad);
  free(page);
  free(nowhere);
}

/* khost merge of two real shards is the unsharded run's rows; usage errors exit 2. */
Test(subcommands, merge_of_two_shards_is_the_whole_run_and_bad_usage_exits_2)
{
  outcome o;
  char *s0 = scratch_path("s0.json"), *s1 = scratch_path("s1.json"), *merged = scratch_path("m.json");
  char *whole = scratch_path("whole.json");
  KHOST(&o, "--op", "copy_transpose", FAST, "--quiet", "--json", whole);
  cr_assert_eq(o.status, 0, "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "--op", "copy_transpose", FAST, "--quiet", "--shard", "0/2", "--json", s0);
  cr_assert_eq(o.status, 0, "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "--op", "copy_transpose", FAST, "--quiet", "--shard", "1/2", "--json", s1);
  cr_assert_eq(o.status, 0, "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "merge", s1, s0, "--json", merged);
  cr_expect_eq(o.status, 0, "%s", o.err);
  cr_expect(strstr(o.out, "summary: "), "the run's table and summary: %s", o.out);
  free_outcome(&o);
  json_t *a = load_json(whole), *b = load_json(merged);
  json_t *ra = json_object_get(a, "rows"), *rb = json_object_get(b, "rows");
  cr_assert_eq(json_array_size(ra), json_array_size(rb));
  for (size_t i = 0; i < json_array_size(ra); i++) {
    json_t *x = json_array_get(ra, i), *y = json_array_get(rb, i);
    cr_expect_str_eq(json_text(x, "case"), json_text(y, "case"));
    cr_expect_str_eq(json_text(x, "backend"), json_text(y, "backend"));
    cr_expect_str_eq(json_text(x, "status"), json_text(y, "status"));
    cr_expect_str_eq(json_text(x, "message"), json_text(y, "message"));
  }
  json_decref(a);
  json_decref(b);
  KHOST(&o, "merge");
  cr_expect_eq(o.status, 2);
  cr_expect(strstr(o.err, "khost merge: needs SHARD.json"), "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "merge", s0, s1, "--json", s0);
  cr_expect_eq(o.status, 2);
  cr_expect(strstr(o.err, "--json names the report it reads"), "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "merge", s0);
  cr_expect_eq(o.status, 1, "shard 1/2 is missing");
  cr_expect(strstr(o.err, "khost merge: shard 1/2 is missing: no report of it was given"), "%s", o.err);
  free_outcome(&o);
  KHOST(&o, "--shard", "slurm");
  cr_expect_eq(o.status, 2);
  cr_expect(strstr(o.err, "khost: --shard slurm: SLURM_ARRAY_TASK_ID is not set"), "%s", o.err);
  free_outcome(&o);
  free(s0), free(s1), free(merged), free(whole);
}
