/* The triton_aot plugin: Triton kernels compiled ahead of time into sm_90a cubins
 * (tools/triton_aot.py), launched through the CUDA driver API, which is loaded at
 * first use so that the plugin loads on machines without a driver. */
#include "khost/plugin.h"
#include "launch.h"

#ifndef KHOST_TRITON_AOT_VERSION
#define KHOST_TRITON_AOT_VERSION "0"
#endif

/* kernels: khost__triton_<op> of each <op>.c, in the order of the op list; generated
 * (meson.build), the only declaration of each. */
#include "kernel_table.h"

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
