/* kv_block_to_operational: block-stack chunks to operational blocks, copied flat through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_block_to_operational.h"
#include "ops/kv_cache.h"

KHOST__KV_OP(kv_block_to_operational, KHOST__KV_BLOCK_STACK, KHOST__KV_OPERATIONAL, KHOST__KV_FLAT_NPARAMS,
             "block-stack chunks to operational blocks, copied flat through pointer tables, bit-exact");
