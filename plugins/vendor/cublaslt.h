/* cuBLASLt, opened at run time: the plugin links no libcublasLt, so that it loads
 * (and its other kernels run) where the library is absent. The entry function
 * opens it once per process, in khost's own process before any fork, so that
 * --list can name the version found; every worker inherits the mapping. The
 * types and enums come from the toolkit's cublasLt.h at build time. */
#ifndef KHOST_VENDOR_CUBLASLT_H
#define KHOST_VENDOR_CUBLASLT_H

#include <stdbool.h>
#include <stddef.h>

#include <cublasLt.h>

#include "khost/plugin.h"

/* The soname looked for; KHOST_VENDOR_CUBLASLT names another file instead. */
#define KHOST__VENDOR_CUBLASLT_SONAME "libcublasLt.so." KHOST__VENDOR_STRINGIFY(CUBLAS_VER_MAJOR)
#define KHOST__VENDOR_STRINGIFY(x)    KHOST__VENDOR_STRINGIFY_(x)
#define KHOST__VENDOR_STRINGIFY_(x)   #x

/* The entry points the plugin calls, resolved from the library. */
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

/* The process's cuBLASLt handle, created on first use (that first use needs the
 * worker's CUDA device). KHOST_STATUS_OK, or a status and message in in->error. */
int khost__cublaslt_handle(const khost_input *in, cublasLtHandle_t *handle);

/* Writes "<op>: <what>: CUBLAS_STATUS_NAME" into in->error; returns status. */
int khost__cublaslt_fail(const khost_input *in, int status, const char *what, cublasStatus_t cublas);

/* Registers release (once per function) to run in khost__cublaslt_close() before
 * the handle goes: a kernel's cached descriptors, say. At most 4. */
void khost__cublaslt_at_close(void (*release)(void));

/* Runs the registered releases, then destroys the handle, if any (fini; may
 * follow a sticky CUDA error, which cuBLASLt's destroy calls then report and
 * nothing here reads). */
void khost__cublaslt_close(void);

#endif
