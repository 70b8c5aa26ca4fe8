/* kv_operational_to_block on kernels/kv_cache.py's kv_copy, which the four KV-cache ops share (kv_copy.c). */
#include "kv_copy.h"

const khost_kernel khost__triton_kv_operational_to_block = KHOST__TRITON_KV_KERNEL("kv_operational_to_block");
