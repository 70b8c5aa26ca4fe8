/* kv_universal_to_block: universal blocks to block-stack chunks (NHD or HND), through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_universal_to_block.h"
#include "ops/kv_cache.h"

KHOST__KV_OP(kv_universal_to_block, KHOST__KV_UNIVERSAL, KHOST__KV_BLOCK_STACK, KHOST__KV_NPARAMS,
             "universal blocks to block-stack chunks (NHD or HND), through pointer tables, bit-exact");
