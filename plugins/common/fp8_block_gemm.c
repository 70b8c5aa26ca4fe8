#include "fp8_block_gemm.h"

#include "input_checks.h"
#include "khost/ops/fp8_block_gemm.h"

#define BLOCK_MAX (INT64_C(1) << 16)

static int check_params(const khost_input *in, khost__fp8_gemm *g)
{
  const struct {
    const char *name;
    int64_t max, *out;
  } want[] = {{"m", INT32_MAX, &g->m},   {"n", INT32_MAX, &g->n},   {"k", INT32_MAX, &g->k},
              {"qm", BLOCK_MAX, &g->qm}, {"qn", BLOCK_MAX, &g->qn}, {"qk", BLOCK_MAX, &g->qk}};
  int status = khost__input_counts(in, KHOST_FP8_BLOCK_GEMM_NINPUTS, KHOST_FP8_BLOCK_GEMM_NOUTPUTS);
  for (size_t i = 0; status == KHOST_STATUS_OK && i < sizeof want / sizeof want[0]; i++)
    status = khost__input_param(in, want[i].name, 1, want[i].max, want[i].out);
  if (status == KHOST_STATUS_OK && g->k % g->qk != 0)
    status = khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "k = %lld is not a multiple of qk = %lld",
                               (long long)g->k, (long long)g->qk);
  return status;
}

static int check_tensors(const khost_input *in, int32_t device_type, const khost__fp8_gemm *g)
{
  const khost_dtype e4m3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
  const khost_dtype fp32 = {KHOST_DTYPE_FLOAT, 32, 1};
  const khost_dtype bf16 = {KHOST_DTYPE_BFLOAT, 16, 1};
  int64_t kb = g->k / g->qk, mb = khost_fp8_block_gemm_scale_rows(g->m, g->qm),
          nb = khost_fp8_block_gemm_scale_rows(g->n, g->qn);
  const struct {
    const khost_tensor *tensor;
    const char *role;
    khost_dtype dtype;
    int64_t shape[2];
  } want[] = {
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_A), "input a", e4m3, {g->m, g->k}},
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_B), "input b", e4m3, {g->n, g->k}},
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SA), "input sa", fp32, {mb, kb}},
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SB), "input sb", fp32, {nb, kb}},
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SA_T), "input sa_t", fp32, {kb, mb}},
      {khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SB_T), "input sb_t", fp32, {kb, nb}},
      {khost_tensor_at(in->outputs, KHOST_FP8_BLOCK_GEMM_OUT), "output out", bf16, {g->m, g->n}},
  };
  int status = KHOST_STATUS_OK;
  for (size_t i = 0; status == KHOST_STATUS_OK && i < sizeof want / sizeof want[0]; i++)
    status =
        khost__input_tensor(in, want[i].tensor, want[i].role, device_type, want[i].dtype, 2, want[i].shape);
  return status;
}

int khost__fp8_gemm_open(const khost_input *in, int32_t device_type, khost__fp8_gemm *gemm)
{
  *gemm = (khost__fp8_gemm){0};
  int status = check_params(in, gemm);
  if (status == KHOST_STATUS_OK) status = check_tensors(in, device_type, gemm);
  if (status != KHOST_STATUS_OK) return status;
  gemm->a = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_A)->data;
  gemm->b = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_B)->data;
  gemm->sa = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SA)->data;
  gemm->sb = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SB)->data;
  gemm->sa_t = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SA_T)->data;
  gemm->sb_t = khost_tensor_at(in->inputs, KHOST_FP8_BLOCK_GEMM_SB_T)->data;
  gemm->out = khost_tensor_at(in->outputs, KHOST_FP8_BLOCK_GEMM_OUT)->data;
  return KHOST_STATUS_OK;
}
