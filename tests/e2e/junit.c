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
  const char *python = getenv("KHOST_PYTHON") ? getenv("KHOST_PYTHON") : "python3";
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
  if (rc == 127) SKIP_TEST("python3 is not available (set KHOST_PYTHON)");
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
  expect_json_row(doc, COPY_CASE, "fault_no_write", "FAIL", "never written");
  expect_json_row(doc, COPY_CASE, "fault_hostile_text", "ERROR", "second line");
  expect_json_row(doc, COPY_CASE, "fault_segv", "CRASH", "");
  expect_json_row(doc, COPY_CASE, "fault_decline", "SKIP", "");
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

/* The same rules as --json and --csv: a folder, a missing folder, one file named
 * twice, and --list, which runs nothing: refused before anything runs (exit 2). */
Test(junit, paths_that_cannot_be_used_are_refused_before_running)
{
  char want[128];
  snprintf(want, sizeof want, "khost: JUnit report: %s is a folder", scratch);
  expect_refused_before_running("--junit", scratch, want);
  char *missing = scratch_path("no/such/folder/r.xml");
  expect_refused_before_running("--junit", missing, "No such file or directory");
  char *json = scratch_path("r.xml"), *again = NULL;
  cr_assert(asprintf(&again, "%s/./r.xml", scratch) >= 0);
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--json", json, "--junit", again);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "--json and --junit name the same file"), "stderr:\n%s", o.err);
  cr_expect_eq(access(json, F_OK), -1, "nothing is written");
  free_outcome(&o);
  KHOST(&o, "--list", "--junit", json);
  cr_expect_eq(o.status, 2, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err, "--list runs no case: --junit has nothing to write"), "stderr:\n%s",
                     o.err);
  free_outcome(&o);
  free(again);
  free(json);
  free(missing);
}
