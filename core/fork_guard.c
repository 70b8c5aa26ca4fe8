#include "fork_guard.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "progress.h"

static pid_t owner;
static volatile int forked; /* set in every copy fork() makes */
static char plugin_now[64], phase_now[32];

static void mark_copy(void)
{
  forked = 1;
}

void khost__fork_guard_claim(void)
{
  static int registered;
  if (!registered) registered = pthread_atfork(NULL, NULL, mark_copy) == 0;
  owner = getpid();
  forked = 0;
}

void khost__fork_guard_note(const char *plugin, const char *phase)
{
  snprintf(plugin_now, sizeof plugin_now, "%s", plugin);
  snprintf(phase_now, sizeof phase_now, "%s", phase);
}

int khost__fork_guard_owner(void)
{
  return !owner || getpid() == owner;
}

/* write(), not stdio: the copy's stdio buffers are the owner's, and must
 * neither be flushed a second time nor mixed into this line. */
static void end_copy(void)
{
  char line[256];
  int n = snprintf(line, sizeof line,
                   "khost: a process that plugin %s forked%s%s returned into khost and was ended (a "
                   "plugin's child process must exec or _exit)\n",
                   plugin_now[0] ? plugin_now : "code", phase_now[0] ? " during " : "", phase_now);
  size_t length = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  khost__progress_clear();
  ssize_t written = write(STDERR_FILENO, line, length);
  (void)written; /* a stderr that cannot be written changes nothing: the copy ends either way */
  _exit(EXIT_FAILURE);
}

void khost__fork_guard_check(void)
{
  if (owner && forked) end_copy();
}

void khost__fork_guard_check_owner(void)
{
  if (!khost__fork_guard_owner()) end_copy();
}
