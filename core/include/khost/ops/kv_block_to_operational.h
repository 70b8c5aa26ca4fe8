/* kv_block_to_operational (kv_cache.h): every block's nl * no chunks of `src`
 * (block stack) into its one buffer of `dst` (operational [nl, no, nt*nh*hd]), each
 * chunk copied flat, bit-exact. src_table u64 [nb * nl * no], dst_table u64 [nb]. */
#ifndef KHOST_OPS_KV_BLOCK_TO_OPERATIONAL_H
#define KHOST_OPS_KV_BLOCK_TO_OPERATIONAL_H

#include "kv_cache.h"

#endif /* KHOST_OPS_KV_BLOCK_TO_OPERATIONAL_H */
