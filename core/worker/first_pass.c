/* Pass 1, a guard: the slot's plugin initialised, its call prepared, then one
 * checked call on the case's own seed, its outputs dumped. The call stays
 * prepared for the later units when it passes. */
#include <string.h>

#include "checked_call.h"
#include "dump.h"
#include "phases.h"

static const khost_kernel *slot_kernel(const khost__worker *w, int s)
{
  const khost__slot *slot = &w->job->slots[s];
  return khost__plugin_kernel(&w->job->reg->plugins[slot->plugin], w->job->c->op->name, slot->device_type);
}

/* init() once per plugin, then the call's preparation. Returns 0 when the call is
 * ready, KHOST__E_CUDA_BROKEN when the plugin's code broke the CUDA context, else
 * a failure (the row says which). */
static int prepare(khost__worker *w, int s)
{
  khost__err err;
  const khost__slot *slot = &w->job->slots[s];
  int rc = KHOST__E_FAIL;
  khost__worker_announce(w, s, "init");
  if (!khost__worker_plugin_ready(w, slot->plugin)) {
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "init failed: %.400s", w->plugin_why[slot->plugin]);
  } else {
    khost__worker_announce(w, s, "prepare");
    rc = khost__call_prepare(&w->calls[s], slot_kernel(w, s), &w->data, w->job->o->threads, w->job->o->device,
                             &err);
    if (rc == KHOST__E_DECLINED)
      khost__worker_settle(w, s, KHOST__ROW_SKIP, "%s", err.msg);
    else if (rc != KHOST__OK)
      khost__worker_settle(w, s, KHOST__ROW_ERROR, "%s", err.msg);
    else {
      memcpy(w->rows[s].variant, w->calls[s].variant, sizeof w->rows[s].variant);
      w->rows[s].call_overhead_s = w->calls[s].call_overhead_s;
      w->rows[s].graph_not_applied = w->job->o->graph_calls > 0 && slot->device_type == KHOST_DEVICE_CUDA &&
                                     khost__call_not_capturable(&w->calls[s]);
    }
  }
  /* init(), supports(), workspace_size() and describe() may have left faulting work
   * on the device: found now, it is this plugin's, not the next backend's. */
  if (khost__worker_sync(w, s, &err) != KHOST__OK) {
    khost__worker_settle(w, s, KHOST__ROW_CRASH, "CUDA error after the plugin's init and preparation: %s",
                         err.msg);
    return KHOST__E_CUDA_BROKEN;
  }
  return rc;
}

static int run(khost__worker *w, int s)
{
  int rc = prepare(w, s);
  if (rc != KHOST__OK) return rc == KHOST__E_CUDA_BROKEN ? rc : KHOST__OK;
  rc = khost__worker_checked_call(w, s, "check");
  if (rc != KHOST__OK) return rc;
  if (khost__dump_outputs(w->job->o, &w->data, &w->calls[s],
                          w->job->reg->plugins[w->job->slots[s].plugin].desc->name))
    w->rows[s].dump_incomplete = 1;
  if (w->active[s] && w->rows[s].check.mismatches) khost__worker_settle_mismatch(w, s, "");
  return KHOST__OK;
}

const khost__phase khost__phase_first_pass = {.slot = run};
