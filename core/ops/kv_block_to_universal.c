/* kv_block_to_universal: block-stack chunks (NHD or HND) to universal blocks, through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_block_to_universal.h"
#include "ops/kv_cache.h"

KHOST__KV_OP(kv_block_to_universal, KHOST__KV_BLOCK_STACK, KHOST__KV_UNIVERSAL, KHOST__KV_NPARAMS,
             "block-stack chunks (NHD or HND) to universal blocks, through pointer tables, bit-exact");
