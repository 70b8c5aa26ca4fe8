/* The reference plugin's descriptor: exact CPU implementations of every catalog
 * op, the oracle the other backends are checked against, and (in builds with the
 * CUDA toolkit) plain CUDA kernels for each op, the GPU speed baseline. */
#include "reference.h"

/* kernels: the CPU kernels first, the oracle, then (in CUDA builds) the CUDA
 * kernels, the GPU baseline; generated from the op list (meson.build). */
#include "kernel_table.h"

static const khost_plugin reference_plugin = {
    .magic = KHOST_PLUGIN_MAGIC,
    .abi_major = KHOST_ABI_MAJOR,
    .abi_minor = KHOST_ABI_MINOR,
    .struct_size = sizeof(khost_plugin),
    .name = "reference",
    .version = "0.1.0",
    .language = "c",
#ifdef KHOST_REFERENCE_CUDA
    .description =
        "CPU oracle (exact decode, fp64 or exact integer sums, one RNE rounding); plain CUDA baseline",
#else
    .description = "CPU oracle: exact decode, fp64 (or exact integer) accumulation, one RNE rounding",
#endif
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
    .kernels = kernels,
};

KHOST_PLUGIN_DEFINE(reference_plugin)
