/* nvfp4_gemv on kernels/nvfp4_gemv.py, reading the plain (row-major) scales; the
 * swizzled copies are for tensor-core kernels. Rule (measured on an H100 and an H200,
 * docs/TRITON_AOT.md): a one-warp variant for grids larger than one wave of the
 * reloading 2-warp variant (2 rows a program for rows of two or more whole 2048-element
 * tiles, else 4); for grids of one wave or less of long rows, the variant whose 4 warps
 * share each row's k (more warps in flight for the few rows); past that wave, rows of
 * whole 2048-element tiles take the 2-row one-warp variant while its own wave holds the
 * grid; else the first of the 2-warp variants whose wave holds the grid. The last of them
 * runs every aligned input. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "input_checks.h"
#include "khost/ops/nvfp4_gemv.h"
#include "launch.h"
#include "message.h"
#include "nvfp4_gemv.h"
#include "nvfp4_gemv_rule.h"
#include "select.h"

#define SCALE_BLOCK KHOST__GEMV_BLOCK /* k-elements per e4m3 scale, and per 64-bit word of codes */
#define MAX_GRID_Y  65535
/* The one-warp variant takes grids larger than one wave of the 2-warp variant (the
 * programs of it that fit an SM by its registers: 18 at its 56, so 72 rows an SM); it
 * holds 128 rows an SM in one wave itself (32 programs of 63 registers). Measured from 54
 * to 96 rows an SM: within the 2-warp wave one warp took 5-7% more
 * time at k = 16384 (H200; b1, 54 rows an SM: 13% on an H200, 3% on an H100) and 1-2.5%
 * less at k = 4096 from 60 rows an SM; beyond it, 4-13% less on an H200 and 3-16% on an
 * H100, where the earlier threshold of 96 rows an SM left the 2-warp variant two waves.
 * At any k: with no reload pass, its rows of one 2-warp tile (k <= 2048) ran faster too. */
#define TWO_WARP_VARIANT "gemv_m4_k2048_w2"
/* Of the one-warp variants, the one of 2 rows a program, each read a whole 2048-element tile
 * a pass, takes rows of 2 or more such tiles: on full grids of k = 4096 to 16384 it took
 * 1.6-3.6% less time than the 4-row one on an H200 and 2.8-4.1% on an H100 (perf_large
 * 1.8-2.2% and 2.8-3.4%), but for 12672 x 4096 x 1 (96 rows an SM): within 1.1% on both.
 * At k = 2048 it took 8.4-13.1% more on an H200, 0.6-3.2% less on an H100.
 * It also takes such grids within its own wave (32 programs an SM, 64 rows) that the 4-warp
 * variant's does not hold: against the 2-warp variant chosen before, from 38.8 to 64 rows
 * an SM, from 2.1% more to 5.6% less time on an H200 (b1's shape: within 0.5%) and 0-5.2%
 * less on an H100 (b1's: 1.8-2.1%); at 71.8 rows an SM, past its wave, 10.6-20.5% more. */
#define WHOLE_TILES_VARIANT "gemv_m2_k2048_w1_top"
#define WHOLE_TILES_MIN     2
/* Of the 2-warp variants, the one that reduces its last tile after the loop comes first:
 * its 72 registers hold 14 programs an SM, 56 rows, where the one whose last pass reloads
 * that tile holds 18. Within its wave it took 0.5-3.7% less time on an H200 and 0.8-2.9%
 * on an H100 (GPU MODE's 7168 x 16384: 0.9-1.6% and 1.0%); its k = 1536 test shapes tied.
 * Past its wave, at 56.2 and 64 rows an SM, it took 10.6-14.2% more. */
/* The 4-warp variant takes grids of one wave or less (a wave: the programs of it that
 * fit an SM by its registers, 9 at the 56 it was measured with, times the SMs) and
 * rows of at least 3/4 of its 4096-element tile. It ran GPU MODE's k = 3072 to 7168
 * test shapes (0.2 to 1.9 programs an SM) in 4-18% less time than the earlier rule's
 * choice (the 2-warp variant, or a split of k over a cluster, which it replaces) on an
 * H200, 5-23% on an H100; k = 1536 tied or took 5-6% longer, and a grid of 1216
 * programs (1.02 waves of it) 13%. */
#define FOUR_WARP_MIN_K   3072
#define FOUR_WARPS        4
#define FOUR_WARP_VARIANT "gemv_m4_k4096_w4"

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

/* Nonzero when s's grid of v's programs fits the GPU at once (0 SMs or an unknown
 * register count: never). */
static int one_wave(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return s->m / v->block_m * s->l <= khost__triton_programs_per_sm(v) * (int64_t)s->device.sms;
}

/* Nonzero when s's rows are WHOLE_TILES_MIN or more of v's k tiles, none of them partial. */
static int whole_tiles(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return v->block_k > 0 && s->k % v->block_k == 0 && s->k >= WHOLE_TILES_MIN * (int64_t)v->block_k;
}

/* Nonzero when the 4-warp variant v takes s: rows of FOUR_WARP_MIN_K or more in one wave of it. */
static int four_warp_fits(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return s->k >= FOUR_WARP_MIN_K && one_wave(v, s);
}

static int four_warp_grid(const khost__triton_shape *s)
{
  const khost__triton_variant *four_warps = khost__triton_find_variant(FOUR_WARP_VARIANT);
  return four_warps != NULL && four_warp_fits(four_warps, s);
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (s->device.sms <= 0) return 0;
  if (v->num_warps == FOUR_WARPS) return four_warp_fits(v, s);
  if (v->num_warps == 1) {
    const khost__triton_variant *two_warps = khost__triton_find_variant(TWO_WARP_VARIANT);
    int full_grid =
        two_warps != NULL && khost__triton_programs_per_sm(two_warps) > 0 && !one_wave(two_warps, s);
    if (strcmp(v->name, WHOLE_TILES_VARIANT) != 0) return full_grid;
    return whole_tiles(v, s) && (full_grid || (one_wave(v, s) && !four_warp_grid(s)));
  }
  return one_wave(v, s);
}

const khost__triton_rule khost__triton_gemv_rule = {"nvfp4_gemv", cannot_run, preferred};

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
  return status == KHOST_STATUS_OK
             ? khost__triton_select_on_device(&khost__triton_gemv_rule, &call->shape,
                                              !khost__triton_forces(khost__triton_gemv_rule.op), v, in->error,
                                              in->error_size)
             : status;
}

static int run(const khost_input *in)
{
  gemv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  if (status != KHOST_STATUS_OK) return status;
  int32_t m = (int32_t)call.shape.m, words_per_row = (int32_t)(call.shape.k / SCALE_BLOCK);
  khost__gemv *t = &call.tensors;
  void *args[] = {&t->a, &t->sfa, &t->v, &t->sfv, &t->c, &m, &words_per_row};
  const unsigned int grid[3] = {(unsigned int)(m / v->block_m), (unsigned int)call.shape.l, 1};
  return khost__triton_launch(v, "pppppii", args, grid, in->stream, in->error, in->error_size);
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
    .describe = describe,
};
