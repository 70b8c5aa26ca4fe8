/* The checker: one output against the reference output, element by element,
 * in the output's own dtype, with the case's tolerances. */
#ifndef KHOST_CHECK_H
#define KHOST_CHECK_H

#include "catalog.h"
#include "result.h"

/* An element fails when |got - ref| > atol + rtol * |ref| + bound[e] (bound, the
 * op's per-element error bound, may be NULL: none), or when NaN/Inf status differs
 * (an Inf must match an Inf of the same sign); with atol and rtol both 0, when its
 * bits differ from the reference's. Elements still holding the poison pattern
 * count as unwritten (and as mismatches). The first KHOST__MAX_MISMATCHES
 * mismatches are kept with their coordinates rendered through spec's dim names.
 * got and ref are host copies of spec->nbytes. */
void khost__check_output(const khost__tensor_spec *spec, const void *got, const void *ref, double atol,
                         double rtol, const float *bound, khost__check_stats *stats);

/* 1 when each of the n elements of got passes against ref (dtype, host copies;
 * bound as for khost__check_output) by khost__check_output's rule, 0 at the
 * first that does not: a yes or no with no statistics, for the check of every timed call. */
int khost__check_passes(khost__dtype_id dtype, const void *got, const void *ref, size_t n, double atol,
                        double rtol, const float *bound);

/* Elements of data (spec->nbytes, host) that still hold the poison pattern. */
size_t khost__count_poison(const khost__tensor_spec *spec, const void *data);

/* Adds b into a (for ops with several outputs): counts add, maxima combine. */
void khost__check_merge(khost__check_stats *a, const khost__check_stats *b);

/* "name[row=3, col=7]" for flat index i of spec, into buf. */
void khost__format_coords(const khost__tensor_spec *spec, uint64_t i, char *buf, size_t size);

#endif
