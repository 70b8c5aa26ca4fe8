/* kv_block_to_universal on the CPU: kv_cache.c copies every chunk through the tables. */
#include "reference.h"

const khost_kernel khost__reference_kv_block_to_universal = {
    .struct_size = sizeof(khost_kernel),
    .op = "kv_block_to_universal",
    .device_type = KHOST_DEVICE_CPU,
    .run = khost__reference_kv_run,
};
