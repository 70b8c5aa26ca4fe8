/* Test support: code that ends its own process (the fork guard, the --no-isolate
 * watchdog) run in a forked child, with what it writes to stderr kept. */
#ifndef KHOST_TEST_CHILD_STDERR_H
#define KHOST_TEST_CHILD_STDERR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The exit status of a child whose body returned instead of ending the process. */
#define CHILD_BODY_RETURNED 42

/* Runs body(arg) in a forked child whose stderr goes into said (n bytes,
 * NUL-terminated); the child exits CHILD_BODY_RETURNED if body returns. Returns
 * the child's wait status. */
static inline int run_in_child(void (*body)(void *), void *arg, char *said, size_t n)
{
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDERR_FILENO);
    body(arg);
    _exit(CHILD_BODY_RETURNED);
  }
  close(fds[1]);
  size_t used = 0;
  ssize_t got;
  while (used < n - 1 && (got = read(fds[0], said + used, n - 1 - used)) > 0) used += (size_t)got;
  said[used] = '\0';
  close(fds[0]);
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  return status;
}

#endif
