/* nvfp4_gemv on kernels/nvfp4_gemv.py, reading the plain (row-major) scales; the
 * swizzled copies are for tensor-core kernels. Rule (measured on an H100 and an H200,
 * docs/TRITON_AOT.md): the first variant in manifest order whose grid nearly fills
 * the GPU, m / block_m * l >= FULL_GRID programs per multiprocessor; below that, for
 * long rows on a device whose memory is fast for its multiprocessors, the split
 * variant (k over a cluster of 2 programs of 8 rows: more bytes in flight) while its
 * grid fits in one wave, else the last variant, whose 2 warps share each row's k and
 * which runs every aligned input. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gemv_inputs.h"
#include "input_checks.h"
#include "launch.h"
#include "message.h"
#include "select.h"
#include "triton_aot.h"

#define SCALE_BLOCK KHOST__GEMV_BLOCK /* k-elements per e4m3 scale, and per 64-bit word of codes */
#define MAX_GRID_Y  65535
/* gemv_m4_k1024_w1 runs 32 programs at once per multiprocessor (one warp, 64
 * registers); the rule wants 24, three quarters of a wave: 96 rows per multiprocessor,
 * the threshold measured for the earlier 16-row first variant (docs/TRITON_AOT.md).
 * GPU MODE's 1 batch of 7168 rows is 13.6 programs per multiprocessor, perf_medium's
 * 16384 rows 31: there it leads the 2-warp variant on an H200 (43.7 against 40.4% of
 * copy) and ties it on an H100 (54.5 against 54.9; docs/PERF.md run V). */
#define FULL_GRID 24
/* Peak memory GB/s per multiprocessor from which the split pays below FULL_GRID: GPU
 * MODE's 7168 x 16384 ran 66.1-66.6% of copy split against 64.6% for the 2-warp
 * variant on an H200 (37 GB/s per SM), 75.0-75.1% against 79.2% on an H100 (25 GB/s
 * per SM); the split keeps twice the bytes in flight per multiprocessor, which
 * faster memory likely needs. And only for rows this long: on the H200 the split led
 * on GPU MODE's k = 7168 and 16384 shapes, the 2-warp variant on k = 1536 to 4608,
 * where each slice (k / 2) is at most about one of the split's 2048-element tiles
 * (docs/PERF.md run V). */
#define SPLIT_GBPS_PER_SM 30
#define SPLIT_MIN_K       6144
/* The split's programs resident per multiprocessor: 96 registers, clusters of 2
 * (Nsight Compute on an H200, docs/PERF.md run AA: at most 528 clusters at once on
 * 132 SMs). A grid beyond one wave of them loses to the 2-warp variant, which fits
 * 18 an SM at 56 registers: GPU MODE's 7168 x 16384 (13.6 split programs an SM) ran
 * 68.1-68.4% of copy with it against 64.5-64.7% split on an H200, while its k = 7168
 * test shapes (0.5 and 1.5 an SM) still ran 1-7% faster split (docs/PERF.md run AC). */
#define SPLIT_WAVE 8

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct gemv_call {
  khost__triton_shape shape;
  khost__gemv tensors;
} gemv_call;

/* nvfp4_gemv_split: each row block's k split over a cluster of v->cluster programs. */
static int is_split(const khost__triton_variant *v)
{
  return strcmp(v->function, "nvfp4_gemv_split") == 0;
}

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (!s->aligned) return "needs 16-byte aligned tensors, m % 16 == 0 and k % 32 == 0";
  if (s->m % v->block_m != 0) return "m is not a multiple of the variant's block_m";
  /* Every slice starts on a 16-byte load. */
  if (is_split(v) && s->k / SCALE_BLOCK % (2 * v->cluster) != 0)
    return "k / 16 is not a multiple of twice the split";
  if (is_split(v) && s->m / v->block_m * v->cluster > INT32_MAX) return "more programs than a grid holds";
  /* Row offsets inside a batch are 32-bit; batch offsets are 64-bit. */
  if (s->m * (s->k / SCALE_BLOCK) > INT32_MAX) return "a batch's offsets would overflow 32 bits";
  if (s->l > MAX_GRID_Y) return "l above 65535, the grid's y extent";
  return NULL;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const khost__triton_device *d = &s->device;
  if (is_split(v))
    return d->sms > 0 && d->dram_gbps >= SPLIT_GBPS_PER_SM * d->sms && s->k >= SPLIT_MIN_K &&
           s->m / v->block_m * v->cluster * s->l <= SPLIT_WAVE * (int64_t)d->sms;
  return d->sms > 0 && s->m / v->block_m * s->l >= FULL_GRID * (int64_t)d->sms;
}

const khost__triton_rule khost__triton_gemv_rule = {"nvfp4_gemv", cannot_run, preferred};

/* The slices' sums: l * m / block_m row blocks of cluster * block_m floats. */
static size_t scratch_bytes(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return is_split(v) ? (size_t)(s->l * s->m * v->cluster) * sizeof(float) : 0;
}

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
  return status == KHOST_STATUS_OK
             ? khost__triton_select(&khost__triton_gemv_rule, &call.shape, &v, in->error, in->error_size)
             : status;
}

/* The checked call and the variant the rule picks for it on this device. */
static int prepare(const khost_input *in, gemv_call *call, const khost__triton_variant **v)
{
  int status = call_of(in, call);
  /* Only the rule reads the device; a forced variant needs none. */
  if (status == KHOST_STATUS_OK && !khost__triton_forces(khost__triton_gemv_rule.op))
    status = khost__triton_device_facts(&call->shape.device, in->error, in->error_size);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_select(&khost__triton_gemv_rule, &call->shape, v, in->error, in->error_size);
  return status;
}

static int run(const khost_input *in)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  if (status != KHOST_STATUS_OK) return status;
  status = khost__triton_check_workspace(in, v, scratch_bytes(v, &call.shape));
  if (status != KHOST_STATUS_OK) return status;
  int32_t m = (int32_t)call.shape.m, words_per_row = (int32_t)(call.shape.k / SCALE_BLOCK);
  khost__gemv *t = &call.tensors;
  void *args[] = {&t->a, &t->sfa, &t->v, &t->sfv, &t->c, &m, &words_per_row, (void *)&in->workspace};
  const unsigned int grid[3] = {(unsigned int)(m / v->block_m * v->cluster), (unsigned int)call.shape.l, 1};
  return khost__triton_launch(v, is_split(v) ? "pppppiip" : "pppppii", args, grid, in->stream, in->error,
                              in->error_size);
}

static int workspace_size(const khost_input *in, size_t *bytes)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  *bytes = status == KHOST_STATUS_OK ? scratch_bytes(v, &call.shape) : 0;
  return status;
}

static int describe(const khost_input *in, char *buf, size_t size)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  if (status == KHOST_STATUS_OK) snprintf(buf, size, "%s", v->name);
  return status;
}

const khost_kernel khost__triton_nvfp4_gemv = {
    .struct_size = sizeof(khost_kernel),
    .op = "nvfp4_gemv",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .workspace_size = workspace_size,
    .describe = describe,
};
