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
  int n, cap;
  double spent_s;          /* wall time spent sampling, flushes included */
  double sum, sum_squares; /* running, so the stopping rule costs O(1) per sample */
} khost__samples;

int khost__samples_add(khost__samples *s, double seconds, khost__err *err);
/* Forgets the latest sample (its wall time stays spent): for a call that ran to be
 * checked, not timed. */
void khost__samples_drop_last(khost__samples *s);
void khost__samples_free(khost__samples *s);

/* Relative standard error of the mean, in percent (infinite below 2 samples). */
double khost__samples_noise_pct(const khost__samples *s);

/* 1 when sampling may stop: n >= min_samples, spent_s >= min_time_s and noise
 * <= max_noise_pct, or spent_s >= max_time_s (with at least one sample). */
int khost__samples_done(const khost__samples *s, const khost__options *o);

/* Median, mean, min, max, standard deviation and noise into t (zeroed first).
 * 0, or KHOST__E_NOMEM (t then holds no samples). */
int khost__samples_summarize(const khost__samples *s, khost__timing *t);

#endif
