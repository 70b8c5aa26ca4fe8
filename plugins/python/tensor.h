/* khost.Tensor: what a Python kernel receives for each of khost's tensors. It
 * describes the tensor (shape, dtype, device, name, data_ptr, nbytes) and hands
 * it on without a copy through the DLPack protocol (__dlpack__,
 * __dlpack_device__), so that numpy.from_dlpack and torch.from_dlpack see
 * khost's own memory. */
#ifndef KHOST_PYTHON_TENSOR_H
#define KHOST_PYTHON_TENSOR_H

#include "khost/plugin.h"
#include "python_api.h"

/* Creates the type, once the interpreter is up. 0, or -1 with a Python exception set. */
int khost__tensor_type_init(void);

/* A new khost.Tensor describing t, copied (the object may outlive the call;
 * the memory it points to does not). New reference, or NULL with an exception. */
PyObject *khost__tensor_new(const khost_tensor *t);

/* A tuple of n khost.Tensor objects for the tensor array (stepped with
 * khost_tensor_at). New reference, or NULL with an exception. */
PyObject *khost__tensor_tuple(const khost_tensor *array, int32_t n);

/* khost's name of a DLPack type ("fp16", "e4m3"), from the one dtype table
 * (core/dtype.h); "?" for one khost does not know. Static. */
const char *khost__tensor_dtype_name(uint8_t code, uint8_t bits);

#endif
