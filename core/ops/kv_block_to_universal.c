/* kv_block_to_universal: block-stack chunks (NHD or HND) to universal blocks, through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_block_to_universal.h"
#include "ops/kv_cache.h"

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  khost__kv_tensors(c, set, KHOST__KV_BLOCK_STACK, KHOST__KV_UNIVERSAL);
}

const khost__op khost__op_kv_block_to_universal = {
    .name = "kv_block_to_universal",
    .summary = "block-stack chunks (NHD or HND) to universal blocks, through pointer tables, bit-exact",
    .nparams = KHOST__KV_NPARAMS,
    .params = khost__kv_params,
    .tensors = tensors,
    .generate = khost__kv_generate,
    .flops = khost__kv_flops,
    .bytes = khost__kv_bytes,
    .tolerance = khost__kv_tolerance,
};
