/* A row-parallel loop for the reference kernels: rows are independent, so
 * splitting them across threads cannot change any result bit. */
#ifndef KHOST_REFERENCE_PARALLEL_H
#define KHOST_REFERENCE_PARALLEL_H

#include <stdint.h>

#include "khost/plugin.h"

/* Most threads one call uses; more would not help a CPU oracle. */
#define KHOST__REFERENCE_MAX_THREADS 256

/* Work on rows [begin, end) as worker `worker` (0 <= worker < threads). ctx is the caller's. */
typedef void (*khost__reference_rows_fn)(void *ctx, int worker, int64_t begin, int64_t end);

/* Returns how many workers khost__reference_parallel will use for nrows rows and
 * `threads` requested: between 1 and KHOST__REFERENCE_MAX_THREADS, never more than nrows. */
int khost__reference_workers(int64_t nrows, int threads);

/* Splits [0, nrows) into khost__reference_workers(nrows, threads) contiguous
 * ranges and runs fn on each; the calling thread takes range 0 and waits for the
 * rest. Cannot fail: a range whose thread cannot be started runs on the caller. */
void khost__reference_parallel(int64_t nrows, int threads, khost__reference_rows_fn fn, void *ctx);

/* The threads a CPU kernel may use: in->num_threads when present and >= 1, else 1. */
int khost__reference_threads(const khost_input *in);

#endif
