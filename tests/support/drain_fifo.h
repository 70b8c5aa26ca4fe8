/* Test support: a reader of a named pipe, for the reports that a path which is
 * not a regular file gets once, at the end. */
#ifndef KHOST_TEST_DRAIN_FIFO_H
#define KHOST_TEST_DRAIN_FIFO_H

#include <criterion/criterion.h>
#include <stdio.h>
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

#endif
