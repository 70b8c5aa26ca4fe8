/* Taking samples of one prepared call on its device: a monotonic clock around
 * the call for CPU kernels; for CUDA kernels, events around calls queued behind
 * a blocking kernel, L2 flushed first unless --hot, or replays of a CUDA graph
 * of --graph N calls. */
#ifndef KHOST_TIMING_H
#define KHOST_TIMING_H

#include "bench.h"
#include "call.h"
#include "cuda.h"

/* Sampling state of one call. Owned by the worker; free with khost__timer_free. */
typedef struct khost__timer {
  khost__call *call; /* borrowed */
  const khost__options *o;
  const khost__device_info *device; /* borrowed; NULL without a GPU */
  khost__samples samples;
  khost__cuda_graph *graph;
  int ncopies;                 /* graph calls rotate over call and ncopies - 1 copies */
  khost__case_data *copy_data; /* ncopies - 1 device copies of the inputs */
  khost__call *copy_calls;     /* the same kernel bound to each copy */
} khost__timer;

/* Binds t to call and warms it up for o->warmup_s. With --graph N it captures
 * the graph; cold (no --hot), the N calls rotate over enough copies of the
 * inputs and outputs that their working set exceeds 2 x the device's L2, so a
 * replay is not served from L2. device (borrowed for t's lifetime) is NULL
 * for CPU calls. Returns 0, an error with the reason in err, or
 * KHOST__E_CUDA_BROKEN when the CUDA context broke. */
int khost__timer_start(khost__timer *t, khost__call *call, const khost__options *o,
                       const khost__device_info *device, khost__err *err);

/* Takes one sample and keeps it, unless its SM clock ran under o->throttle_pct
 * % of the device's rated clock: then it is counted as throttled and dropped
 * after a 50 ms pause. Same returns as khost__timer_start. */
int khost__timer_sample(khost__timer *t, khost__err *err);

/* One call exactly as a sample runs it, kept nowhere (its wall time is spent):
 * for a call that runs to be checked, not timed. Same returns. */
int khost__timer_call(khost__timer *t, khost__err *err);

/* Frees what t owns (its graph, the input copies and their calls, the samples) and zeroes t. */
void khost__timer_free(khost__timer *t);

/* Catches a CUDA kernel that enqueues work on a stream other than the one it
 * was given (it would escape the timer): one call is captured into a graph on
 * the given stream; the graph must hold work, and replaying it alone on
 * poisoned outputs must reproduce the full, correct result. A kernel that cannot
 * be captured (KHOST_KERNEL_NOT_CAPTURABLE) instead runs once on poisoned
 * outputs, and only its stream is waited for before the check. */
int khost__timing_check_stream(khost__call *call, khost__err *err);

#endif
