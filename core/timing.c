#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

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

/* One CUDA sample: a replay of the graph, else one call between events. A call
 * that waits on the host (KHOST_KERNEL_NOT_CAPTURABLE) is never queued behind the
 * blocking kernel: its wait would stall on the blocker, which waits for the call to
 * return. Its host gaps are then inside the measured interval, as for any caller. */
static int cuda_sample(khost__timer *t, double *seconds, double *sm_mhz, int *status, khost__err *err)
{
  if (t->graph) return khost__cuda_graph_time(t->graph, !t->o->hot, seconds, sm_mhz, err);
  int unblock = khost__call_not_capturable(t->call);
  int was = unblock ? khost__cuda_set_blocking(0) : 0;
  int rc = khost__cuda_time(invoke, t->call, 0, 1, !t->o->hot, seconds, sm_mhz, status, err);
  if (unblock) khost__cuda_set_blocking(was);
  return rc;
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
    rc = cuda_sample(t, seconds, sm_mhz, &status, err);
    if (rc != KHOST__E_DISCARDED) break;
  }
  if (rc == KHOST__OK && status != KHOST_STATUS_OK) return kernel_failure(t->call, status, err);
  return cuda_failure(rc);
}

/* Call i of a graph: the original and its copies in turn. */
static int invoke_rotating(void *arg, int i)
{
  khost__timer *t = arg;
  int j = i % t->ncopies;
  return khost__call_run(j == 0 ? t->call : &t->copy_calls[j - 1]);
}

static size_t working_set(const khost__call *call)
{
  size_t bytes = 0;
  for (int i = 0; i < call->view.input.ninputs; i++)
    bytes += khost_tensor_at(call->view.input.inputs, i)->nbytes;
  for (int i = 0; i < call->view.input.noutputs; i++)
    bytes += khost_tensor_at(call->view.input.outputs, i)->nbytes;
  return bytes;
}

#define MAX_COPIES 64

static int make_copies(khost__timer *t, khost__err *err)
{
  size_t l2_bytes = t->device ? t->device->l2_bytes : 0;
  size_t set = working_set(t->call);
  size_t wanted = set ? (2 * l2_bytes + set - 1) / set : 1;
  int n = (int)(wanted < MAX_COPIES ? wanted : MAX_COPIES);
  if (n > t->o->graph_calls) n = t->o->graph_calls;
  t->ncopies = 1;
  if (t->o->hot || n <= 1) return KHOST__OK;
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

int khost__timer_start(khost__timer *t, khost__call *call, const khost__options *o,
                       const khost__device_info *device, khost__err *err)
{
  memset(t, 0, sizeof *t);
  t->call = call;
  t->o = o;
  t->device = device;
  int rc = KHOST__OK;
  /* --graph is not applied to a call khost cannot capture; the row says so (graph_not_applied). */
  if (is_cuda(call) && o->graph_calls > 0 && !khost__call_not_capturable(call) &&
      (rc = capture(t, err)) != KHOST__OK)
    return rc;
  double until = khost__now_s() + o->warmup_s, seconds, sm_mhz;
  do {
    rc = sample_once(t, &seconds, &sm_mhz, err);
  } while (rc == KHOST__OK && khost__now_s() < until);
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
  int rc = sample_once(t, &seconds, &sm_mhz, err);
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
  khost__samples_free(&t->samples);
  memset(t, 0, sizeof *t);
}

/* After the call finished on its stream: its outputs must be whole and right,
 * or part of its work went elsewhere. how says what was waited for. */
static int check_outputs(khost__call *call, const char *how, khost__err *err)
{
  khost__check_stats stats;
  int rc = khost__call_check(call, &stats, err);
  if (rc == KHOST__OK && stats.mismatches)
    rc = khost__errorf(err, KHOST__E_FAIL,
                       "%s left %llu of %llu elements wrong: part of its work went to another stream, "
                       "escaping the timer",
                       how, (unsigned long long)stats.mismatches, (unsigned long long)stats.count);
  return rc;
}

/* One call captured on its stream; the graph must hold work, and a replay alone
 * on poisoned outputs must give the full result. */
static int check_stream_captured(khost__call *call, khost__err *err)
{
  khost__cuda_graph *graph = NULL;
  size_t nodes = 0;
  int status = KHOST_STATUS_OK;
  int rc = khost__cuda_graph_capture(invoke, call, 1, &graph, &nodes, &status, err);
  if (rc != KHOST__OK) return rc;
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
    rc = check_outputs(call, "replaying the call captured on its stream", err);
  }
  khost__cuda_graph_free(graph);
  return rc;
}

/* A call khost cannot capture (KHOST_KERNEL_NOT_CAPTURABLE) runs once on
 * poisoned outputs, and khost waits for its stream alone (cudaStreamSynchronize:
 * the work queued on that stream up to now), not the device. Work the call left
 * running on another stream shows as wrong outputs; work on another stream that
 * happens to be done when the call's stream finishes cannot be seen. */
static int check_stream_uncaptured(khost__call *call, khost__err *err)
{
  int status, rc = khost__cuda_sync_device(err);
  if (rc == KHOST__OK) rc = khost__call_poison(call, err);
  if (rc != KHOST__OK) return rc;
  if ((status = khost__call_run(call)) != KHOST_STATUS_OK) return kernel_failure(call, status, err);
  rc = khost__cuda_sync(err);
  return rc == KHOST__OK ? check_outputs(call, "waiting for its stream alone after one call", err) : rc;
}

int khost__timing_check_stream(khost__call *call, khost__err *err)
{
  return cuda_failure(khost__call_not_capturable(call) ? check_stream_uncaptured(call, err)
                                                       : check_stream_captured(call, err));
}
