/* nvfp4_gemv on kernels/nvfp4_gemv.py, reading the plain (row-major) scales; the
 * swizzled copies are for tensor-core kernels. Rule (measured on an H200,
 * docs/TRITON_AOT.md): the first variant in manifest order whose grid fills the
 * GPU, m / block_m * l >= FULL_GRID programs per multiprocessor; otherwise the last
 * one (BLOCK_K 2048: more bytes in flight per row when rows are few). */
#include <stdint.h>

#include "inputs.h"
#include "launch.h"
#include "message.h"
#include "select.h"
#include "triton_aot.h"

#define SCALE_BLOCK 16 /* k-elements per e4m3 scale, and per 64-bit word of codes */
#define MAX_GRID_Y  65535
/* gemv_m16_k1024_w4 runs 6 programs at once per multiprocessor (80 registers, 128
 * threads): a grid of that many per multiprocessor fills the GPU. Below it (1 batch
 * of 7168 rows: 3.4 per multiprocessor) gemv_m8_k2048_w2 measured 64% against 57%;
 * from 13.6 per multiprocessor up the first variant was within a point or faster. */
#define FULL_GRID 6

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct gemv_call {
  khost__triton_shape shape;
  void *a, *sfa, *v, *sfv, *c;
} gemv_call;

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (!s->aligned) return "needs 16-byte aligned tensors, m % 16 == 0 and k % 32 == 0";
  if (s->m % v->block_m != 0) return "m is not a multiple of the variant's block_m";
  /* Row offsets inside a batch are 32-bit; batch offsets are 64-bit. */
  if (s->m * (s->k / SCALE_BLOCK) > INT32_MAX) return "a batch's offsets would overflow 32 bits";
  if (s->l > MAX_GRID_Y) return "l above 65535, the grid's y extent";
  return NULL;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return s->sms > 0 && s->m / v->block_m * s->l >= FULL_GRID * (int64_t)s->sms;
}

static const khost__triton_rule rule = {"nvfp4_gemv", cannot_run, preferred};

static int check_tensors(const khost_input *in, int64_t m, int64_t k, int64_t l)
{
  const int64_t a[] = {l, m, k}, v[] = {l, k}, sfa[] = {l, m, k / SCALE_BLOCK}, sfv[] = {l, k / SCALE_BLOCK};
  const int64_t c[] = {l, m};
  const khost_tensor *inputs = in->inputs;
  int status = khost__triton_check_tensor(in, khost_tensor_at(inputs, KHOST_NVFP4_GEMV_A),
                                          KHOST_DTYPE_FLOAT4_E2M1FN, 4, 3, a);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_check_tensor(in, khost_tensor_at(inputs, KHOST_NVFP4_GEMV_V),
                                        KHOST_DTYPE_FLOAT4_E2M1FN, 4, 2, v);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_check_tensor(in, khost_tensor_at(inputs, KHOST_NVFP4_GEMV_SFA),
                                        KHOST_DTYPE_FLOAT8_E4M3FN, 8, 3, sfa);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_check_tensor(in, khost_tensor_at(inputs, KHOST_NVFP4_GEMV_SFV),
                                        KHOST_DTYPE_FLOAT8_E4M3FN, 8, 2, sfv);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_check_tensor(in, khost_tensor_at(in->outputs, KHOST_NVFP4_GEMV_C),
                                        KHOST_DTYPE_FLOAT, 16, 2, c);
  return status;
}

static int call_of(const khost_input *in, gemv_call *call)
{
  int64_t m, k, l;
  int status = khost__triton_check_counts(in, KHOST_NVFP4_GEMV_NINPUTS, KHOST_NVFP4_GEMV_NOUTPUTS);
  if (status == KHOST_STATUS_OK) status = khost__triton_param(in, "m", 1, &m);
  if (status == KHOST_STATUS_OK) status = khost__triton_param(in, "k", SCALE_BLOCK, &k);
  if (status == KHOST_STATUS_OK) status = khost__triton_param(in, "l", 1, &l);
  if (status == KHOST_STATUS_OK && k % SCALE_BLOCK != 0)
    status = khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                  "nvfp4_gemv: k = %lld is not a multiple of %d", (long long)k, SCALE_BLOCK);
  if (status == KHOST_STATUS_OK) status = check_tensors(in, m, k, l);
  if (status != KHOST_STATUS_OK) return status;
  call->a = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_A)->data;
  call->v = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_V)->data;
  call->sfa = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFA)->data;
  call->sfv = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFV)->data;
  call->c = khost_tensor_at(in->outputs, KHOST_NVFP4_GEMV_C)->data;
  /* The kernel reads 64-bit words of a and v (16-byte vectors of them) and was
   * compiled on the promise that m % 16 == 0 and k / 16 is even. */
  int aligned = m % 16 == 0 && k % (2 * SCALE_BLOCK) == 0;
  void *const pointers[] = {call->a, call->sfa, call->v, call->sfv, call->c};
  for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++)
    aligned = aligned && khost__triton_aligned16(pointers[i]);
  khost__triton_shape shape = {.m = m, .k = k, .l = l, .aligned = aligned};
  call->shape = shape;
  return KHOST_STATUS_OK;
}

static int supports(const khost_input *in)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = call_of(in, &call);
  return status == KHOST_STATUS_OK ? khost__triton_select(&rule, &call.shape, &v, in->error, in->error_size)
                                   : status;
}

static int run(const khost_input *in)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = call_of(in, &call);
  if (status == KHOST_STATUS_OK) status = khost__triton_sm_count(&call.shape.sms, in->error, in->error_size);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_select(&rule, &call.shape, &v, in->error, in->error_size);
  if (status != KHOST_STATUS_OK) return status;
  int32_t m = (int32_t)call.shape.m, words_per_row = (int32_t)(call.shape.k / SCALE_BLOCK);
  void *args[] = {&call.a, &call.sfa, &call.v, &call.sfv, &call.c, &m, &words_per_row};
  const unsigned int grid[3] = {(unsigned int)(m / v->block_m), (unsigned int)call.shape.l, 1};
  return khost__triton_launch(v, "pppppii", args, grid, in->stream, in->error, in->error_size);
}

const khost_kernel khost__triton_nvfp4_gemv = {
    .struct_size = sizeof(khost_kernel),
    .op = "nvfp4_gemv",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
};
