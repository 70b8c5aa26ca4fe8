/* The sampling phase: every active slot's timer started (with its warm-up),
 * then samples in rotating order, one per slot each round, until each slot's
 * stopping rule is met. The timers stay for the timed check and the summary. */
#include <stdlib.h>

#include "phases.h"

/* A warm-up or sample that failed: CRASH when the CUDA context broke (the worker
 * then restarts: returned), FAIL with the failing call's counts when a timed
 * call's outputs were wrong, else ERROR; the inputs the kernel ran on restored. */
static int settle_failure(khost__worker *w, int s, int rc, const char *when, const khost__err *err)
{
  if (rc == KHOST__E_CUDA_BROKEN) return khost__worker_settle(w, s, KHOST__ROW_CRASH, "%s", err->msg), rc;
  if (rc == KHOST__E_WRONG) {
    w->rows[s].check = w->timers[s].failed;
    khost__worker_settle(w, s, KHOST__ROW_FAIL, "%s", err->msg);
  } else {
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "while %s: %s", when, err->msg);
  }
  khost__worker_restore_inputs(w);
  return KHOST__OK;
}

static int warm_up(khost__worker *w)
{
  int rc = KHOST__OK;
  for (int s = 0; s < w->job->nslots && rc == KHOST__OK; s++) {
    if (!w->active[s]) continue;
    khost__worker_announce(w, s, "warm-up");
    khost__err err;
    rc = khost__timer_start(&w->timers[s], &w->calls[s], w->job->o, w->cuda_ready ? &w->device : NULL, &err);
    if (rc != KHOST__OK) rc = settle_failure(w, s, rc, "warming up", &err);
  }
  return rc;
}

/* Rotating, so that drift (clocks, temperature) is shared by all backends
 * instead of favouring whoever ran first. */
static int take_samples(khost__worker *w)
{
  int n = w->job->nslots, rc = KHOST__OK;
  for (int round = 0, busy = 1; busy && rc == KHOST__OK; round++) {
    busy = 0;
    for (int j = 0; j < n && rc == KHOST__OK; j++) {
      int s = (round + j) % n;
      if (!w->active[s] || khost__samples_done(&w->timers[s].samples, w->job->o)) continue;
      busy = 1;
      khost__worker_announce(w, s, "timing");
      khost__err err;
      rc = khost__timer_sample(&w->timers[s], &err);
      if (rc != KHOST__OK) rc = settle_failure(w, s, rc, "timing", &err);
    }
  }
  return rc;
}

static int run(khost__worker *w)
{
  int n = w->job->nslots;
  w->timers = calloc((size_t)(n > 0 ? n : 1), sizeof *w->timers);
  if (!w->timers) {
    for (int s = 0; s < n; s++)
      if (w->active[s]) khost__worker_settle(w, s, KHOST__ROW_ERROR, "out of memory for the timers");
    return KHOST__OK;
  }
  int rc = warm_up(w);
  return rc == KHOST__OK ? take_samples(w) : rc;
}

const khost__phase khost__phase_sampling = {.whole = run};
