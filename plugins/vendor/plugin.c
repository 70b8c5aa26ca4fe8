/* The vendor plugin's descriptor: the libraries a user would call instead of
 * writing a kernel (docs/VENDOR.md). Its description says which CUB it was built
 * with and where cuBLASLt is looked for. */
#include <stdio.h>

#include "cublaslt.h"
#include "kv_batch.h"
#include "vendor.h"

/* kernels, generated from the op list (meson.build). */
#include "kernel_table.h"

/* Filled by the entry function, before the host reads the descriptor. */
static char description[256];

static void fini(void)
{
  khost__cublaslt_close();
  khost__vendor_kv_release();
}

static const khost_plugin vendor_plugin = {
    .magic = KHOST_PLUGIN_MAGIC,
    .abi_major = KHOST_ABI_MAJOR,
    .abi_minor = KHOST_ABI_MINOR,
    .struct_size = sizeof(khost_plugin),
    .name = "vendor",
    .version = "0.1.0",
    .language = "cuda",
    .description = description,
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
    .kernels = kernels,
    .fini = fini,
};

/* "CUB 3.0.1; cuBLASLt ..." (CUB_VERSION is MMMmmmpp). cuBLASLt is not opened
 * here: mapping it costs tens of milliseconds, paid by every khost run that loads
 * the plugin, most of which never call it; the fp8 rows' variants name the version found. */
static void describe_libraries(void)
{
  int cub = khost__vendor_cub_version;
  snprintf(description, sizeof description,
           "CUB %d.%d.%d; cuBLASLt (libcublasLt.so.13) opened at the first fp8_block_gemm case", cub / 100000,
           cub / 100 % 1000, cub % 100);
}

KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t host_major, uint32_t host_minor)
{
  if (host_major != KHOST_ABI_MAJOR) return NULL;
  khost__vendor_kv_set_host_minor(host_minor);
  if (!description[0]) describe_libraries();
  return &vendor_plugin;
}
