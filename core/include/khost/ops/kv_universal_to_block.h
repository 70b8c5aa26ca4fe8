/* kv_universal_to_block (kv_cache.h): every block's one buffer of `src` (universal
 * [nh, nl, no, nt, hd]) into its nl * no chunks of `dst` (block stack, chunks in
 * `layout`), bit-exact. src_table u64 [nb], dst_table u64 [nb * nl * no]. */
#ifndef KHOST_OPS_KV_UNIVERSAL_TO_BLOCK_H
#define KHOST_OPS_KV_UNIVERSAL_TO_BLOCK_H

#include "kv_cache.h"

#endif /* KHOST_OPS_KV_UNIVERSAL_TO_BLOCK_H */
