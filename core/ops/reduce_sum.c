/* reduce_sum: out[i] = sum_j in[i][j] for in [m, n], out [m]; dtype fp16, bf16, fp32. */
#include <math.h>

#include "catalog.h"
#include "variation.h"
#include "khost/ops/reduce_sum.h"
#include "ops/rowwise.h"

/* The inputs are N(0, SIGMA^2); the tolerance below depends on it. */
#define SIGMA 1.0

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  static const char *const out_dims[1] = {"row"};
  const int64_t out_shape[1] = {khost__rowwise_dims_of(c).m};
  khost__rowwise_tensors(c, set, 1, out_shape, out_dims);
}

static void generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  khost__rowwise_generate(c, seed, index, dst, (khost__rowwise_draw){.sigma = SIGMA, .offset_max = 0.0});
}

/* One addition per element. */
static double flops(const khost__case *c)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  return (double)d.m * (double)d.n;
}

/* The input read once, the output written once. */
static double bytes(const khost__case *c)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  return ((double)d.m * (double)d.n + (double)d.m) * (double)khost__rowwise_elem_bytes(c);
}

/* An error model. The reference is the exact row sum S rounded once to the dtype;
 * a correct kernel sums in fp32 (error d) and then rounds S + d to the dtype.
 * - Output rounding: each side is within u_out*|S| of S (u_out: half an ulp,
 *   relative) and they may land on adjacent values, so rtol = 2*u_out.
 * - Accumulation: summing in blocks or a tree, as GPU kernels do, keeps
 *   |d| <= ceil(log2 n) * u32 * sum|x|. A plain sequential loop has a worse worst
 *   case, but on zero-mean data its partial sums grow like sqrt(j) and its error
 *   behaves like u32 * sigma * n / sqrt(6), which is below that bound. The checker
 *   only knows atol + rtol*|ref|, and cancellation can make |ref| much smaller
 *   than sum|x|, so d goes into atol, using the expected sum|x| of a generated row,
 *   n * sigma * sqrt(2/pi), doubled for rows above the mean.
 * - One subnormal ulp of the dtype is added so that tiny sums, whose rounding
 *   error is absolute, pass.
 * An fp16 or bf16 accumulator breaks this bound, and so does a dropped element of
 * a row of a few thousand (tests/test_rowwise.c emulates these kernels). */
static void tolerance(const khost__case *c, double *atol, double *rtol)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  double levels = fmax(1.0, ceil(log2((double)d.n)));
  double mean_abs_sum = (double)d.n * SIGMA * sqrt(2.0 / M_PI);
  *atol = 2.0 * levels * 0x1p-24 * mean_abs_sum + khost__rowwise_min_subnormal(d.dtype);
  *rtol = 2.0 * khost__rowwise_unit_roundoff(d.dtype);
}

/* Signs per row: a row of negated values sums exactly to the negated sum, so
 * each output flips with its row. Columns permuted: the exact sum, and so the
 * reference, does not change, but the bytes a kernel reads do. */
static void vary(const khost__case *c, khost__variation *v)
{
  static const int out_axes[1] = {KHOST__ROWWISE_ROW};
  khost__rowwise_vary(c, v, KHOST__ROWWISE_COL, 1u << KHOST__ROWWISE_ROW, out_axes);
}

const khost__op khost__op_reduce_sum = {
    .name = "reduce_sum",
    .summary = "out[i] = sum_j in[i][j], fp32 accumulation (fp16, bf16, fp32)",
    .nparams = KHOST__ROWWISE_NPARAMS,
    .params = khost__rowwise_params,
    .tensors = tensors,
    .generate = generate,
    .flops = flops,
    .bytes = bytes,
    .tolerance = tolerance,
    .vary = vary,
};
