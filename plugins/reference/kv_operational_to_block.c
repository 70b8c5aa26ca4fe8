/* kv_operational_to_block on the CPU: kv_cache.c copies every chunk through the tables. */
#include "reference.h"

const khost_kernel khost__reference_kv_operational_to_block = {
    .struct_size = sizeof(khost_kernel),
    .op = "kv_operational_to_block",
    .device_type = KHOST_DEVICE_CPU,
    .run = khost__reference_kv_run,
};
