/* kv_universal_to_block: declined: a universal block permutes each chunk in runs of hd elements (kv_batch.c).
 */
#include "kv_batch.h"

const khost_kernel khost__vendor_kv_universal_to_block = KHOST__VENDOR_KV_KERNEL("kv_universal_to_block", 0);
