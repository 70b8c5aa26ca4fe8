/* kv_operational_to_block (kv_cache.h): every block's one buffer of `src`
 * (operational [nl, no, nt*nh*hd]) into its nl * no chunks of `dst` (block stack),
 * each chunk copied flat, bit-exact. src_table u64 [nb], dst_table u64 [nb * nl * no]. */
#ifndef KHOST_OPS_KV_OPERATIONAL_TO_BLOCK_H
#define KHOST_OPS_KV_OPERATIONAL_TO_BLOCK_H

#include "kv_cache.h"

#endif /* KHOST_OPS_KV_OPERATIONAL_TO_BLOCK_H */
