/* copy_transpose: out[j][i] = in[i][j] for in [m, n], out [n, m]; dtype fp16, bf16, fp32. */
#include "catalog.h"
#include "variation.h"
#include "khost/ops/copy_transpose.h"
#include "ops/rowwise.h"

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  static const char *const out_dims[2] = {"col", "row"};
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  const int64_t out_shape[2] = {d.n, d.m};
  khost__rowwise_tensors(c, set, 2, out_shape, out_dims);
}

static void generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  khost__rowwise_generate(c, seed, index, dst, (khost__rowwise_draw){.sigma = 1.0, .offset_max = 0.0});
}

static double flops(const khost__case *c)
{
  return 0.0;
}

/* Every element read once and written once. */
static double bytes(const khost__case *c)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  return 2.0 * (double)d.m * (double)d.n * (double)khost__rowwise_elem_bytes(c);
}

/* A transpose moves bits; any difference at all is a wrong element. */
static void tolerance(const khost__case *c, double *atol, double *rtol)
{
  *atol = 0.0;
  *rtol = 0.0;
}

/* A transpose moves bits: every element may flip its sign and the rows may be
 * permuted, and the output's columns follow exactly. */
static void vary(const khost__case *c, khost__variation *v)
{
  static const int out_axes[2] = {KHOST__ROWWISE_COL, KHOST__ROWWISE_ROW};
  khost__rowwise_vary(c, v, KHOST__ROWWISE_ROW, 1u << KHOST__ROWWISE_ROW | 1u << KHOST__ROWWISE_COL,
                      out_axes);
}

const khost__op khost__op_copy_transpose = {
    .name = "copy_transpose",
    .summary = "out[j][i] = in[i][j], bit-exact (fp16, bf16, fp32)",
    .nparams = KHOST__ROWWISE_NPARAMS,
    .params = khost__rowwise_params,
    .tensors = tensors,
    .generate = generate,
    .flops = flops,
    .bytes = bytes,
    .tolerance = tolerance,
    .vary = vary,
};
