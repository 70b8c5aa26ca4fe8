#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fork_guard.h"

/* How often a silent child is checked for having ended. */
#define CHILD_POLL_MS 100

typedef struct message_header {
  uint32_t type, size;
} message_header;

int khost__child_start(khost__child *c, khost__child_fn fn, void *arg, khost__err *err)
{
  int fds[2];
  /* Close-on-exec: a helper a plugin execs must not hold the pipe open. */
  if (pipe2(fds, O_CLOEXEC) != 0) return khost__errorf(err, KHOST__E_IO, "pipe: %s", strerror(errno));
  /* Buffered output would otherwise be flushed twice, once by each process. */
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return khost__errorf(err, KHOST__E_IO, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    /* A worker must not outlive khost (a hung kernel would sleep on forever). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(EXIT_FAILURE);
    khost__fork_guard_claim();
    /* khost ignores SIGPIPE; plugin code, and what it runs, gets the default. */
    signal(SIGPIPE, SIG_DFL);
    close(fds[0]);
    int rc = fn(fds[1], arg);
    close(fds[1]);
    /* _exit: never run the parent's atexit handlers or flush its stdio twice. */
    _exit(rc);
  }
  close(fds[1]);
  c->pid = pid;
  c->fd = fds[0];
  return KHOST__OK;
}

static int write_all(int fd, const void *buf, size_t n)
{
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return KHOST__E_IO;
    p += w;
    n -= (size_t)w;
  }
  return KHOST__OK;
}

int khost__child_send(int fd, uint32_t type, const void *payload, uint32_t size)
{
  /* A process that plugin code forked from the child would interleave its
   * messages with the child's, and be read as the child. */
  khost__fork_guard_check_owner();
  message_header h = {type, size};
  if (write_all(fd, &h, sizeof h) != KHOST__OK) return KHOST__E_IO;
  return size ? write_all(fd, payload, size) : KHOST__OK;
}

/* The child has ended (not reaped: khost__child_finish does that). A process the
 * child forked may still hold the pipe open, so its end shows here, not as EOF. */
static int child_ended(const khost__child *c)
{
  siginfo_t info = {0};
  return c->pid > 0 && waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == c->pid;
}

/* 1 when n bytes arrived, 0 on EOF (or the child's end with nothing left to read),
 * -1 on timeout or a read error. */
static int read_all(const khost__child *c, void *buf, size_t n, double deadline)
{
  char *p = buf;
  while (n > 0) {
    int wait_ms = CHILD_POLL_MS;
    if (deadline > 0) {
      double left = deadline - khost__now_s();
      if (left <= 0) return -1;
      if (left * 1000.0 < wait_ms) wait_ms = (int)(left * 1000.0) + 1;
    }
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    int pr = poll(&pfd, 1, wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) return -1;
    if (pr == 0 && child_ended(c)) return 0;
    if (pr == 0) continue;
    ssize_t r = read(c->fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    p += r;
    n -= (size_t)r;
  }
  return 1;
}

int khost__child_recv(khost__child *c, uint32_t *type, void *payload, uint32_t cap, uint32_t *size,
                      double timeout_s)
{
  double deadline = timeout_s > 0 ? khost__now_s() + timeout_s : 0;
  message_header h;
  int rc = read_all(c, &h, sizeof h, deadline);
  if (rc != 1) return rc;
  /* A payload larger than the caller's buffer means a protocol bug: treat as EOF. */
  if (h.size > cap) return 0;
  if (h.size && (rc = read_all(c, payload, h.size, deadline)) != 1) return rc;
  *type = h.type;
  *size = h.size;
  return 1;
}

static void describe_end(int status, khost__child_end *end)
{
  if (WIFEXITED(status)) {
    end->exited = 1;
    end->exit_code = WEXITSTATUS(status);
    snprintf(end->how, sizeof end->how, "exited with status %d", end->exit_code);
  } else if (WIFSIGNALED(status)) {
    end->signaled = 1;
    end->signo = WTERMSIG(status);
    snprintf(end->how, sizeof end->how, "killed by signal %d (%s)", end->signo, strsignal(end->signo));
  } else {
    snprintf(end->how, sizeof end->how, "ended with wait status 0x%x", status);
  }
}

void khost__child_finish(khost__child *c, int kill_it, khost__child_end *end)
{
  memset(end, 0, sizeof *end);
  close(c->fd);
  c->fd = -1;
  int status = 0;
  if (c->pid <= 0) {
    /* In-process runs (--no-isolate) have no child: never kill(-1, ...). */
    snprintf(end->how, sizeof end->how, "returned");
    end->exited = 1;
    return;
  }
  if (!kill_it) {
    /* The pipe closed: give the child 2 s to exit on its own before killing it.
     * Its exit is usually microseconds behind the pipe's close, so the pauses
     * start at 0.1 ms and double to 10 ms: a fixed 10 ms cost every child (each
     * plugin's check, the init probe, every worker) that much wall time. */
    useconds_t pause = 100;
    for (useconds_t waited = 0; waited < 2000000; waited += pause, pause = pause < 5000 ? 2 * pause : 10000) {
      pid_t r = waitpid(c->pid, &status, WNOHANG);
      if (r == c->pid) {
        describe_end(status, end);
        return;
      }
      usleep(pause);
    }
  }
  kill(c->pid, SIGKILL);
  while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
  }
  describe_end(status, end);
  end->timed_out = kill_it;
  end->killed = 1;
}
