/* --dump DIR: each case's inputs, the reference output and every backend's
 * output as NumPy .npy files under DIR/<case>/, so anyone can re-check them.
 * DIR is found from the start folder (start_folder.h) and named as given.
 * A failed file is reported on stderr and marks the rows it belongs to; it never
 * changes a result. */
#ifndef KHOST_DUMP_H
#define KHOST_DUMP_H

#include "call.h"
#include "casedata.h"
#include "error.h"
#include "options.h"

/* Before any case runs: DIR exists (made if missing) and is a writable folder.
 * 0, or KHOST__E_CONFIG with the reason. Nothing to do without --dump. */
int khost__dump_prepare(const khost__options *o, khost__err *err);

/* DIR/<case>/<input>.npy and DIR/<case>/reference.<output>.npy (after the oracle ran).
 * Returns the number of files that could not be written. */
int khost__dump_inputs(const khost__options *o, const khost__case_data *d);

/* DIR/<case>/<backend>.<device>.<output>.npy from the call's output buffers.
 * Returns the number of files that could not be written. */
int khost__dump_outputs(const khost__options *o, const khost__case_data *d, const khost__call *call,
                        const char *backend);

#endif
