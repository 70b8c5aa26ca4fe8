/* The vendor plugin's use of cuBLASLt, which it opens at run time
 * (core/cublaslt/cublaslt_open.h) at its first fp8_block_gemm call, in that
 * case's worker, not in the plugin's entry: mapping the library costs every khost
 * run that loads the plugin tens of milliseconds (plugin.c). Here: the process's
 * handle and the plugin's error messages. */
#ifndef KHOST_VENDOR_CUBLASLT_H
#define KHOST_VENDOR_CUBLASLT_H

#include "cublaslt_open.h"
#include "khost/plugin.h"

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
