/* Test support: a line that never ends, made safe to read. A child writes one
 * byte again and again into a pipe, without a newline, and stops at
 * ENDLESS_LINE_BYTES; the reader opens the pipe as /dev/fd/N. A reader that
 * reads with a bound stops long before the end, and the child can tell: a
 * reader that read the line whole would have taken ENDLESS_LINE_BYTES of memory
 * here, and all there is from /dev/zero. */
#ifndef KHOST_TEST_ENDLESS_LINE_H
#define KHOST_TEST_ENDLESS_LINE_H

#include <criterion/criterion.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ENDLESS_LINE_BYTES ((size_t)64 << 20)
/* More than a bounded reader takes: its stdio buffer, the pipe's 64 KiB and one write in flight. */
#define ENDLESS_LINE_BOUND ((size_t)1 << 20)

typedef struct endless_line {
  pid_t writer;
  int fd;        /* the pipe's read end, kept open until endless_line_stopped_early */
  char path[32]; /* /dev/fd/<fd>, for the reader to open */
} endless_line;

static inline void endless_line_start(endless_line *line, char byte)
{
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  line->writer = fork();
  cr_assert_geq(line->writer, 0);
  if (line->writer == 0) {
    static char chunk[1 << 16];
    size_t written = 0;
    ssize_t n = 1;
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN); /* the reader closing early is the outcome wanted, not a death */
    memset(chunk, byte, sizeof chunk);
    while (written < ENDLESS_LINE_BYTES && (n = write(fds[1], chunk, sizeof chunk)) > 0) written += (size_t)n;
    _exit(written < ENDLESS_LINE_BOUND ? 0 : 1);
  }
  close(fds[1]);
  line->fd = fds[0];
  snprintf(line->path, sizeof line->path, "/dev/fd/%d", fds[0]);
}

/* Call once every reader has closed the pipe: whether they stopped before
 * taking ENDLESS_LINE_BOUND bytes of the line. */
static inline bool endless_line_stopped_early(endless_line *line)
{
  int status = 0;
  close(line->fd);
  cr_assert_eq(waitpid(line->writer, &status, 0), line->writer);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
