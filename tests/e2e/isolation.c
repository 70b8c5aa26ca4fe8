/* End to end, worker isolation: --no-isolate still checks, but a crash, an exit
 * or a hang past --timeout of a backend then ends khost; a process a plugin forks
 * never runs khost's code; a killed khost takes its worker with it. */
#include "support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(isolation, .init = make_scratch, .fini = remove_scratch, .timeout = 120);

Test(isolation, no_isolate_runs_and_still_checks)
{
  outcome o;
  KHOST(&o, FAST, "--no-isolate", "--case", COPY_CASE, "--plugin", "@fault_free.so", "--backends",
        "fault_free");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "reference", "PASS");
  expect_row(&o, COPY_CASE, "fault_free", "PASS");
  free_outcome(&o);
  KHOST(&o, FAST, "--no-isolate", "--case", COPY_CASE, "--plugin", "@fault_no_write.so", "--backends",
        "fault_no_write");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_no_write", "FAIL");
  free_outcome(&o);
}

Test(isolation, without_isolation_a_crashing_backend_ends_khost)
{
  outcome o;
  KHOST(&o, FAST, "--no-isolate", "--case", COPY_CASE, "--plugin", "@fault_abort.so", "--backends",
        "fault_abort");
  cr_expect_eq(o.signal, SIGABRT, "khost itself should die of the plugin's abort (status %d, signal %d)",
               o.status, o.signal);
  cr_expect_null(strstr(o.out, "summary:"));
  free_outcome(&o);
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_abort.so", "--backends", "fault_abort");
  cr_expect_eq(o.status, 1, "isolated, the same crash is a row: exit %d", o.status);
  expect_row(&o, COPY_CASE, "fault_abort", "CRASH");
  free_outcome(&o);
}

/* Without isolation a hung call cannot be killed without killing khost: --timeout
 * still holds, ending khost with the backend and phase it was silent in. */
Test(isolation, without_isolation_a_backend_silent_past_the_timeout_ends_khost_naming_it)
{
  outcome o;
  KHOST(&o, FAST, "--no-isolate", "--timeout", "1", "--case", COPY_CASE, "--plugin", "@fault_hang.so",
        "--backends", "fault_hang");
  cr_expect_eq(o.status, 1, "exit %d; stderr:\n%s", o.status, o.err);
  cr_expect_not_null(strstr(o.err,
                            "khost: --no-isolate: silent for longer than --timeout 1 s during check of "
                            "fault_hang; a call inside khost cannot be stopped"),
                     "stderr:\n%s", o.err);
  cr_expect_null(strstr(o.out, "summary:"));
  free_outcome(&o);
}

/* A plugin forks and both processes return into khost: the copy is ended at once,
 * so no other row is blamed for what it would do, and the run says so. */
static void expect_forked_copy_ended(outcome *o, const char *how)
{
  cr_expect_eq(o->status, 0, "%s: exit %d; stderr:\n%s", how, o->status, o->err);
  expect_row(o, COPY_CASE, "reference", "PASS");
  expect_row(o, COPY_CASE, "fault_fork", "PASS");
  expect_row(o, COPY_CASE, "fault_free", "PASS");
  cr_expect_eq(count_cases(o->out), 1, "%s: one table, from khost alone:\n%s", how, o->out);
  cr_expect_not_null(strstr(o->err,
                            "khost: a process that plugin fault_fork forked during check returned into "
                            "khost and was ended"),
                     "%s: stderr:\n%s", how, o->err);
  free_outcome(o);
}

Test(isolation, a_process_a_plugin_forks_never_returns_into_the_worker)
{
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_fork.so", "--plugin", "@fault_free.so",
        "--backends", "fault_fork,fault_free");
  expect_forked_copy_ended(&o, "isolated");
}

Test(isolation, without_isolation_a_process_a_plugin_forks_never_returns_into_khost)
{
  outcome o;
  KHOST(&o, FAST, "--no-isolate", "--case", COPY_CASE, "--plugin", "@fault_fork.so", "--plugin",
        "@fault_free.so", "--backends", "fault_fork,fault_free");
  expect_forked_copy_ended(&o, "--no-isolate");
}

/* Forking to exec a helper, and waiting for it, is a plugin's right. */
Test(isolation, a_plugin_may_fork_and_exec_a_helper)
{
  outcome o;
  KHOST(&o, FAST, "--case", COPY_CASE, "--plugin", "@fault_fork_exec.so", "--backends", "fault_fork_exec");
  cr_expect_eq(o.status, 0, "exit %d; stderr:\n%s", o.status, o.err);
  expect_row(&o, COPY_CASE, "fault_fork_exec", "PASS");
  cr_expect_null(strstr(o.err, "forked"), "stderr:\n%s", o.err);
  free_outcome(&o);
}

Test(isolation, without_isolation_exit_from_a_backend_is_never_a_success)
{
  outcome o;
  KHOST(&o, FAST, "--no-isolate", "--case", COPY_CASE, "--plugin", "@fault_exit0.so", "--backends",
        "fault_exit0");
  cr_expect_eq(o.status, 1, "a plugin's exit(0) must not read as success (exit %d)", o.status);
  cr_expect_not_null(strstr(o.err, "ended the process during --no-isolate"), "stderr:\n%s", o.err);
  free_outcome(&o);
}

/* 1 when pid has exited: no such process, or a zombie not yet reaped. *state gets
 * its state letter from /proc (unchanged once it is gone). */
static int process_gone(pid_t pid, char *state)
{
  char path[64], text[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  text[n] = '\0';
  const char *paren = strrchr(text, ')');
  if (kill(pid, 0) != 0 || !paren || paren[1] != ' ') return 1;
  *state = paren[2];
  return *state == 'Z' || *state == 'X';
}

Test(isolation, a_killed_khost_takes_its_worker_with_it)
{
  /* The hung kernel names its own process, so the pid is the worker's and not the
   * short-lived plugin probe's, which would be gone whether or not the worker dies. */
  char *pid_file = scratch_path("hung.pid"), *entry = NULL;
  cr_assert(asprintf(&entry, "KHOST_TEST_HANG_PID_FILE=%s", pid_file) >= 0);
  const char *envs[] = {entry, NULL};
  running r;
  const char *args[] = {FAST,         "--case",     COPY_CASE,   "--plugin", "@fault_hang.so",
                        "--backends", "fault_hang", "--timeout", "60",       NULL};
  start(&r, envs, args);
  pid_t worker = 0;
  for (int i = 0; i < 500 && !worker; i++) {
    usleep(20000);
    FILE *f = fopen(pid_file, "r");
    if (f && fscanf(f, "%d", &worker) != 1) worker = 0;
    if (f) fclose(f);
  }
  cr_assert_gt(worker, 0, "the worker never reached the hanging kernel");
  cr_assert_neq(worker, r.pid, "the kernel must hang in a worker, not in khost");
  cr_assert_eq(kill(worker, 0), 0, "the hung worker %d should be alive before khost dies", worker);
  /* Kill and reap khost alone: finish() would kill its whole process group, the
   * worker with it, and prove nothing. */
  kill(r.pid, SIGKILL);
  cr_assert_eq(waitpid(r.pid, NULL, 0), r.pid);
  /* A worker with a CUDA context can take seconds to release it once killed. */
  char state = 'S';
  for (int i = 0; i < 1500 && !process_gone(worker, &state); i++) usleep(20000);
  cr_expect(process_gone(worker, &state), "worker %d outlived khost (state %c)", worker, state);
  outcome o;
  finish(&r, &o);
  free_outcome(&o);
  free(entry);
  free(pid_file);
}
