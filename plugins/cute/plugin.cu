/* The cute plugin's descriptor: CuTe (CUTLASS 4.2) kernels for Hopper sm_90a,
 * one file per op. The CUDA runtime is linked statically, so the module loads
 * (and this descriptor is returned) on a machine with no GPU or driver; the
 * first CUDA call happens inside a kernel's describe() (the GEMV's occupancy
 * query) or run(). */
#include "cute.h"

/* kernels, generated from the op list (meson.build); outside the anonymous
 * namespace, whose declarations would name other objects than the op files'. */
#include "kernel_table.h"

namespace {

const khost_plugin cute_plugin = {
    KHOST_PLUGIN_MAGIC,
    KHOST_ABI_MAJOR,
    KHOST_ABI_MINOR,
    sizeof(khost_plugin),
    "cute",
    "0.1.0",
    "cute",
    "CuTe C++ kernels for Hopper sm_90a: 16-byte vector loads, fp32 accumulation, one RNE rounding; "
    "fp8_block_gemm through CUTLASS's sm90 block-scaled FP8 GEMM",
    int32_t(sizeof kernels / sizeof kernels[0]),
    kernels,
    nullptr,
    nullptr,
};

} // namespace

KHOST_PLUGIN_DEFINE(cute_plugin)
