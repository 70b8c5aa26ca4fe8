/* The vendor plugin's descriptor: the libraries a user would call instead of
 * writing a kernel (docs/VENDOR.md). Its description says which cuBLASLt the
 * process found and which CUB it was built with, so --list answers both. */
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

/* "CUB 3.0.1; cuBLASLt 13.1.0 (path)" or "CUB 3.0.1; libcublasLt.so.13 not found: ..."
 * (CUB_VERSION is MMMmmmpp, cublasLtGetVersion() MMmmpp). */
static void describe_libraries(void)
{
  int cub = khost__vendor_cub_version;
  int used =
      snprintf(description, sizeof description, "CUB %d.%d.%d; ", cub / 100000, cub / 100 % 1000, cub % 100);
  const khost__cublaslt *api = khost__cublaslt_open();
  if (api) {
    size_t v = api->get_version();
    snprintf(description + used, sizeof description - (size_t)used, "cuBLASLt %zu.%zu.%zu (%s)", v / 10000,
             v / 100 % 100, v % 100, khost__cublaslt_path());
  } else {
    snprintf(description + used, sizeof description - (size_t)used, "%s", khost__cublaslt_missing());
  }
}

/* KHOST_PLUGIN_DEFINE's entry, which also opens cuBLASLt (once, without the GPU)
 * so that the description names what was found. */
KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t host_major, uint32_t host_minor)
{
  (void)host_minor;
  if (host_major != KHOST_ABI_MAJOR) return NULL;
  if (!description[0]) describe_libraries();
  return &vendor_plugin;
}
