/* Outputs a Python kernel returned instead of writing them in place: each is
 * taken through DLPack, checked against khost's output (device, dtype, shape,
 * compact layout) and copied into it, on the CPU with memcpy and on the GPU
 * with the driver's cuMemcpyAsync on khost's stream. The copy is part of the
 * call and timed with it, as it is part of what the kernel costs. */
#ifndef KHOST_PYTHON_RETURNED_H
#define KHOST_PYTHON_RETURNED_H

#include "khost/plugin.h"
#include "python_api.h"

/* result: what run() returned, not None. KHOST_STATUS_OK, or a failure with the
 * reason in in->error. Needs the GIL. */
int khost__returned_copy(PyObject *result, const khost_input *in);

#endif
