#include "worker.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "casedata.h"
#include "check.h"
#include "child.h"
#include "dump.h"
#include "timing.h"

/* Pass 2 re-checks on inputs from other seeds: a kernel that returns a result
 * remembered from an earlier call cannot pass both. Trial t's seed is the case's
 * xor t times this odd number, so no trial meets the case's seed or another's. */
#define FRESH_SEED_MIX UINT64_C(0x9E3779B97F4A7C15)

typedef struct worker {
  int fd;
  const khost__worker_job *job;
  /* the worker's part of each slot's row */
  khost__measurement *rows;
  uint8_t *active; /* slot passed so far and is still being measured */
  uint8_t *done;   /* slot's row is final */
  uint8_t *sent;   /* slot's final row went to the parent */
  khost__call *calls;
  int cuda_ready;
  khost__device_info device; /* valid when cuda_ready */
  char cuda_why[512];
  uint8_t *plugin_ready; /* per registry plugin: 0 unknown, 1 ok, 2 failed */
  char (*plugin_why)[512];
  int inputs_undumped; /* --dump files of the case's inputs or reference not written */
} worker;

static const khost_kernel *slot_kernel(const worker *w, int s)
{
  const khost__slot *slot = &w->job->slots[s];
  return khost__plugin_kernel(&w->job->reg->plugins[slot->plugin], w->job->c->op->name, slot->device_type);
}

static void announce(const worker *w, int slot, const char *phase)
{
  khost__begin_msg m = {.slot = slot};
  snprintf(m.phase, sizeof m.phase, "%.*s", (int)sizeof m.phase - 1, phase);
  if (slot >= 0) memcpy(m.variant, w->rows[slot].variant, sizeof m.variant);
  khost__child_send(w->fd, KHOST__MSG_BEGIN, &m, sizeof m);
}

static void settle(worker *w, int s, khost__row_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void settle(worker *w, int s, khost__row_status status, const char *fmt, ...)
{
  w->rows[s].status = status;
  w->active[s] = 0;
  w->done[s] = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->rows[s].message, sizeof w->rows[s].message, fmt, ap);
  va_end(ap);
}

/* Calls init() once per plugin in this process; 1 when the plugin is usable. */
static int plugin_ready(worker *w, int p)
{
  if (w->plugin_ready[p]) return w->plugin_ready[p] == 1;
  const khost_plugin *d = w->job->reg->plugins[p].desc;
  int rc = d->init ? d->init(w->plugin_why[p], sizeof w->plugin_why[p]) : KHOST_STATUS_OK;
  w->plugin_why[p][sizeof w->plugin_why[p] - 1] = '\0'; /* the plugin may have filled it */
  w->plugin_ready[p] = rc == KHOST_STATUS_OK ? 1 : 2;
  return rc == KHOST_STATUS_OK;
}

static void finish_plugins(worker *w)
{
  for (int p = 0; p < w->job->reg->nplugins; p++) {
    const khost_plugin *d = w->job->reg->plugins[p].desc;
    if (w->plugin_ready[p] == 1 && d->fini) d->fini();
  }
}

/* The copy bandwidth and the empty call's time, unless an earlier worker sent
 * them. The empty call is timed as the run times (cold unless --hot); under
 * --graph a call's time holds no launch gap, so it is not measured. A failed
 * measurement leaves 0: no % of peak, no note on short times. */
static void measure_device(worker *w)
{
  const khost__options *o = w->job->o;
  khost__err err;
  w->device.peak_gbps = w->job->known->peak_gbps;
  if (w->device.peak_gbps <= 0 && khost__cuda_measure_copy(&w->device.peak_gbps, &err) != KHOST__OK)
    w->device.peak_gbps = 0;
  w->device.empty_call_s = w->job->known->empty_call_s;
  if (w->device.empty_call_s <= 0 && o->graph_calls == 0 &&
      khost__cuda_measure_empty_call(!o->hot, &w->device.empty_call_s, &err) != KHOST__OK)
    w->device.empty_call_s = 0;
}

/* Brings up CUDA when any pending slot needs it; slots that cannot run are settled. */
static void start_devices(worker *w)
{
  const khost__worker_job *job = w->job;
  int wants = 0;
  for (int s = 0; s < job->nslots; s++)
    wants |= w->active[s] && job->slots[s].device_type == KHOST_DEVICE_CUDA;
  if (!wants) return;
  khost__err err;
  int usable = khost__cuda_available(job->o->device, w->cuda_why, sizeof w->cuda_why);
  if (usable && khost__cuda_init(job->o->device, &w->device, &err) != KHOST__OK) {
    snprintf(w->cuda_why, sizeof w->cuda_why, "CUDA init failed: %.480s", err.msg);
  } else if (usable) {
    w->cuda_ready = 1;
    khost__cuda_set_blocking(!job->o->no_blocking_kernel);
    measure_device(w);
    khost__child_send(w->fd, KHOST__MSG_DEVICE, &w->device, sizeof w->device);
  }
  for (int s = 0; s < job->nslots; s++)
    if (w->active[s] && job->slots[s].device_type == KHOST_DEVICE_CUDA && !w->cuda_ready)
      settle(w, s, KHOST__ROW_SKIP, "%s", w->cuda_why);
}

/* Runs the reference into d->ref, announced as phase. 0, or the failure message in err. */
static int run_oracle(worker *w, khost__case_data *d, const char *phase, khost__err *err)
{
  const khost__plugin *ref = &w->job->reg->plugins[w->job->oracle_plugin];
  const khost_kernel *k = khost__plugin_kernel(ref, d->c->op->name, KHOST_DEVICE_CPU);
  if (!k)
    return khost__errorf(err, KHOST__E_FAIL, "plugin '%s' has no CPU kernel for %s", ref->desc->name,
                         d->c->op->name);
  announce(w, KHOST__ORACLE_SLOT, "reference init");
  if (!plugin_ready(w, w->job->oracle_plugin))
    return khost__errorf(err, KHOST__E_FAIL, "init failed: %.400s", w->plugin_why[w->job->oracle_plugin]);
  khost__call call;
  int rc = khost__call_prepare(&call, k, d, w->job->o->threads, w->job->o->device, err);
  if (rc != KHOST__OK) return rc;
  announce(w, KHOST__ORACLE_SLOT, phase);
  rc = khost__call_poison(&call, err);
  int status = rc == KHOST__OK ? khost__call_run(&call) : KHOST_STATUS_OK;
  if (rc == KHOST__OK && status != KHOST_STATUS_OK)
    rc = khost__errorf(err, KHOST__E_FAIL, "returned status %d: %s", status, call.error);
  for (int t = 0; t < d->set.noutputs && rc == KHOST__OK; t++) {
    rc = khost__buffer_check_guards(&call.out[t], d->set.outputs[t].name, err);
    if (rc == KHOST__OK) rc = khost__call_read_output(&call, t, d->ref[t], err);
    /* Where the oracle wrote nothing, a kernel that writes nothing would match it. */
    size_t unwritten = rc == KHOST__OK ? khost__count_poison(&d->set.outputs[t], d->ref[t]) : 0;
    if (unwritten)
      rc = khost__errorf(err, KHOST__E_FAIL, "the oracle left %zu elements of %s unwritten", unwritten,
                         d->set.outputs[t].name);
  }
  /* An oracle that changed its inputs would hand the backends other data than it
   * answered for (and the first CPU backend would be blamed for the change). */
  int side = rc == KHOST__OK ? khost__call_check_side_effects(&call, err) : KHOST__OK;
  if (side == KHOST__E_GUARD || side == KHOST__E_MUTATED) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    rc = khost__errorf(err, KHOST__E_FAIL, "the oracle %s: %.400s",
                       side == KHOST__E_MUTATED ? "modified its input" : "wrote out of bounds", why);
  } else if (side != KHOST__OK) {
    rc = side;
  }
  khost__call_free(&call);
  return rc;
}

/* Sends every final row not sent yet. Rows go as soon as they are final, so that
 * a later crash (the reference's on a fresh trial, a backend's) cannot take
 * them: the parent blames only rows it has not received. */
static void send_rows(worker *w)
{
  for (int s = 0; s < w->job->nslots; s++) {
    if (!w->done[s] || w->sent[s]) continue;
    khost__row_msg m = {.slot = s, .measured = w->rows[s]};
    /* A skipped row has nothing to re-check, so it misses no inputs. */
    m.measured.dump_incomplete |= w->inputs_undumped > 0 && m.measured.status != KHOST__ROW_SKIP;
    khost__child_send(w->fd, KHOST__MSG_ROW, &m, sizeof m);
    w->sent[s] = 1;
  }
}

/* A CUDA failure after a call may be sticky: the context is then unusable. The
 * whole device is waited for, so that a fault of work the call put on another
 * stream is blamed here, on this backend, and not on a later read of its output. */
static int device_settled(worker *w, int s, khost__err *err)
{
  if (w->job->slots[s].device_type != KHOST_DEVICE_CUDA) return KHOST__OK;
  return khost__cuda_sync_device(err);
}

static void settle_mismatch(worker *w, int s, const char *when)
{
  const khost__check_stats *st = &w->rows[s].check;
  settle(w, s, KHOST__ROW_FAIL, "%s%llu of %llu elements out of tolerance (%llu never written)", when,
         (unsigned long long)st->mismatches, (unsigned long long)st->count,
         (unsigned long long)st->unwritten);
}

/* After a backend's call that did not end in a passing check: the next backend
 * must see the generated inputs, not this one's damage. A kernel that failed, or
 * whose output guard failed first, may have changed them unseen. */
static void restore_inputs(khost__case_data *d)
{
  khost__err err;
  if (khost__case_data_restore(d, &err) != KHOST__OK)
    fprintf(stderr, "khost: restoring inputs failed: %s\n", err.msg);
}

static void settle_check_error(worker *w, int s, khost__case_data *d, int rc, const khost__err *err)
{
  if (rc == KHOST__E_GUARD)
    settle(w, s, KHOST__ROW_FAIL, "out-of-bounds write: %s", err->msg);
  else if (rc == KHOST__E_MUTATED)
    settle(w, s, KHOST__ROW_ERROR, "%s", err->msg);
  else
    settle(w, s, KHOST__ROW_ERROR, "host failure while checking: %s", err->msg);
  restore_inputs(d);
}

/* One checked call of slot s on d. Returns KHOST__E_CUDA_BROKEN when the CUDA
 * context broke, else 0 (the slot's row says how it went). */
static int checked_call(worker *w, int s, khost__call *call, const char *phase)
{
  khost__err err;
  announce(w, s, phase);
  int rc = khost__call_poison(call, &err);
  if (rc != KHOST__OK) return settle(w, s, KHOST__ROW_ERROR, "poisoning outputs: %s", err.msg), 0;
  int status = khost__call_run(call);
  if (device_settled(w, s, &err) != KHOST__OK) {
    settle(w, s, KHOST__ROW_CRASH, "CUDA error after the call: %s", err.msg);
    return KHOST__E_CUDA_BROKEN;
  }
  if (status != KHOST_STATUS_OK) {
    settle(w, s, KHOST__ROW_ERROR, "kernel returned status %d: %s", status, call->error);
    restore_inputs(call->data);
    return 0;
  }
  khost__check_stats stats;
  rc = khost__call_check(call, &stats, &err);
  w->rows[s].check = stats;
  if (rc != KHOST__OK) settle_check_error(w, s, call->data, rc, &err);
  return 0;
}

/* init() once per plugin, then the call's preparation. Returns 0 when the call is
 * ready, KHOST__E_CUDA_BROKEN when the plugin's code broke the CUDA context, else
 * a failure (the row says which). */
static int prepare_slot(worker *w, int s, khost__case_data *d)
{
  khost__err err;
  const khost__slot *slot = &w->job->slots[s];
  int rc = KHOST__E_FAIL;
  announce(w, s, "init");
  if (!plugin_ready(w, slot->plugin)) {
    settle(w, s, KHOST__ROW_ERROR, "init failed: %.400s", w->plugin_why[slot->plugin]);
  } else {
    announce(w, s, "prepare");
    rc = khost__call_prepare(&w->calls[s], slot_kernel(w, s), d, w->job->o->threads, w->job->o->device, &err);
    if (rc == KHOST__E_DECLINED)
      settle(w, s, KHOST__ROW_SKIP, "%s", err.msg);
    else if (rc != KHOST__OK)
      settle(w, s, KHOST__ROW_ERROR, "%s", err.msg);
    else
      memcpy(w->rows[s].variant, w->calls[s].variant, sizeof w->rows[s].variant);
  }
  /* init(), supports(), workspace_size() and describe() may have left faulting work
   * on the device: found now, it is this plugin's, not the next backend's. */
  if (device_settled(w, s, &err) != KHOST__OK) {
    settle(w, s, KHOST__ROW_CRASH, "CUDA error after the plugin's init and preparation: %s", err.msg);
    return KHOST__E_CUDA_BROKEN;
  }
  return rc;
}

/* Pass 1 for one slot: correctness on the case's own seed, then (CUDA) the
 * stream-escape check. The call stays prepared for timing when it passes. */
static int first_pass(worker *w, int s, khost__case_data *d)
{
  int rc = prepare_slot(w, s, d);
  if (rc != KHOST__OK) return rc == KHOST__E_CUDA_BROKEN ? rc : 0;
  rc = checked_call(w, s, &w->calls[s], "check");
  if (rc != KHOST__OK) return rc;
  if (khost__dump_outputs(w->job->o, d, &w->calls[s],
                          w->job->reg->plugins[w->job->slots[s].plugin].desc->name))
    w->rows[s].dump_incomplete = 1;
  if (!w->active[s]) return 0;
  if (w->rows[s].check.mismatches) return settle_mismatch(w, s, ""), 0;
  if (w->job->slots[s].device_type != KHOST_DEVICE_CUDA) return 0;
  announce(w, s, "stream check");
  khost__err err;
  rc = khost__timing_check_stream(&w->calls[s], &err);
  if (rc == KHOST__E_CUDA_BROKEN) return settle(w, s, KHOST__ROW_CRASH, "%s", err.msg), rc;
  if (rc != KHOST__OK) settle(w, s, KHOST__ROW_ERROR, "%s", err.msg), restore_inputs(d);
  return 0;
}

/* Pass 2, trial t: fresh inputs in the same buffers, the same prepared calls
 * (same outputs and workspace); a result cached by address or in the workspace
 * fails the first trial, a kernel wrong on some inputs only may fail a later one. */
static int fresh_pass(worker *w, khost__case_data *d, int t)
{
  char phase[32];
  snprintf(phase, sizeof phase, "fresh check %d/%d", t, w->job->o->trials);
  for (int s = 0; s < w->job->nslots; s++) {
    if (!w->active[s]) continue;
    khost__check_stats before = w->rows[s].check;
    int rc = checked_call(w, s, &w->calls[s], phase);
    if (rc != KHOST__OK) return rc;
    if (w->active[s] && !w->rows[s].check.mismatches) {
      khost__check_merge(&before, &w->rows[s].check);
      w->rows[s].check = before;
    } else if (w->active[s]) {
      char when[128];
      snprintf(when, sizeof when, "on fresh inputs (trial %d of %d, seed %llu)%s", t, w->job->o->trials,
               (unsigned long long)d->seed, t == 1 ? ", a cached result? " : ": ");
      settle_mismatch(w, s, when);
    }
  }
  return 0;
}

static int any_active(const worker *w)
{
  for (int s = 0; s < w->job->nslots; s++)
    if (w->active[s]) return 1;
  return 0;
}

/* Every trial of pass 2 while a slot is still passing: new inputs, the oracle on
 * them, then the checks. */
static int fresh_trials(worker *w, khost__case_data *d, khost__err *err)
{
  int rc = KHOST__OK;
  char phase[64]; /* --trials is at most 1000: every label fits a message's 32 bytes */
  for (int t = 1; t <= w->job->o->trials && rc == KHOST__OK && any_active(w); t++) {
    snprintf(phase, sizeof phase, "fresh inputs %d/%d", t, w->job->o->trials);
    announce(w, KHOST__NO_SLOT, phase);
    rc = khost__case_data_reseed(d, w->job->c->seed ^ (FRESH_SEED_MIX * (uint64_t)t), err);
    snprintf(phase, sizeof phase, "reference, trial %d/%d", t, w->job->o->trials);
    if (rc == KHOST__OK) rc = run_oracle(w, d, phase, err);
    if (rc == KHOST__OK) rc = fresh_pass(w, d, t);
    send_rows(w);
  }
  return rc;
}

/* One more timed call into poisoned outputs, then checked: a kernel that does
 * less work when called again on the same inputs (as timing does) is caught. It
 * runs on inputs restored as generated, so that damage done during another
 * backend's samples is not blamed on this one, and it adds no sample: its
 * outputs were just poisoned (under --hot, by a memset still in L2). */
static int check_timed(worker *w, int s, khost__timer *timer)
{
  khost__err err;
  khost__check_stats stats;
  khost__call *call = &w->calls[s];
  announce(w, s, "timed check");
  int rc = khost__case_data_restore(call->data, &err);
  if (rc == KHOST__OK) rc = khost__call_poison(call, &err);
  if (rc != KHOST__OK)
    return settle(w, s, KHOST__ROW_ERROR, "host failure before the timed check: %s", err.msg), 0;
  rc = khost__timer_call(timer, &err);
  if (rc == KHOST__E_CUDA_BROKEN) return settle(w, s, KHOST__ROW_CRASH, "%s", err.msg), rc;
  if (rc != KHOST__OK) {
    settle(w, s, KHOST__ROW_ERROR, "on the timed check: %s", err.msg);
    restore_inputs(call->data);
    return 0;
  }
  if ((rc = device_settled(w, s, &err)) != KHOST__OK)
    return settle(w, s, KHOST__ROW_CRASH, "CUDA error after a timed call: %s", err.msg), KHOST__E_CUDA_BROKEN;
  rc = khost__call_check(call, &stats, &err);
  if (rc != KHOST__OK) {
    settle_check_error(w, s, call->data, rc, &err);
  } else if (stats.mismatches) {
    w->rows[s].check = stats; /* the row's counts are those of the failing call, not of pass 1 */
    settle(w, s, KHOST__ROW_FAIL,
           "a timed call left %llu of %llu elements wrong (%llu never written): work skipped "
           "when called again?",
           (unsigned long long)stats.mismatches, (unsigned long long)stats.count,
           (unsigned long long)stats.unwritten);
  }
  return 0;
}

/* The row's timing, or an error when every sample ran throttled: such times
 * would compare a slowed GPU with a fast one. */
static void summarize(worker *w, int s, const khost__samples *samples)
{
  if (khost__samples_summarize(samples, &w->rows[s].time) != KHOST__OK)
    settle(w, s, KHOST__ROW_ERROR, "out of memory summarizing %d samples", samples->n);
  else if (samples->n == 0 && samples->throttled > 0)
    settle(w, s, KHOST__ROW_ERROR,
           "all %d samples ran with the SM clock under %g%% of its rated %d MHz, so none was kept "
           "(--throttle sets the floor; 0 keeps every sample)",
           samples->throttled, w->job->o->throttle_pct, w->device.sm_clock_mhz);
}

/* A warm-up or sample that failed: CRASH when the CUDA context broke (the worker
 * then restarts: returned), else ERROR, with the inputs the kernel ran on restored. */
static int settle_timing_failure(worker *w, int s, int rc, const char *when, const khost__err *err)
{
  if (rc == KHOST__E_CUDA_BROKEN) return settle(w, s, KHOST__ROW_CRASH, "%s", err->msg), rc;
  settle(w, s, KHOST__ROW_ERROR, "while %s: %s", when, err->msg);
  restore_inputs(w->calls[s].data);
  return 0;
}

/* Samples every active slot in rotating order, one sample each per round, so
 * that drift (clocks, temperature) is shared by all backends instead of
 * favouring whoever ran first. */
static int measure(worker *w)
{
  const khost__options *o = w->job->o;
  int n = w->job->nslots, rc = 0;
  khost__timer *timers = calloc((size_t)(n > 0 ? n : 1), sizeof *timers);
  if (!timers) {
    for (int s = 0; s < n; s++)
      if (w->active[s]) settle(w, s, KHOST__ROW_ERROR, "out of memory for the timers");
    return 0;
  }
  for (int s = 0; s < n && rc == KHOST__OK; s++) {
    if (!w->active[s]) continue;
    announce(w, s, "warm-up");
    khost__err err;
    rc = khost__timer_start(&timers[s], &w->calls[s], o, w->cuda_ready ? &w->device : NULL, &err);
    if (rc != KHOST__OK) rc = settle_timing_failure(w, s, rc, "warming up", &err);
  }
  for (int round = 0, busy = 1; busy && rc == KHOST__OK; round++) {
    busy = 0;
    for (int j = 0; j < n && rc == KHOST__OK; j++) {
      int s = (round + j) % n;
      if (!w->active[s] || khost__samples_done(&timers[s].samples, o)) continue;
      busy = 1;
      announce(w, s, "timing");
      khost__err err;
      rc = khost__timer_sample(&timers[s], &err);
      if (rc != KHOST__OK) rc = settle_timing_failure(w, s, rc, "timing", &err);
    }
  }
  for (int s = 0; s < n && rc == KHOST__OK; s++)
    if (w->active[s]) rc = check_timed(w, s, &timers[s]);
  for (int s = 0; s < n; s++) {
    if (w->active[s]) summarize(w, s, &timers[s].samples);
    khost__timer_free(&timers[s]);
  }
  free(timers);
  return rc;
}

/* Pass 1 on every slot, timing, pass 2's trials. Returns 0 or KHOST__E_CUDA_BROKEN. */
static int run_passes(worker *w)
{
  const khost__case *c = w->job->c;
  khost__case_data d;
  khost__err err;
  announce(w, KHOST__NO_SLOT, "inputs");
  int rc = khost__case_data_make(&d, c, c->seed, &err);
  if (rc == KHOST__OK) rc = run_oracle(w, &d, "reference", &err);
  if (rc == KHOST__OK && w->job->o->dump) {
    announce(w, KHOST__NO_SLOT, "dump");
    w->inputs_undumped = khost__dump_inputs(w->job->o, &d);
  }
  for (int s = 0; s < w->job->nslots && rc == KHOST__OK; s++) {
    if (w->active[s]) rc = first_pass(w, s, &d);
    send_rows(w);
  }
  if (rc == KHOST__OK) rc = measure(w);
  send_rows(w);
  if (rc == KHOST__OK) rc = fresh_trials(w, &d, &err);
  for (int s = 0; s < w->job->nslots; s++) khost__call_free(&w->calls[s]);
  khost__case_data_free(&d);
  if (rc != KHOST__OK && rc != KHOST__E_CUDA_BROKEN)
    for (int s = 0; s < w->job->nslots; s++)
      if (w->active[s]) settle(w, s, KHOST__ROW_ERROR, "reference or input generation failed: %s", err.msg);
  return rc == KHOST__E_CUDA_BROKEN ? rc : 0;
}

static int allocate(worker *w, size_t n, size_t nplugins)
{
  w->rows = calloc(n, sizeof *w->rows);
  w->active = calloc(n, 1);
  w->done = calloc(n, 1);
  w->sent = calloc(n, 1);
  w->calls = calloc(n, sizeof *w->calls);
  w->plugin_ready = calloc(nplugins + 1, 1);
  w->plugin_why = calloc(nplugins + 1, sizeof *w->plugin_why);
  return w->rows && w->active && w->done && w->sent && w->calls && w->plugin_ready && w->plugin_why;
}

static void release(worker *w)
{
  if (w->calls)
    for (int s = 0; s < w->job->nslots; s++) khost__call_free(&w->calls[s]);
  free(w->plugin_why);
  free(w->plugin_ready);
  free(w->calls);
  free(w->sent);
  free(w->done);
  free(w->active);
  free(w->rows);
}

int khost__worker_main(int fd, void *arg)
{
  worker w = {.fd = fd, .job = arg};
  int rc, exit_status = KHOST__WORKER_EXIT_FAILED;
  if (!allocate(&w, (size_t)w.job->nslots, (size_t)w.job->reg->nplugins)) goto out;
  for (int s = 0; s < w.job->nslots; s++) w.active[s] = w.job->pending[s];
  start_devices(&w);
  rc = run_passes(&w);
  for (int s = 0; s < w.job->nslots && rc == KHOST__OK; s++)
    if (w.active[s]) settle(&w, s, KHOST__ROW_PASS, "%s", "");
  announce(&w, KHOST__NO_SLOT, "finish");
  send_rows(&w);
  finish_plugins(&w);
  exit_status = rc == KHOST__E_CUDA_BROKEN ? KHOST__WORKER_EXIT_RESTART : KHOST__WORKER_EXIT_DONE;
out:
  release(&w);
  if (w.cuda_ready) khost__cuda_shutdown();
  return exit_status;
}
