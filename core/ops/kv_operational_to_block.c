/* kv_operational_to_block: operational blocks to block-stack chunks, copied flat through pointer tables,
 * bit-exact (khost/ops/kv_cache.h). */
#include "khost/ops/kv_operational_to_block.h"
#include "ops/kv_cache.h"

static void tensors(const khost__case *c, khost__tensor_set *set)
{
  khost__kv_tensors(c, set, KHOST__KV_OPERATIONAL, KHOST__KV_BLOCK_STACK);
}

const khost__op khost__op_kv_operational_to_block = {
    .name = "kv_operational_to_block",
    .summary = "operational blocks to block-stack chunks, copied flat through pointer tables, bit-exact",
    .nparams = KHOST__KV_FLAT_NPARAMS,
    .params = khost__kv_params,
    .tensors = tensors,
    .generate = khost__kv_generate,
    .flops = khost__kv_flops,
    .bytes = khost__kv_bytes,
    .tolerance = khost__kv_tolerance,
};
