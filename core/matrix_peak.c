/* The matrix peaks timed on cuBLASLt (matrix_peak.h). Built with the toolkit's
 * headers only on the include path (core/meson.build), as core/cupti_timer.c is. */
#include "matrix_peak.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench.h"
#include "cublaslt_open.h"
#include "cuda.h"

#define PEAK_SAMPLES    7
#define WORKSPACE_BYTES ((size_t)32 << 20) /* what cuBLASLt's Hopper kernels ask for at most */

/* One GEMM: its descriptors, chosen algorithm and operands. */
typedef struct gemm {
  const khost__cublaslt *api;
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d;
  cublasLtMatmulAlgo_t algo;
  void *a_data, *b_data, *d_data, *workspace;
} gemm;

static int cublas_failed(const gemm *g, cublasStatus_t s, const char *what, khost__err *err)
{
  return khost__errorf(err, KHOST__E_FAIL, "%s: %s", what, g->api->status_name(s));
}

static int cuda_failed(cudaError_t e, const char *what, khost__err *err)
{
  int code = e == cudaErrorMemoryAllocation ? KHOST__E_NOMEM : KHOST__E_CUDA;
  return khost__errorf(err, code, "%s:%d: %s: %s", __FILE__, __LINE__, what, cudaGetErrorString(e));
}

/* The operand types of peak t: A and B, then D. */
static void types_of(khost__peak_type t, cudaDataType_t *in, cudaDataType_t *out)
{
  *in = t == KHOST__PEAK_E4M3 ? CUDA_R_8F_E4M3 : t == KHOST__PEAK_FP16 ? CUDA_R_16F : CUDA_R_16BF;
  *out = t == KHOST__PEAK_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

/* Descriptors for D (n x n) = A^T (A stored k x n) times B (k x n), column-major:
 * the TN layout, the one cuBLASLt's fp8 kernels take. */
static int describe(gemm *g, khost__peak_type t, khost__err *err)
{
  const uint64_t n = KHOST__PEAK_GEMM_SIZE;
  cudaDataType_t in, out;
  cublasOperation_t transposed = CUBLAS_OP_T;
  types_of(t, &in, &out);
  cublasStatus_t s = g->api->desc_create(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g->api->desc_set(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed);
  if (s == CUBLAS_STATUS_SUCCESS) s = g->api->layout_create(&g->a, in, n, n, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = g->api->layout_create(&g->b, in, n, n, n);
  if (s == CUBLAS_STATUS_SUCCESS) s = g->api->layout_create(&g->d, out, n, n, n);
  return s == CUBLAS_STATUS_SUCCESS ? KHOST__OK : cublas_failed(g, s, "cuBLASLt descriptors", err);
}

/* The heuristic's first algorithm within the workspace. */
static int choose(gemm *g, khost__peak_type t, khost__err *err)
{
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulHeuristicResult_t result;
  int found = 0;
  size_t limit = WORKSPACE_BYTES;
  cublasStatus_t s = g->api->preference_create(&pref);
  if (s != CUBLAS_STATUS_SUCCESS) return cublas_failed(g, s, "cublasLtMatmulPreferenceCreate", err);
  s = g->api->preference_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit, sizeof limit);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g->api->heuristic(g->handle, g->desc, g->a, g->b, g->d, g->d, pref, 1, &result, &found);
  g->api->preference_destroy(pref);
  if (s != CUBLAS_STATUS_SUCCESS) return cublas_failed(g, s, "cublasLtMatmulAlgoGetHeuristic", err);
  if (found < 1)
    return khost__errorf(err, KHOST__E_FAIL, "cuBLASLt has no %s GEMM algorithm on this GPU",
                         khost__peak_name(t));
  g->algo = result.algo;
  return KHOST__OK;
}

/* Operands of non-zero values (a byte pattern: 1.5 in e4m3, about 1.06 in
 * fp16, 0.011 in bf16): zeros could take a faster path than real data. */
static int allocate(gemm *g, khost__peak_type t, khost__err *err)
{
  const size_t elements = (size_t)KHOST__PEAK_GEMM_SIZE * KHOST__PEAK_GEMM_SIZE;
  size_t in_bytes = elements * (t == KHOST__PEAK_E4M3 ? 1 : 2), out_bytes = elements * 2;
  cudaError_t e = cudaMalloc(&g->a_data, in_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&g->b_data, in_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&g->d_data, out_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&g->workspace, WORKSPACE_BYTES);
  if (e == cudaSuccess) e = cudaMemsetAsync(g->a_data, 0x3c, in_bytes, (cudaStream_t)khost__cuda_stream());
  if (e == cudaSuccess) e = cudaMemsetAsync(g->b_data, 0x3c, in_bytes, (cudaStream_t)khost__cuda_stream());
  return e == cudaSuccess ? KHOST__OK : cuda_failed(e, "the matrix peak's operands", err);
}

/* One GEMM on khost's stream (a khost__cuda_call_fn). */
static int call_gemm(void *arg, int i)
{
  gemm *g = arg;
  const float one = 1.0f, zero = 0.0f;
  (void)i;
  cublasStatus_t s = g->api->matmul(g->handle, g->desc, &one, g->a_data, g->a, g->b_data, g->b, &zero,
                                    g->d_data, g->d, g->d_data, g->d, &g->algo, g->workspace, WORKSPACE_BYTES,
                                    (cudaStream_t)khost__cuda_stream());
  return s == CUBLAS_STATUS_SUCCESS ? KHOST_STATUS_OK : KHOST_STATUS_DEVICE_ERROR;
}

/* A warm-up GEMM, then the median of PEAK_SAMPLES, each timed as a sample is. */
static int time_gemm(gemm *g, double *seconds, khost__err *err)
{
  double s[PEAK_SAMPLES], sm_mhz;
  int status = call_gemm(g, 0), rc = KHOST__OK;
  for (int i = 0; i < PEAK_SAMPLES && rc == KHOST__OK && status == KHOST_STATUS_OK; i++)
    rc = khost__cuda_time(call_gemm, g, 0, 1, 0, &s[i], &sm_mhz, &status, err);
  if (rc == KHOST__OK && status != KHOST_STATUS_OK)
    rc = khost__errorf(err, KHOST__E_FAIL, "cublasLtMatmul failed");
  *seconds = rc == KHOST__OK ? khost__sorted_median(s, PEAK_SAMPLES) : 0;
  return rc;
}

static void release(gemm *g)
{
  cudaFree(g->workspace);
  cudaFree(g->d_data);
  cudaFree(g->b_data);
  cudaFree(g->a_data);
  if (g->d) g->api->layout_destroy(g->d);
  if (g->b) g->api->layout_destroy(g->b);
  if (g->a) g->api->layout_destroy(g->a);
  if (g->desc) g->api->desc_destroy(g->desc);
  if (g->handle) g->api->destroy(g->handle);
}

int khost__matrix_peak_measure(khost__peak_type t, double *tflops, khost__err *err)
{
  gemm g;
  double seconds = 0, n = KHOST__PEAK_GEMM_SIZE;
  memset(&g, 0, sizeof g);
  *tflops = 0;
  if (!(g.api = khost__cublaslt_open()))
    return khost__errorf(err, KHOST__E_FAIL, "matrix peak: %s", khost__cublaslt_missing());
  cublasStatus_t s = g.api->create(&g.handle);
  int rc = s == CUBLAS_STATUS_SUCCESS ? KHOST__OK : cublas_failed(&g, s, "cublasLtCreate", err);
  if (rc == KHOST__OK) rc = describe(&g, t, err);
  if (rc == KHOST__OK) rc = choose(&g, t, err);
  if (rc == KHOST__OK) rc = allocate(&g, t, err);
  if (rc == KHOST__OK) rc = time_gemm(&g, &seconds, err);
  if (rc == KHOST__OK && seconds > 0) *tflops = 2 * n * n * n / seconds * 1e-12;
  release(&g);
  return rc;
}
