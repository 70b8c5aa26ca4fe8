/* softmax_online on kernels/softmax_online.py. Rule (measured on an H200,
 * docs/TRITON_AOT.md): the first variant in manifest order that can run the input:
 * whole-row tiles (softmax_tile, n <= block_n) from the narrowest up, then rows split
 * over a cluster (softmax_cluster, block_n < n <= cluster * block_n), then the online
 * two-sweep kernel (softmax_stream) for longer rows. 16-byte-access variants need
 * aligned pointers and n % 16 == 0; the masked scalar ones run anything. */
#include <stdint.h>
#include <string.h>

#include "khost/ops/softmax_online.h"
#include "rows.h"

static int is_tile(const khost__triton_variant *v)
{
  return strcmp(v->function, "softmax_tile") == 0;
}

/* softmax_cluster: a cluster of v->cluster programs per row, block_n elements each. */
static int is_cluster(const khost__triton_variant *v)
{
  return strcmp(v->function, "softmax_cluster") == 0;
}

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const char *misfit = khost__triton_misfit(v, s, 0);
  if (misfit) return misfit;
  if (is_tile(v) && s->n > v->block_n) return "rows longer than the tile";
  if (is_cluster(v) && s->n > (int64_t)v->cluster * v->block_n) return "rows longer than the cluster holds";
  /* Shorter rows fit one program: a tile does them without the exchange. */
  if (is_cluster(v) && s->n <= v->block_n) return "rows short enough for one program";
  if (is_cluster(v) && s->m > INT32_MAX / v->cluster) return "more programs than a grid holds";
  /* Offsets inside a tile of rows are 32-bit; the loop kernel's row bases are 64-bit. */
  if (is_tile(v) && (int64_t)v->block_m * s->n > INT32_MAX) return "a tile's offsets would overflow 32 bits";
  return NULL;
}

static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return 1;
}

/* softmax_stream runs one row per program, softmax_cluster a cluster per row. */
static int64_t programs(const khost__triton_variant *v, const khost__triton_shape *s)
{
  if (is_cluster(v)) return s->m * v->cluster;
  int64_t rows = is_tile(v) ? v->block_m : 1;
  return (s->m + rows - 1) / rows;
}

/* softmax_cluster's exchange: a maximum and a sum (fp32) per row and program. */
static size_t workspace(const khost__triton_variant *v, const khost__triton_shape *s)
{
  return is_cluster(v) ? (size_t)s->m * (size_t)v->cluster * 2 * sizeof(float) : 0;
}

static const khost__triton_rows_op op = {
    .out_kind = KHOST__ROWS_OUT_SAME,
    .rule = {"softmax_online", cannot_run, preferred},
    .programs = programs,
    .workspace = workspace,
};

static int supports(const khost_input *in)
{
  return khost__triton_rows_supports(in, &op);
}

static int workspace_size(const khost_input *in, size_t *bytes)
{
  return khost__triton_rows_workspace(in, &op, bytes);
}

static int run(const khost_input *in)
{
  return khost__triton_rows_run(in, &op);
}

static int describe(const khost_input *in, char *buf, size_t size)
{
  return khost__triton_rows_describe(in, &op, buf, size);
}

const khost_kernel khost__triton_softmax_online = {
    .struct_size = sizeof(khost_kernel),
    .op = "softmax_online",
    .device_type = KHOST_DEVICE_CUDA,
    .run = run,
    .supports = supports,
    .describe = describe,
    .workspace_size = workspace_size,
};
