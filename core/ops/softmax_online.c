/* softmax_online: out[i][j] = exp(in[i][j] - max_i) / sum_j exp(in[i][j] - max_i) for
 * in, out [m, n]; dtype fp16, bf16, fp32. */
#include <math.h>

#include "catalog.h"
#include "variation.h"
#include "khost/ops/softmax_online.h"
#include "ops/rowwise.h"

/* Values spread by 2 within a row, so that rows are far from uniform, on top of a
 * per-row offset up to +-100: exp(100) overflows fp32 and exp(-100) underflows
 * it, so a kernel that skips the max subtraction yields inf or NaN on such rows
 * (softmax itself does not change under the offset). */
static const khost__rowwise_draw draw = {.sigma = 2.0, .offset_max = 100.0};

/* |in - max| stays below this many sigma: N(0,1) exceeds 8 with probability
 * about 1e-15 per value, and the difference spans two such values. */
#define SPREAD_SIGMAS 16.0

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  static const char *const out_dims[2] = {"row", "col"};
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  const int64_t out_shape[2] = {d.m, d.n};
  khost__rowwise_tensors(c, set, 2, out_shape, out_dims);
}

static void generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  khost__rowwise_generate(c, seed, index, dst, draw);
}

/* Per element: the max compare, the subtraction, the exp, the add into the sum
 * and the scaling by 1/sum (the online rescaling of the running sum is per block
 * of elements and not counted). */
static double flops(const khost__case *c)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  return 5.0 * (double)d.m * (double)d.n;
}

/* One pass: the input read once, the output written once. */
static double bytes(const khost__case *c)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  return 2.0 * (double)d.m * (double)d.n * (double)khost__rowwise_elem_bytes(c);
}

/* An error model, relative to each output y = exp(x - max) / sum, which the
 * reference computes exactly and rounds once to the dtype:
 * - Output rounding: kernel and reference may land on adjacent values: 2*u_out.
 * - The exponent x - max, formed in fp32, is off by up to u32*|x - max|, which
 *   exp turns into a relative error of the same size; |x - max| < SPREAD_SIGMAS*sigma.
 * - exp itself: CUDA's fast __expf is within about 2 + 1.2*|x| ulp (expf: 2 ulp).
 * - The sum of n positive terms in fp32. A parallel kernel sums blocks and merges
 *   them (a few u32 * log2 n). One sequential accumulator does worse: about
 *   u32*sqrt(n)/3 while its terms stay large against its ulp, and past about 2^17
 *   terms it starts to round small terms away (1e-3 of the sum at 2^20). The
 *   u32*sqrt(n) term admits the first and refuses the second, whose error is real.
 *   The online rescaling and the division add a few u32.
 * - atol: one subnormal ulp of the dtype, because tiny probabilities (fp16
 *   subnormals once n passes about 16k) round with an absolute, not relative, error.
 * fp32 lands near 1e-5 for n in the thousands; bf16 and fp16 are ruled by their
 * output ulp. tests/test_rowwise.c checks these claims against emulated kernels. */
static void tolerance(const khost__case *c, double *atol, double *rtol)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  double spread = SPREAD_SIGMAS * draw.sigma;
  double exp_ulps = 2.0 + 1.2 * spread;
  double fp32_units = spread + 2.0 * exp_ulps + sqrt((double)d.n) + 8.0;
  *atol = khost__rowwise_min_subnormal(d.dtype);
  *rtol = 2.0 * khost__rowwise_unit_roundoff(d.dtype) + fp32_units * 0x1p-24;
}

/* Softmax is not odd, so no signs; permuting a row's columns permutes its
 * outputs alike, and keeps each row's offset (the overflow test). */
static void vary(const khost__case *c, khost__variation *v)
{
  static const int out_axes[2] = {KHOST__ROWWISE_ROW, KHOST__ROWWISE_COL};
  khost__rowwise_vary(c, v, KHOST__ROWWISE_COL, 0, out_axes);
}

const khost__op khost__op_softmax_online = {
    .name = "softmax_online",
    .summary = "row-wise softmax along the last dim, max-subtracted, one pass (fp16, bf16, fp32)",
    .nparams = KHOST__ROWWISE_NPARAMS,
    .params = khost__rowwise_params,
    .tensors = tensors,
    .generate = generate,
    .flops = flops,
    .bytes = bytes,
    .tolerance = tolerance,
    .vary = vary,
};
