/* The oracle phase: the case's inputs from its seed, the reference's outputs on
 * them, and --dump of both. */
#include "oracle.h"

#include <stdio.h>

#include "check.h"
#include "dump.h"
#include "phases.h"

/* Each output of the oracle's finished call, guards (and an arena's gaps)
 * checked, into the expected outputs: written everywhere. */
static int take_outputs(khost__call *call, khost__err *err)
{
  khost__case_data *d = call->data;
  int rc = KHOST__OK;
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++) {
    rc = khost__call_read_checked_output(call, t, d->ref[t], err);
    /* Where the oracle wrote nothing, a kernel that writes nothing would match it. */
    size_t unwritten = rc == KHOST__OK ? khost__count_poison(&d->set.outputs[t], d->ref[t]) : 0;
    if (unwritten)
      rc = khost__errorf(err, KHOST__E_FAIL, "the oracle left %zu elements of %s unwritten", unwritten,
                         d->set.outputs[t].name);
  }
  return rc;
}

/* An oracle that changed its inputs would hand the backends other data than it
 * answered for (and the first CPU backend would be blamed for the change). */
static int check_side_effects(khost__call *call, khost__err *err)
{
  int side = khost__call_check_side_effects(call, err);
  if (side != KHOST__E_GUARD && side != KHOST__E_MUTATED) return side;
  char why[sizeof err->msg];
  snprintf(why, sizeof why, "%s", err->msg);
  return khost__errorf(err, KHOST__E_FAIL, "the oracle %s: %.400s",
                       side == KHOST__E_MUTATED ? "modified its input" : "wrote out of bounds", why);
}

int khost__worker_oracle(khost__worker *w, const char *phase, khost__err *err)
{
  const khost__plugin *ref = &w->job->reg->plugins[w->job->oracle_plugin];
  const khost_kernel *k = khost__plugin_kernel(ref, w->job->c->op->name, KHOST_DEVICE_CPU);
  if (!k)
    return khost__errorf(err, KHOST__E_FAIL, "plugin '%s' has no CPU kernel for %s", ref->desc->name,
                         w->job->c->op->name);
  khost__worker_announce(w, KHOST__ORACLE_SLOT, "reference init");
  if (!khost__worker_plugin_ready(w, w->job->oracle_plugin))
    return khost__errorf(err, KHOST__E_FAIL, "init failed: %.400s", w->plugin_why[w->job->oracle_plugin]);
  khost__call call;
  int rc = khost__call_prepare(&call, k, &w->data, w->job->o->threads, w->job->o->device, err);
  if (rc != KHOST__OK) return rc;
  khost__worker_announce(w, KHOST__ORACLE_SLOT, phase);
  rc = khost__call_poison(&call, err);
  int status = rc == KHOST__OK ? khost__call_run(&call) : KHOST_STATUS_OK;
  if (rc == KHOST__OK && status != KHOST_STATUS_OK)
    rc = khost__errorf(err, KHOST__E_FAIL, "returned status %d: %s", status, call.error);
  if (rc == KHOST__OK) rc = take_outputs(&call, err);
  if (rc == KHOST__OK) rc = check_side_effects(&call, err);
  khost__call_free(&call);
  return rc;
}

int khost__worker_reference_failed(khost__worker *w, int rc, const khost__err *err)
{
  for (int s = 0; s < w->job->nslots; s++)
    if (w->active[s])
      khost__worker_settle(w, s, KHOST__ROW_ERROR, "reference or input generation failed: %s", err->msg);
  return rc;
}

static int run(khost__worker *w)
{
  const khost__case *c = w->job->c;
  khost__err err;
  khost__worker_announce(w, KHOST__NO_SLOT, "inputs");
  int rc = khost__case_data_make(&w->data, c, c->seed, &err);
  if (rc == KHOST__OK) rc = khost__worker_oracle(w, "reference", &err);
  if (rc != KHOST__OK) return khost__worker_reference_failed(w, rc, &err);
  if (w->job->o->dump) {
    khost__worker_announce(w, KHOST__NO_SLOT, "dump");
    w->inputs_undumped = khost__dump_inputs(w->job->o, &w->data);
  }
  return KHOST__OK;
}

const khost__phase khost__phase_oracle = {.whole = run};
