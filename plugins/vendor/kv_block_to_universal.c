/* kv_block_to_universal: declined: a universal block permutes each chunk in runs of hd elements (kv_batch.c).
 */
#include "kv_batch.h"

const khost_kernel khost__vendor_kv_block_to_universal = KHOST__VENDOR_KV_KERNEL("kv_block_to_universal", 0);
