/* kv_operational_to_block: one cudaMemcpyBatchAsync copy a chunk (kv_batch.c). */
#include "kv_batch.h"

const khost_kernel khost__vendor_kv_operational_to_block =
    KHOST__VENDOR_KV_KERNEL("kv_operational_to_block", KHOST_KERNEL_NOT_CAPTURABLE);
