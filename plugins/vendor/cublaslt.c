/* The vendor plugin's cuBLASLt handle and messages (cublaslt.h). */
#include "cublaslt.h"

#include "input_checks.h"

static struct {
  cublasLtHandle_t handle;
  void (*releases[4])(void);
  int nreleases;
} lib;

int khost__cublaslt_fail(const khost_input *in, int status, const char *what, cublasStatus_t cublas)
{
  const khost__cublaslt *api = khost__cublaslt_open();
  const char *name = api ? api->status_name(cublas) : NULL;
  return khost__input_fail(in, status, "%s: %s (%d)", what, name ? name : "cuBLAS status", (int)cublas);
}

int khost__cublaslt_handle(const khost_input *in, cublasLtHandle_t *handle)
{
  const khost__cublaslt *api = khost__cublaslt_open();
  if (!api) return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "%s", khost__cublaslt_missing());
  if (!lib.handle) {
    cublasStatus_t status = api->create(&lib.handle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      lib.handle = NULL;
      return khost__cublaslt_fail(in, KHOST_STATUS_DEVICE_ERROR, "cublasLtCreate", status);
    }
  }
  *handle = lib.handle;
  return KHOST_STATUS_OK;
}

void khost__cublaslt_at_close(void (*release)(void))
{
  for (int i = 0; i < lib.nreleases; i++)
    if (lib.releases[i] == release) return;
  if (lib.nreleases < (int)(sizeof lib.releases / sizeof lib.releases[0]))
    lib.releases[lib.nreleases++] = release;
}

void khost__cublaslt_close(void)
{
  for (int i = 0; i < lib.nreleases; i++) lib.releases[i]();
  lib.nreleases = 0;
  if (lib.handle) khost__cublaslt_open()->destroy(lib.handle);
  lib.handle = NULL;
}
