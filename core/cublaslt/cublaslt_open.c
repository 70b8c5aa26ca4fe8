/* cuBLASLt opened with dlopen (cublaslt_open.h). */
#include "cublaslt_open.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
  bool tried;
  bool found;
  khost__cublaslt api;
  char missing[200];
} lib;

/* The library: the file KHOST_VENDOR_CUBLASLT names, else the soname through the
 * loader's search, else the copy in the CUDA toolkit the plugin was built with
 * (where ld.so.conf does not list the toolkit). */
static void *open_library(void)
{
  const char *chosen = getenv("KHOST_VENDOR_CUBLASLT");
  if (chosen && *chosen) {
    void *handle = dlopen(chosen, RTLD_LAZY | RTLD_LOCAL);
    if (!handle)
      snprintf(lib.missing, sizeof lib.missing, KHOST__VENDOR_CUBLASLT_SONAME " not found: %s", dlerror());
    return handle;
  }
  void *handle = dlopen(KHOST__VENDOR_CUBLASLT_SONAME, RTLD_LAZY | RTLD_LOCAL);
  if (handle) return handle;
  snprintf(lib.missing, sizeof lib.missing, KHOST__VENDOR_CUBLASLT_SONAME " not found: %s", dlerror());
  return dlopen(KHOST_VENDOR_CUDA_LIBDIR "/" KHOST__VENDOR_CUBLASLT_SONAME, RTLD_LAZY | RTLD_LOCAL);
}

/* Resolves one entry point into *slot; false (with the reason) when it is missing. */
static bool resolve(void *handle, const char *name, void **slot)
{
  *slot = dlsym(handle, name);
  if (!*slot) snprintf(lib.missing, sizeof lib.missing, "%s has no %s", KHOST__VENDOR_CUBLASLT_SONAME, name);
  return *slot != NULL;
}

static bool resolve_all(void *handle)
{
  khost__cublaslt *a = &lib.api;
  const struct {
    const char *name;
    void **slot;
  } symbols[] = {
      {"cublasLtGetVersion", (void **)&a->get_version},
      {"cublasLtGetStatusName", (void **)&a->status_name},
      {"cublasLtCreate", (void **)&a->create},
      {"cublasLtDestroy", (void **)&a->destroy},
      {"cublasLtMatmulDescCreate", (void **)&a->desc_create},
      {"cublasLtMatmulDescDestroy", (void **)&a->desc_destroy},
      {"cublasLtMatmulDescSetAttribute", (void **)&a->desc_set},
      {"cublasLtMatrixLayoutCreate", (void **)&a->layout_create},
      {"cublasLtMatrixLayoutDestroy", (void **)&a->layout_destroy},
      {"cublasLtMatmulPreferenceCreate", (void **)&a->preference_create},
      {"cublasLtMatmulPreferenceDestroy", (void **)&a->preference_destroy},
      {"cublasLtMatmulPreferenceSetAttribute", (void **)&a->preference_set},
      {"cublasLtMatmulAlgoGetHeuristic", (void **)&a->heuristic},
      {"cublasLtMatmulAlgoConfigGetAttribute", (void **)&a->algo_get},
      {"cublasLtMatmul", (void **)&a->matmul},
  };
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (!resolve(handle, symbols[i].name, symbols[i].slot)) return false;
  return true;
}

const khost__cublaslt *khost__cublaslt_open(void)
{
  if (lib.tried) return lib.found ? &lib.api : NULL;
  lib.tried = true;
  void *handle = open_library();
  if (!handle) return NULL;
  lib.found = resolve_all(handle);
  if (lib.found) lib.missing[0] = '\0';
  /* A library without every entry point stays mapped: unloading one that ran its
   * constructors gains nothing, and nothing calls into it. */
  return lib.found ? &lib.api : NULL;
}

const char *khost__cublaslt_missing(void)
{
  return lib.missing;
}
