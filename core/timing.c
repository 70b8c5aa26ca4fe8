#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fresh.h"

static int invoke(void *arg, int i)
{
  (void)i;
  return khost__call_run(arg);
}

static int is_cuda(const khost__call *call)
{
  return call->kernel->device_type == KHOST_DEVICE_CUDA;
}

/* A CUDA failure leaves the context unusable when the device still reports it. */
static int cuda_failure(int rc)
{
  khost__err sync;
  if (rc == KHOST__OK) return KHOST__OK;
  if (khost__cuda_sync(&sync) != KHOST__OK) return KHOST__E_CUDA_BROKEN;
  return rc;
}

static int kernel_failure(const khost__call *call, int status, khost__err *err)
{
  return khost__errorf(err, KHOST__E_FAIL, "kernel returned status %d: %s", status, call->error);
}

/* One sample in seconds per call, and the SM clock it ran at (0: unknown). */
static int sample_once(khost__timer *t, double *seconds, double *sm_mhz, khost__err *err)
{
  int status = KHOST_STATUS_OK, rc;
  *sm_mhz = 0;
  if (!is_cuda(t->call)) {
    double start = khost__now_s();
    status = khost__call_run(t->call);
    *seconds = khost__now_s() - start;
    return status == KHOST_STATUS_OK ? KHOST__OK : kernel_failure(t->call, status, err);
  }
  /* A discarded sample (the launch queue stalled behind the blocking kernel) is retried, never kept. */
  for (int attempt = 0; attempt < KHOST__CUDA_SAMPLE_TRIES; attempt++) {
    rc = t->graph ? khost__cuda_graph_time(t->graph, !t->o->hot, seconds, sm_mhz, err)
                  : khost__cuda_time(invoke, t->call, 0, 1, !t->o->hot, seconds, sm_mhz, &status, err);
    if (rc != KHOST__E_DISCARDED) break;
  }
  if (rc == KHOST__OK && status != KHOST_STATUS_OK) return kernel_failure(t->call, status, err);
  return cuda_failure(rc);
}

/* Call j of a sample: the timed call itself, or under --graph the call bound to copy j. */
static khost__call *call_of(khost__timer *t, int j)
{
  return j == 0 ? t->call : &t->copy_calls[j - 1];
}

/* Call i of a graph: the original and its copies in turn. */
static int invoke_rotating(void *arg, int i)
{
  khost__timer *t = arg;
  return khost__call_run(call_of(t, i % t->ncopies));
}

/* Under --graph every call of a replay has inputs, outputs and workspace of
 * its own: call 0 the case's, each other a device copy. Each call then gets its
 * own fresh inputs, and cold, a replay's calls do not read each other's lines. */
static int make_copies(khost__timer *t, khost__err *err)
{
  int n = t->o->graph_calls;
  t->ncopies = 1;
  if (n <= 1) return KHOST__OK;
  t->copy_data = calloc((size_t)n - 1, sizeof *t->copy_data);
  t->copy_calls = calloc((size_t)n - 1, sizeof *t->copy_calls);
  if (!t->copy_data || !t->copy_calls)
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory for input copies");
  for (int j = 0; j < n - 1; j++) {
    int rc = khost__case_data_clone_device(&t->copy_data[j], t->call->data, err);
    if (rc != KHOST__OK) return rc;
    rc = khost__call_prepare(&t->copy_calls[j], t->call->kernel, &t->copy_data[j],
                             t->call->view.input.num_threads, t->o->device, err);
    if (rc != KHOST__OK) return khost__case_data_free(&t->copy_data[j]), rc;
    t->ncopies++;
  }
  return KHOST__OK;
}

static int capture(khost__timer *t, khost__err *err)
{
  size_t nodes = 0;
  int status = KHOST_STATUS_OK;
  int rc = make_copies(t, err);
  if (rc != KHOST__OK) return rc;
  rc = khost__cuda_graph_capture(invoke_rotating, t, t->o->graph_calls, &t->graph, &nodes, &status, err);
  if (rc == KHOST__OK && status != KHOST_STATUS_OK) return kernel_failure(t->call, status, err);
  return cuda_failure(rc);
}

/* Which call of the row failed, for the message: "sample 12", "warm-up", and
 * under --graph which call of the replay. */
static void name_call(const khost__timer *t, int j, char *buf, size_t size)
{
  int sample = t->samples.n + t->samples.throttled + 1;
  int used = t->warming ? snprintf(buf, size, "warm-up") : snprintf(buf, size, "sample %d", sample);
  if (t->ncopies > 1 && used >= 0 && (size_t)used < size)
    snprintf(buf + used, size - (size_t)used, ", call %d of %d of its graph replay", j + 1, t->ncopies);
}

/* Call j of the sample just taken, against the oracle's outputs for its variation. */
static int check_call(khost__timer *t, int j, khost__err *err)
{
  khost__check_stats stats;
  char which[96];
  int rc = khost__fresh_check(call_of(t, j), t->call->data, &t->varied[j].call, &stats, err);
  if (rc != KHOST__OK) return is_cuda(t->call) ? cuda_failure(rc) : rc;
  if (!stats.mismatches) return KHOST__OK;
  t->failed = stats;
  name_call(t, j, which, sizeof which);
  return khost__errorf(
      err, KHOST__E_WRONG,
      "timed call %llu (%s) left %llu of %llu elements out of tolerance (%llu never written) on "
      "inputs no earlier call had seen: a result kept from an earlier call, or work skipped?",
      (unsigned long long)t->varied[j].index, which, (unsigned long long)stats.mismatches,
      (unsigned long long)stats.count, (unsigned long long)stats.unwritten);
}

/* One sample on fresh inputs: each of its calls gets the next variation of the
 * case's inputs, and each is checked after the sample, outside its time. */
static int fresh_sample(khost__timer *t, double *seconds, double *sm_mhz, khost__err *err)
{
  int rc = KHOST__OK;
  const khost__case_data *d = t->call->data;
  for (int j = 0; j < t->ncopies && rc == KHOST__OK; j++) {
    khost__vary_draw(&d->vary, d->seed, ++t->calls_made, &t->varied[j].call);
    t->varied[j].index = t->calls_made;
    rc = khost__fresh_inputs(call_of(t, j), d, &t->varied[j].call, err);
  }
  if (rc != KHOST__OK) return is_cuda(t->call) ? cuda_failure(rc) : rc;
  rc = sample_once(t, seconds, sm_mhz, err);
  for (int j = 0; j < t->ncopies && rc == KHOST__OK; j++) rc = check_call(t, j, err);
  return rc;
}

int khost__timer_start(khost__timer *t, khost__call *call, const khost__options *o,
                       const khost__device_info *device, khost__err *err)
{
  memset(t, 0, sizeof *t);
  t->call = call;
  t->o = o;
  t->device = device;
  t->ncopies = 1;
  int rc = is_cuda(call) ? khost__fresh_upload(call->data, err) : KHOST__OK;
  if (rc == KHOST__OK && is_cuda(call) && o->graph_calls > 0) rc = capture(t, err);
  if (rc == KHOST__OK && !(t->varied = calloc((size_t)t->ncopies, sizeof *t->varied)))
    rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory for the variations");
  if (rc != KHOST__OK) return is_cuda(call) ? cuda_failure(rc) : rc;
  double start = khost__now_s(), seconds, sm_mhz;
  t->warming = 1;
  do {
    rc = fresh_sample(t, &seconds, &sm_mhz, err);
  } while (rc == KHOST__OK && khost__now_s() < start + o->warmup_s);
  t->warming = 0;
  t->samples.warmup_s = khost__now_s() - start;
  return rc;
}

/* nvbench's pause after a throttled sample, for the clock to come back. */
static void throttle_pause(void)
{
  struct timespec pause = {0, 50 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

int khost__timer_sample(khost__timer *t, khost__err *err)
{
  double start = khost__now_s(), seconds = 0, sm_mhz = 0;
  int rc = fresh_sample(t, &seconds, &sm_mhz, err);
  double peak = t->device ? t->device->sm_clock_mhz : 0;
  int throttled = rc == KHOST__OK && khost__clock_throttled(sm_mhz, peak, t->o->throttle_pct);
  if (throttled) {
    t->samples.throttled++;
    throttle_pause();
  }
  t->samples.spent_s += khost__now_s() - start;
  if (rc != KHOST__OK || throttled) return rc;
  return khost__samples_add(&t->samples, seconds, sm_mhz, err);
}

int khost__timer_call(khost__timer *t, khost__err *err)
{
  double start = khost__now_s(), seconds, sm_mhz;
  int rc = sample_once(t, &seconds, &sm_mhz, err);
  t->samples.spent_s += khost__now_s() - start;
  return rc;
}

void khost__timer_free(khost__timer *t)
{
  if (t->graph) khost__cuda_graph_free(t->graph);
  for (int j = 0; j < t->ncopies - 1; j++) {
    khost__call_free(&t->copy_calls[j]);
    khost__case_data_free(&t->copy_data[j]);
  }
  free(t->copy_calls);
  free(t->copy_data);
  free(t->varied);
  khost__samples_free(&t->samples);
  memset(t, 0, sizeof *t);
}

int khost__timing_check_stream(khost__call *call, khost__err *err)
{
  khost__cuda_graph *graph = NULL;
  size_t nodes = 0;
  int status = KHOST_STATUS_OK;
  int rc = khost__cuda_graph_capture(invoke, call, 1, &graph, &nodes, &status, err);
  if (rc != KHOST__OK) return cuda_failure(rc);
  if (status != KHOST_STATUS_OK) {
    rc = kernel_failure(call, status, err);
  } else if (nodes == 0 && !khost__call_writes_nothing(call)) {
    rc = khost__errorf(err, KHOST__E_FAIL,
                       "the kernel enqueued no work on the stream it was given "
                       "(its work went to another stream, escaping the timer)");
  } else if (nodes == 0) {
    /* Nothing to write (nb = 0): enqueueing nothing is right, and there is nothing to replay. */
  } else if ((rc = khost__cuda_sync_device(err)) == KHOST__OK &&
             (rc = khost__call_poison(call, err)) == KHOST__OK &&
             (rc = khost__cuda_graph_run(graph, err)) == KHOST__OK) {
    khost__check_stats stats;
    rc = khost__call_check(call, &stats, err);
    if (rc == KHOST__OK && stats.mismatches)
      rc = khost__errorf(err, KHOST__E_FAIL,
                         "replaying the call captured on its stream left %llu of %llu "
                         "elements wrong: part of its work went to another stream, escaping the timer",
                         (unsigned long long)stats.mismatches, (unsigned long long)stats.count);
  }
  khost__cuda_graph_free(graph);
  return cuda_failure(rc);
}
