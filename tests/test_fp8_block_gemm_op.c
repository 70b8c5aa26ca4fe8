/* Tests for core/ops/fp8_block_gemm.c beyond its description: that its generated
 * inputs are what the comments claim (deterministic per position, quantized per
 * block with the whole e4m3 range, outlier blocks), that the reference plugin's
 * oracle is the exact sum rounded once, and that the error model puts emulated
 * kernels where it says: a tensor-core kernel that promotes every scale block
 * passes; one that never promotes, ignores a block's scale, reads the
 * neighbouring block's scale or reads b transposed fails. The check is the real
 * one (core/check.c) with the op's tolerances and per-element bound. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "check.h"
#include "formats.h"
#include "khost/ops.h"
#include "support/hand_call.h"
#include "support/plugin_under_test.h"

typedef struct gemm {
  khost__case c;
  khost__tensor_set set;
  int64_t m, n, k, qm, qn, qk, kb;
  void *in[KHOST_FP8_BLOCK_GEMM_NINPUTS];
} gemm;

static gemm make(int64_t m, int64_t n, int64_t k, int64_t qm, int64_t qn, int64_t qk, uint64_t seed)
{
  gemm g;
  khost__err err = {{0}};
  const char *names[] = {"m", "n", "k", "qm", "qn", "qk"};
  const int64_t values[] = {m, n, k, qm, qn, qk};
  khost__case_init(&g.c, khost__catalog_find("fp8_block_gemm"), "t");
  for (int p = 0; p < 6; p++) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)values[p]);
    cr_assert_eq(khost__case_set_param(&g.c, names[p], text, &err), KHOST__OK, "%s", err.msg);
  }
  cr_assert_eq(khost__case_validate(&g.c, &err), KHOST__OK, "%s", err.msg);
  g.m = m, g.n = n, g.k = k, g.qm = qm, g.qn = qn, g.qk = qk, g.kb = k / qk;
  g.c.op->tensors(&g.c, &g.set);
  for (int t = 0; t < g.set.ninputs; t++) {
    g.in[t] = malloc(g.set.inputs[t].nbytes);
    cr_assert_not_null(g.in[t]);
    g.c.op->generate(&g.c, seed, t, g.in[t]);
  }
  return g;
}

static void release(gemm *g)
{
  for (int t = 0; t < KHOST_FP8_BLOCK_GEMM_NINPUTS; t++) free(g->in[t]);
}

static const uint8_t *codes_of(const gemm *g, int which)
{
  return g->in[which];
}

static float scale_a(const gemm *g, int64_t i, int64_t b)
{
  return ((const float *)g->in[KHOST_FP8_BLOCK_GEMM_SA])[(i / g->qm) * g->kb + b];
}

static float scale_b(const gemm *g, int64_t j, int64_t b)
{
  return ((const float *)g->in[KHOST_FP8_BLOCK_GEMM_SB])[(j / g->qn) * g->kb + b];
}

/* ---- the generator ---- */

Test(fp8_block_gemm_op, inputs_are_a_pure_function_of_seed_tensor_and_position)
{
  gemm one = make(130, 200, 512, 1, 128, 128, 5), again = make(130, 200, 512, 1, 128, 128, 5);
  gemm taller = make(257, 200, 512, 1, 128, 128, 5), other = make(130, 200, 512, 1, 128, 128, 6);
  for (int t = 0; t < one.set.ninputs; t++)
    cr_expect_eq(memcmp(one.in[t], again.in[t], one.set.inputs[t].nbytes), 0, "tensor %d differs", t);
  /* a's rows and every per-row scale block do not depend on m; b does not at all. */
  cr_expect_eq(memcmp(one.in[KHOST_FP8_BLOCK_GEMM_A], taller.in[KHOST_FP8_BLOCK_GEMM_A], 130 * 512), 0);
  cr_expect_eq(memcmp(one.in[KHOST_FP8_BLOCK_GEMM_SA], taller.in[KHOST_FP8_BLOCK_GEMM_SA], 130 * 4 * 4), 0);
  cr_expect_eq(memcmp(one.in[KHOST_FP8_BLOCK_GEMM_B], taller.in[KHOST_FP8_BLOCK_GEMM_B], 200 * 512), 0);
  cr_expect_eq(memcmp(one.in[KHOST_FP8_BLOCK_GEMM_SB], taller.in[KHOST_FP8_BLOCK_GEMM_SB], 2 * 4 * 4), 0);
  cr_expect_neq(memcmp(one.in[KHOST_FP8_BLOCK_GEMM_A], other.in[KHOST_FP8_BLOCK_GEMM_A], 130 * 512), 0);
  gemm *all[] = {&one, &again, &taller, &other};
  for (int i = 0; i < 4; i++) release(all[i]);
}

Test(fp8_block_gemm_op, transposed_scales_hold_the_same_values)
{
  gemm g = make(300, 260, 1024, 128, 64, 256, 9);
  int64_t mb = 3, nb = 5;
  const float *sa = g.in[KHOST_FP8_BLOCK_GEMM_SA], *sa_t = g.in[KHOST_FP8_BLOCK_GEMM_SA_T];
  const float *sb = g.in[KHOST_FP8_BLOCK_GEMM_SB], *sb_t = g.in[KHOST_FP8_BLOCK_GEMM_SB_T];
  for (int64_t b = 0; b < g.kb; b++) {
    for (int64_t r = 0; r < mb; r++) cr_expect_eq(sa[r * g.kb + b], sa_t[b * mb + r]);
    for (int64_t r = 0; r < nb; r++) cr_expect_eq(sb[r * g.kb + b], sb_t[b * nb + r]);
  }
  release(&g);
}

/* Each block is quantized with scale = absmax / 448: its largest code is +-448
 * (0x7e or 0xfe) and no code is NaN; the quantizer itself (e4m3 nearest even,
 * saturating) is khost__e4m3_encode, whose ties, subnormals and saturation
 * tests/test_formats.c checks against a search over all codes. */
Test(fp8_block_gemm_op, every_block_reaches_448_and_codes_cover_the_e4m3_range)
{
  gemm g = make(2048, 130, 1024, 1, 128, 128, 21);
  const uint8_t *a = codes_of(&g, KHOST_FP8_BLOCK_GEMM_A);
  unsigned seen[256] = {0};
  for (int64_t i = 0; i < g.m; i++)
    for (int64_t b = 0; b < g.kb; b++) {
      int top = 0;
      for (int64_t e = i * g.k + b * g.qk; e < i * g.k + (b + 1) * g.qk; e++) {
        seen[a[e]]++;
        top |= (a[e] & 0x7f) == 0x7e;
      }
      cr_assert(top, "block (%ld, %ld) never reaches 448", (long)i, (long)b);
    }
  cr_expect_eq(seen[0x7f] + seen[0xff], 0, "NaN codes");
  int missing = 0;
  for (int c = 0; c < 256; c++) missing += (c & 0x7f) != 0x7f && seen[c] == 0;
  /* 2M elements: the rarest codes, the smallest subnormals (|x| < 3 * 2^-10 of
   * 448 * scale), still appear a few dozen times each. */
  cr_expect_eq(missing, 0, "%d finite codes never generated", missing);
  release(&g);
}

/* a ~ N(0, 1) and b ~ N(0, 0.5^2) in the blocks that are not outliers; about one
 * block in 16 is scaled up by 10x to 1000x. Square 128 blocks: a block's absmax
 * (16384 normals) is 4.0 +- 0.3, so a scale over 5x the median is an outlier. */
Test(fp8_block_gemm_op, values_are_normal_with_a_few_outlier_blocks)
{
  gemm g = make(1024, 1024, 2048, 128, 128, 128, 33);
  for (int side = 0; side < 2; side++) {
    const uint8_t *codes = codes_of(&g, side == 0 ? KHOST_FP8_BLOCK_GEMM_A : KHOST_FP8_BLOCK_GEMM_B);
    const float *scales = g.in[side == 0 ? KHOST_FP8_BLOCK_GEMM_SA : KHOST_FP8_BLOCK_GEMM_SB];
    double expected_sd = side == 0 ? 1.0 : 0.5, median_scale = expected_sd * 4.0 / 448;
    double sum = 0, sum_sq = 0, count = 0;
    int outliers = 0;
    for (int64_t bi = 0; bi < 8; bi++)
      for (int64_t b = 0; b < g.kb; b++) {
        double s = scales[bi * g.kb + b];
        if (s > 5 * median_scale) {
          outliers++;
          cr_expect(s > 10 * 3.2 / 448 * expected_sd && s < 1000 * 5.0 / 448 * expected_sd, "scale %g", s);
          continue;
        }
        for (int64_t r = bi * 128; r < bi * 128 + 128; r++)
          for (int64_t e = r * g.k + b * 128; e < r * g.k + b * 128 + 128; e++) {
            double x = khost__e4m3_decode(codes[e]) * s;
            sum += x, sum_sq += x * x, count++;
          }
      }
    double mean = sum / count, sd = sqrt(sum_sq / count - mean * mean);
    cr_expect(fabs(mean) < 0.01 * expected_sd, "side %d: mean %g", side, mean);
    cr_expect(fabs(sd / expected_sd - 1) < 0.01, "side %d: sd %g, want %g", side, sd, expected_sd);
    /* 128 blocks: 8 outliers expected, 2..18 is beyond 3 standard deviations. */
    cr_expect(outliers >= 2 && outliers <= 18, "side %d: %d outlier blocks of 128", side, outliers);
  }
  release(&g);
}

/* ---- the exact result and the emulated kernels ---- */

/* What a kernel might do wrong. */
typedef enum flaw { CORRECT, IGNORE_ONE_SCALE, NEIGHBOUR_SCALE, TRANSPOSED_B } flaw;

/* The decoder's values, read from a table made once: the emulated kernels below
 * decode about half a billion codes, which through the decoder itself took most
 * of this test program's seconds. */
static double code_value(uint8_t code)
{
  static double value[256];
  static int made;
  for (int c = 0; !made && c < 256; c++) value[c] = khost__e4m3_decode((uint8_t)c);
  made = 1;
  return value[code];
}

/* b's code at (j, kk), or at (kk, j) of the same buffer read as [k, n]. */
static uint8_t b_code(const gemm *g, int64_t j, int64_t kk, flaw f)
{
  const uint8_t *b = codes_of(g, KHOST_FP8_BLOCK_GEMM_B);
  return f == TRANSPOSED_B ? b[kk * g->n + j] : b[j * g->k + kk];
}

/* The two scales of block b of out[i][j] as the flawed kernel reads them. */
static double block_scale(const gemm *g, int64_t i, int64_t j, int64_t b, flaw f)
{
  double sa = scale_a(g, i, f == NEIGHBOUR_SCALE ? (b + 1) % g->kb : b);
  if (f == IGNORE_ONE_SCALE && i / g->qm == 0 && b == 0) sa = 1.0;
  return sa * scale_b(g, j, b);
}

/* The exact sum, as the oracle defines it: each block's code products summed
 * (exact), times the block's scales, added in block order in double. */
static double exact_sum(const gemm *g, int64_t i, int64_t j)
{
  const uint8_t *a = codes_of(g, KHOST_FP8_BLOCK_GEMM_A);
  double y = 0;
  for (int64_t b = 0; b < g->kb; b++) {
    double p = 0;
    for (int64_t kk = b * g->qk; kk < (b + 1) * g->qk; kk++)
      p += code_value(a[i * g->k + kk]) * code_value(b_code(g, j, kk, CORRECT));
    y += block_scale(g, i, j, b, CORRECT) * p;
  }
  return y;
}

/* One step of a tensor core's limited accumulation: the accumulator and `count`
 * exact products are aligned to the largest's exponent and each truncated toward
 * zero to 14 significant bits relative to it, summed exactly, stored as fp32. */
static float tensor_core_step(float acc, const double *products, int count)
{
  double largest = fabs(acc);
  for (int t = 0; t < count; t++) largest = fmax(largest, fabs(products[t]));
  if (largest == 0) return acc;
  /* Powers of two: multiplying by per_grid divides by grid exactly, and faster. */
  double grid = ldexp(1.0, ilogb(largest) - 13), per_grid = ldexp(1.0, 13 - ilogb(largest));
  double sum = trunc(acc * per_grid) * grid;
  for (int t = 0; t < count; t++) sum += trunc(products[t] * per_grid) * grid;
  return (float)sum;
}

enum { MMA_K = 32 }; /* products per tensor-core instruction step (Hopper fp8 wgmma) */

/* Sums terms [k0, k1) of out[i][j] in the tensor-core accumulator, MMA_K at a
 * time; `scaled` multiplies each product by its block's scales first. */
static float tensor_core_sum(const gemm *g, int64_t i, int64_t j, int64_t k0, int64_t k1, flaw f, int scaled)
{
  const uint8_t *a = codes_of(g, KHOST_FP8_BLOCK_GEMM_A);
  float acc = 0;
  for (int64_t s = k0; s < k1; s += MMA_K) {
    double products[MMA_K];
    int count = 0;
    for (int64_t kk = s; kk < k1 && kk < s + MMA_K; kk++) {
      double p = code_value(a[i * g->k + kk]) * code_value(b_code(g, j, kk, f));
      products[count++] = scaled ? p * block_scale(g, i, j, kk / g->qk, f) : p;
    }
    acc = tensor_core_step(acc, products, count);
  }
  return acc;
}

/* A kernel like DeepGEMM's: each scale block in the tensor core, promoted to an
 * fp32 accumulator with its scales (one FMA), bf16 at the end. */
static double promoting_kernel(const gemm *g, int64_t i, int64_t j, flaw f)
{
  float acc = 0;
  for (int64_t b = 0; b < g->kb; b++) {
    float partial = tensor_core_sum(g, i, j, b * g->qk, (b + 1) * g->qk, f, 0);
    acc = fmaf(partial, (float)block_scale(g, i, j, b, f), acc);
  }
  return acc;
}

/* All of k in the tensor-core accumulator, never promoted. */
static double unpromoted_kernel(const gemm *g, int64_t i, int64_t j)
{
  return tensor_core_sum(g, i, j, 0, g->k, CORRECT, 1);
}

typedef double (*kernel_fn)(const gemm *g, int64_t i, int64_t j, flaw f);

static double unpromoted(const gemm *g, int64_t i, int64_t j, flaw f)
{
  (void)f;
  return unpromoted_kernel(g, i, j);
}

/* The real check of core/check.c on a rows x cols corner of out, with the case's
 * tolerances and the op's bound (bound[e] for the corner's elements). */
static khost__check_stats check_kernel(const gemm *g, int64_t rows, int64_t cols, kernel_fn kernel, flaw f)
{
  float *full = malloc((size_t)(g->m * g->n) * sizeof *full),
        *bound = malloc((size_t)(rows * cols) * sizeof *bound);
  uint16_t *got = malloc((size_t)(rows * cols) * 2), *ref = malloc((size_t)(rows * cols) * 2);
  cr_assert(full && bound && got && ref);
  cr_assert_eq(g->c.op->error_bound(&g->c, (const void *const *)g->in, 0, full), KHOST__OK);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      bound[i * cols + j] = full[i * g->n + j];
      ref[i * cols + j] = khost__bf16_encode(exact_sum(g, i, j));
      got[i * cols + j] = khost__bf16_encode(kernel(g, i, j, f));
    }
  khost__tensor_spec spec;
  const int64_t shape[] = {rows, cols};
  static const char *const dims[] = {"row", "col"};
  khost__tensor_spec_fill(&spec, "out", KHOST__DT_BF16, 2, shape, dims);
  khost__check_stats stats;
  khost__check_output(&spec, got, ref, g->c.atol, g->c.rtol, bound, &stats);
  free(full), free(bound), free(got), free(ref);
  return stats;
}

/* The model allows a chain of qk terms in the 14-bit accumulator per scale block:
 * DeepSeek-V3's scaling at the longest k of its shapes (128 blocks), and square
 * 512 blocks (16 instruction steps between promotions). */
Test(fp8_block_gemm_op, a_kernel_promoting_every_block_passes)
{
  gemm deepseek = make(32, 128, 16384, 1, 128, 128, 41), square = make(64, 64, 4096, 512, 512, 512, 42);
  khost__check_stats s = check_kernel(&deepseek, 32, 128, promoting_kernel, CORRECT);
  cr_expect_eq(s.mismatches, 0, "deepseek: %llu mismatches, first got %g want %g",
               (unsigned long long)s.mismatches, s.nshown ? s.shown[0].got : 0.0,
               s.nshown ? s.shown[0].expected : 0.0);
  cr_expect_gt(s.max_abs, 0, "the emulation rounds somewhere");
  s = check_kernel(&square, 64, 64, promoting_kernel, CORRECT);
  cr_expect_eq(s.mismatches, 0, "square 512: %llu mismatches", (unsigned long long)s.mismatches);
  release(&deepseek), release(&square);
}

/* Never promoting walks sqrt(nb) = 11 times the model's error over 128 blocks,
 * and every scaled product is truncated (a block's e4m3 code products mostly fall
 * on the accumulator's grid): its error is about 20 times the promoting kernel's.
 * bf16's rounding (rtol) hides it where |out| is large, so it fails where the
 * products cancel: about 0.6% of the elements (52 of 8192 with another seed). */
Test(fp8_block_gemm_op, a_kernel_that_never_promotes_fails_at_long_k)
{
  gemm g = make(32, 128, 16384, 1, 128, 128, 43);
  khost__check_stats s = check_kernel(&g, 32, 128, unpromoted, CORRECT);
  cr_expect_geq(s.mismatches, 8, "only %llu of %d elements fail", (unsigned long long)s.mismatches, 32 * 128);
  release(&g);
}

Test(fp8_block_gemm_op, a_misread_scale_or_a_transposed_b_fails)
{
  gemm g = make(256, 256, 256, 1, 128, 128, 44);
  khost__check_stats s = check_kernel(&g, 4, 256, promoting_kernel, IGNORE_ONE_SCALE);
  /* Row 0's first block weighs 1 / scale (~170x) too much: all of row 0 fails, other rows are right. */
  cr_expect_geq(s.mismatches, 250, "ignored scale: %llu mismatches", (unsigned long long)s.mismatches);
  cr_expect_leq(s.mismatches, 256, "ignored scale: %llu mismatches", (unsigned long long)s.mismatches);
  s = check_kernel(&g, 64, 64, promoting_kernel, NEIGHBOUR_SCALE);
  cr_expect_geq(s.mismatches, 64 * 64 * 8 / 10, "neighbour's scale: %llu of %d fail",
                (unsigned long long)s.mismatches, 64 * 64);
  s = check_kernel(&g, 64, 64, promoting_kernel, TRANSPOSED_B);
  cr_expect_geq(s.mismatches, 64 * 64 * 95 / 100, "transposed b: %llu of %d fail",
                (unsigned long long)s.mismatches, 64 * 64);
  release(&g);
}

/* ---- the oracle: the reference plugin against the exact sum ---- */

static void oracle_call(hand_call *call, const gemm *g, uint16_t *out, int threads)
{
  const khost_dtype e4m3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
  hand_call_init(call, "fp8_block_gemm", threads);
  const char *names[] = {"m", "n", "k", "qm", "qn", "qk"};
  const int64_t values[] = {g->m, g->n, g->k, g->qm, g->qn, g->qk};
  for (int p = 0; p < 6; p++) hand_param(call, names[p], values[p]);
  for (int t = 0; t < g->set.ninputs; t++) {
    const khost__tensor_spec *s = &g->set.inputs[t];
    hand_tensor(call, false, s->name, KHOST_DEVICE_CPU, t < 2 ? e4m3 : FP32, g->in[t], 2, s->shape);
  }
  const int64_t shape[] = {g->m, g->n};
  hand_tensor(call, true, "out", KHOST_DEVICE_CPU, BF16, out, 2, shape);
}

/* Bit for bit the exact block sums combined in double and rounded once, on
 * partial scale blocks at both edges, k = qk, two row panels (m > 256), and with
 * several threads. */
Test(fp8_block_gemm_op, the_oracle_is_the_exact_sum_rounded_once)
{
  const khost_kernel *kernel =
      khost_test_kernel(khost_test_plugin("KHOST_REFERENCE_PLUGIN"), "fp8_block_gemm", KHOST_DEVICE_CPU);
  const int64_t shapes[][7] = {{5, 3, 96, 2, 2, 32, 1},
                               {129, 77, 256, 128, 32, 128, 3},
                               {7, 2112, 128, 1, 128, 128, 2},
                               {300, 40, 512, 1, 128, 128, 4},
                               {1, 1, 16, 1, 1, 16, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const int64_t *d = shapes[s];
    gemm g = make(d[0], d[1], d[2], d[3], d[4], d[5], 50 + s);
    uint16_t *out = malloc((size_t)(g.m * g.n) * 2);
    cr_assert_not_null(out);
    memset(out, 0xff, (size_t)(g.m * g.n) * 2);
    hand_call call;
    oracle_call(&call, &g, out, (int)d[6]);
    cr_assert_eq(kernel->run(&call.in), KHOST_STATUS_OK, "%s", call.error);
    for (int64_t i = 0; i < g.m; i++)
      for (int64_t j = 0; j < g.n; j++)
        cr_assert_eq(out[i * g.n + j], khost__bf16_encode(exact_sum(&g, i, j)), "shape %zu at (%ld, %ld)", s,
                     (long)i, (long)j);
    free(out);
    release(&g);
  }
}

Test(fp8_block_gemm_op, k_not_a_multiple_of_qk_is_refused)
{
  khost__case c;
  khost__err err = {{0}};
  khost__case_init(&c, khost__catalog_find("fp8_block_gemm"), "bad");
  const char *values[][2] = {{"m", "8"}, {"n", "8"}, {"k", "200"}, {"qm", "1"}, {"qn", "1"}, {"qk", "128"}};
  for (int p = 0; p < 6; p++)
    cr_assert_eq(khost__case_set_param(&c, values[p][0], values[p][1], &err), KHOST__OK);
  cr_assert_eq(khost__case_validate(&c, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "k to be a multiple of qk") != NULL, "%s", err.msg);
}
