/* copy_transpose on the Triton tiles of kernels/copy_transpose.py. Rule (measured on
 * an H200, docs/TRITON_AOT.md): the 16-byte-access variants when m and n are
 * multiples of 16 and the pointers aligned, the largest tile the matrix fills;
 * the masked scalar variant otherwise. A bit copy cares only about the element
 * size, so fp16 and bf16 share the 16-bit kernels. */
#include <stdint.h>

#include "khost/ops/copy_transpose.h"
#include "rows.h"

static int64_t tiles(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return (s->m + v->block_m - 1) / v->block_m * ((s->n + v->block_n - 1) / v->block_n);
}

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const char *misfit = khost__triton_misfit(v, s, 1);
  if (misfit) return misfit;
  /* In-tile offsets are 32-bit: r * n and c * m stay below 2^31. */
  if ((int64_t)v->block_m * s->n > INT32_MAX || (int64_t)v->block_n * s->m > INT32_MAX)
    return "a tile's offsets would overflow 32 bits";
  if (tiles(v, s) > INT32_MAX) return "more tiles than a grid holds";
  return NULL;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return s->m >= v->block_m && s->n >= v->block_n;
}

static const khost__triton_rows_op op = {
    .out_kind = KHOST__ROWS_OUT_TRANSPOSED,
    .rule = {"copy_transpose", cannot_run, preferred},
    .programs = tiles,
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

const khost_kernel khost__triton_copy_transpose = {
    .struct_size = sizeof(khost_kernel),
    .op = "copy_transpose",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .describe = describe,
};
