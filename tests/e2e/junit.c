/* End to end, the JUnit report (--junit): read with a real XML parser (Python's
 * xml.etree, through tests/junit_check.py) and held against the JSON report of
 * the same run; what a killed run leaves; the paths it refuses. */
#include "support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TestSuite(junit, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

/* Runs tests/junit_check.py on the JUnit and JSON reports at their paths, in
 * mode (finished, unfinished, killed); its exit status, or 127 without python. */
static int junit_check(const char *junit, const char *json, const char *mode)
{
  const char *python = getenv("KHOST_TEST_PYTHON") ? getenv("KHOST_TEST_PYTHON") : "python3";
  char script[4096];
  snprintf(script, sizeof script, "%s/tests/junit_check.py", env("KHOST_SOURCE_ROOT"));
  fflush(NULL);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    execlp(python, python, script, junit, json, mode, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect_checked(const char *junit, const char *mode)
{
  int rc = junit_check(junit, report_path(), mode);
  if (rc == 127) SKIP_TEST("python3 is not available (set KHOST_TEST_PYTHON)");
  cr_expect_eq(rc, 0, "tests/junit_check.py %s %s %s failed (its message is above)", junit, report_path(),
               mode);
}

/* Every status a row can have, and a plugin's hostile bytes (not UTF-8, terminal
 * escapes, a tab, a carriage return, a line feed), which XML 1.0 does not allow
 * even escaped: the file parses, and each test case says what its JSON row says. */
Test(junit, the_junit_report_parses_and_says_what_the_json_says)
{
  char *junit = scratch_path("r.xml");
  outcome o;
  KHOST_JSON(&o, FAST, "--case", COPY_CASE "," GEMV_CASE, "--plugin", "@fault_no_write.so", "--plugin",
             "@fault_hostile_text.so", "--plugin", "@fault_segv.so", "--plugin", "@fault_decline.so",
             "--junit", junit);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  json_t *doc = report(&o);
  /* Each status the JUnit report turns into an element of its own. */
  static const char *const rows[][3] = {{"fault_no_write", "FAIL", "never written"},
                                        {"fault_hostile_text", "ERROR", "second line"},
                                        {"fault_segv", "CRASH", "signal 11"},
                                        {"fault_decline", "SKIP", "declined"}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    expect_json_row(doc, COPY_CASE, rows[i][0], rows[i][1], rows[i][2]);
  expect_checked(junit, "finished");
  char *text = slurp(junit);
  cr_assert_not_null(text);
  cr_expect_eq(strcspn(text, "\x1b\xff\x07\t"), strlen(text), "raw bytes in the JUnit report:\n%s", text);
  cr_expect_not_null(strstr(text, "classname=\"copy_transpose/" COPY_CASE "\" name=\"fault_no_write:cpu\">\n"
                                  "      <failure type=\"FAIL\""),
                     "%s", text);
  free(text);
  free_outcome(&o);
  free(junit);
}

/* Killed mid-run: the file is the one written at the start, whose one test case
 * is an error saying the run did not finish, so CI never reads it as passed. */
Test(junit, a_killed_run_leaves_a_junit_report_that_fails)
{
  char *junit = scratch_path("r.xml");
  running r;
  start(&r, NULL,
        (const char *const[]){FAST, "--case", COPY_CASE, "--plugin", "@fault_hang.so", "--backends",
                              "fault_hang", "--timeout", "30", "--json", report_path(), "--junit", junit,
                              NULL});
  struct timespec tick = {0, 5 * 1000 * 1000};
  int still_running = 1;
  for (int waited_ms = 0; waited_ms < 20000 && access(junit, F_OK) != 0 && still_running; waited_ms += 5) {
    nanosleep(&tick, NULL);
    still_running = waitpid(r.pid, NULL, WNOHANG) == 0;
  }
  cr_assert(still_running, "khost ended before it could be killed mid-run");
  cr_assert_eq(access(junit, F_OK), 0, "no JUnit report within 20 s");
  cr_assert_eq(kill(-r.pid, SIGKILL), 0);
  outcome o;
  finish(&r, &o);
  cr_expect_eq(o.signal, SIGKILL);
  expect_checked(junit, "killed");
  free_outcome(&o);
  free(junit);
}

/* --list runs nothing: a JUnit report is refused before anything runs (exit 2),
 * as --json and --csv are (the other refusals: tests/e2e/reports.c and tests/test_cli.c). */
Test(junit, list_takes_no_junit_report)
{
  char *junit = scratch_path("r.xml");
  outcome o;
  KHOST(&o, "--list", "--junit", junit);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "--list runs no case: --junit has nothing to write"), "stderr:\n%s",
                     o.err);
  cr_expect_eq(access(junit, F_OK), -1, "nothing is written");
  free_outcome(&o);
  free(junit);
}

/* Another program removes the report during the run: khost says so once the
 * run is over, after the table, and exits 1; it does not make the file again. */
Test(junit, a_report_removed_during_the_run_fails_the_run_at_its_end)
{
  char *junit = scratch_path("r.xml"), *entry = NULL;
  cr_assert(asprintf(&entry, "KHOST_TEST_REMOVE_PATH=%s", junit) >= 0);
  const char *envs[] = {entry, NULL};
  outcome o;
  KHOST_ENV(&o, envs, FAST, "--case", COPY_CASE, "--plugin", "@fault_removes_report.so", "--junit", junit);
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  char want[256];
  snprintf(want, sizeof want,
           "khost: JUnit report: %s was removed or replaced by another program during the run", junit);
  cr_expect_not_null(strstr(o.err, want), "stderr lacks '%s':\n%s", want, o.err);
  expect_row(&o, COPY_CASE, "fault_removes_report", "PASS");
  cr_expect_eq(access(junit, F_OK), -1, "the removed report is not made again");
  free_outcome(&o);
  free(entry);
  free(junit);
}
