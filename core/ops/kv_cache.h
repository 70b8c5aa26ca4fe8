/* What the KV-cache layout conversions share (khost/ops/kv_cache.h): their
 * parameters, their three layouts as arena specs with the pointer tables that
 * reach them, the generator, the byte count and the bit-exact tolerances. */
#ifndef KHOST_CORE_OPS_KV_CACHE_H
#define KHOST_CORE_OPS_KV_CACHE_H

#include "catalog.h"
#include "variation.h"
#include "khost/ops/kv_cache.h"

/* nb, nh, nl, no, nt, hd, dtype, then layout: the operational ops take the first
 * KHOST__KV_FLAT_NPARAMS, the universal ones all. Static. */
#define KHOST__KV_FLAT_NPARAMS 7
#define KHOST__KV_NPARAMS      8
extern const khost__param_spec khost__kv_params[KHOST__KV_NPARAMS];

/* A layout of the source or destination. */
typedef enum { KHOST__KV_BLOCK_STACK, KHOST__KV_UNIVERSAL, KHOST__KV_OPERATIONAL } khost__kv_side;

/* The dimensions of a validated case. */
khost_kv_dims khost__kv_dims_of(const khost__case *c);

/* Fills set for a conversion from `from` to `to`: src (an arena in from's layout),
 * src_table, dst_table and dst (an arena in to's layout), in the op's dtype. */
void khost__kv_tensors(const khost__case *c, khost__tensor_set *set, khost__kv_side from, khost__kv_side to);

/* Element e of src: random bits of the dtype, any finite value. */
void khost__kv_generate(const khost__case *c, uint64_t seed, int index, void *dst);

/* A copy's variation: the head dim (d) permuted, and signs by token and head
 * (t, h), found by name in every layout, so that dst's element moves and flips
 * with src's; the tables, made per call, are not varied. */
void khost__kv_vary(const khost__case *c, khost__variation *v);

/* Each element read once and written once: 2 x the data moved (the tables' few
 * bytes are not counted). */
double khost__kv_bytes(const khost__case *c);

/* No arithmetic: none. */
double khost__kv_flops(const khost__case *c);

/* A copy moves bits: any difference is a wrong element (atol = rtol = 0). */
void khost__kv_tolerance(const khost__case *c, double *atol, double *rtol);

/* Defines the op khost__op_<name>, converting from `from` to `to` (khost__kv_side), with the
 * first nparams of khost__kv_params: what makes each of the four ops its own. */
#define KHOST__KV_OP(op_name, from, to, nparams_taken, op_summary)                                           \
  static void tensors(const khost__case *c, khost__tensor_set *set)                                          \
  {                                                                                                          \
    khost__kv_tensors(c, set, from, to);                                                                     \
  }                                                                                                          \
  const khost__op khost__op_##op_name = {                                                                    \
      .name = #op_name,                                                                                      \
      .summary = op_summary,                                                                                 \
      .nparams = nparams_taken,                                                                              \
      .params = khost__kv_params,                                                                            \
      .tensors = tensors,                                                                                    \
      .generate = khost__kv_generate,                                                                        \
      .flops = khost__kv_flops,                                                                              \
      .bytes = khost__kv_bytes,                                                                              \
      .tolerance = khost__kv_tolerance,                                                                      \
      .vary = khost__kv_vary,                                                                                \
  }

#endif
