/* kv_operational_to_block on the GPU, plainly: kv_cache.cuh copies every chunk through the tables. */
#include "kv_cache.cuh"

extern "C" const khost_kernel khost__reference_cuda_kv_operational_to_block = {
    sizeof(khost_kernel),
    "kv_operational_to_block",
    KHOST_DEVICE_CUDA,
    khost_reference::kv_run,
    nullptr,
    nullptr,
};
