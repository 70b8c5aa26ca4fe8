/* fp8_block_gemm through cuBLASLt: one FP8 (e4m3) matmul with fp32 block scales
 * applied by the library (docs/VENDOR.md), bf16 out, fp32 accumulation, the
 * heuristic's first algorithm.
 *
 * cuBLASLt is column major and runs FP8 only as "TN", so out [m, n] row-major is
 * computed as its transpose, column-major n x m: D = A^T B with cuBLAS's A = b
 * (k x n, column-major: b's K-contiguous rows), B = a (k x m) and D = out
 * (n x m, leading dimension n). The scales follow the operands:
 *   - a, 1 x 128 blocks (qm = 1): VEC128_32F on cuBLAS's B, read k-block major,
 *     a's m scales of one k block contiguous: khost's sa_t [k/128, m].
 *   - b, 1 x 128 blocks (qn = 1): VEC128_32F on cuBLAS's A, khost's sb_t [k/128, n].
 *   - b, 128 x 128 blocks (qn = 128): BLK128x128_32F on cuBLAS's A, one row of
 *     k/128 scales per 128 rows of b: khost's sb [ceil(n/128), k/128].
 * Each scale tensor's leading dimension must be a multiple of 4 (16 bytes); where
 * khost's is not, run() copies the scales into the workspace with a padded one
 * first, inside the timed call (scale_view). Every other block shape is declined:
 * cuBLASLt's scale modes have no other block.
 *
 * The call is validated by the checks every plugin shares
 * (plugins/common/fp8_block_gemm.h) before anything here reads it.
 *
 * The descriptors, layouts and the heuristic's algorithm of a shape are made in
 * supports() (the host's preparation) and kept in a small per-process cache, so
 * that run(), the timed call, only checks its arguments, finds the plan in that
 * cache, sets the scale pointers and calls the matmul. */
#include "khost/ops/fp8_block_gemm.h"

#include <stdbool.h>
#include <stdio.h>

#include "cublaslt.h"
#include "fp8_block_gemm.h"
#include "vendor.h"

/* The one block length along k that cuBLASLt's FP8 scale modes know. */
#define SCALE_BLOCK 128
/* Scale tensors' leading dimensions in fp32 elements: 16 bytes. */
#define SCALE_LD_ALIGN 4
/* What the heuristic may ask for: cuBLAS's advice for Hopper is 32 MiB. */
#define CUBLAS_WORKSPACE_MAX ((uint64_t)32 << 20)
/* Shapes whose cuBLASLt descriptors a process keeps (a suite has a few dozen;
 * a worker runs one case). */
#define PLANS 8

/* A scale tensor as cuBLASLt reads it: rows x cols fp32 at src (row-major,
 * contiguous), which cuBLASLt must read with leading dimension ld. */
typedef struct scale_view {
  const float *src;
  int64_t rows, cols, ld;
} scale_view;

/* cuBLASLt's objects for one shape (m, n, k and b's block rows qn). */
typedef struct plan {
  bool used;
  int64_t m, n, k, qn;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t b_layout, a_layout, out_layout; /* cuBLAS's A, B and C = D */
  cublasLtMatmulAlgo_t algo;
  size_t algo_bytes; /* the workspace the algorithm asked for */
} plan;

static plan plans[PLANS];
static int next_evicted;

static int64_t round_up(int64_t x, int64_t to)
{
  return (x + to - 1) / to * to;
}

/* UNSUPPORTED, with the reason, for a block shape no cuBLASLt scale mode has. */
static int decline_blocks(const khost_input *in, const khost__fp8_gemm *c)
{
  if (c->qk != SCALE_BLOCK)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "qk = %lld: cuBLASLt's FP8 block scales span 128 elements of k "
                             "(VEC128_32F, BLK128x128_32F)",
                             (long long)c->qk);
  if (c->qm == SCALE_BLOCK && c->qn == SCALE_BLOCK)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "128 x 128 blocks on both a and b: cuBLASLt has no 2D x 2D block scaling "
                             "(BLK128x128_32F pairs with VEC128_32F on the other operand)");
  if (c->qm != 1)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "qm = %lld: a is scaled here in 1 x 128 blocks only (VEC128_32F)",
                             (long long)c->qm);
  if (c->qn != 1 && c->qn != SCALE_BLOCK)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "qn = %lld: b is scaled in 1 x 128 (VEC128_32F) or 128 x 128 (BLK128x128_32F) "
                             "blocks only",
                             (long long)c->qn);
  return KHOST_STATUS_OK;
}

static int open_call(const khost_input *in, khost__fp8_gemm *c)
{
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CUDA, c);
  return status == KHOST_STATUS_OK ? decline_blocks(in, c) : status;
}

/* a's scales as cuBLAS's B reads them: sa_t, k/128 rows of m. */
static scale_view a_scales(const khost__fp8_gemm *c)
{
  int64_t kb = c->k / SCALE_BLOCK;
  return (scale_view){c->sa_t, kb, c->m, round_up(c->m, SCALE_LD_ALIGN)};
}

/* b's scales as cuBLAS's A reads them: sb_t (k/128 rows of n) for 1 x 128
 * blocks, sb (ceil(n/128) rows of k/128) for 128 x 128 blocks. */
static scale_view b_scales(const khost__fp8_gemm *c)
{
  int64_t kb = c->k / SCALE_BLOCK;
  if (c->qn == 1) return (scale_view){c->sb_t, kb, c->n, round_up(c->n, SCALE_LD_ALIGN)};
  int64_t nb = khost_fp8_block_gemm_scale_rows(c->n, SCALE_BLOCK);
  return (scale_view){c->sb, nb, kb, round_up(kb, SCALE_LD_ALIGN)};
}

/* Workspace bytes for the padded copy of v (0 when khost's layout serves as is),
 * in 256-byte units so that each part of the workspace starts aligned. */
static size_t padded_bytes(scale_view v)
{
  return v.ld == v.cols ? 0 : (size_t)round_up(v.rows * v.ld * (int64_t)sizeof(float), 256);
}

static void plan_release(plan *p)
{
  const khost__cublaslt *api = khost__cublaslt_open();
  if (p->desc) api->desc_destroy(p->desc);
  if (p->b_layout) api->layout_destroy(p->b_layout);
  if (p->a_layout) api->layout_destroy(p->a_layout);
  if (p->out_layout) api->layout_destroy(p->out_layout);
  *p = (plan){0};
}

static void plans_release(void)
{
  for (int i = 0; i < PLANS; i++)
    if (plans[i].used) plan_release(&plans[i]);
}

/* Points the descriptor at a's and b's scales (cuBLAS's B and A). The heuristic
 * needs them too: a block scale mode without its pointer is CUBLAS_STATUS_INVALID_VALUE. */
static cublasStatus_t point_at_scales(const khost__cublaslt *api, plan *p, const void *sa, const void *sb)
{
  cublasStatus_t s = api->desc_set(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof sb);
  return s == CUBLAS_STATUS_SUCCESS
             ? api->desc_set(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof sa)
             : s;
}

/* The matmul descriptor and the three layouts of c (the comment at the top). */
static cublasStatus_t plan_describe(const khost__cublaslt *api, const khost__fp8_gemm *c, plan *p,
                                    const char **what)
{
  const int32_t b_mode = c->qn == SCALE_BLOCK ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
                                              : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  const int32_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
  const struct {
    cublasLtMatmulDescAttributes_t attribute;
    const int32_t *value;
  } settings[] = {{CUBLASLT_MATMUL_DESC_TRANSA, &transposed},
                  {CUBLASLT_MATMUL_DESC_TRANSB, &plain},
                  {CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &b_mode},
                  {CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &a_mode}};
  cublasStatus_t s;
  *what = "cublasLtMatmulDescCreate";
  if ((s = api->desc_create(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)) != CUBLAS_STATUS_SUCCESS) return s;
  *what = "cublasLtMatmulDescSetAttribute";
  for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
    if ((s = api->desc_set(p->desc, settings[i].attribute, settings[i].value, sizeof(int32_t))) !=
        CUBLAS_STATUS_SUCCESS)
      return s;
  *what = "the scale pointers";
  if ((s = point_at_scales(api, p, a_scales(c).src, b_scales(c).src)) != CUBLAS_STATUS_SUCCESS) return s;
  *what = "cublasLtMatrixLayoutCreate";
  if ((s = api->layout_create(&p->b_layout, CUDA_R_8F_E4M3, (uint64_t)c->k, (uint64_t)c->n, c->k)) !=
      CUBLAS_STATUS_SUCCESS)
    return s;
  if ((s = api->layout_create(&p->a_layout, CUDA_R_8F_E4M3, (uint64_t)c->k, (uint64_t)c->m, c->k)) !=
      CUBLAS_STATUS_SUCCESS)
    return s;
  return api->layout_create(&p->out_layout, CUDA_R_16BF, (uint64_t)c->n, (uint64_t)c->m, c->n);
}

/* The heuristic's first algorithm for p, within CUBLAS_WORKSPACE_MAX. */
static int plan_choose(const khost_input *in, const khost__cublaslt *api, cublasLtHandle_t handle, plan *p)
{
  cublasLtMatmulPreference_t preference = NULL;
  cublasLtMatmulHeuristicResult_t result = {0};
  int found = 0, status = KHOST_STATUS_OK;
  const uint64_t workspace_max = CUBLAS_WORKSPACE_MAX;
  cublasStatus_t s = api->preference_create(&preference);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = api->preference_set(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_max,
                            sizeof workspace_max);
  if (s != CUBLAS_STATUS_SUCCESS) {
    status = khost__cublaslt_fail(in, KHOST_STATUS_DEVICE_ERROR, "cublasLtMatmulPreference", s);
    goto done;
  }
  s = api->heuristic(handle, p->desc, p->b_layout, p->a_layout, p->out_layout, p->out_layout, preference, 1,
                     &result, &found);
  /* A shape cuBLASLt has no kernel for is a SKIP. Any other failure is an error,
   * CUBLAS_STATUS_INVALID_VALUE too: it says the call is malformed, which a SKIP
   * would hide (it first flagged the scale pointers missing here). */
  if (s == CUBLAS_STATUS_NOT_SUPPORTED) {
    status = khost__cublaslt_fail(in, KHOST_STATUS_UNSUPPORTED,
                                  "cuBLASLt declines this shape: "
                                  "cublasLtMatmulAlgoGetHeuristic",
                                  s);
  } else if (s != CUBLAS_STATUS_SUCCESS) {
    status = khost__cublaslt_fail(in, KHOST_STATUS_DEVICE_ERROR, "cublasLtMatmulAlgoGetHeuristic", s);
  } else if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
    status =
        khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                          "cuBLASLt declines this shape: cublasLtMatmulAlgoGetHeuristic found no algorithm");
  } else {
    p->algo = result.algo;
    p->algo_bytes = result.workspaceSize;
  }
done:
  if (preference) api->preference_destroy(preference);
  return status;
}

/* The cached plan of c, made (descriptors and heuristic) when there is none. */
static int plan_for(const khost_input *in, const khost__fp8_gemm *c, plan **out)
{
  for (int i = 0; i < PLANS; i++)
    if (plans[i].used && plans[i].m == c->m && plans[i].n == c->n && plans[i].k == c->k &&
        plans[i].qn == c->qn) {
      *out = &plans[i];
      return KHOST_STATUS_OK;
    }
  cublasLtHandle_t handle;
  int status = khost__cublaslt_handle(in, &handle);
  if (status != KHOST_STATUS_OK) return status;
  const khost__cublaslt *api = khost__cublaslt_open();
  khost__cublaslt_at_close(plans_release);
  plan *p = &plans[next_evicted];
  next_evicted = (next_evicted + 1) % PLANS;
  if (p->used) plan_release(p);
  *p = (plan){.m = c->m, .n = c->n, .k = c->k, .qn = c->qn};
  const char *what = "";
  cublasStatus_t s = plan_describe(api, c, p, &what);
  status = s == CUBLAS_STATUS_SUCCESS ? plan_choose(in, api, handle, p)
                                      : khost__cublaslt_fail(in, KHOST_STATUS_DEVICE_ERROR, what, s);
  if (status != KHOST_STATUS_OK) {
    plan_release(p);
    return status;
  }
  p->used = true;
  *out = p;
  return KHOST_STATUS_OK;
}

/* Validates the call, declines what cuBLASLt cannot do, and finds its plan. */
static int prepare(const khost_input *in, khost__fp8_gemm *c, plan **p)
{
  int status = open_call(in, c);
  if (status != KHOST_STATUS_OK) return status;
  if (!khost__cublaslt_open())
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "%s", khost__cublaslt_missing());
  return plan_for(in, c, p);
}

static int supports(const khost_input *in)
{
  khost__fp8_gemm c;
  plan *p;
  return prepare(in, &c, &p);
}

static size_t workspace_bytes(const khost__fp8_gemm *c, const plan *p)
{
  return (size_t)round_up((int64_t)p->algo_bytes, 256) + padded_bytes(a_scales(c)) +
         padded_bytes(b_scales(c));
}

static int workspace_size(const khost_input *in, size_t *bytes)
{
  khost__fp8_gemm c;
  plan *p;
  int status = prepare(in, &c, &p);
  if (status == KHOST_STATUS_OK) *bytes = workspace_bytes(&c, p);
  return status;
}

static int describe(const khost_input *in, char *buf, size_t size)
{
  khost__fp8_gemm c;
  plan *p;
  int status = prepare(in, &c, &p);
  if (status != KHOST_STATUS_OK) return status;
  const khost__cublaslt *api = khost__cublaslt_open();
  int32_t id = -1, tile = -1, stages = -1;
  api->algo_get(&p->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, NULL);
  api->algo_get(&p->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, NULL);
  api->algo_get(&p->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, NULL);
  bool pad_a = padded_bytes(a_scales(&c)) > 0, pad_b = padded_bytes(b_scales(&c)) > 0;
  snprintf(buf, size, "cublasLt algo=%d tile=%d stages=%d%s%s", id, tile, stages, pad_a ? " pad_sa" : "",
           pad_b ? " pad_sb" : "");
  return KHOST_STATUS_OK;
}

/* The scales of v where cuBLASLt can read them: khost's tensor, or a copy with
 * the padded leading dimension at *cursor in the workspace (advanced past it). */
static int place_scales(const khost_input *in, scale_view v, char **cursor, const void **where)
{
  *where = v.src;
  if (v.ld == v.cols) return KHOST_STATUS_OK;
  *where = *cursor;
  *cursor += padded_bytes(v);
  size_t row = (size_t)v.cols * sizeof(float);
  return KHOST__VENDOR_CUDA_CHECK(in, cudaMemcpy2DAsync((void *)*where, (size_t)v.ld * sizeof(float), v.src,
                                                        row, row, (size_t)v.rows, cudaMemcpyDeviceToDevice,
                                                        (cudaStream_t)in->stream));
}

static int run(const khost_input *in)
{
  khost__fp8_gemm c;
  plan *p;
  cublasLtHandle_t handle;
  int status = prepare(in, &c, &p);
  if (status == KHOST_STATUS_OK) status = khost__cublaslt_handle(in, &handle);
  if (status != KHOST_STATUS_OK) return status;
  if (in->workspace_bytes < workspace_bytes(&c, p) || (workspace_bytes(&c, p) && !in->workspace))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "workspace of %zu bytes, %zu asked for",
                             in->workspace_bytes, workspace_bytes(&c, p));
  char *cursor = (char *)in->workspace + round_up((int64_t)p->algo_bytes, 256);
  const void *sa = NULL, *sb = NULL;
  status = place_scales(in, a_scales(&c), &cursor, &sa);
  if (status == KHOST_STATUS_OK) status = place_scales(in, b_scales(&c), &cursor, &sb);
  if (status != KHOST_STATUS_OK) return status;
  const khost__cublaslt *api = khost__cublaslt_open();
  cublasStatus_t s = point_at_scales(api, p, sa, sb);
  if (s != CUBLAS_STATUS_SUCCESS)
    return khost__cublaslt_fail(in, KHOST_STATUS_INTERNAL, "the scale pointers", s);
  const float alpha = 1.0f, beta = 0.0f;
  void *out = c.out;
  s = api->matmul(handle, p->desc, &alpha, c.b, p->b_layout, c.a, p->a_layout, &beta, out, p->out_layout, out,
                  p->out_layout, &p->algo, in->workspace, p->algo_bytes, (cudaStream_t)in->stream);
  return s == CUBLAS_STATUS_SUCCESS
             ? KHOST_STATUS_OK
             : khost__cublaslt_fail(in, KHOST_STATUS_DEVICE_ERROR, "cublasLtMatmul", s);
}

const khost_kernel khost__vendor_fp8_block_gemm = {
    .struct_size = sizeof(khost_kernel),
    .op = "fp8_block_gemm",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .workspace_size = workspace_size,
    .describe = describe,
};
