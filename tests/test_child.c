/* Child processes: messages, and how a child's end is described. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "support/die_of_signal.h"

static int say_two_things(int fd, void *arg)
{
  khost__child_send(fd, 7, "hello", 6);
  khost__child_send(fd, 8, arg, sizeof(int));
  return 5;
}

static int die_by_signal(int fd, void *arg)
{
  khost__child_send(fd, 1, NULL, 0);
  die_of_signal(*(int *)arg);
  return 0;
}

/* Forks a helper that keeps the pipe open for 10 s (as a plugin's helper process
 * would), then dies by a signal. */
static int die_leaving_a_helper(int fd, void *arg)
{
  khost__child_send(fd, 1, NULL, 0);
  if (fork() == 0) {
    sleep(10);
    _exit(0);
  }
  die_of_signal(SIGSEGV);
  return 0;
}

static int sleep_forever(int fd, void *arg)
{
  for (;;) pause();
  return 0;
}

Test(child, messages_arrive_in_order_and_the_exit_status_is_kept)
{
  khost__child c;
  khost__err err;
  int value = 1234;
  cr_assert_eq(khost__child_start(&c, say_two_things, &value, &err), KHOST__OK);
  char buf[64];
  uint32_t type, size;
  cr_assert_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 1);
  cr_expect_eq(type, 7);
  cr_expect_str_eq(buf, "hello");
  cr_assert_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 1);
  cr_expect_eq(type, 8);
  cr_expect_eq(*(int *)buf, 1234);
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 0, "EOF after the child exits");
  khost__child_end end;
  khost__child_finish(&c, 0, &end);
  cr_expect(end.exited);
  cr_expect_eq(end.exit_code, 5);
  cr_expect_str_eq(end.how, "exited with status 5");
}

/* How a child that raised sig after one message ended. */
static khost__child_end end_by_signal(int sig)
{
  khost__child c;
  khost__err err;
  cr_assert_eq(khost__child_start(&c, die_by_signal, &sig, &err), KHOST__OK);
  char buf[8];
  uint32_t type, size;
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 1);
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 0);
  khost__child_end end;
  khost__child_finish(&c, 0, &end);
  return end;
}

Test(child, a_signal_is_described_by_name)
{
  khost__child_end end = end_by_signal(SIGSEGV);
  cr_expect(end.signaled);
  cr_expect_eq(end.signo, SIGSEGV);
  cr_expect(strstr(end.how, "signal 11 (Segmentation fault)"), "%s", end.how);
}

/* The pipe stays open in the helper, so no EOF comes: the child's end must still be
 * seen, well before the timeout, and described as the crash it was. */
Test(child, a_child_that_dies_while_its_helper_holds_the_pipe_ends_as_itself)
{
  khost__child c;
  khost__err err;
  cr_assert_eq(khost__child_start(&c, die_leaving_a_helper, NULL, &err), KHOST__OK);
  char buf[8];
  uint32_t type, size;
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 1);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 0, "the end, not a timeout");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cr_expect_lt(waited, 2.0, "took %.3f s to see the child's end", waited);
  khost__child_end end;
  khost__child_finish(&c, 0, &end);
  cr_expect(end.signaled && end.signo == SIGSEGV, "%s", end.how);
}

Test(child, a_silent_child_times_out_and_is_killed)
{
  khost__child c;
  khost__err err;
  cr_assert_eq(khost__child_start(&c, sleep_forever, NULL, &err), KHOST__OK);
  char buf[8];
  uint32_t type, size;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 0.2), -1,
               "silence must read as a timeout");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cr_expect_geq(waited, 0.19, "returned after %.3f s, before the 0.2 s timeout", waited);
  khost__child_end end;
  khost__child_finish(&c, 1, &end);
  cr_expect(end.signaled, "the silent child must have been killed");
  cr_expect_eq(end.signo, SIGKILL);
  cr_expect(end.timed_out && end.killed, "khost's own kill, at the deadline");
}

/* A SIGKILL the parent did not send (the out-of-memory killer's) reads as such. */
Test(child, a_sigkill_from_elsewhere_is_not_the_parent_s)
{
  khost__child_end end = end_by_signal(SIGKILL);
  cr_expect(end.signaled && end.signo == SIGKILL, "%s", end.how);
  cr_expect(!end.killed && !end.timed_out);
}

/* A process that plugin code forked in the child may not speak on its pipe: its
 * message would be read as the child's. */
static int fork_and_both_speak(int fd, void *arg)
{
  (void)arg;
  pid_t copy = fork();
  khost__child_send(fd, copy == 0 ? 2 : 1, NULL, 0);
  if (copy > 0) waitpid(copy, NULL, 0);
  return copy == 0 ? 3 : 0;
}

Test(child, only_the_child_speaks_on_its_pipe)
{
  khost__child c;
  khost__err err;
  cr_assert_eq(khost__child_start(&c, fork_and_both_speak, NULL, &err), KHOST__OK);
  char buf[8];
  uint32_t type, size;
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 1);
  cr_expect_eq(type, 1, "the child's message, not its copy's");
  cr_expect_eq(khost__child_recv(&c, &type, buf, sizeof buf, &size, 5), 0, "and nothing else");
  khost__child_end end;
  khost__child_finish(&c, 0, &end);
  cr_expect(end.exited && end.exit_code == 0, "%s", end.how);
}

Test(child, an_oversized_message_is_refused_as_end_of_stream)
{
  khost__child c;
  khost__err err;
  int value = 1;
  cr_assert_eq(khost__child_start(&c, say_two_things, &value, &err), KHOST__OK);
  char small[2];
  uint32_t type, size;
  cr_expect_eq(khost__child_recv(&c, &type, small, sizeof small, &size, 5), 0);
  khost__child_end end;
  khost__child_finish(&c, 1, &end);
}
