/* Internal declarations of the reference plugin: the CPU oracle every backend is
 * checked against, and plain CUDA kernels (cuda/, built when the CUDA toolkit is
 * found) that are the GPU speed baseline. Nothing here is exported: the module is
 * built with hidden visibility and only khost_plugin_entry leaves it. Included
 * from C and from the CUDA sources (C++), hence the C linkage block. An op's
 * kernels, khost__reference_<op> (<op>.c) and khost__reference_cuda_<op>
 * (cuda/<op>.cu), are declared by the generated kernel table alone; the CUDA
 * sources define theirs extern "C", as a C++ const would have internal linkage. */
#ifndef KHOST_REFERENCE_H
#define KHOST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "input_checks.h"
#include "khost/ops.h"
#include "row_inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A validated row-wise call on the CPU and how to read its elements exactly.
 * Points into the call's tensors and static tables; valid for the call. */
typedef struct khost__reference_rows {
  khost__rows call;   /* the shared checks' result (plugins/common) */
  const float *widen; /* 16-bit pattern -> exact value for fp16/bf16; NULL for fp32 */
} khost__reference_rows;

/* Validates a row-wise call on host memory and fills *rows (khost__rows_open's
 * statuses). */
int khost__reference_rows_open(const khost_input *in, khost__rows_out out_shape, khost__reference_rows *rows);

/* The exact value of input element `index` (host memory only). */
static inline double khost__reference_rows_load(const khost__reference_rows *rows, size_t index)
{
  if (rows->widen) return rows->widen[((const uint16_t *)rows->call.in)[index]];
  return ((const float *)rows->call.in)[index];
}

/* The four KV-cache layout conversions on the CPU (kv_cache.c): checked, tables
 * checked against their arenas, then every chunk copied through them. */
int khost__reference_kv_run(const khost_input *in);

/* Rounds value to the output dtype (nearest even) and stores it at output element `index`. */
void khost__reference_rows_store(const khost__reference_rows *rows, size_t index, double value);

#ifdef __cplusplus
}
#endif

#endif
