/* The matrix peaks: the tensor-core throughput a case's FLOPs can reach at
 * best, per input type, measured once per run on the GPU by timing a large
 * cuBLASLt GEMM (the library the vendor plugin calls, opened at run time:
 * core/cublaslt/cublaslt_open.h). A compute-bound case's speed of light is its
 * FLOPs at this rate when that is slower than its bytes (docs/METHODOLOGY.md). */
#ifndef KHOST_MATRIX_PEAK_H
#define KHOST_MATRIX_PEAK_H

#include "error.h"

/* The input types a peak is measured for, in the order of the reports' keys. */
typedef enum { KHOST__PEAK_E4M3, KHOST__PEAK_FP16, KHOST__PEAK_BF16, KHOST__PEAKS } khost__peak_type;

/* The GEMM each peak is timed on: m = n = k of this, D = A^T B with fp32
 * accumulation, D in bf16 for e4m3 inputs, else in the inputs' type. */
#define KHOST__PEAK_GEMM_SIZE 8192

/* The reports' name of type t: "e4m3", "fp16", "bf16". */
static inline const char *khost__peak_name(khost__peak_type t)
{
  static const char *const names[KHOST__PEAKS] = {"e4m3", "fp16", "bf16"};
  return names[t];
}

/* In a worker with CUDA up: the peak of type t in TFLOP/s (10^12 FLOP/s), the
 * median of several timed GEMMs after a warm-up one, on khost's stream, hot
 * (nothing flushed: a peak is the rate with the operands as near as they get).
 * KHOST__E_FAIL when cuBLASLt is missing or has no algorithm for the type on
 * this GPU (or khost was built without cublasLt.h), KHOST__E_NOMEM when the
 * operands do not fit, KHOST__E_CUDA for a failed CUDA call. */
int khost__matrix_peak_measure(khost__peak_type t, double *tflops, khost__err *err);

#endif
