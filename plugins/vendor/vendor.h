/* Internal declarations of the vendor plugin: what a user would call instead of
 * writing a kernel, cuBLASLt for fp8_block_gemm and CUB for reduce_sum
 * (docs/VENDOR.md). Nothing here is exported: the module is built with hidden
 * visibility and only khost_plugin_entry leaves it. Included from C and from the
 * CUDA source (C++), hence the C linkage block. An op's kernel,
 * khost__vendor_<op>, is declared by the generated kernel table alone. */
#ifndef KHOST_VENDOR_H
#define KHOST_VENDOR_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "input_checks.h"
#include "khost/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUB_VERSION of the headers reduce_sum.cu was compiled with (MMMmmmpp). */
extern const int khost__vendor_cub_version;

/* KHOST_STATUS_OK for cudaSuccess; otherwise KHOST_STATUS_DEVICE_ERROR with
 * "<op>: file:line: expr: cudaErrorName: message" in in->error. */
int khost__vendor_cuda_status(const khost_input *in, cudaError_t error, const char *expr, const char *file,
                              int line);

#define KHOST__VENDOR_CUDA_CHECK(in, expr) khost__vendor_cuda_status((in), (expr), #expr, __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif

#endif
