/* What --timer cupti makes of one sample's activity records: the span, first
 * start to last end, of the kernels, copies and memsets that ran between the
 * sample's two clock stamps (khost's own kernels around the timed calls, outside
 * the event pair: core/cuda.c). Pure, so it is tested without a GPU; core/cupti_timer.c
 * reads the records into intervals. */
#ifndef KHOST_CUPTI_SPAN_H
#define KHOST_CUPTI_SPAN_H

#include <stdint.h>

#include "error.h"

/* One activity record: device timestamps in ns, and whether it is a clock stamp. */
typedef struct khost__cupti_interval {
  uint64_t start, end;
  int is_stamp;
} khost__cupti_interval;

/* The span in seconds of the intervals that start after the first stamp ends and
 * end before the second stamp starts. Exactly two stamps must be among the n
 * intervals (in any order): else, or when nothing ran between them, or a record
 * there has no timestamps, KHOST__E_FAIL with the reason in err. */
int khost__cupti_span(const khost__cupti_interval *v, int n, double *seconds, khost__err *err);

#endif
