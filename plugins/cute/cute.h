/* Internal declarations of the cute plugin: CuTe (CUTLASS 4.2) kernels for
 * Hopper sm_90a. Nothing here is exported: the module is linked with a version
 * script that leaves khost_plugin_entry the only dynamic symbol.
 *
 * Every kernel follows one contract: it reads device tensors, enqueues on
 * in->stream only, never synchronises, allocates or prints, and turns each
 * failure into a status with a one-line message in in->error. */
#ifndef KHOST_CUTE_H
#define KHOST_CUTE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "khost/ops.h"

/* The kernels, one per op file; static, plugin-owned. */
extern const khost_kernel khost__cute_nvfp4_gemv;
extern const khost_kernel khost__cute_copy_transpose;
extern const khost_kernel khost__cute_reduce_sum;
extern const khost_kernel khost__cute_softmax_online;

/* Writes a message into in->error (when the host gave one) and returns status. */
int khost__cute_fail(const khost_input *in, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* KHOST_STATUS_DEVICE_ERROR with "file:line: cudaErrorName: text" in in->error. */
int khost__cute_cuda_fail(const khost_input *in, const char *file, int line, cudaError_t error);

/* Returns from the calling function with KHOST_STATUS_DEVICE_ERROR when a CUDA
 * call (or cudaGetLastError after a launch) failed. */
#define KHOST__CUTE_CHECK(in, call)                                     \
  do {                                                                  \
    cudaError_t khost__cute_error = (call);                             \
    if (khost__cute_error != cudaSuccess)                               \
      return khost__cute_cuda_fail((in), __FILE__, __LINE__, khost__cute_error); \
  } while (0)

/* Stores parameter `name` in *out; INVALID_ARGUMENT when absent or below min. */
int khost__cute_param(const khost_input *in, const char *name, int64_t min, int64_t *out);

/* INVALID_ARGUMENT unless in carries exactly ninputs inputs and noutputs outputs. */
int khost__cute_check_counts(const khost_input *in, int32_t ninputs, int32_t noutputs);

/* Tensor `index` of an array laid out with the host's sizeof(khost_tensor).
 * Points into host-owned memory valid for the call. */
const khost_tensor *khost__cute_tensor(const khost_tensor *array, int32_t index);

/* Checks that t is a contiguous row-major CUDA tensor of dtype `want` with the
 * given shape and at least the bytes that shape needs; INVALID_ARGUMENT naming
 * `role` otherwise. */
int khost__cute_check_tensor(const khost_input *in, const khost_tensor *t, const char *role,
                             khost_dtype want, int32_t ndim, const int64_t *shape);

/* The element types the row-wise float ops handle. */
typedef enum khost__cute_float {
  KHOST__CUTE_FP16,
  KHOST__CUTE_BF16,
  KHOST__CUTE_FP32
} khost__cute_float;

/* How a row-wise op's output shape follows its input [m, n]. */
typedef enum khost__cute_rows_out {
  KHOST__CUTE_OUT_SAME,       /* [m, n] */
  KHOST__CUTE_OUT_TRANSPOSED, /* [n, m] */
  KHOST__CUTE_OUT_REDUCED     /* [m] */
} khost__cute_rows_out;

/* A validated call of a row-wise op (params m, n; one input and one output of
 * the same dtype, both device memory). Points into host memory; valid for the call. */
typedef struct khost__cute_rows {
  int64_t m, n;
  khost__cute_float type;
  int element_bytes;
  const void *in;
  void *out;
} khost__cute_rows;

/* Validates a row-wise call and fills *rows. UNSUPPORTED for a dtype other than
 * fp16, bf16 or fp32 or for m or n above INT32_MAX (grid and shuffle indices are
 * 32-bit); INVALID_ARGUMENT for anything malformed. */
int khost__cute_rows_open(const khost_input *in, khost__cute_rows_out out_shape, khost__cute_rows *rows);

/* True when every address in `pointers` is a multiple of `bytes`. */
bool khost__cute_aligned(const void *const *pointers, int count, size_t bytes);

#endif
