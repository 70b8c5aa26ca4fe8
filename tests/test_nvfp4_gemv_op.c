/* Tests for core/ops/nvfp4_gemv.c beyond its description: that its generated
 * inputs and its tolerance do what the comments claim. An fp32-accumulating
 * kernel passes on the largest k of the benchmark shapes, outputs stay well inside
 * fp16, and the common kernel bugs (a wrong scale block, swapped nibbles) fail. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "formats.h"
#include "khost/ops.h"

typedef struct gemv {
  khost__case c;
  int64_t m, k;
  uint8_t *in[KHOST_NVFP4_GEMV_NINPUTS];
} gemv;

static gemv make(const char *m, const char *k, uint64_t seed)
{
  gemv g;
  khost__err err = {{0}};
  khost__tensor_set s;
  khost__case_init(&g.c, khost__catalog_find("nvfp4_gemv"), "t");
  cr_assert_eq(khost__case_set_param(&g.c, "m", m, &err), KHOST__OK);
  cr_assert_eq(khost__case_set_param(&g.c, "k", k, &err), KHOST__OK);
  cr_assert_eq(khost__case_validate(&g.c, &err), KHOST__OK, "%s", err.msg);
  g.m = khost__case_param(&g.c, "m");
  g.k = khost__case_param(&g.c, "k");
  g.c.op->tensors(&g.c, &s);
  for (int t = 0; t < s.ninputs; t++) {
    g.in[t] = malloc(s.inputs[t].nbytes);
    cr_assert_not_null(g.in[t]);
    g.c.op->generate(&g.c, seed, t, g.in[t]);
  }
  return g;
}

static void release(gemv *g)
{
  for (int t = 0; t < KHOST_NVFP4_GEMV_NINPUTS; t++) free(g->in[t]);
}

static double fp4(const uint8_t *packed, int64_t j, int high_first)
{
  uint8_t byte = packed[j / 2];
  int high = (j % 2 == 1) != (high_first != 0);
  return khost__e2m1_decode(high ? byte >> 4 : byte & 15);
}

/* What a kernel might do wrong, to show the tolerance catches it. */
typedef struct flaw {
  int scale_block_shift; /* read a's scale block j/16 + shift for the first block of each row */
  int swap_nibbles;      /* take element 2j of a from the high nibble (swapping in both a and v
                          * would pair the same elements and cancel out) */
} flaw;

/* Term j of row i, exact in double (and in fp32: at most 12 significant bits). */
static double term(const gemv *g, int64_t i, int64_t j, flaw f)
{
  int64_t k16 = g->k / 16, block = j / 16;
  int64_t a_block = block == 0 ? (block + f.scale_block_shift) % k16 : block;
  double a = fp4(g->in[KHOST_NVFP4_GEMV_A] + i * g->k / 2, j, f.swap_nibbles);
  double v = fp4(g->in[KHOST_NVFP4_GEMV_V], j, 0);
  double sa = khost__e4m3_decode(g->in[KHOST_NVFP4_GEMV_SFA][i * k16 + a_block]);
  double sv = khost__e4m3_decode(g->in[KHOST_NVFP4_GEMV_SFV][block]);
  return a * sa * v * sv;
}

/* The reference: the exact sum (a double holds it: terms are multiples of 2^-20
 * below 2^15), rounded once to fp16. */
static double reference(const gemv *g, int64_t i)
{
  double sum = 0;
  for (int64_t j = 0; j < g->k; j++) sum += term(g, i, j, (flaw){0, 0});
  return khost__fp16_decode(khost__fp16_encode(sum));
}

/* A plain kernel: one fp32 accumulator, in order, then fp16. */
static double fp32_kernel(const gemv *g, int64_t i, flaw f)
{
  float sum = 0;
  for (int64_t j = 0; j < g->k; j++) sum += (float)term(g, i, j, f);
  return khost__fp16_decode(khost__fp16_encode(sum));
}

static int passes(const khost__case *c, double got, double ref)
{
  return fabs(got - ref) <= c->atol + c->rtol * fabs(ref);
}

Test(nvfp4_gemv_op, an_fp32_kernel_passes_at_the_largest_k_and_outputs_stay_inside_fp16)
{
  gemv g = make("128", "16384", 11);
  double max_abs = 0, sum_abs = 0;
  for (int64_t i = 0; i < g.m; i++) {
    double ref = reference(&g, i), got = fp32_kernel(&g, i, (flaw){0, 0});
    cr_expect(passes(&g.c, got, ref), "row %ld: got %.9g, ref %.9g", (long)i, got, ref);
    max_abs = fmax(max_abs, fabs(ref));
    sum_abs += fabs(ref);
  }
  /* sqrt(16384) * 0.095 = 12 is the typical size; fp16 ends at 65504. */
  cr_expect(max_abs < 200, "largest |c| = %g", max_abs);
  cr_expect(sum_abs / (double)g.m > 3, "mean |c| = %g is far above atol", sum_abs / (double)g.m);
  release(&g);
}

Test(nvfp4_gemv_op, a_wrong_scale_block_or_swapped_nibbles_fail)
{
  gemv g = make("256", "1024", 12);
  long wrong_block = 0, swapped = 0, unchanged_scale = 0;
  for (int64_t i = 0; i < g.m; i++) {
    double ref = reference(&g, i);
    const uint8_t *sfa = g.in[KHOST_NVFP4_GEMV_SFA] + i * (g.k / 16);
    unchanged_scale += sfa[0] == sfa[1];
    wrong_block += !passes(&g.c, fp32_kernel(&g, i, (flaw){1, 0}), ref);
    swapped += !passes(&g.c, fp32_kernel(&g, i, (flaw){0, 1}), ref);
  }
  /* A row escapes only when the two scales happen to be equal or its first
   * block's products are near zero. */
  cr_expect_geq(wrong_block, (long)(0.9 * (double)(g.m - unchanged_scale)),
                "wrong scale block: %ld of %ld rows fail", wrong_block, (long)g.m);
  cr_expect_geq(swapped, (long)(0.98 * (double)g.m), "swapped nibbles: %ld of %ld rows fail", swapped,
                (long)g.m);
  release(&g);
}
