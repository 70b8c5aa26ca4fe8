#include "ops/kv_cache.h"

#include <string.h>

#include "rng.h"

/* 2^31 per dimension: the product of all six can still overflow, which the
 * catalog refuses through the tensors' bytes, as it refuses one too large. */
#define DIM_MAX (INT64_C(1) << 31)
#define KV_DTYPES                                                                                            \
  ((1u << KHOST__DT_FP16) | (1u << KHOST__DT_BF16) | (1u << KHOST__DT_FP32) | (1u << KHOST__DT_E4M3))

static const char *const layouts[] = {"NHD", "HND", NULL};

const khost__param_spec khost__kv_params[KHOST__KV_NPARAMS] = {
    {.name = "nb", .kind = KHOST__PARAM_INT, .min = 0, .max = DIM_MAX, .multiple_of = 1},
    {.name = "nh", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "nl", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "no", .kind = KHOST__PARAM_INT, .min = 1, .max = 2, .multiple_of = 1},
    {.name = "nt", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "hd", .kind = KHOST__PARAM_INT, .min = 1, .max = DIM_MAX, .multiple_of = 1},
    {.name = "dtype", .kind = KHOST__PARAM_DTYPE, .dtypes = KV_DTYPES},
    {.name = "layout", .kind = KHOST__PARAM_ENUM, .names = layouts},
};

khost_kv_dims khost__kv_dims_of(const khost__case *c)
{
  khost_kv_dims k = {
      .nb = khost__case_param(c, "nb"),
      .nh = khost__case_param(c, "nh"),
      .nl = khost__case_param(c, "nl"),
      .no = khost__case_param(c, "no"),
      .nt = khost__case_param(c, "nt"),
      .hd = khost__case_param(c, "hd"),
  };
  return k;
}

/* The operational ops copy chunks flat and have no layout: their chunks are named as NHD. */
static int layout_of(const khost__case *c)
{
  return khost__op_param_index(c->op, "layout") >= 0 ? (int)khost__case_param(c, "layout") : KHOST_KV_NHD;
}

/* Side `side` as the arena called name: its shape in storage order, chunk after chunk. */
static void side_spec(const khost__case *c, khost__tensor_spec *t, const char *name, khost__kv_side side)
{
  static const char *const nhd[] = {"b", "l", "o", "t", "h", "d"}, *const hnd[] = {"b", "l", "o",
                                                                                   "h", "t", "d"},
                           *const universal[] = {"b", "h", "l", "o", "t", "d"};
  khost_kv_dims k = khost__kv_dims_of(c);
  khost__dtype_id dtype = (khost__dtype_id)khost__case_param(c, "dtype");
  if (side == KHOST__KV_UNIVERSAL) {
    const int64_t shape[] = {k.nb, k.nh, k.nl, k.no, k.nt, k.hd};
    khost__tensor_spec_fill(t, name, dtype, 6, shape, universal);
    khost__tensor_spec_arena(t, 1);
    return;
  }
  int hnd_chunks = side == KHOST__KV_BLOCK_STACK && layout_of(c) == KHOST_KV_HND;
  const int64_t shape[] = {k.nb, k.nl, k.no, hnd_chunks ? k.nh : k.nt, hnd_chunks ? k.nt : k.nh, k.hd};
  khost__tensor_spec_fill(t, name, dtype, 6, shape, hnd_chunks ? hnd : nhd);
  /* A block stack's chunks are (b, l, o); an operational block is the same elements, one block a chunk. */
  khost__tensor_spec_arena(t, side == KHOST__KV_BLOCK_STACK ? 3 : 1);
}

void khost__kv_tensors(const khost__case *c, khost__tensor_set *set, khost__kv_side from, khost__kv_side to)
{
  memset(set, 0, sizeof *set);
  set->ninputs = 3;
  set->noutputs = 1;
  side_spec(c, &set->inputs[KHOST_KV_SRC], "src", from);
  side_spec(c, &set->outputs[KHOST_KV_DST], "dst", to);
  khost__tensor_spec_table(&set->inputs[KHOST_KV_SRC_TABLE], "src_table", &set->inputs[KHOST_KV_SRC],
                           KHOST_KV_SRC);
  khost__tensor_spec_table(&set->inputs[KHOST_KV_DST_TABLE], "dst_table", &set->outputs[KHOST_KV_DST],
                           set->ninputs + KHOST_KV_DST);
}

/* Any finite pattern of bits: a copy that lands an element in the wrong place
 * almost never finds the same bits there. NaN and Inf patterns (never drawn)
 * lose one exponent bit, which also keeps the poison pattern (a NaN) out. */
static uint32_t finite_bits(khost__dtype_id dtype, uint32_t bits)
{
  switch (dtype) {
  case KHOST__DT_FP16: bits &= 0xffff; return (bits & 0x7c00) == 0x7c00 ? bits ^ 0x4000 : bits;
  case KHOST__DT_BF16: bits &= 0xffff; return (bits & 0x7f80) == 0x7f80 ? bits ^ 0x4000 : bits;
  case KHOST__DT_E4M3: bits &= 0xff; return (bits & 0x7f) == 0x7f ? bits ^ 0x40 : bits;
  default: /* fp32 */ return (bits & 0x7f800000) == 0x7f800000 ? bits ^ 0x40000000 : bits;
  }
}

void khost__kv_generate(const khost__case *c, uint64_t seed, int index, void *dst)
{
  khost__dtype_id dtype = (khost__dtype_id)khost__case_param(c, "dtype");
  size_t bytes = khost__dtype_bits(dtype) / 8;
  khost__tensor_set set;
  c->op->tensors(c, &set);
  size_t n = set.inputs[index].nbytes / bytes;
  for (size_t e = 0; e < n; e++) {
    uint32_t w[4];
    khost__rng_block(seed, (uint32_t)index, e, w);
    uint32_t v = finite_bits(dtype, w[0]);
    memcpy((char *)dst + e * bytes, &v, bytes); /* little-endian: the low bytes */
  }
}

/* The variation's axes: a copy is exact under any relabelling of coordinates
 * and any flip of sign bits, so every axis a layout names may serve. */
enum { AXIS_T, AXIS_H, AXIS_D };

/* The map of side tensor t: each dim's axis found by its name. */
static void side_map(khost__vary_map *m, const khost__tensor_spec *t)
{
  static const char *const names[] = {"t", "h", "d"};
  int axes[KHOST_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) {
    axes[d] = KHOST__VARY_NO_AXIS;
    for (int a = AXIS_T; a <= AXIS_D; a++)
      if (strcmp(t->dim_names[d], names[a]) == 0) axes[d] = a;
  }
  khost__vary_map_of(m, t, axes, 1);
}

void khost__kv_vary(const khost__case *c, khost__variation *v)
{
  static const int table_axes[1] = {KHOST__VARY_NO_AXIS};
  khost_kv_dims k = khost__kv_dims_of(c);
  const int64_t extent[] = {[AXIS_T] = k.nt, [AXIS_H] = k.nh, [AXIS_D] = k.hd};
  khost__tensor_set set;
  c->op->tensors(c, &set);
  khost__vary_declare(v, extent, 3, AXIS_D, 1u << AXIS_T | 1u << AXIS_H);
  side_map(&v->inputs[KHOST_KV_SRC], &set.inputs[KHOST_KV_SRC]);
  side_map(&v->outputs[KHOST_KV_DST], &set.outputs[KHOST_KV_DST]);
  khost__vary_map_of(&v->inputs[KHOST_KV_SRC_TABLE], &set.inputs[KHOST_KV_SRC_TABLE], table_axes, 0);
  khost__vary_map_of(&v->inputs[KHOST_KV_DST_TABLE], &set.inputs[KHOST_KV_DST_TABLE], table_axes, 0);
}

double khost__kv_bytes(const khost__case *c)
{
  khost__tensor_set set;
  c->op->tensors(c, &set);
  return 2.0 * (double)set.inputs[KHOST_KV_SRC].nbytes;
}

double khost__kv_flops(const khost__case *c)
{
  (void)c;
  return 0.0;
}

void khost__kv_tolerance(const khost__case *c, double *atol, double *rtol)
{
  (void)c;
  *atol = 0.0;
  *rtol = 0.0;
}
