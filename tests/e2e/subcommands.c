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
