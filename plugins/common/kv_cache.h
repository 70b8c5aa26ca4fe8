/* The checks of the four KV-cache layout conversions (khost/ops/kv_cache.h),
 * shared by every plugin that implements them: parameters, tensors and tables,
 * with one set of messages. */
#ifndef KHOST_PLUGIN_KV_CACHE_H
#define KHOST_PLUGIN_KV_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "input_checks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A checked call. Points into the call's tensors; valid for the call. */
typedef struct khost__kv_call {
  khost_kv_dims dims;
  int layout;                        /* khost_kv_layout; NHD for the operational ops, which have none */
  int from_blocks;                   /* 1: the source is the block stack, the destination per-block buffers */
  int permute;                       /* 1: the per-block side is universal; 0: operational (flat chunks) */
  size_t element_bytes;              /* 1, 2 or 4 */
  size_t chunk_bytes;                /* one block-stack chunk: nt * nh * hd elements */
  size_t block_bytes;                /* one universal or operational block: nl * no chunks */
  int64_t chunks;                    /* nb * nl * no: the block stack's table entries */
  const uint64_t *block_stack_table; /* the table of the block-stack side: chunks entries */
  const uint64_t *block_table;       /* the table of the per-block side: nb entries */
  const khost_tensor *block_stack;   /* the arena of the block-stack side */
  const khost_tensor *blocks;        /* the arena of the per-block side */
} khost__kv_call;

/* Checks a call of kv_block_to_universal, kv_universal_to_block,
 * kv_block_to_operational or kv_operational_to_block on device_type and fills
 * *call: the counts, the parameters (each dimension and the sizes they make), the
 * arenas (one flat run of fp16, bf16, fp32 or e4m3, the same dtype both) and the
 * tables (u64, one entry per chunk). INVALID_ARGUMENT for any of those. */
int khost__kv_open(const khost_input *in, int32_t device_type, khost__kv_call *call);

/* Host memory only: INVALID_ARGUMENT unless every table entry points at a whole
 * chunk (or block) inside its arena, so that a bad table is refused, not followed. */
int khost__kv_check_tables(const khost_input *in, const khost__kv_call *call);

#ifdef __cplusplus
}
#endif

#endif
