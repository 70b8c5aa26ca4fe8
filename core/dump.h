/* --dump DIR: each case's inputs, the reference output and every backend's
 * output as NumPy .npy files under DIR/<case>/, so anyone can re-check them.
 * A failed dump is reported on stderr and never changes a result. */
#ifndef KHOST_DUMP_H
#define KHOST_DUMP_H

#include "call.h"
#include "casedata.h"
#include "options.h"

/* DIR/<case>/<input>.npy and DIR/<case>/reference.<output>.npy (after the oracle ran). */
void khost__dump_inputs(const khost__options *o, const khost__case_data *d);

/* DIR/<case>/<backend>.<device>.<output>.npy from the call's output buffers. */
void khost__dump_outputs(const khost__options *o, const khost__case_data *d, const khost__call *call,
                         const char *backend);

#endif
