/* fp8_block_gemm on kernels/fp8_block_gemm.py, reading the transposed scales (sa_t,
 * sb_t), whose entries for a tile's rows in one k block are contiguous. Every variant
 * steps k by block_k (128) and so needs qk % 128 == 0; the per-tile ones also need a
 * tile's columns in one scale block of b (qn % 128 == 0). Rule (a first guess, not yet
 * measured on a GPU; docs/TRITON_AOT.md), in manifest order: 64-row tiles where one tile
 * row holds m (m <= 64), else 128-row tiles; each split over k, with the reduction after
 * it, where the tiles alone leave half the SMs idle or more (two or more splits fit
 * beside them), else whole; the variant with per-column scales of b where qn is not a
 * multiple of 128 (per-token scales). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fp8_block_gemm.h"
#include "fp8_block_gemm_rule.h"
#include "input_checks.h"
#include "khost/ops/fp8_block_gemm.h"
#include "launch.h"
#include "message.h"
#include "select.h"

/* The kernel families of kernels/fp8_block_gemm.py, by function name. */
#define SPLIT_FAMILY  "fp8_block_gemm_split"
#define COLUMN_FAMILY "fp8_block_gemm_column_scales"
#define REDUCE_FAMILY "fp8_block_gemm_reduce"
#define GEMM_ARGS     "pppppiiiiii"
#define SPLIT_ARGS    "pppppiiiiiiiii"
#define REDUCE_ARGS   "ppiiiii"
/* Variants of tiles this tall or less are preferred only where one tile row holds m. */
#define SMALL_TILE_ROWS 64
/* A split variant is preferred where at least this many splits fit the SMs beside its tiles. */
#define MIN_SPLITS 2
#define MAX_GRID_Y 65535
/* The kernels index rows, columns and k in 32 bits with a tile to spare past the end. */
#define DIM_MAX (INT64_C(1) << 30)

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct gemm_call {
  khost__triton_shape shape;
  khost__fp8_gemm t;
} gemm_call;

static int is(const khost__triton_variant *v, const char *family)
{
  return strcmp(v->function, family) == 0;
}

static int64_t cdiv(int64_t x, int64_t y)
{
  return (x + y - 1) / y;
}

static int64_t tiles(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return cdiv(s->m, v->block_m) * cdiv(s->n, v->block_n);
}

/* The reduction the split variants need, or NULL when none was compiled. */
static const khost__triton_variant *reduction(void)
{
  for (int i = 0; i < khost__triton_nvariants; i++)
    if (is(&khost__triton_variants[i], REDUCE_FAMILY)) return &khost__triton_variants[i];
  return NULL;
}

/* The partial sums of a split variant: m and n padded to whole tiles, so that its
 * stores need no mask and its rows are whole 16-byte vectors. */
typedef struct partials {
  int64_t rows, cols;
} partials;

static partials partials_of(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return (partials){cdiv(s->m, v->block_m) * v->block_m, cdiv(s->n, v->block_n) * v->block_n};
}

static const char *cannot_run_split(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const khost__triton_variant *r = reduction();
  if (!r) return "the split reduction was not compiled";
  partials p = partials_of(v, s);
  if (p.rows > INT32_MAX || p.cols > INT32_MAX) return "the partial sums' padded rows would overflow 32 bits";
  if (cdiv(s->m, r->block_m) * cdiv(s->n, r->block_n) > INT32_MAX) return "more tiles than a grid holds";
  return NULL;
}

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (is(v, REDUCE_FAMILY)) return "the split variants' reduction, not a GEMM";
  if (s->qk % v->block_k != 0)
    return "qk is not a multiple of the variant's block_k (a step of k must lie in one scale block)";
  const char *misfit = khost__triton_misfit(v, s, 0);
  if (misfit) return misfit;
  if (!is(v, COLUMN_FAMILY) && s->qn % v->block_n != 0)
    return "qn is not a multiple of the variant's block_n (a tile's columns must share b's scale)";
  if (s->m > DIM_MAX || s->n > DIM_MAX || s->k > DIM_MAX) return "m, n or k above 2^30 (32-bit indices)";
  if (tiles(v, s) > INT32_MAX) return "more tiles than a grid holds";
  return is(v, SPLIT_FAMILY) ? cannot_run_split(v, s) : NULL;
}

khost__triton_split khost__triton_fp8_split(const khost__triton_variant *v, const khost__triton_shape *s)
{
  int64_t steps = s->k / v->block_k, wanted = s->device.sms / tiles(v, s);
  if (wanted > steps) wanted = steps;
  if (wanted > MAX_GRID_Y) wanted = MAX_GRID_Y;
  if (wanted < 1) wanted = 1;
  khost__triton_split split = {.per_split = cdiv(steps, wanted)};
  split.splits = cdiv(steps, split.per_split);
  return split;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (is(v, COLUMN_FAMILY)) return 0; /* the last resort: one multiply more an element */
  if (v->block_m <= SMALL_TILE_ROWS && s->m > v->block_m) return 0;
  return !is(v, SPLIT_FAMILY) || khost__triton_fp8_split(v, s).splits >= MIN_SPLITS;
}

const khost__triton_rule khost__triton_fp8_gemm_rule = {"fp8_block_gemm", cannot_run, preferred};

static int call_of(const khost_input *in, gemm_call *call)
{
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CUDA, &call->t);
  if (status != KHOST_STATUS_OK) return status;
  const khost__fp8_gemm *t = &call->t;
  /* Every variant was compiled on the promise of 16-byte aligned tensors and k % 16 == 0. */
  const void *const pointers[] = {t->a, t->b, t->sa, t->sb, t->sa_t, t->sb_t, t->out};
  khost__triton_shape shape = {
      .m = t->m,
      .n = t->n,
      .k = t->k,
      .qm = t->qm,
      .qn = t->qn,
      .qk = t->qk,
      .dtype_code = KHOST_DTYPE_FLOAT8_E4M3FN,
      .dtype_bits = 8,
      .aligned = t->k % 16 == 0 && khost__input_aligned(pointers, 7, 16),
  };
  call->shape = shape;
  return KHOST_STATUS_OK;
}

/* The checked call and the variant for it; on_device: on this device, whose SM count
 * the split of k reads (a forced split variant's too), else as supports() chooses, the
 * driver untouched. */
static int prepare(const khost_input *in, gemm_call *call, const khost__triton_variant **v, int on_device)
{
  int status = call_of(in, call);
  return status == KHOST_STATUS_OK
             ? khost__triton_select_on_device(&khost__triton_fp8_gemm_rule, &call->shape, on_device, v,
                                              in->error, in->error_size)
             : status;
}

static int supports(const khost_input *in)
{
  gemm_call call;
  const khost__triton_variant *v;
  return prepare(in, &call, &v, 0);
}

/* Bytes of fp32 partial sums variant v writes for s: 0 unless it splits k. */
static size_t partial_bytes(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (!is(v, SPLIT_FAMILY)) return 0;
  partials p = partials_of(v, s);
  return (size_t)khost__triton_fp8_split(v, s).splits * (size_t)p.rows * (size_t)p.cols * sizeof(float);
}

static int workspace_size(const khost_input *in, size_t *bytes)
{
  gemm_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v, 1);
  *bytes = status == KHOST_STATUS_OK ? partial_bytes(v, &call.shape) : 0;
  return status;
}

/* The sizes a launch passes, as the kernels' 32-bit arguments (cannot_run bounds them). */
typedef struct sizes {
  int32_t m, n, k, qm, qn, qk;
} sizes;

/* The split variant v, then the reduction of its partial sums in the workspace into out. */
static int run_split(const khost_input *in, gemm_call *call, const khost__triton_variant *v, sizes *z)
{
  const khost__triton_shape *s = &call->shape;
  int status = khost__triton_check_workspace(in, v, partial_bytes(v, s));
  if (status != KHOST_STATUS_OK) return status;
  khost__triton_split split = khost__triton_fp8_split(v, s);
  partials p = partials_of(v, s);
  int32_t per_split = (int32_t)split.per_split, splits = (int32_t)split.splits, rows = (int32_t)p.rows,
          cols = (int32_t)p.cols;
  khost__fp8_gemm *t = &call->t;
  void *part = in->workspace;
  void *args[] = {&t->a, &t->b,  &t->sa_t, &t->sb_t, &part,      &z->m, &z->n,
                  &z->k, &z->qm, &z->qn,   &z->qk,   &per_split, &rows, &cols};
  const unsigned int grid[3] = {(unsigned int)tiles(v, s), (unsigned int)splits, 1};
  status = khost__triton_launch(v, SPLIT_ARGS, args, grid, in->stream, in->error, in->error_size);
  if (status != KHOST_STATUS_OK) return status;
  const khost__triton_variant *r = reduction();
  void *reduce_args[] = {&part, &t->out, &z->m, &z->n, &splits, &rows, &cols};
  const unsigned int reduce_grid[3] = {(unsigned int)(cdiv(s->m, r->block_m) * cdiv(s->n, r->block_n)), 1, 1};
  return khost__triton_launch(r, REDUCE_ARGS, reduce_args, reduce_grid, in->stream, in->error,
                              in->error_size);
}

static int run(const khost_input *in)
{
  gemm_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v, 1);
  if (status != KHOST_STATUS_OK) return status;
  const khost__triton_shape *s = &call.shape;
  sizes z = {(int32_t)s->m, (int32_t)s->n, (int32_t)s->k, (int32_t)s->qm, (int32_t)s->qn, (int32_t)s->qk};
  if (is(v, SPLIT_FAMILY)) return run_split(in, &call, v, &z);
  khost__fp8_gemm *t = &call.t;
  void *args[] = {&t->a, &t->b, &t->sa_t, &t->sb_t, &t->out, &z.m, &z.n, &z.k, &z.qm, &z.qn, &z.qk};
  const unsigned int grid[3] = {(unsigned int)tiles(v, s), 1, 1};
  return khost__triton_launch(v, GEMM_ARGS, args, grid, in->stream, in->error, in->error_size);
}

/* The variant's name; a split variant's followed by its split count. */
static int describe(const khost_input *in, char *buf, size_t size)
{
  gemm_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v, 1);
  if (status != KHOST_STATUS_OK) return status;
  if (is(v, SPLIT_FAMILY))
    snprintf(buf, size, "%s splits=%lld", v->name, (long long)khost__triton_fp8_split(v, &call.shape).splits);
  else
    snprintf(buf, size, "%s", v->name);
  return KHOST_STATUS_OK;
}

const khost_kernel khost__triton_fp8_block_gemm = {
    .struct_size = sizeof(khost_kernel),
    .op = "fp8_block_gemm",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .workspace_size = workspace_size,
    .describe = describe,
};
