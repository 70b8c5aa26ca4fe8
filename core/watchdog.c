#include "watchdog.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "exit_status.h"
#include "progress.h"

/* One look at the file per tick; silence is counted in ticks, which a stopped
 * process does not take. */
#define TICK_NS 100000000L

struct khost__watchdog {
  int fd;
  const khost__worker_job *job;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int started, stop;
};

/* The last announcement in the worker's messages, read from the start through
 * a descriptor of its own (the worker's writes move the shared offset). */
static void last_announced(const khost__watchdog *w, khost__begin_msg *last)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", w->fd);
  khost__child reader = {.pid = -1, .fd = open(path, O_RDONLY)};
  khost__worker_msg m;
  uint32_t type, size;
  *last = (khost__begin_msg){.slot = KHOST__NO_SLOT, .phase = "start-up"};
  while (reader.fd >= 0 && khost__child_recv(&reader, &type, &m, sizeof m, &size, 0) == 1)
    if (type == KHOST__MSG_BEGIN) *last = m.begin;
  if (reader.fd >= 0) close(reader.fd);
}

/* Whose code the announcement says ran: a backend, the oracle, a plugin's
 * fini(), or khost's own. */
static void describe_owner(const khost__worker_job *job, const khost__begin_msg *b, char *buf, size_t n)
{
  const khost__plugin *plugins = job->reg->plugins;
  if (b->slot >= 0 && b->slot < job->nslots)
    snprintf(buf, n, " of %s", plugins[job->slots[b->slot].plugin].desc->name);
  else if (b->slot == KHOST__ORACLE_SLOT)
    snprintf(buf, n, " of the reference %s", plugins[job->oracle_plugin].desc->name);
  else if (b->slot == KHOST__FINI_SLOT && b->plugin >= 0 && b->plugin < job->reg->nplugins)
    snprintf(buf, n, " of %s", plugins[b->plugin].desc->name);
  else
    buf[0] = '\0';
}

/* write(), not stdio: the hung thread may hold stderr's lock. */
static void end_khost(const khost__watchdog *w)
{
  khost__begin_msg last;
  char owner[128], line[512];
  last_announced(w, &last);
  last.phase[sizeof last.phase - 1] = '\0';
  describe_owner(w->job, &last, owner, sizeof owner);
  int n = snprintf(line, sizeof line,
                   "khost: --no-isolate: silent for longer than --timeout %g s during %s%s; a call inside "
                   "khost cannot be stopped, so khost ends here (isolated, the row would be a TIMEOUT)\n",
                   w->job->o->timeout_s, last.phase, owner);
  size_t length = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  khost__progress_clear();
  ssize_t written = write(STDERR_FILENO, line, length);
  (void)written; /* khost ends whether or not the line could be written */
  _exit(KHOST__EXIT_FAILED);
}

/* Waits one tick; 1 when asked to stop. */
static int tick(khost__watchdog *w)
{
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += TICK_NS;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&w->lock);
  while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0) {
  }
  int stop = w->stop;
  pthread_mutex_unlock(&w->lock);
  return stop;
}

static void *watch(void *arg)
{
  khost__watchdog *w = arg;
  off_t size = -1;
  long silent = 0, limit = (long)(w->job->o->timeout_s * 1e9 / TICK_NS) + 1;
  while (!tick(w)) {
    struct stat st;
    if (fstat(w->fd, &st) == 0 && st.st_size != size)
      size = st.st_size, silent = 0;
    else if (++silent >= limit)
      end_khost(w);
  }
  return NULL;
}

int khost__watchdog_start(khost__watchdog **watchdog, int fd, const khost__worker_job *job, khost__err *err)
{
  khost__watchdog *w = calloc(1, sizeof *w);
  pthread_condattr_t attr;
  *watchdog = NULL;
  if (!w) return khost__errorf(err, KHOST__E_NOMEM, "out of memory for the --no-isolate watchdog");
  w->fd = fd;
  w->job = job;
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->wake, &attr);
  pthread_condattr_destroy(&attr);
  int rc = pthread_create(&w->thread, NULL, watch, w);
  w->started = rc == 0;
  if (rc != 0) {
    khost__watchdog_stop(w);
    return khost__errorf(err, KHOST__E_IO, "--no-isolate: cannot start the watchdog thread: %s",
                         strerror(rc));
  }
  *watchdog = w;
  return KHOST__OK;
}

void khost__watchdog_stop(khost__watchdog *w)
{
  if (!w) return;
  if (w->started) {
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
  }
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w);
}
