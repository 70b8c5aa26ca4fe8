/* kv_block_to_operational: one cudaMemcpyBatchAsync copy a chunk (kv_batch.c). */
#include "kv_batch.h"

const khost_kernel khost__vendor_kv_block_to_operational =
    KHOST__VENDOR_KV_KERNEL("kv_block_to_operational", KHOST_KERNEL_NOT_CAPTURABLE);
