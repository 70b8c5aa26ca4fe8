/* The triton_aot plugin: Triton kernels compiled ahead of time into sm_90a cubins
 * (tools/triton_aot.py), launched through the CUDA driver API, which is loaded at
 * first use so that the plugin loads on machines without a driver. */
#include "launch.h"
#include "triton_aot.h"

#ifndef KHOST_TRITON_AOT_VERSION
#define KHOST_TRITON_AOT_VERSION "0"
#endif

static const khost_kernel *const kernels[] = {
    &khost__triton_nvfp4_gemv,
    &khost__triton_copy_transpose,
    &khost__triton_reduce_sum,
    &khost__triton_softmax_online,
};

static const khost_plugin descriptor = {
    .magic = KHOST_PLUGIN_MAGIC,
    .abi_major = KHOST_ABI_MAJOR,
    .abi_minor = KHOST_ABI_MINOR,
    .struct_size = sizeof(khost_plugin),
    .name = "triton_aot",
    .version = KHOST_TRITON_AOT_VERSION,
    .language = "triton",
    .description = "Triton 3 kernels compiled ahead of time for sm_90a, launched via the driver API",
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
    .kernels = kernels,
    .fini = khost__triton_release,
};

KHOST_PLUGIN_DEFINE(descriptor)
