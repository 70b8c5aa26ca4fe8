/* nvfp4_gemv: c[b][i] = fp16(sum_j e2m1(a[b][i][j]) * e4m3(sfa[b][i][j/16]) * e2m1(v[b][j])
 * * e4m3(sfv[b][j/16])), with one e4m3 scale per 16 k-elements (docs/FORMATS.md). */
#include <stdint.h>
#include <string.h>

#include "catalog.h"
#include "variation.h"
#include "khost/ops/nvfp4_gemv.h"
#include "rng.h"

#define DIM_MAX    (INT64_C(1) << 31)
#define SF_BLOCK   16  /* k-elements per scale */
#define TILE_ROWS  128 /* rows of one swizzled scale tile */
#define TILE_COLS  4   /* scale columns of one swizzled scale tile */
#define TILE_BYTES 512 /* TILE_ROWS * TILE_COLS */

static const khost__param_spec params[] = {
    {.name = "m", .kind = KHOST__PARAM_INT, .min = TILE_ROWS, .max = DIM_MAX, .multiple_of = TILE_ROWS},
    {.name = "k",
     .kind = KHOST__PARAM_INT,
     .min = SF_BLOCK * TILE_COLS,
     .max = DIM_MAX,
     .multiple_of = SF_BLOCK * TILE_COLS},
    {.name = "l",
     .kind = KHOST__PARAM_INT,
     .min = 1,
     .max = DIM_MAX,
     .multiple_of = 1,
     .has_default = true,
     .default_value = 1},
};

typedef struct dims {
  int64_t m, k, l;
} dims;

static dims dims_of(const khost__case *c)
{
  dims d = {khost__case_param(c, "m"), khost__case_param(c, "k"), khost__case_param(c, "l")};
  return d;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

/* docs/FORMATS.md: where scale (i, j) of one batch lives in the tensor-core layout. */
static int64_t swizzled_offset(int64_t i, int64_t j, int64_t k16)
{
  return ((i / TILE_ROWS) * ceil_div(k16, TILE_COLS) + j / TILE_COLS) * TILE_BYTES + (i % 32) * 16 +
         ((i % TILE_ROWS) / 32) * 4 + (j % TILE_COLS);
}

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  static const char *const a_dims[] = {"batch", "row", "k"};
  static const char *const v_dims[] = {"batch", "k"};
  static const char *const sfa_dims[] = {"batch", "row", "kblock"};
  static const char *const sfv_dims[] = {"batch", "kblock"};
  static const char *const swz_dims[] = {"batch", "offset"};
  static const char *const c_dims[] = {"batch", "row"};
  dims d = dims_of(c);
  const int64_t a[] = {d.l, d.m, d.k}, v[] = {d.l, d.k};
  const int64_t sfa[] = {d.l, d.m, d.k / SF_BLOCK}, sfv[] = {d.l, d.k / SF_BLOCK};
  const int64_t sfa_swz[] = {d.l, khost_nvfp4_swizzled_bytes(d.m, d.k)};
  const int64_t sfv_swz[] = {d.l, khost_nvfp4_swizzled_bytes(1, d.k)};
  const int64_t out[] = {d.l, d.m};
  memset(set, 0, sizeof *set);
  set->ninputs = KHOST_NVFP4_GEMV_NINPUTS;
  set->noutputs = KHOST_NVFP4_GEMV_NOUTPUTS;
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_A], "a", KHOST__DT_E2M1, 3, a, a_dims);
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_V], "v", KHOST__DT_E2M1, 2, v, v_dims);
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_SFA], "sfa", KHOST__DT_E4M3, 3, sfa, sfa_dims);
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_SFV], "sfv", KHOST__DT_E4M3, 2, sfv, sfv_dims);
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_SFA_SWZ], "sfa_swz", KHOST__DT_E4M3, 2, sfa_swz,
                          swz_dims);
  khost__tensor_spec_fill(&set->inputs[KHOST_NVFP4_GEMV_SFV_SWZ], "sfv_swz", KHOST__DT_E4M3, 2, sfv_swz,
                          swz_dims);
  khost__tensor_spec_fill(&set->outputs[KHOST_NVFP4_GEMV_C], "c", KHOST__DT_FP16, 2, out, c_dims);
}

/* fp4 bytes: every byte value equally likely, so every e2m1 code, both signs,
 * appears in both nibbles. Byte e is byte e%4 of word (e/4)%4 of block e/16;
 * nbytes is a multiple of 32 (k is a multiple of 64). */
static void fill_fp4(uint64_t seed, int index, uint8_t *dst, uint64_t nbytes)
{
  for (uint64_t base = 0; base < nbytes; base += 16) {
    uint32_t w[4];
    khost__rng_block(seed, (uint32_t)index, base / 16, w);
    for (int b = 0; b < 16; b++) dst[base + b] = (uint8_t)(w[b / 4] >> (8 * (b % 4)));
  }
}

/* A scale code from 32 random bits. Normal scales: exponent field 1..4 (2^-6 up
 * to 2^-3), mantissa uniform, so values span 2^-6 .. 0.234375; 1 in 64 is a
 * subnormal (field 0, mantissa 1..7: 2^-9 .. 7*2^-9). Never NaN, never zero, and
 * positive, as scales from a quantizer are (the hardware's NVFP4 scale type is
 * unsigned e4m3); signs come from the fp4 values.
 * Why so small: every product is at most 6 * 6 * 0.234375^2 = 1.98, so for
 * k <= 16384 no output can exceed 32400, inside fp16's 65504 whatever the draw;
 * and the root-mean-square product is about 0.095, so a row's fp32 sum stays
 * small enough that an fp32 accumulator's rounding (below u32 * k * 0.095 = 1e-4
 * at k = 16384; about 1e-6 measured) is far below atol even when a row cancels. */
static uint8_t scale_code(uint32_t bits)
{
  if ((bits & 63) == 0) return (uint8_t)(1 + (bits >> 6) % 7);
  uint32_t exp_field = 1 + ((bits >> 6) & 3);
  uint32_t mant = (bits >> 8) & 7;
  return (uint8_t)(exp_field << 3 | mant);
}

/* Scale codes e..e+3 (e a multiple of 4) of the plain tensor of stream `index`:
 * code e is word e%4 of block e/4. */
static void scale_codes4(uint64_t seed, int index, uint64_t e, uint8_t out[4])
{
  uint32_t w[4];
  khost__rng_block(seed, (uint32_t)index, e / 4, w);
  for (int q = 0; q < 4; q++) out[q] = scale_code(w[q]);
}

static void fill_scales(uint64_t seed, int index, uint8_t *dst, uint64_t count)
{
  for (uint64_t e = 0; e < count; e += 4) scale_codes4(seed, index, e, dst + e);
}

/* The swizzled copy of the plain scales [l][rows][k16] of stream `plain`: the
 * same codes, moved to swizzled_offset, zero elsewhere. k16 is a multiple of 4,
 * so four consecutive j share one Philox block and one 4-byte run. */
static void fill_swizzled(uint64_t seed, int plain, dims d, int64_t rows, uint8_t *dst)
{
  int64_t k16 = d.k / SF_BLOCK;
  int64_t per_batch = khost_nvfp4_swizzled_bytes(rows, d.k);
  memset(dst, 0, (size_t)(per_batch * d.l));
  for (int64_t b = 0; b < d.l; b++) {
    for (int64_t i = 0; i < rows; i++) {
      for (int64_t j = 0; j < k16; j += 4) {
        uint64_t e = (uint64_t)((b * rows + i) * k16 + j);
        scale_codes4(seed, plain, e, dst + b * per_batch + swizzled_offset(i, j, k16));
      }
    }
  }
}

static void generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  dims d = dims_of(c);
  uint64_t l = (uint64_t)d.l, m = (uint64_t)d.m, k = (uint64_t)d.k;
  switch (index) {
  case KHOST_NVFP4_GEMV_A: fill_fp4(seed, index, dst, l * m * k / 2); break;
  case KHOST_NVFP4_GEMV_V: fill_fp4(seed, index, dst, l * k / 2); break;
  case KHOST_NVFP4_GEMV_SFA: fill_scales(seed, index, dst, l * m * k / SF_BLOCK); break;
  case KHOST_NVFP4_GEMV_SFV: fill_scales(seed, index, dst, l * k / SF_BLOCK); break;
  case KHOST_NVFP4_GEMV_SFA_SWZ: fill_swizzled(seed, KHOST_NVFP4_GEMV_SFA, d, d.m, dst); break;
  case KHOST_NVFP4_GEMV_SFV_SWZ: fill_swizzled(seed, KHOST_NVFP4_GEMV_SFV, d, 1, dst); break;
  default: break;
  }
}

static double flops(const khost__case *c)
{
  dims d = dims_of(c);
  return 2.0 * (double)d.m * (double)d.k * (double)d.l;
}

/* Per batch: a and its scales, v and its scales, once each, and the fp16 output
 * (docs/FORMATS.md). The swizzled copies replace, not add to, the plain scales. */
static double bytes(const khost__case *c)
{
  dims d = dims_of(c);
  double m = (double)d.m, k = (double)d.k;
  return (m * k / 2 + m * k / SF_BLOCK + k / 2 + k / SF_BLOCK + 2 * m) * (double)d.l;
}

/* rtol = atol = 1e-3, as the GPU MODE harness. With these inputs a row's sum has
 * a standard deviation of sqrt(k) * 0.095 (1.5 at k = 256, 12 at k = 16384), far
 * above atol, so the check is relative in practice. The fp16 output's ulp is at
 * most 2^-10 (< 1e-3) of its value, so an fp32-accumulating kernel whose result
 * rounds to the other fp16 neighbour still passes; its accumulation error is
 * about 1e-6 here. A scale block read from the wrong place moves a row by about
 * 4 * 0.095 times the relative scale error, which fails most rows (all but about
 * a quarter at k = 16384, where rtol * |c| is largest): tests/test_nvfp4_gemv_op.c. */
static void tolerance(const khost__case *c, double *atol, double *rtol)
{
  *atol = 1e-3;
  *rtol = 1e-3;
}

/* Axes batch (0) and row (1). Negating row i of a (both fp4 codes of each of
 * its bytes) negates c[batch][i] exactly; the scales stay positive. Batches are
 * permuted, every tensor's batch slice alike (the swizzled scales included). */
static void vary(const khost__case *c, khost__variation *v)
{
  enum { BATCH, ROW, NONE = KHOST__VARY_NO_AXIS };
  static const int a_axes[3] = {BATCH, ROW, NONE}, batch_axes[3] = {BATCH, NONE, NONE};
  static const int sfa_axes[3] = {BATCH, ROW, NONE}, c_axes[2] = {BATCH, ROW};
  dims d = dims_of(c);
  const int64_t extent[] = {[BATCH] = d.l, [ROW] = d.m};
  khost__tensor_set set;
  tensors(c, &set);
  khost__vary_declare(v, extent, 2, BATCH, 1u << BATCH | 1u << ROW);
  for (int t = 0; t < set.ninputs; t++) khost__vary_map_of(&v->inputs[t], &set.inputs[t], batch_axes, 0);
  khost__vary_map_of(&v->inputs[KHOST_NVFP4_GEMV_A], &set.inputs[KHOST_NVFP4_GEMV_A], a_axes, 1);
  khost__vary_map_of(&v->inputs[KHOST_NVFP4_GEMV_SFA], &set.inputs[KHOST_NVFP4_GEMV_SFA], sfa_axes, 0);
  khost__vary_map_of(&v->outputs[KHOST_NVFP4_GEMV_C], &set.outputs[KHOST_NVFP4_GEMV_C], c_axes, 1);
}

const khost__op khost__op_nvfp4_gemv = {
    .name = "nvfp4_gemv",
    .summary = "batched fp4 (e2m1) matrix-vector product with e4m3 scales per 16 elements, fp16 output",
    .nparams = sizeof params / sizeof params[0],
    .params = params,
    .tensors = tensors,
    .generate = generate,
    .flops = flops,
    .bytes = bytes,
    .tolerance = tolerance,
    .vary = vary,
};
