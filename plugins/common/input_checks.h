/* Input checks shared by the project's plugins (reference, cute, triton_aot),
 * linked into each as a static library. A kernel must refuse a malformed call
 * before it touches memory, with the same rules and messages in every plugin:
 * each function returns a khost_status and, on failure, writes
 * "<op>: <reason>" into in->error. */
#ifndef KHOST_PLUGIN_INPUT_CHECKS_H
#define KHOST_PLUGIN_INPUT_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "khost/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes "<op>: " and the formatted reason into in->error (when the host gave a
 * buffer) and returns status. */
int khost__input_fail(const khost_input *in, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stores integer parameter `name` in *out; INVALID_ARGUMENT when it is absent or
 * outside [min, max]. */
int khost__input_param(const khost_input *in, const char *name, int64_t min, int64_t max, int64_t *out);

/* INVALID_ARGUMENT unless in->struct_size covers the fields plugins read, the
 * call carries exactly ninputs inputs and noutputs outputs, and both tensor
 * arrays have a usable struct_size. */
int khost__input_counts(const khost_input *in, int32_t ninputs, int32_t noutputs);

/* Checks t (called `role` in messages) against what the parameters imply: on
 * device_type, dtype `want` with one lane, exactly `shape`, data present and at
 * least the bytes the shape needs (sub-byte types packed). INVALID_ARGUMENT for
 * any of those; UNSUPPORTED for strides other than contiguous row-major, a
 * valid layout no kernel here reads. */
int khost__input_tensor(const khost_input *in, const khost_tensor *t, const char *role, int32_t device_type,
                        khost_dtype want, int32_t ndim, const int64_t *shape);

/* True when every address in `pointers` is a multiple of `bytes`. */
bool khost__input_aligned(const void *const *pointers, int count, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
