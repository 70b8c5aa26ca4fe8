/* Lazy loading of the CUDA driver. The host's worker has already created the
 * primary context through the runtime API when a kernel runs; the plugin only
 * needs the driver's module and launch calls, resolved once per process. */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "khost/plugin.h"
#include "message.h"

/* The driver ABI version whose entry points we ask for: 12.0, the first with
 * cuGetProcAddress_v2, is what every driver able to run sm_90a code offers. */
#define DRIVER_API_VERSION 12000
#define LIBCUDA            "libcuda.so.1"

typedef CUresult (*get_proc_fn)(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                CUdriverProcAddressQueryResult *status);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static khost__cu table;
static int load_status = -1; /* -1 not tried, else the khost_status of the attempt */
static char load_error[512];

/* Name and slot of every entry point: resolving through one list keeps the table
 * and the lookups from drifting apart. */
#define ENTRY(name)                                                                                          \
  {                                                                                                          \
    "cu" #name, (void **)&table.name                                                                         \
  }
static const struct {
  const char *symbol;
  void **slot;
} entries[] = {
    ENTRY(Init),           ENTRY(CtxGetCurrent), ENTRY(CtxGetDevice),      ENTRY(DeviceGetAttribute),
    ENTRY(ModuleLoadData), ENTRY(ModuleUnload),  ENTRY(ModuleGetFunction), ENTRY(FuncSetAttribute),
    ENTRY(LaunchKernelEx), ENTRY(GetErrorName),  ENTRY(GetErrorString),
};
#undef ENTRY

/* The table is not resolved yet when a lookup fails, so the code is named through
 * the library's exported symbol. */
static const char *code_name(CUresult rc)
{
  CUresult (*get_name)(CUresult, const char **) =
      (CUresult(*)(CUresult, const char **))dlsym(library, "cuGetErrorName");
  const char *name = NULL;
  return get_name && get_name(rc, &name) == CUDA_SUCCESS && name ? name : "unnamed";
}

static int resolve(get_proc_fn get_proc)
{
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc =
        get_proc(entries[i].symbol, entries[i].slot, DRIVER_API_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (rc != CUDA_SUCCESS)
      return khost__triton_errorf(load_error, sizeof load_error, KHOST_STATUS_DEVICE_ERROR,
                                  "%s:%d: %s: cuGetProcAddress(%s): %s (CUresult %d)",
                                  khost__triton_basename(__FILE__), __LINE__, LIBCUDA, entries[i].symbol,
                                  code_name(rc), (int)rc);
    if (found != CU_GET_PROC_ADDRESS_SUCCESS || !*entries[i].slot)
      return khost__triton_errorf(load_error, sizeof load_error, KHOST_STATUS_DEVICE_ERROR,
                                  "%s:%d: %s has no %s for CUDA %d (driver too old?)",
                                  khost__triton_basename(__FILE__), __LINE__, LIBCUDA, entries[i].symbol,
                                  DRIVER_API_VERSION);
  }
  return KHOST_STATUS_OK;
}

static int load(void)
{
  library = dlopen(LIBCUDA, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return khost__triton_errorf(load_error, sizeof load_error, KHOST_STATUS_DEVICE_ERROR,
                                "%s:%d: no CUDA driver: %s", khost__triton_basename(__FILE__), __LINE__,
                                dlerror());
  get_proc_fn get_proc = (get_proc_fn)dlsym(library, "cuGetProcAddress_v2");
  int status = get_proc ? resolve(get_proc)
                        : khost__triton_errorf(load_error, sizeof load_error, KHOST_STATUS_DEVICE_ERROR,
                                               "%s:%d: %s lacks cuGetProcAddress_v2 (driver older than 12.0)",
                                               khost__triton_basename(__FILE__), __LINE__, LIBCUDA);
  /* cuInit is idempotent; after the runtime has initialised it costs nothing, and
   * without it every later call would fail with a less telling error. */
  CUresult rc = status == KHOST_STATUS_OK ? table.Init(0) : CUDA_SUCCESS;
  if (rc != CUDA_SUCCESS) status = KHOST__CU_FAIL(&table, rc, load_error, sizeof load_error);
  if (status != KHOST_STATUS_OK) {
    dlclose(library);
    library = NULL;
    memset(&table, 0, sizeof table);
  }
  return status;
}

int khost__cu_open(const khost__cu **cu, char *err, size_t err_size)
{
  pthread_mutex_lock(&lock);
  if (load_status < 0) load_status = load();
  int status = load_status;
  pthread_mutex_unlock(&lock);
  if (status != KHOST_STATUS_OK) return khost__triton_errorf(err, err_size, status, "%s", load_error);
  *cu = &table;
  return KHOST_STATUS_OK;
}

void khost__cu_close(void)
{
  pthread_mutex_lock(&lock);
  if (library) dlclose(library);
  library = NULL;
  memset(&table, 0, sizeof table);
  load_status = -1;
  pthread_mutex_unlock(&lock);
}

int khost__cu_fail(const khost__cu *cu, CUresult rc, const char *file, int line, char *err, size_t err_size)
{
  const char *name = NULL;
  const char *text = NULL;
  if (cu->GetErrorName && cu->GetErrorName(rc, &name) != CUDA_SUCCESS) name = NULL;
  if (cu->GetErrorString && cu->GetErrorString(rc, &text) != CUDA_SUCCESS) text = NULL;
  return khost__triton_errorf(err, err_size, KHOST_STATUS_DEVICE_ERROR, "%s:%d: %s: %s",
                              khost__triton_basename(file), line, name ? name : "CUDA_ERROR_UNKNOWN_CODE",
                              text ? text : "no description");
}
