/* kv_universal_to_block on kv_copy.cu's kernel, which the four KV-cache ops share. */
#include "kv_copy.h"

extern const khost_kernel khost__cute_kv_universal_to_block = KHOST__CUTE_KV_KERNEL("kv_universal_to_block");
