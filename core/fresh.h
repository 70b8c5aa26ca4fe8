/* Fresh inputs for every timed call: variation v of the case's generated
 * inputs (core/variation.h) written where a call's kernel reads them, and the
 * call's outputs checked against the oracle's outputs varied alike, on the
 * call's own device (docs/METHODOLOGY.md, "Fresh inputs for every timed call"). */
#ifndef KHOST_FRESH_H
#define KHOST_FRESH_H

#include "call.h"

/* Puts d's generated inputs and reference outputs on the device, where CUDA
 * calls' variations are made from (once per seed; the buffers are d's). */
int khost__fresh_upload(khost__case_data *d, khost__err *err);

/* Writes variation v of d's generated inputs into the inputs call's kernel
 * reads (call->data: d itself, or a device copy of it), then poisons call's
 * outputs. CUDA work is queued on the stream, before the call's. */
int khost__fresh_inputs(khost__call *call, const khost__case_data *d, const khost__vary_call *v,
                        khost__err *err);

/* After call ran on variation v: each output against d's reference outputs
 * varied by v, with the case's tolerances. 0 with stats filled (mismatches
 * counted and the first shown), or a failure of the host or the device. */
int khost__fresh_check(khost__call *call, const khost__case_data *d, const khost__vary_call *v,
                       khost__check_stats *stats, khost__err *err);

#endif
