/* Test support: a reader of a named pipe, for the reports that a path which is
 * not a regular file gets once, at the end. */
#ifndef KHOST_TEST_DRAIN_FIFO_H
#define KHOST_TEST_DRAIN_FIFO_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A reader of the pipe at fifo copies what it gets into copy (a child process:
 * opening a pipe for writing waits for its reader). Returns its pid. */
static inline pid_t drain_fifo(const char *fifo, const char *copy)
{
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid > 0) return pid;
  FILE *in = fopen(fifo, "r"), *out = fopen(copy, "w");
  int c;
  while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
  _exit(in && out && fclose(out) == 0 ? 0 : 1);
}

/* A named pipe in a folder, with a reader copying what it gets to a file beside it. */
typedef struct fifo_copy {
  char fifo[192], copy[192];
  pid_t reader;
} fifo_copy;

/* Makes folder/name (the pipe) and folder/name.copy, and starts the reader. */
static inline void fifo_copy_start(fifo_copy *f, const char *folder, const char *name)
{
  snprintf(f->fifo, sizeof f->fifo, "%s/%s", folder, name);
  snprintf(f->copy, sizeof f->copy, "%s/%s.copy", folder, name);
  cr_assert_eq(mkfifo(f->fifo, 0600), 0);
  f->reader = drain_fifo(f->fifo, f->copy);
}

/* Waits for the reader, which got the pipe's end; the pipe is still one (no report replaced it). */
static inline void fifo_copy_wait(const fifo_copy *f)
{
  int status;
  cr_assert_eq(waitpid(f->reader, &status, 0), f->reader);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader failed");
  struct stat st;
  cr_expect(stat(f->fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the pipe was replaced");
}

#endif
