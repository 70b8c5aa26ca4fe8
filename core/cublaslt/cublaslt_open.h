/* cuBLASLt, opened at run time: neither khost nor the vendor plugin links
 * libcublasLt, so both start (and everything else runs) where the library is
 * absent. khost opens it to measure the matrix peaks (core/matrix_peak.h), the
 * vendor plugin to call it (plugins/vendor/cublaslt.h); each process opens it
 * once. The types and enums come from the toolkit's cublasLt.h at build time.
 * This folder holds no cuda.h, so the toolkit's is the one found. */
#ifndef KHOST_CUBLASLT_OPEN_H
#define KHOST_CUBLASLT_OPEN_H

#include <stdbool.h>
#include <stddef.h>

#include <cublasLt.h>

/* The soname looked for; KHOST_VENDOR_CUBLASLT names another file instead. */
#define KHOST__VENDOR_CUBLASLT_SONAME "libcublasLt.so." KHOST__VENDOR_STRINGIFY(CUBLAS_VER_MAJOR)
#define KHOST__VENDOR_STRINGIFY(x)    KHOST__VENDOR_STRINGIFY_(x)
#define KHOST__VENDOR_STRINGIFY_(x)   #x

/* The entry points khost and the vendor plugin call, resolved from the library. */
typedef struct khost__cublaslt {
  __typeof__(cublasLtGetVersion) *get_version;
  __typeof__(cublasLtGetStatusName) *status_name;
  __typeof__(cublasLtCreate) *create;
  __typeof__(cublasLtDestroy) *destroy;
  __typeof__(cublasLtMatmulDescCreate) *desc_create;
  __typeof__(cublasLtMatmulDescDestroy) *desc_destroy;
  __typeof__(cublasLtMatmulDescSetAttribute) *desc_set;
  __typeof__(cublasLtMatrixLayoutCreate) *layout_create;
  __typeof__(cublasLtMatrixLayoutDestroy) *layout_destroy;
  __typeof__(cublasLtMatmulPreferenceCreate) *preference_create;
  __typeof__(cublasLtMatmulPreferenceDestroy) *preference_destroy;
  __typeof__(cublasLtMatmulPreferenceSetAttribute) *preference_set;
  __typeof__(cublasLtMatmulAlgoGetHeuristic) *heuristic;
  __typeof__(cublasLtMatmulAlgoConfigGetAttribute) *algo_get;
  __typeof__(cublasLtMatmul) *matmul;
} khost__cublaslt;

/* Opens the library and resolves every entry point, once per process; later
 * calls return the first answer. NULL when the library or a symbol is missing:
 * khost__cublaslt_missing() then says why. Never touches the GPU. */
const khost__cublaslt *khost__cublaslt_open(void);

/* "libcublasLt.so.13 not found: <dlerror>" after a failed open, else "". */
const char *khost__cublaslt_missing(void);

#endif
