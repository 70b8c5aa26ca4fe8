/* A child process that talks to its parent through a pipe of small typed
 * messages. Used wherever foreign code runs (plugin init probes, workers), so
 * that a crash, exit() or hang there is reported instead of taking khost down. */
#ifndef KHOST_CHILD_H
#define KHOST_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* The child body: writes messages to fd; its return value becomes the exit status. */
typedef int (*khost__child_fn)(int fd, void *arg);

/* A running child. Owned by the caller; khost__child_finish releases it. */
typedef struct khost__child {
  pid_t pid;
  int fd; /* read end in the parent */
} khost__child;

/* How a child ended, in words ("killed by signal 11 (Segmentation fault)").
 * killed: khost__child_finish sent it SIGKILL (at the deadline, or after it
 * closed its pipe without exiting), so a SIGKILL end is khost's own. */
typedef struct khost__child_end {
  int exited, exit_code, signaled, signo, timed_out, killed;
  char how[128];
} khost__child_end;

/* Forks; the child runs fn(write_fd, arg) and _exit()s with its result. */
int khost__child_start(khost__child *c, khost__child_fn fn, void *arg, khost__err *err);

/* Sends one message of `size` payload bytes (child side). 0 or KHOST__E_IO. */
int khost__child_send(int fd, uint32_t type, const void *payload, uint32_t size);

/* Receives one message into payload (capacity cap). Returns 1 for a message,
 * 0 when the child closed the pipe, -1 when timeout_s passed first (<= 0: wait forever). */
int khost__child_recv(khost__child *c, uint32_t *type, void *payload, uint32_t cap, uint32_t *size,
                      double timeout_s);

/* Kills the child when kill_it (or always when it is still running after the
 * pipe closed), reaps it and describes its end. */
void khost__child_finish(khost__child *c, int kill_it, khost__child_end *end);

#endif
