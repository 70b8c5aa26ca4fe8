/* Internal declarations of the reference plugin: the CPU oracle every backend is
 * checked against, and plain CUDA kernels (cuda/, built when the CUDA toolkit is
 * found) that are the GPU speed baseline. Nothing here is exported: the module is
 * built with hidden visibility and only khost_plugin_entry leaves it. Included
 * from C and from the CUDA sources (C++), hence the C linkage block. */
#ifndef KHOST_REFERENCE_H
#define KHOST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "khost/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU kernels, one per op file; static, plugin-owned. */
extern const khost_kernel khost__reference_nvfp4_gemv;
extern const khost_kernel khost__reference_copy_transpose;
extern const khost_kernel khost__reference_reduce_sum;
extern const khost_kernel khost__reference_softmax_online;

/* The CUDA kernels, one per file in cuda/; static, plugin-owned. Defined only
 * in builds with KHOST_REFERENCE_CUDA. */
extern const khost_kernel khost__reference_cuda_nvfp4_gemv;
extern const khost_kernel khost__reference_cuda_copy_transpose;
extern const khost_kernel khost__reference_cuda_reduce_sum;
extern const khost_kernel khost__reference_cuda_softmax_online;

/* Writes "<op>: <message>" into in->error (when the host gave one) and returns status. */
int khost__reference_fail(const khost_input *in, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stores parameter `name` in *out; INVALID_ARGUMENT when it is absent or below min. */
int khost__reference_param(const khost_input *in, const char *name, int64_t min, int64_t *out);

/* INVALID_ARGUMENT unless in carries exactly ninputs inputs and noutputs outputs. */
int khost__reference_check_counts(const khost_input *in, int32_t ninputs, int32_t noutputs);

/* Checks that t is a contiguous row-major tensor in the memory of device_type
 * (khost_device_type), of dtype `want`, the given shape, and storage of at least
 * the bytes that shape needs. INVALID_ARGUMENT with a message naming `role` otherwise. */
int khost__reference_check_tensor(const khost_input *in, const khost_tensor *t, const char *role,
                                  int32_t device_type, khost_dtype want, int32_t ndim, const int64_t *shape);

/* A validated nvfp4_gemv call (the plain scale tensors; the swizzled ones are
 * checked but unused). Points into tensors of the call's device; valid for the call. */
typedef struct khost__reference_gemv {
  int64_t m, k, l;
  const uint8_t *a, *v, *sfa, *sfv;
  uint16_t *c; /* fp16 bits */
} khost__reference_gemv;

/* Validates an nvfp4_gemv call whose tensors live on device_type and fills *gemv.
 * UNSUPPORTED above k = 2^20 (the CPU kernel's exact sum could overflow: both
 * devices decline, so they accept the same calls); INVALID_ARGUMENT for anything malformed. */
int khost__reference_gemv_open(const khost_input *in, int32_t device_type, khost__reference_gemv *gemv);

/* The element types the row-wise float ops handle. */
typedef enum khost__reference_float {
  KHOST__REFERENCE_FP16,
  KHOST__REFERENCE_BF16,
  KHOST__REFERENCE_FP32
} khost__reference_float;

/* How a row-wise op's output shape follows its input [m, n]. */
typedef enum khost__reference_rows_out {
  KHOST__REFERENCE_OUT_SAME,       /* [m, n] */
  KHOST__REFERENCE_OUT_TRANSPOSED, /* [n, m] */
  KHOST__REFERENCE_OUT_REDUCED     /* [m] */
} khost__reference_rows_out;

/* A validated call of a row-wise op (params m, n; one input, one output of the
 * same dtype). Points into the call's tensors (on its device) and static host
 * tables; valid for the call. */
typedef struct khost__reference_rows {
  int64_t m, n;
  khost__reference_float type;
  size_t element_bytes;
  const void *in;
  void *out;
  const float *widen; /* 16-bit pattern -> exact value for fp16/bf16; NULL for fp32 */
} khost__reference_rows;

/* Validates a row-wise call whose tensors live on device_type and fills *rows.
 * UNSUPPORTED for an input dtype other than fp16, bf16 or fp32; INVALID_ARGUMENT
 * for anything else malformed. */
int khost__reference_rows_open(const khost_input *in, int32_t device_type,
                               khost__reference_rows_out out_shape, khost__reference_rows *rows);

/* The exact value of input element `index` (host memory only). */
static inline double khost__reference_rows_load(const khost__reference_rows *rows, size_t index)
{
  if (rows->widen) return rows->widen[((const uint16_t *)rows->in)[index]];
  return ((const float *)rows->in)[index];
}

/* Rounds value to the output dtype (nearest even) and stores it at output element `index`. */
void khost__reference_rows_store(const khost__reference_rows *rows, size_t index, double value);

/* The threads a CPU kernel may use: in->num_threads when present and >= 1, else 1. */
int khost__reference_threads(const khost_input *in);

#ifdef __cplusplus
}
#endif

#endif
