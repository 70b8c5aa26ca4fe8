/* The fork guard (core/fork_guard.c): a copy that fork() made of the process
 * that claimed the guard ends where plugin code returns into khost; the claimer
 * and a forked child that execs go on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fork_guard.h"
#include "support/child_stderr.h"

typedef struct guard_check {
  void (*check)(void);
} guard_check;

static void check_in_copy(void *arg)
{
  ((const guard_check *)arg)->check();
}

/* Claims the guard, then forks; the copy runs check (its stderr kept in said)
 * and exits CHILD_BODY_RETURNED if it is still alive. Returns the copy's wait status. */
static int fork_and_check(void (*check)(void), char *said, size_t n)
{
  guard_check c = {check};
  khost__fork_guard_claim();
  khost__fork_guard_note("fork_test", "check");
  return run_in_child(check_in_copy, &c, said, n);
}

Test(fork_guard, a_forked_copy_is_ended_where_plugin_code_returns)
{
  char said[512];
  int status = fork_and_check(khost__fork_guard_check, said, sizeof said);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_FAILURE, "status 0x%x", status);
  cr_expect_str_eq(said, "khost: a process that plugin fork_test forked during check returned into khost and "
                         "was ended (a plugin's child process must exec or _exit)\n");
  khost__fork_guard_check(); /* the claimer goes on */
  cr_expect(khost__fork_guard_owner());
}

Test(fork_guard, any_process_but_the_claimer_is_ended_before_it_speaks)
{
  char said[512];
  int status = fork_and_check(khost__fork_guard_check_owner, said, sizeof said);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_FAILURE, "status 0x%x", status);
  cr_expect_not_null(strstr(said, "returned into khost"), "%s", said);
}

/* A child that execs is another program: the guard never sees it. */
Test(fork_guard, a_forked_child_that_execs_runs_its_program)
{
  khost__fork_guard_claim();
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 7, "status 0x%x", status);
}

/* A process forked before the claim is the claimer of its own. */
Test(fork_guard, a_claim_in_a_child_makes_it_the_owner)
{
  khost__fork_guard_claim();
  pid_t pid = fork();
  if (pid == 0) {
    khost__fork_guard_claim();
    khost__fork_guard_check();
    khost__fork_guard_check_owner();
    _exit(khost__fork_guard_owner() ? CHILD_BODY_RETURNED : 1);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_BODY_RETURNED, "status 0x%x", status);
}
