/* Samples and the adaptive stopping rule (as nvbench): keep sampling a
 * backend until the relative standard error of the mean is small enough with
 * enough samples, or its time budget is spent. */
#ifndef KHOST_BENCH_H
#define KHOST_BENCH_H

#include "error.h"
#include "options.h"
#include "result.h"

/* Times in seconds for one backend. Owned by the caller; free with khost__samples_free. */
typedef struct khost__samples {
  double *v;
  double *sm_mhz; /* the SM clock each sample ran at; 0 where unknown (CPU kernels) */
  int n, cap;
  int throttled;   /* samples discarded because the SM clock ran under the --throttle floor */
  double spent_s;  /* wall time spent sampling: each sample's whole cost (its inputs varied, outputs
                    * poisoned, the flush, the call, its check) and throttle pauses */
  double warmup_s; /* wall time of the warm-up, its calls varied and checked: against --max-time only */
  double sum, sum_squares; /* running, so the stopping rule costs O(1) per sample */
} khost__samples;

/* Appends one kept sample (s grows its own arrays; 0, or KHOST__E_NOMEM). */
int khost__samples_add(khost__samples *s, double seconds, double sm_mhz, khost__err *err);
/* Frees what s owns and zeroes it; s itself stays the caller's. */
void khost__samples_free(khost__samples *s);

/* 1 when a sample's SM clock is known and under pct % of peak_mhz, the device's
 * rated clock (as nvbench's throttle threshold); pct 0 keeps every sample. */
int khost__clock_throttled(double sm_mhz, double peak_mhz, double pct);

/* Sorts values (n > 0, caller-owned) in place and returns their median. */
double khost__sorted_median(double *values, int n);

/* Relative standard error of the mean, in percent (infinite below 2 samples). */
double khost__samples_noise_pct(const khost__samples *s);

/* 1 when sampling may stop: n >= min_samples, spent_s >= min_time_s and noise
 * <= max_noise_pct, or warmup_s + spent_s >= max_time_s (with at least one
 * sample taken, kept or discarded as throttled). */
int khost__samples_done(const khost__samples *s, const khost__options *o);

/* Median, mean, min, max, standard deviation, noise, the median and lowest SM
 * clocks and the throttled count into t (zeroed first). 0, or KHOST__E_NOMEM (t then holds
 * no samples). */
int khost__samples_summarize(const khost__samples *s, khost__timing *t);

#endif
