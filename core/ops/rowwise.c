#include "ops/rowwise.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "khost/ops/rowwise.h"
#include "parallel_rows.h"
#include "rng.h"
#include "variation.h"

/* 2^31 per dimension keeps every product of two dimensions inside int64 and
 * size_t; the byte limit of the catalog bounds the total. */
#define DIM_MAX      (INT64_C(1) << 31)
#define FLOAT_DTYPES ((1u << KHOST__DT_FP16) | (1u << KHOST__DT_BF16) | (1u << KHOST__DT_FP32))

const khost__param_spec khost__rowwise_params[KHOST__ROWWISE_NPARAMS] = {
    {.name = "m", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "n", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "dtype",
     .kind = KHOST__PARAM_DTYPE,
     .dtypes = FLOAT_DTYPES,
     .has_default = true,
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
  khost__tensor_spec_fill(&set->inputs[KHOST_ROWWISE_IN], "in", d.dtype, 2, in_shape, in_dims);
  khost__tensor_spec_fill(&set->outputs[KHOST_ROWWISE_OUT], "out", d.dtype, out_ndim, out_shape,
                          out_dim_names);
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

/* One generate call, for the rows each thread takes. */
typedef struct rows_job {
  khost__rowwise_dims d;
  uint64_t seed;
  int index;
  void *dst;
  khost__rowwise_draw draw;
} rows_job;

static void generate_rows(void *arg, int worker, int64_t row_begin, int64_t row_end)
{
  const rows_job *job = arg;
  uint64_t n = (uint64_t)job->d.n, block = UINT64_MAX;
  double z[4];
  for (uint64_t i = (uint64_t)row_begin; i < (uint64_t)row_end; i++) {
    double offset = row_offset(job->seed, job->index, i, job->draw.offset_max);
    for (uint64_t e = i * n; e < (i + 1) * n; e++) {
      /* Block e/4 gives elements 4q..4q+3: the two Box-Muller pairs of words
       * (0, 1) and (2, 3), cosine then sine. Each value depends on (seed, index, e). */
      if (e / 4 != block) {
        uint32_t w[4];
        block = e / 4;
        khost__rng_block(job->seed, (uint32_t)job->index, block, w);
        khost__rng_normal_pair(w[0], w[1], z);
        khost__rng_normal_pair(w[2], w[3], z + 2);
      }
      store(job->d.dtype, job->dst, e, offset + job->draw.sigma * z[e % 4]);
    }
  }
}

/* Box-Muller costs tens of ns per value, seconds for the perf suites' 2^26-element
 * tensors, so large tensors are split by rows over the machine's cores. Values
 * depend on the element alone, so the split cannot change a bit. */
#define MAX_THREADS         16
#define ELEMENTS_PER_THREAD (UINT64_C(1) << 20)

static int thread_count(khost__rowwise_dims d)
{
  uint64_t by_size = (uint64_t)d.m * (uint64_t)d.n / ELEMENTS_PER_THREAD;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  uint64_t t = cores < 1 ? 1 : (uint64_t)cores;
  if (t > MAX_THREADS) t = MAX_THREADS;
  if (t > by_size) t = by_size;
  return t < 1 ? 1 : (int)t;
}

void khost__rowwise_generate(const khost__case *c, uint64_t seed, int index, void *dst,
                             khost__rowwise_draw draw)
{
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  rows_job job = {d, seed, index, dst, draw};
  khost__parallel_rows(d.m, thread_count(d), generate_rows, &job);
}

void khost__rowwise_vary(const khost__case *c, khost__variation *v, int permuted_axis, unsigned sign_axes,
                         const int *out_axes)
{
  static const int in_axes[2] = {KHOST__ROWWISE_ROW, KHOST__ROWWISE_COL};
  khost__rowwise_dims d = khost__rowwise_dims_of(c);
  const int64_t extent[] = {[KHOST__ROWWISE_ROW] = d.m, [KHOST__ROWWISE_COL] = d.n};
  khost__tensor_set set;
  c->op->tensors(c, &set);
  khost__vary_declare(v, extent, 2, permuted_axis, sign_axes);
  khost__vary_map_of(&v->inputs[KHOST_ROWWISE_IN], &set.inputs[KHOST_ROWWISE_IN], in_axes, sign_axes != 0);
  khost__vary_map_of(&v->outputs[KHOST_ROWWISE_OUT], &set.outputs[KHOST_ROWWISE_OUT], out_axes,
                     sign_axes != 0);
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
