#include "ops/rowwise.h"

#include <math.h>
#include <string.h>

#include "formats.h"
#include "rng.h"

/* 2^31 per dimension keeps every product of two dimensions inside int64 and
 * size_t; the byte limit of the catalog bounds the total. */
#define DIM_MAX (INT64_C(1) << 31)
#define FLOAT_DTYPES ((1u << KHOST__DT_FP16) | (1u << KHOST__DT_BF16) | (1u << KHOST__DT_FP32))

const khost__param_spec khost__rowwise_params[KHOST__ROWWISE_NPARAMS] = {
  {.name = "m", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
  {.name = "n", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
  {.name = "dtype", .kind = KHOST__PARAM_DTYPE, .dtypes = FLOAT_DTYPES, .has_default = true,
   .default_value = KHOST__DT_FP32},
};

khost__rowwise_dims khost__rowwise_dims_of(const khost__case *c)
{
  khost__rowwise_dims d = {
    .m = khost__case_param(c, "m"),
    .n = khost__case_param(c, "n"),
    .dtype = (khost__dtype_id)khost__case_param(c, "dtype"),
  };
  return d;
}

size_t khost__rowwise_elem_bytes(const khost__case *c)
{
  return khost__dtype_bits(khost__rowwise_dims_of(c).dtype) / 8;
}

void khost__rowwise_tensors(const khost__case *c, khost__tensor_set *set, int out_ndim,
                            const int64_t *out_shape, const char *const *out_dim_names)
{
  static const char *const in_dims[2] = {"row", "col"};
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  const int64_t in_shape[2] = {d.m, d.n};
  memset(set, 0, sizeof *set);
  set->ninputs = 1;
  set->noutputs = 1;
  khost__tensor_spec_fill(&set->inputs[0], "in", d.dtype, 2, in_shape, in_dims);
  khost__tensor_spec_fill(&set->outputs[0], "out", d.dtype, out_ndim, out_shape, out_dim_names);
}

static void store(khost__dtype_id dtype, void *dst, uint64_t e, double x)
{
  if (dtype == KHOST__DT_FP32) {
    ((float *)dst)[e] = khost__fp32_encode(x);
  } else if (dtype == KHOST__DT_BF16) {
    ((uint16_t *)dst)[e] = khost__bf16_encode(x);
  } else {
    ((uint16_t *)dst)[e] = khost__fp16_encode(x);
  }
}

/* Row offsets come from their own counter space (the top bit of the stream), so
 * they never reuse the words of the element values. */
static double row_offset(uint64_t seed, int index, uint64_t row, double offset_max)
{
  uint32_t w[4];
  if (offset_max == 0) return 0;
  khost__rng_block(seed, (uint32_t)index | 0x80000000u, row, w);
  return offset_max * (2 * khost__rng_unit(w[0]) - 1);
}

void khost__rowwise_generate(const khost__case *c, uint64_t seed, int index, void *dst,
                             khost__rowwise_draw draw)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  uint64_t block = UINT64_MAX;
  uint32_t w[4];
  for (uint64_t i = 0; i < (uint64_t)d.m; i++) {
    double offset = row_offset(seed, index, i, draw.offset_max);
    for (uint64_t e = i * (uint64_t)d.n; e < (i + 1) * (uint64_t)d.n; e++) {
      /* Element e takes words 2*(e%2) and 2*(e%2)+1 of block e/2: one Philox call
       * serves two elements, and each value depends on (seed, index, e) alone. */
      if (e / 2 != block) {
        block = e / 2;
        khost__rng_block(seed, (uint32_t)index, block, w);
      }
      store(d.dtype, dst, e, offset + draw.sigma * khost__rng_normal(w[2 * (e % 2)], w[2 * (e % 2) + 1]));
    }
  }
}

double khost__rowwise_unit_roundoff(khost__dtype_id dtype)
{
  if (dtype == KHOST__DT_FP16) return 0x1p-11;
  if (dtype == KHOST__DT_BF16) return 0x1p-8;
  return 0x1p-24;
}

double khost__rowwise_min_subnormal(khost__dtype_id dtype)
{
  if (dtype == KHOST__DT_FP16) return 0x1p-24;
  if (dtype == KHOST__DT_BF16) return 0x1p-133;
  return 0x1p-149;
}
