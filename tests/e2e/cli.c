/* End to end, the command line: no arguments runs the smoke suite, --help,
 * --version, and the usage errors that stop khost before it runs anything. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khost/plugin.h"

TestSuite(cli, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

Test(cli, no_arguments_runs_the_smoke_suite_and_the_reference_passes_every_case)
{
  smoke_case cases[MAX_SMOKE_CASES];
  int n = read_smoke(cases, MAX_SMOKE_CASES);
  outcome o;
  KHOST(&o, FAST);
  cr_assert_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.out, "/smoke.ini\n"), "the header should name the smoke suite:\n%s", o.out);
  cr_expect_eq(count_cases(o.out), n, "%d case blocks, smoke.ini has %d", count_cases(o.out), n);
  for (int i = 0; i < n; i++) {
    char header[160];
    snprintf(header, sizeof header, "\ncase %.63s | op %.31s", cases[i].name, cases[i].op);
    cr_expect_not_null(strstr(o.out, header), "missing '%s'", header + 1);
    expect_row(&o, cases[i].name, "reference", "PASS");
  }
  summary s = read_summary(o.out);
  cr_expect_geq(s.passed, n, "%d passed rows for %d cases", s.passed, n);
  cr_expect_eq(s.passed + s.skipped, s.rows, "rows that neither passed nor skipped:\n%s", o.out);
  cr_expect_eq(s.failed + s.errored + s.crashed + s.timed_out, 0);
  free_outcome(&o);
}

Test(cli, help_lists_every_flag)
{
  static const char *const flags[] = {
      "suite",      "op",
      "case",       "backends",
      "baseline",   "reference",
      "plugin-dir", "plugin",
      "list",       "strict",
      "json",       "csv",
      "dump",       "hot",
      "graph",      "no-isolate",
      "device",     "threads",
      "warmup",     "min-samples",
      "max-noise",  "max-time",
      "timeout",    "help",
      "version",    "no-blocking-kernel",
      "min-time",   "throttle",
      "junit",      "quiet",
      "devices",    "timer",
  };
  outcome o;
  KHOST(&o, "--help");
  cr_assert_eq(o.status, 0, "exit %d", o.status);
  cr_expect_not_null(strstr(o.out, "usage: khost"));
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    char needle[48];
    /* Followed by a blank: "--plugin" must not be found inside "--plugin-dir". */
    snprintf(needle, sizeof needle, "  --%s ", flags[i]);
    cr_expect_not_null(strstr(o.out, needle), "--help does not list --%s", flags[i]);
  }
  cr_expect_null(strstr(o.out, "summary:"), "--help must not run anything");
  free_outcome(&o);
}

Test(cli, version_names_the_project_version_and_the_plugin_abi)
{
  char path[4096], want[32] = "", got[32] = "";
  snprintf(path, sizeof path, "%s/meson.build", env("KHOST_SOURCE_ROOT"));
  char *build = slurp(path);
  cr_assert_not_null(build);
  const char *v = strstr(build, "version: '");
  cr_assert_not_null(v, "meson.build has no project version");
  sscanf(v, "version: '%31[^']", want);
  free(build);
  outcome o;
  KHOST(&o, "--version");
  int major = -1, minor = -1;
  cr_assert_eq(o.status, 0);
  cr_assert_eq(sscanf(o.out, "khost %31s (plugin ABI %d.%d)", got, &major, &minor), 3, "got: %s", o.out);
  cr_expect_str_eq(got, want);
  cr_expect_eq(major, KHOST_ABI_MAJOR);
  cr_expect_eq(minor, KHOST_ABI_MINOR);
  free_outcome(&o);
}

Test(cli, usage_errors_exit_2_with_a_message)
{
  static const struct {
    const char *args[4];
    const char *message;
  } cases[] = {
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"--threads", "0"}, "--threads needs a whole number"},
      {{"--threads", "2x"}, "--threads needs a whole number"},
      {{"--max-time", "abc"}, "--max-time needs a number"},
      {{"--timeout", "0"}, "--timeout needs a number"},
      {{"--max-noise", "-1"}, "--max-noise needs a number"},
      {{"leftover"}, "unexpected argument 'leftover'"},
      {{"--suite"}, "missing value for '--suite'"},
      {{"--suite", "/"}, "/:1: cannot read: Is a directory"},
      /* --list runs nothing: a report would stay empty. */
      {{"--list", "--json", "r.json"}, "--list runs no case: --json has nothing to write"},
      {{"--list", "--csv", "r.csv"}, "--list runs no case: --csv has nothing to write"},
      {{"--timer", "ncu"}, "--timer takes events or cupti, got 'ncu'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *args[8] = {FAST};
    int n = 4;
    for (int k = 0; k < 4 && cases[i].args[k]; k++) args[n++] = cases[i].args[k];
    args[n] = NULL;
    outcome o;
    run_env(&o, NULL, args);
    cr_expect_eq(o.status, 2, "%s: exit %d, expected 2", cases[i].message, o.status);
    cr_expect_not_null(strstr(o.err, cases[i].message), "stderr lacks '%s':\n%s", cases[i].message, o.err);
    cr_expect_null(strstr(o.out, "summary:"), "%s: a usage error must not run the suite", cases[i].message);
    free_outcome(&o);
  }
}

/* --timer cupti without a libcupti to open would time nothing as asked: refused
 * before anything runs, with where khost looked. */
Test(cli, timer_cupti_without_cupti_is_refused_before_running)
{
  const char *envs[] = {"KHOST_CUPTI_LIBRARY=/nonexistent/libcupti.so", NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE, "--timer", "cupti");
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "khost: --timer cupti: "), "stderr:\n%s", o.err);
  cr_expect(strstr(o.err, "$KHOST_CUPTI_LIBRARY=/nonexistent/libcupti.so") || strstr(o.err, "without CUPTI"),
            "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"), "nothing runs:\n%s", o.out);
  free_outcome(&o);
}

/* The header and the run say which timer made the GPU times; a CPU row says the clock made its own. */
Test(cli, the_report_names_the_timer)
{
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE, "--backends", "reference");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  /* The device line, where the timer is named, is there only with a GPU. */
  if (strstr(o.out, "\ndevice ")) cr_expect_not_null(strstr(o.out, " | timer events"), "stdout:\n%s", o.out);
  json_t *doc = report(&o);
  cr_expect_str_eq(json_string_value(json_object_get(json_object_get(doc, "run"), "timer")), "events");
  json_t *rows = json_object_get(doc, "rows");
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *row = json_array_get(rows, i), *time = json_object_get(row, "time");
    if (strcmp(json_string_value(json_object_get(row, "device")), "cpu") == 0)
      cr_expect_str_eq(json_string_value(json_object_get(time, "timer")), "clock");
  }
  free_outcome(&o);
}
