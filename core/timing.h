/* Taking samples of one prepared call on its device: a monotonic clock around
 * the call for CPU kernels; for CUDA kernels, events around calls queued behind
 * a blocking kernel, L2 flushed first unless --hot, or replays of a CUDA graph
 * of --graph N calls. */
#ifndef KHOST_TIMING_H
#define KHOST_TIMING_H

#include "bench.h"
#include "call.h"
#include "cuda.h"

/* One timed call's variation and its number in the row (1, 2, ...). */
typedef struct khost__timed_call {
  khost__vary_call call;
  uint64_t index;
} khost__timed_call;

/* Sampling state of one call. Owned by the worker; free with khost__timer_free. */
typedef struct khost__timer {
  khost__call *call; /* borrowed */
  const khost__options *o;
  const khost__device_info *device; /* borrowed; NULL without a GPU */
  khost__samples samples;
  khost__cuda_graph *graph;
  int ncopies;                 /* a sample's calls: 1, or --graph N, call j bound to copy j */
  khost__case_data *copy_data; /* ncopies - 1 device copies of the inputs */
  khost__call *copy_calls;     /* the same kernel bound to each copy */
  khost__timed_call *varied;   /* the variation of each call of the last sample */
  uint64_t calls_made;         /* timed calls so far, warm-up included */
  int warming;
  khost__check_stats failed; /* the call that failed its check (KHOST__E_WRONG) */
} khost__timer;

/* Binds t to call and warms it up for o->warmup_s. With --graph N it captures
 * the graph of N calls, each bound to inputs, outputs and workspace of its own
 * (N - 1 device copies). Every call, warm-up included, runs on fresh inputs
 * (core/fresh.h: the next variation, written before the sample, its outputs
 * poisoned) and is checked after the sample; the warm-up's wall time goes to
 * t->samples.warmup_s, which counts against --max-time. device (borrowed for t's
 * lifetime) is NULL for CPU calls. Returns 0, KHOST__E_WRONG when a call's
 * outputs were wrong (t->failed has its counts, err names the call), another
 * error with the reason in err, or KHOST__E_CUDA_BROKEN when the CUDA context broke. */
int khost__timer_start(khost__timer *t, khost__call *call, const khost__options *o,
                       const khost__device_info *device, khost__err *err);

/* Takes one sample and keeps it, unless its SM clock ran under o->throttle_pct
 * % of the device's rated clock: then it is counted as throttled and dropped
 * after a 50 ms pause. Same returns as khost__timer_start. */
int khost__timer_sample(khost__timer *t, khost__err *err);

/* One call exactly as a sample times it, kept nowhere (its wall time is spent),
 * on the inputs as they are (not varied) and unchecked: for the caller to check. Same returns. */
int khost__timer_call(khost__timer *t, khost__err *err);

/* Frees what t owns (its graph, the input copies and their calls, the samples) and zeroes t. */
void khost__timer_free(khost__timer *t);

/* Catches a CUDA kernel that enqueues work on a stream other than the one it
 * was given (it would escape the timer): one call is captured into a graph on
 * the given stream; the graph must hold work, and replaying it alone on
 * poisoned outputs must reproduce the full, correct result. */
int khost__timing_check_stream(khost__call *call, khost__err *err);

#endif
