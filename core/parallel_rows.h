/* Rows of work split over threads: khost's own (generating inputs, varying and
 * checking the inputs and outputs of CPU calls, core/fresh.c) and the reference
 * plugin's CPU kernels, which link it too. Rows are independent, so the split
 * cannot change a bit of any result. */
#ifndef KHOST_PARALLEL_ROWS_H
#define KHOST_PARALLEL_ROWS_H

#include <stdint.h>

/* Most threads one job uses; more would not help a CPU oracle or khost's passes. */
#define KHOST__MAX_THREADS 256

/* Rows [begin, end) as worker `worker` (0 <= worker < the job's workers). ctx is the caller's. */
typedef void (*khost__rows_fn)(void *ctx, int worker, int64_t begin, int64_t end);

/* The workers khost__parallel_rows uses for nrows rows and `threads` asked for:
 * between 1 and KHOST__MAX_THREADS, never more than nrows. */
int khost__parallel_workers(int64_t nrows, int threads);

/* Splits [0, nrows) into khost__parallel_workers(nrows, threads) contiguous
 * ranges, their sizes differing by one row at most, and runs fn on each; the
 * calling thread takes range 0 and returns when all are done. Cannot fail: a
 * range whose thread cannot be started runs on the caller. */
void khost__parallel_rows(int64_t nrows, int threads, khost__rows_fn fn, void *ctx);

#endif
