/* The reference plugin's descriptor: exact CPU implementations of every catalog
 * op, the oracle the other backends are checked against. */
#include "reference.h"

static const khost_kernel *const kernels[] = {
    &khost__reference_nvfp4_gemv,
    &khost__reference_copy_transpose,
    &khost__reference_reduce_sum,
    &khost__reference_softmax_online,
};

static const khost_plugin reference_plugin = {
    .magic = KHOST_PLUGIN_MAGIC,
    .abi_major = KHOST_ABI_MAJOR,
    .abi_minor = KHOST_ABI_MINOR,
    .struct_size = sizeof(khost_plugin),
    .name = "reference",
    .version = "0.1.0",
    .language = "c",
    .description = "CPU oracle: exact decode, fp64 (or exact integer) accumulation, one RNE rounding",
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
    .kernels = kernels,
};

KHOST_PLUGIN_DEFINE(reference_plugin)
