/* nvfp4_gemv on kernels/nvfp4_gemv.py, reading the plain (row-major) scales; the
 * swizzled copies are for tensor-core kernels. Rule (measured on an H200,
 * docs/TRITON_AOT.md): the first variant in manifest order whose grid fills the
 * GPU, m / block_m * l >= FULL_GRID programs per multiprocessor; otherwise the last
 * one (BLOCK_K 2048: more bytes in flight per row when rows are few). */
#include <stdint.h>

#include "gemv_inputs.h"
#include "input_checks.h"
#include "launch.h"
#include "message.h"
#include "select.h"
#include "triton_aot.h"

#define SCALE_BLOCK KHOST__GEMV_BLOCK /* k-elements per e4m3 scale, and per 64-bit word of codes */
#define MAX_GRID_Y  65535
/* gemv_m16_k1024_w4 runs 6 programs at once per multiprocessor (80 registers, 128
 * threads): a grid of that many per multiprocessor fills the GPU. Below it (1 batch
 * of 7168 rows: 3.4 per multiprocessor) gemv_m8_k2048_w2 measured 64% against 57%;
 * from 13.6 per multiprocessor up the first variant was within a point or faster. */
#define FULL_GRID 6

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct gemv_call {
  khost__triton_shape shape;
  khost__gemv tensors;
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

static int call_of(const khost_input *in, gemv_call *call)
{
  /* The kernels take 32-bit sizes. */
  int status = khost__gemv_open(in, KHOST_DEVICE_CUDA, INT32_MAX, &call->tensors);
  if (status != KHOST_STATUS_OK) return status;
  const khost__gemv *t = &call->tensors;
  /* The kernel reads 64-bit words of a and v (16-byte vectors of them) and was
   * compiled on the promise that m % 16 == 0 and k / 16 is even. */
  const void *const pointers[] = {t->a, t->sfa, t->v, t->sfv, t->c};
  int aligned = t->m % 16 == 0 && t->k % (2 * SCALE_BLOCK) == 0 && khost__input_aligned(pointers, 5, 16);
  khost__triton_shape shape = {.m = t->m, .k = t->k, .l = t->l, .aligned = aligned};
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
  khost__gemv *t = &call.tensors;
  void *args[] = {&t->a, &t->sfa, &t->v, &t->sfv, &t->c, &m, &words_per_row};
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
