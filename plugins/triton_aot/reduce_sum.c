/* reduce_sum on kernels/reduce_sum.py. Rule (measured on an H200,
 * docs/TRITON_AOT.md): among the variants that can run the input (16-byte-access
 * variants need aligned pointers and n % 16 == 0), the first in manifest order whose
 * tile is at least as wide as a row, or that gives each row a program of its own
 * (block_m 1) for rows longer than any tile; the masked scalar variant otherwise. */
#include <stdint.h>

#include "khost/ops/reduce_sum.h"
#include "rows.h"

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const char *misfit = khost__triton_misfit(v, s, 0);
  if (misfit) return misfit;
  /* In-tile offsets are 32-bit: r * n stays below 2^31. */
  if ((int64_t)v->block_m * s->n > INT32_MAX) return "a tile's offsets would overflow 32 bits";
  return NULL;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return s->n <= v->block_n || v->block_m == 1;
}

static int64_t programs(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return (s->m + v->block_m - 1) / v->block_m;
}

static const khost__triton_rows_op op = {
    .out_kind = KHOST__ROWS_OUT_REDUCED,
    .rule = {"reduce_sum", cannot_run, preferred},
    .programs = programs,
};

static int supports(const khost_input *in)
{
  return khost__triton_rows_supports(in, &op);
}

static int run(const khost_input *in)
{
  return khost__triton_rows_run(in, &op);
}

static int describe(const khost_input *in, char *buf, size_t size)
{
  return khost__triton_rows_describe(in, &op, buf, size);
}

const khost_kernel khost__triton_reduce_sum = {
    .struct_size = sizeof(khost_kernel),
    .op = "reduce_sum",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .describe = describe,
};
