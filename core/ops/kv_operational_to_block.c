/* kv_operational_to_block: operational blocks to block-stack chunks, copied flat through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_operational_to_block.h"
#include "ops/kv_cache.h"

KHOST__KV_OP(kv_operational_to_block, KHOST__KV_OPERATIONAL, KHOST__KV_BLOCK_STACK, KHOST__KV_FLAT_NPARAMS,
             "operational blocks to block-stack chunks, copied flat through pointer tables, bit-exact");
