/* Validation of a khost_input before anything is launched: a kernel that trusted a
 * wrong shape would read or write past the host's buffers on the device. */
#ifndef KHOST_TRITON_INPUTS_H
#define KHOST_TRITON_INPUTS_H

#include <stdint.h>

#include "khost/ops.h"
#include "select.h"

/* INVALID_ARGUMENT unless in carries exactly ninputs inputs and noutputs outputs
 * with every field this plugin reads. */
int khost__triton_check_counts(const khost_input *in, int32_t ninputs, int32_t noutputs);

/* Stores parameter `name` in *out; INVALID_ARGUMENT when it is absent or outside
 * [min, INT32_MAX] (the kernels take 32-bit sizes). */
int khost__triton_param(const khost_input *in, const char *name, int64_t min, int64_t *out);

/* INVALID_ARGUMENT unless t is a contiguous row-major CUDA tensor of dtype
 * (code, bits) and the given shape, with storage for all of it. */
int khost__triton_check_tensor(const khost_input *in, const khost_tensor *t, uint8_t code, uint8_t bits,
                               int32_t ndim, const int64_t *shape);

/* 1 when p is 16-byte aligned. */
int khost__triton_aligned16(const void *p);

#endif
