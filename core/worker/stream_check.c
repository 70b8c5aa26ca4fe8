/* The stream check, a guard on CUDA slots after pass 1: a kernel that puts work
 * on a stream other than the one it was given would escape the timer. */
#include "phases.h"

static int run(khost__worker *w, int s)
{
  if (w->job->slots[s].device_type != KHOST_DEVICE_CUDA) return KHOST__OK;
  khost__worker_announce(w, s, "stream check");
  khost__err err;
  int rc = khost__timing_check_stream(&w->calls[s], &err);
  if (rc == KHOST__E_CUDA_BROKEN) return khost__worker_settle(w, s, KHOST__ROW_CRASH, "%s", err.msg), rc;
  if (rc != KHOST__OK) {
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "%s", err.msg);
    khost__worker_restore_inputs(w);
  }
  return KHOST__OK;
}

const khost__phase khost__phase_stream_check = {.slot = run};
