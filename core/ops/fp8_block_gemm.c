/* fp8_block_gemm: out[i][j] = bf16(sum_k (a[i][k] * sa[i/qm][k/qk]) * (b[j][k] * sb[j/qn][k/qk]))
 * for e4m3fn a [m, k] and b [n, k] with fp32 scales per block of qm x qk (a) and
 * qn x qk (b) elements (docs/FORMATS.md). Its inputs are quantized as a real
 * quantizer does it, and its tolerance is an error model with a per-element part
 * (error_bound), since the accumulation error depends on the magnitude of the
 * products, not on |out|. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "formats.h"
#include "khost/ops/fp8_block_gemm.h"
#include "matrix_peak.h"
#include "rng.h"
#include "variation.h"

#define DIM_MAX   (INT64_C(1) << 24)
#define BLOCK_MAX (INT64_C(1) << 16) /* the oracle's block sums are exact up to 2^17 terms */

/* The error model (tolerance below). */
#define ACCUMULATOR_UNIT 0x1p-13 /* a tensor-core accumulator of 14 significant bits */
#define FP32_UNIT        0x1p-24
#define BF16_UNIT        0x1p-8
#define MODEL_LAMBDA     2.0 /* the model's standard deviations allowed (tolerance below) */

/* Streams of the counter-based generator: the values before quantization use
 * stream A (0) or B (1), the outlier factors of their blocks stream + OUTLIER_STREAM. */
#define OUTLIER_STREAM 8
#define OUTLIER_ODDS   16 /* one block in 16 is an outlier */

static const khost__param_spec params[] = {
    {.name = "m", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "n", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "k", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "qm", .kind = KHOST__PARAM_INT, .min = 1, .max = BLOCK_MAX, .multiple_of = 1},
    {.name = "qn", .kind = KHOST__PARAM_INT, .min = 1, .max = BLOCK_MAX, .multiple_of = 1},
    {.name = "qk", .kind = KHOST__PARAM_INT, .min = 1, .max = BLOCK_MAX, .multiple_of = 1},
};

typedef struct dims {
  int64_t m, n, k, qm, qn, qk;
} dims;

static dims dims_of(const khost__case *c)
{
  dims d = {khost__case_param(c, "m"),  khost__case_param(c, "n"),  khost__case_param(c, "k"),
            khost__case_param(c, "qm"), khost__case_param(c, "qn"), khost__case_param(c, "qk")};
  return d;
}

/* One side of the product (a or b): rows x k elements in blocks of q x qk. */
typedef struct side {
  uint32_t stream;
  int64_t rows, k, q, qk;
} side;

static side side_of(const khost__case *c, int which)
{
  dims d = dims_of(c);
  side s = {(uint32_t)which, d.m, d.k, d.qm, d.qk};
  if (which == KHOST_FP8_BLOCK_GEMM_B) {
    s.rows = d.n;
    s.q = d.qn;
  }
  return s;
}

static int64_t block_rows(const side *s)
{
  return khost_fp8_block_gemm_scale_rows(s->rows, s->q);
}

static int validate(const khost__case *c, khost__err *err)
{
  dims d = dims_of(c);
  if (d.k % d.qk == 0) return 0;
  return khost__errorf(err, KHOST__E_CONFIG,
                       "case %s: fp8_block_gemm needs k to be a multiple of qk, got k=%lld qk=%lld", c->name,
                       (long long)d.k, (long long)d.qk);
}

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  /* The inputs in tensor order: name, dtype, dimension names, and the shape from
   * the three extents rows (m, n or their block rows), k, k/qk. */
  static const struct {
    const char *name;
    khost__dtype_id dtype;
    const char *dims[2];
  } inputs[KHOST_FP8_BLOCK_GEMM_NINPUTS] = {
      {"a", KHOST__DT_E4M3, {"row", "k"}},
      {"b", KHOST__DT_E4M3, {"col", "k"}},
      {"sa", KHOST__DT_FP32, {"rowblock", "kblock"}},
      {"sb", KHOST__DT_FP32, {"colblock", "kblock"}},
      {"sa_t", KHOST__DT_FP32, {"kblock", "rowblock"}},
      {"sb_t", KHOST__DT_FP32, {"kblock", "colblock"}},
  };
  static const char *const out_dims[] = {"row", "col"};
  dims d = dims_of(c);
  int64_t kb = d.k / d.qk, mb = khost_fp8_block_gemm_scale_rows(d.m, d.qm),
          nb = khost_fp8_block_gemm_scale_rows(d.n, d.qn);
  const int64_t shapes[KHOST_FP8_BLOCK_GEMM_NINPUTS][2] = {{d.m, d.k}, {d.n, d.k}, {mb, kb},
                                                           {nb, kb},   {kb, mb},   {kb, nb}};
  const int64_t out[] = {d.m, d.n};
  memset(set, 0, sizeof *set);
  set->ninputs = KHOST_FP8_BLOCK_GEMM_NINPUTS;
  set->noutputs = KHOST_FP8_BLOCK_GEMM_NOUTPUTS;
  for (int t = 0; t < KHOST_FP8_BLOCK_GEMM_NINPUTS; t++)
    khost__tensor_spec_fill(&set->inputs[t], inputs[t].name, inputs[t].dtype, 2, shapes[t], inputs[t].dims);
  khost__tensor_spec_fill(&set->outputs[KHOST_FP8_BLOCK_GEMM_OUT], "out", KHOST__DT_BF16, 2, out, out_dims);
}

/* ---- the values before quantization ----
 *
 * Element e (row-major) of a side's fp32 tensor comes from word e % 4 of the
 * Philox block e / 4 of its stream: the top bit is the sign, the other 31 bits an
 * index into the upper half of the normal distribution, whose value is
 * normal_magnitude(index). The larger the index, the larger the magnitude, so a
 * block's largest magnitude is found from the words alone (the generator's first
 * pass is Philox only) and only the quantizing pass evaluates the distribution. */

/* Acklam's rational approximation of the normal quantile (relative error about
 * 1e-9; its published coefficients), at p = 1/2 + (index + 1/2) * 2^-32. 1 - p is
 * formed exactly, so the tail keeps its precision. */
static double normal_magnitude(uint32_t index)
{
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double tail = ((double)(UINT32_C(0x80000000) - index) - 0.5) * 0x1p-32; /* 1 - p */
  if (tail < 0.02425) {
    double q = sqrt(-2 * log(tail));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  double q = 0.5 - tail, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* The random words of elements [e, e + count) of a stream, handed to fn one by one. */
typedef struct word_reader {
  uint64_t seed;
  uint32_t stream;
  uint64_t block; /* the Philox block in words[], or UINT64_MAX */
  uint32_t words[4];
} word_reader;

static uint32_t word_at(word_reader *r, uint64_t e)
{
  if (e / 4 != r->block) {
    r->block = e / 4;
    khost__rng_block(r->seed, r->stream, r->block, r->words);
  }
  return r->words[e % 4];
}

/* One scale block of a side: rows [r0, r1), columns [k0, k0 + qk). */
typedef struct block {
  int64_t r0, r1, k0;
  double factor; /* the outlier factor, 1 for most blocks */
  float scale;
} block;

/* One block in OUTLIER_ODDS is scaled by 10^(1 + 2u), u uniform: 10x to 1000x. */
static double outlier_factor(uint64_t seed, const side *s, int64_t block_index)
{
  uint32_t w[4];
  khost__rng_block(seed, s->stream + OUTLIER_STREAM, (uint64_t)block_index, w);
  if (w[0] % OUTLIER_ODDS != 0) return 1.0;
  return pow(10.0, 1.0 + 2.0 * khost__rng_unit(w[1]));
}

/* The fp32 value a quantizer sees for a word of a block. */
static float raw_value(uint32_t word, double factor)
{
  double mag = factor * normal_magnitude(word & 0x7fffffffu);
  return (float)((word >> 31) ? -mag : mag);
}

/* Block (bi, bk) of side s with its outlier factor and scale = absmax / 448 in fp32:
 * absmax is the value of the block's largest index, found by Philox alone. */
static block block_at(uint64_t seed, const side *s, int64_t bi, int64_t bk)
{
  block blk = {bi * s->q, bi * s->q + s->q, bk * s->qk, 1.0, 1.0f};
  if (blk.r1 > s->rows) blk.r1 = s->rows;
  blk.factor = outlier_factor(seed, s, bi * (s->k / s->qk) + bk);
  word_reader r = {seed, s->stream, UINT64_MAX, {0}};
  uint32_t largest = 0;
  for (int64_t row = blk.r0; row < blk.r1; row++)
    for (int64_t e = row * s->k + blk.k0; e < row * s->k + blk.k0 + s->qk; e++) {
      uint32_t index = word_at(&r, (uint64_t)e) & 0x7fffffffu;
      if (index > largest) largest = index;
    }
  /* The approximation is monotone to about 1e-9 (its seam at p = 0.97575), so an
   * element may exceed absmax by that much; the quantizer saturates it to 448. */
  float absmax = raw_value(largest, blk.factor);
  blk.scale = (float)((double)absmax / KHOST__E4M3_MAX);
  return blk;
}

/* The codes of one block: q = e4m3(x / scale), nearest even, saturating. */
static void quantize_block(uint64_t seed, const side *s, const block *blk, uint8_t *codes)
{
  word_reader r = {seed, s->stream, UINT64_MAX, {0}};
  for (int64_t row = blk->r0; row < blk->r1; row++)
    for (int64_t e = row * s->k + blk->k0; e < row * s->k + blk->k0 + s->qk; e++)
      codes[e] = khost__e4m3_encode((double)raw_value(word_at(&r, (uint64_t)e), blk->factor) / blk->scale);
}

static void fill_codes(uint64_t seed, const side *s, uint8_t *codes)
{
  for (int64_t bi = 0; bi < block_rows(s); bi++)
    for (int64_t bk = 0; bk < s->k / s->qk; bk++) {
      block blk = block_at(seed, s, bi, bk);
      quantize_block(seed, s, &blk, codes);
    }
}

/* The scales [block_rows, k/qk], or transposed [k/qk, block_rows]. */
static void fill_scales(uint64_t seed, const side *s, int transposed, float *scales)
{
  int64_t rows = block_rows(s), kb = s->k / s->qk;
  for (int64_t bi = 0; bi < rows; bi++)
    for (int64_t bk = 0; bk < kb; bk++)
      scales[transposed ? bk * rows + bi : bi * kb + bk] = block_at(seed, s, bi, bk).scale;
}

/* a from N(0, 1) and b from N(0, 0.5^2) before quantization; b's factor of 0.5 is
 * a power of two, which the per-block scale absorbs exactly (scale / 2, the same
 * codes), so both sides draw N(0, 1) and b's scales are halved. */
static void generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  int which = index == KHOST_FP8_BLOCK_GEMM_A || index == KHOST_FP8_BLOCK_GEMM_SA ||
                      index == KHOST_FP8_BLOCK_GEMM_SA_T
                  ? KHOST_FP8_BLOCK_GEMM_A
                  : KHOST_FP8_BLOCK_GEMM_B;
  side s = side_of(c, which);
  if (index == KHOST_FP8_BLOCK_GEMM_A || index == KHOST_FP8_BLOCK_GEMM_B) {
    fill_codes(seed, &s, dst);
    return;
  }
  int transposed = index == KHOST_FP8_BLOCK_GEMM_SA_T || index == KHOST_FP8_BLOCK_GEMM_SB_T;
  fill_scales(seed, &s, transposed, dst);
  if (which == KHOST_FP8_BLOCK_GEMM_B) {
    float *scales = dst;
    for (int64_t i = 0; i < block_rows(&s) * (s.k / s.qk); i++) scales[i] *= 0.5f;
  }
}

static double flops(const khost__case *c)
{
  dims d = dims_of(c);
  return 2.0 * (double)d.m * (double)d.n * (double)d.k;
}

/* a and b once (a byte an element), one layout of each side's scales, and the bf16 output. */
static double bytes(const khost__case *c)
{
  dims d = dims_of(c);
  double kb = (double)(d.k / d.qk);
  double scales =
      4.0 * kb *
      (double)(khost_fp8_block_gemm_scale_rows(d.m, d.qm) + khost_fp8_block_gemm_scale_rows(d.n, d.qn));
  return (double)d.k * (double)(d.m + d.n) + scales + 2.0 * (double)d.m * (double)d.n;
}

/* The error model (docs/METHODOLOGY.md). A kernel's result y' differs from the
 * exact sum y by its accumulation error E, then both are rounded to bf16:
 *   |bf16(y') - bf16(y)| <= E (1 + u) + 2u |y|,  u = 2^-8 (bf16's unit roundoff),
 * and |y| <= |ref| / (1 - u), so rtol = 2u / (1 - u); atol = 0. E is the
 * per-element part (error_bound): it depends on the size of the products, which
 * cancellation can make far larger than |y|. */
static void tolerance(const khost__case *c, double *atol, double *rtol)
{
  (void)c;
  *atol = 0.0;
  *rtol = 2 * BF16_UNIT / (1 - BF16_UNIT);
}

/* ---- the per-element bound ----
 *
 * The model's kernel sums each scale block's qk products in a tensor-core
 * accumulator of 14 significant bits (unit 2^-13, as DeepSeek-V3 reports for
 * H800), promotes the block's sum to fp32 with its two scales, and adds the
 * blocks in fp32. Each addition errs by up to a unit of the accumulator's
 * magnitude, about the root-sum-square of the products summed so far; for
 * products of random sign these errors are independent, and a block's error is a
 * random walk of its qk additions, of standard deviation about
 *   u_tc * sqrt(qk) * sqrt(qk) * rms(product) = u_tc * ||a_ib|| * ||b_jb||
 * (||a_ib|| the 2-norm of row i's dequantized block b). Blocks add independently,
 * and an fp32 accumulation over all of k adds its own walk, sqrt(nb) times more
 * steps at unit 2^-24, so
 *   E = lambda * (2^-13 + sqrt(nb) * 2^-24) * sqrt(sum_b ||a_ib||^2 ||b_jb||^2)
 * times (1 + u) for the output rounding, with lambda = 2. The walk's estimate is
 * pessimistic: each addition errs by less than a unit, and most products of two
 * e4m3 codes fall on the accumulator's grid. An emulated promoting kernel (each
 * instruction step of 32 products aligned to its largest addend and truncated to
 * 14 bits) errs by at most 0.81 of the estimate over 8192 elements at k = 16384,
 * so lambda = 2 leaves a margin of 2.5. A kernel that never promotes walks over all
 * of k in the 14-bit accumulator, about 20 times further, and fails where the
 * products cancel (bf16's rtol hides it elsewhere); a scale read from the wrong
 * block changes a block's sum by a relative amount far above 2^-13 and fails
 * nearly everywhere. tests/test_fp8_block_gemm_op.c shows each. */

/* sq[r][b] = ||row r of block column b||^2, dequantized. */
static int block_norms(const side *s, const uint8_t *codes, const float *scales, double **out)
{
  int64_t kb = s->k / s->qk;
  double *sq = malloc((size_t)(s->rows * kb) * sizeof *sq);
  if (!sq) return KHOST__E_NOMEM;
  double code_sq[256];
  for (int v = 0; v < 256; v++) {
    double x = khost__e4m3_decode((uint8_t)v);
    code_sq[v] = isnan(x) ? NAN : x * x;
  }
  for (int64_t r = 0; r < s->rows; r++)
    for (int64_t bk = 0; bk < kb; bk++) {
      double sum = 0, scale = scales[(r / s->q) * kb + bk];
      for (int64_t e = r * s->k + bk * s->qk; e < r * s->k + (bk + 1) * s->qk; e++) sum += code_sq[codes[e]];
      sq[r * kb + bk] = sum * scale * scale;
    }
  *out = sq;
  return KHOST__OK;
}

static int error_bound(const khost__case *c, const void *const *inputs, int output, float *bound)
{
  (void)output;
  dims d = dims_of(c);
  side sa = side_of(c, KHOST_FP8_BLOCK_GEMM_A), sb = side_of(c, KHOST_FP8_BLOCK_GEMM_B);
  int64_t kb = d.k / d.qk;
  double *xa = NULL, *xb = NULL;
  int rc = block_norms(&sa, inputs[KHOST_FP8_BLOCK_GEMM_A], inputs[KHOST_FP8_BLOCK_GEMM_SA], &xa);
  if (rc == KHOST__OK)
    rc = block_norms(&sb, inputs[KHOST_FP8_BLOCK_GEMM_B], inputs[KHOST_FP8_BLOCK_GEMM_SB], &xb);
  if (rc != KHOST__OK) goto out;
  double coefficient = MODEL_LAMBDA * (ACCUMULATOR_UNIT + sqrt((double)kb) * FP32_UNIT) * (1 + BF16_UNIT);
  for (int64_t i = 0; i < d.m; i++)
    for (int64_t j = 0; j < d.n; j++) {
      const double *x = xa + i * kb, *y = xb + j * kb;
      double sum = 0;
      for (int64_t b = 0; b < kb; b++) sum += x[b] * y[b];
      bound[i * d.n + j] = (float)(coefficient * sqrt(sum));
    }
out:
  free(xb);
  free(xa);
  return rc;
}

/* Its FLOPs are e4m3 products on the tensor cores, whatever the scales. */
static int matrix_peak(const khost__case *c)
{
  (void)c;
  return KHOST__PEAK_E4M3;
}

/* Axes: the row of a and out (0) and the scale block along k (1). Negating row
 * i of a negates out[i][*] exactly (IEEE rounding is symmetric; the scales stay
 * positive). Permuting the k blocks of a and b alike, with their scales in both
 * layouts, leaves every exact sum, so the reference and the bounds, unchanged
 * (as reduce_sum's columns), while every byte a kernel reads moves. b gets no
 * signs: out would then flip by row sign times column sign, which the sign rule
 * (core/variation_map.h) does not make. */
static void vary(const khost__case *c, khost__variation *v)
{
  enum { ROW, KBLOCK, NONE = KHOST__VARY_NO_AXIS };
  static const char *const names[3] = {"row", "kblock", "k"};
  static const int a_axes[3] = {ROW, KBLOCK, NONE}, b_axes[3] = {NONE, KBLOCK, NONE};
  static const int scale_axes[2] = {NONE, KBLOCK}, scale_t_axes[2] = {KBLOCK, NONE},
                   out_axes[2] = {ROW, NONE};
  dims d = dims_of(c);
  khost__tensor_set set;
  khost__tensor_spec blocked;
  int64_t kb = d.k / d.qk;
  const int64_t extent[] = {[ROW] = d.m, [KBLOCK] = kb};
  tensors(c, &set);
  khost__vary_declare(v, extent, 2, KBLOCK, 1u << ROW);
  /* a and b seen as [rows, k / qk, qk]: the same bytes, the block a dim of its own. */
  for (int t = KHOST_FP8_BLOCK_GEMM_A; t <= KHOST_FP8_BLOCK_GEMM_B; t++) {
    const int64_t shape[3] = {set.inputs[t].shape[0], kb, d.qk};
    khost__tensor_spec_fill(&blocked, set.inputs[t].name, KHOST__DT_E4M3, 3, shape, names);
    khost__vary_map_of(&v->inputs[t], &blocked, t == KHOST_FP8_BLOCK_GEMM_A ? a_axes : b_axes,
                       t == KHOST_FP8_BLOCK_GEMM_A);
  }
  khost__vary_map_of(&v->inputs[KHOST_FP8_BLOCK_GEMM_SA], &set.inputs[KHOST_FP8_BLOCK_GEMM_SA], scale_axes,
                     0);
  khost__vary_map_of(&v->inputs[KHOST_FP8_BLOCK_GEMM_SB], &set.inputs[KHOST_FP8_BLOCK_GEMM_SB], scale_axes,
                     0);
  khost__vary_map_of(&v->inputs[KHOST_FP8_BLOCK_GEMM_SA_T], &set.inputs[KHOST_FP8_BLOCK_GEMM_SA_T],
                     scale_t_axes, 0);
  khost__vary_map_of(&v->inputs[KHOST_FP8_BLOCK_GEMM_SB_T], &set.inputs[KHOST_FP8_BLOCK_GEMM_SB_T],
                     scale_t_axes, 0);
  khost__vary_map_of(&v->outputs[KHOST_FP8_BLOCK_GEMM_OUT], &set.outputs[KHOST_FP8_BLOCK_GEMM_OUT], out_axes,
                     1);
}

const khost__op khost__op_fp8_block_gemm = {
    .name = "fp8_block_gemm",
    .summary = "e4m3 matrix product with fp32 scales per block of qm x qk (a) and qn x qk (b), bf16 output",
    .nparams = sizeof params / sizeof params[0],
    .params = params,
    .validate = validate,
    .tensors = tensors,
    .generate = generate,
    .flops = flops,
    .bytes = bytes,
    .tolerance = tolerance,
    .error_bound = error_bound,
    .vary = vary,
    .matrix_peak = matrix_peak,
};
