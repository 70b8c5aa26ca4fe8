#include "nvfp4_gemv.h"

#include "input_checks.h"
#include "khost/ops/nvfp4_gemv.h"

/* m, k and l at most 2^31 - 1 whatever the caller allows, as the host's are:
 * khost_nvfp4_swizzled_bytes multiplies unchecked, and at that bound its product
 * stays under 2^59 (the tensor checks catch every other overflow). */
static int check_params(const khost_input *in, int64_t max_param, khost__gemv *gemv)
{
  if (max_param > INT32_MAX) max_param = INT32_MAX;
  int status = khost__input_counts(in, KHOST_NVFP4_GEMV_NINPUTS, KHOST_NVFP4_GEMV_NOUTPUTS);
  if (status == KHOST_STATUS_OK) status = khost__input_param(in, "m", 1, max_param, &gemv->m);
  if (status == KHOST_STATUS_OK) status = khost__input_param(in, "k", KHOST__GEMV_BLOCK, max_param, &gemv->k);
  if (status == KHOST_STATUS_OK) status = khost__input_param(in, "l", 1, max_param, &gemv->l);
  if (status == KHOST_STATUS_OK && gemv->k % KHOST__GEMV_BLOCK != 0)
    status = khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "k = %lld is not a multiple of %d",
                               (long long)gemv->k, KHOST__GEMV_BLOCK);
  return status;
}

static int check_tensors(const khost_input *in, int32_t device_type, const khost__gemv *gemv)
{
  const khost_dtype e2m1 = {KHOST_DTYPE_FLOAT4_E2M1FN, 4, 1};
  const khost_dtype e4m3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
  const khost_dtype fp16 = {KHOST_DTYPE_FLOAT, 16, 1};
  int64_t m = gemv->m, k = gemv->k, l = gemv->l, blocks = k / KHOST__GEMV_BLOCK;
  int64_t sfa_swizzled = khost_nvfp4_swizzled_bytes(m, k), sfv_swizzled = khost_nvfp4_swizzled_bytes(1, k);
  const struct {
    const khost_tensor *tensor;
    const char *role;
    khost_dtype dtype;
    int32_t ndim;
    int64_t shape[3];
  } want[] = {
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_A), "input a", e2m1, 3, {l, m, k}},
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_V), "input v", e2m1, 2, {l, k}},
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFA), "input sfa", e4m3, 3, {l, m, blocks}},
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFV), "input sfv", e4m3, 2, {l, blocks}},
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFA_SWZ),
       "input sfa_swizzled",
       e4m3,
       2,
       {l, sfa_swizzled}},
      {khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFV_SWZ),
       "input sfv_swizzled",
       e4m3,
       2,
       {l, sfv_swizzled}},
      {khost_tensor_at(in->outputs, KHOST_NVFP4_GEMV_C), "output c", fp16, 2, {l, m}},
  };
  int status = KHOST_STATUS_OK;
  for (size_t i = 0; status == KHOST_STATUS_OK && i < sizeof want / sizeof want[0]; i++)
    status = khost__input_tensor(in, want[i].tensor, want[i].role, device_type, want[i].dtype, want[i].ndim,
                                 want[i].shape);
  return status;
}

int khost__gemv_open(const khost_input *in, int32_t device_type, int64_t max_param, khost__gemv *gemv)
{
  *gemv = (khost__gemv){0};
  int status = check_params(in, max_param, gemv);
  if (status == KHOST_STATUS_OK) status = check_tensors(in, device_type, gemv);
  if (status != KHOST_STATUS_OK) return status;
  gemv->a = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_A)->data;
  gemv->v = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_V)->data;
  gemv->sfa = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFA)->data;
  gemv->sfv = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFV)->data;
  gemv->c = khost_tensor_at(in->outputs, KHOST_NVFP4_GEMV_C)->data;
  return KHOST_STATUS_OK;
}
