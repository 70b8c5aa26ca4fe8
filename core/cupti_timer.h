/* The kernel-only timer of --timer cupti: CUPTI's activity records of the
 * kernels, copies and memsets each sample ran. libcupti ships with the CUDA
 * toolkit but not with every driver, so khost opens it with dlopen when asked:
 * khost builds and runs without it, and only --timer cupti needs it. A build
 * without cupti.h gets core/cupti_timer_none.c, which refuses with the reason. */
#ifndef KHOST_CUPTI_TIMER_H
#define KHOST_CUPTI_TIMER_H

#include <stddef.h>

#include "error.h"

/* The kernel khost stamps the SM clock with (core/cuda_kernels.cu): its records
 * bound each sample's timed calls. */
#define KHOST__CUPTI_STAMP_KERNEL "khost__clock_stamp_kernel"

/* Opens libcupti (the file $KHOST_CUPTI_LIBRARY names when set, else
 * libcupti.so.MAJOR through the loader's path, then the toolkit's folders) and
 * finds its functions. Starts no CUDA, so the parent may call it. 1 when it
 * can be used, else 0 with the reason in why. */
int khost__cupti_loadable(char *why, size_t n);

/* In a worker with CUDA up: records every kernel, copy and memset from now on. */
int khost__cupti_start(khost__err *err);

/* Stops recording and drops what was recorded. Safe when not started. */
void khost__cupti_stop(void);

/* Drops the records delivered so far (before a sample, so that only its own
 * records count). */
int khost__cupti_drop(khost__err *err);

/* After a sample's stream has been synchronised: the span, in seconds, of its
 * records between its two clock stamps (core/cupti_span.h); the records are
 * dropped. */
int khost__cupti_sample_span(double *seconds, khost__err *err);

#endif
