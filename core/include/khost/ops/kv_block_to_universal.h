/* kv_block_to_universal (kv_cache.h): every block's nl * no chunks of `src` (block
 * stack, chunks in `layout`) into its one buffer of `dst` (universal [nh, nl, no,
 * nt, hd]), bit-exact. src_table u64 [nb * nl * no], dst_table u64 [nb]. */
#ifndef KHOST_OPS_KV_BLOCK_TO_UNIVERSAL_H
#define KHOST_OPS_KV_BLOCK_TO_UNIVERSAL_H

#include "kv_cache.h"

#endif /* KHOST_OPS_KV_BLOCK_TO_UNIVERSAL_H */
