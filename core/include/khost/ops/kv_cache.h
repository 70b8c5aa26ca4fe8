/* What the four KV-cache layout conversions share (docs/FORMATS.md, "KV-cache
 * layouts"): the parameters nb (blocks, 0 allowed), nh (heads), nl (layers), no
 * (outer: 2 for K and V, or 1), nt (tokens per block), hd (head dim) and, for the
 * ops to and from the universal layout, layout (KHOST_KV_NHD or KHOST_KV_HND); the
 * dtype (fp16, bf16, fp32 or e4m3, copied as bits) is the tensors'; the tensor
 * order; and the index maps of the three layouts.
 *
 * Every op reads chunks or blocks of `src` through the u64 table `src_table` and
 * writes those of `dst` through `dst_table`: entry i of a table is the address,
 * on the kernel's device, of chunk i of its arena. The arena tensors themselves
 * (`src`, `dst`) are handed as one flat run of elements, gaps included, which a
 * kernel needs for nothing but its dtype: where each chunk lies is the table's to
 * say, in no order and with gaps between. */
#ifndef KHOST_OPS_KV_CACHE_H
#define KHOST_OPS_KV_CACHE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The index maps compile for the device too, so that CUDA kernels use these very formulas. */
#ifdef __CUDACC__
#define KHOST_KV_MAP static inline __host__ __device__
#else
#define KHOST_KV_MAP static inline
#endif

enum khost_kv_cache_tensors {
  KHOST_KV_SRC = 0,       /* the source arena */
  KHOST_KV_SRC_TABLE = 1, /* u64: the address of each source chunk */
  KHOST_KV_DST_TABLE = 2, /* u64: the address of each destination chunk */
  KHOST_KV_DST = 0        /* the only output: the destination arena */
};

/* The values of parameter `layout`: how a block-stack chunk holds its elements. */
enum khost_kv_layout {
  KHOST_KV_NHD = 0, /* [nt, nh, hd] */
  KHOST_KV_HND = 1  /* [nh, nt, hd] */
};

/* The dimensions of a call. Plain value. */
typedef struct khost_kv_dims {
  int64_t nb, nh, nl, no, nt, hd;
} khost_kv_dims;

/* Block stack: the table entry of chunk (b, l, o); a block is nl * no chunks, layer-major. */
KHOST_KV_MAP int64_t khost_kv_block_entry(const khost_kv_dims *k, int64_t b, int64_t l, int64_t o)
{
  return (b * k->nl + l) * k->no + o;
}

/* Block stack: the element of (t, h, d) inside one chunk, in `layout`. */
KHOST_KV_MAP int64_t khost_kv_chunk_index(const khost_kv_dims *k, int layout, int64_t t, int64_t h, int64_t d)
{
  return layout == KHOST_KV_HND ? (h * k->nt + t) * k->hd + d : (t * k->nh + h) * k->hd + d;
}

/* Universal: the element of (h, l, o, t, d) inside one block [nh, nl, no, nt, hd]. */
KHOST_KV_MAP int64_t khost_kv_universal_index(const khost_kv_dims *k, int64_t h, int64_t l, int64_t o,
                                              int64_t t, int64_t d)
{
  return (((h * k->nl + l) * k->no + o) * k->nt + t) * k->hd + d;
}

/* Operational: the first element of chunk (l, o) inside one block [nl, no, nt*nh*hd]; the
 * chunk's elements follow in their block-stack order, unpermuted. */
KHOST_KV_MAP int64_t khost_kv_operational_index(const khost_kv_dims *k, int64_t l, int64_t o)
{
  return (l * k->no + o) * k->nt * k->nh * k->hd;
}

#ifdef __cplusplus
}
#endif

#endif /* KHOST_OPS_KV_CACHE_H */
