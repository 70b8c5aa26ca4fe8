/* The worker process's body: its state allocated, the phase list run in order
 * (core/worker/), the case finished, and the outcome made an exit status. */
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>

#include "fork_guard.h"
#include "nvtx.h"
#include "worker/phases.h"
#include "worker/phase_table.h"

static int allocate(khost__worker *w)
{
  size_t n = (size_t)w->job->nslots, nplugins = (size_t)w->job->reg->nplugins;
  w->rows = calloc(n, sizeof *w->rows);
  w->active = calloc(n, 1);
  w->done = calloc(n, 1);
  w->sent = calloc(n, 1);
  w->calls = calloc(n, sizeof *w->calls);
  w->plugin_ready = calloc(nplugins + 1, 1);
  w->plugin_why = calloc(nplugins + 1, sizeof *w->plugin_why);
  if (!w->rows || !w->active || !w->done || !w->sent || !w->calls || !w->plugin_ready || !w->plugin_why)
    return 0;
  for (size_t s = 0; s < n; s++) {
    w->active[s] = w->job->pending[s];
    int cuda = w->job->slots[s].device_type == KHOST_DEVICE_CUDA;
    snprintf(w->rows[s].timer, sizeof w->rows[s].timer, "%s",
             cuda ? khost__timer_name(w->job->o->timer) : "clock");
  }
  return 1;
}

/* The timers, if a failure kept the timing summary from freeing them, and the arrays. */
static void release(khost__worker *w)
{
  khost__worker_free_timers(w);
  free(w->plugin_why);
  free(w->plugin_ready);
  free(w->calls);
  free(w->sent);
  free(w->done);
  free(w->active);
  free(w->rows);
}

/* Each fini() announced first, so that one that crashes, exits or hangs is
 * named; "finish" again after them, so that the parent can tell a worker that
 * ended inside a fini() (even by exit(0)) from one that ended after. */
static void finish_plugins(khost__worker *w)
{
  const khost__worker_job *job = w->job;
  int called = 0;
  for (int p = 0; p < job->reg->nplugins; p++) {
    const khost_plugin *d = job->reg->plugins[p].desc;
    if (w->plugin_ready[p] != 1 || !d->fini || (job->fini_failed && job->fini_failed[p])) continue;
    khost__worker_announce_fini(w, p);
    d->fini();
    khost__fork_guard_check();
    called = 1;
  }
  if (called) khost__worker_announce(w, KHOST__NO_SLOT, "finish");
}

/* The case's buffers go before the plugins' fini(), which may tear down what
 * they were allocated with; a slot still active after every unit passed. */
static void finish(khost__worker *w, int rc)
{
  for (int s = 0; s < w->job->nslots; s++) khost__call_free(&w->calls[s]);
  khost__case_data_free(&w->data);
  for (int s = 0; s < w->job->nslots && rc == KHOST__OK; s++)
    if (w->active[s]) khost__worker_settle(w, s, KHOST__ROW_PASS, "%s", "");
  khost__worker_announce(w, KHOST__NO_SLOT, "finish");
  khost__worker_send_rows(w);
  finish_plugins(w);
}

int khost__worker_main(int fd, void *job)
{
  khost__worker w = {.fd = fd, .job = job};
  int exit_status = KHOST__WORKER_EXIT_FAILED;
  if (allocate(&w)) {
    int rc = khost__phases_run(&w, phases, (int)(sizeof phases / sizeof phases[0]));
    finish(&w, rc);
    exit_status = rc == KHOST__E_CUDA_BROKEN ? KHOST__WORKER_EXIT_RESTART : KHOST__WORKER_EXIT_DONE;
  }
  release(&w);
  khost__nvtx_phase_end();
  if (w.cuda_ready) khost__cuda_shutdown();
  return exit_status;
}
