#include "launch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "khost/plugin.h"
#include "message.h"

/* Triton 3 kernels take a global and a profile scratch pointer after their own
 * parameters; variants needing either are refused at build time, so both are NULL. */
#define SCRATCH_ARGS    2
#define MAX_ARGS        16
#define WORKSPACE_ALIGN 16
/* Above this a kernel must opt in to more dynamic shared memory. */
#define DEFAULT_SHARED_LIMIT (48 * 1024)

/* What a variant's module is loaded as, in the context it was loaded in. */
typedef struct loaded {
  CUcontext ctx;
  CUmodule module;
  CUfunction fn;
} loaded;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static loaded *cache; /* khost__triton_nvariants entries, allocated on first use */
/* The device facts, asked once per context: they sit on every GEMV launch. */
static CUcontext facts_ctx;
static khost__triton_device facts;

static int current_context(const khost__cu *cu, CUcontext *ctx, char *err, size_t err_size)
{
  CUresult rc = cu->CtxGetCurrent(ctx);
  if (rc != CUDA_SUCCESS) return KHOST__CU_FAIL(cu, rc, err, err_size);
  if (!*ctx)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_DEVICE_ERROR,
                                "%s:%d: no current CUDA context on the calling thread",
                                khost__triton_basename(__FILE__), __LINE__);
  return KHOST_STATUS_OK;
}

static int load_module(const khost__cu *cu, const khost__triton_variant *v, CUcontext ctx, loaded *slot,
                       char *err, size_t err_size)
{
  loaded fresh = {ctx, NULL, NULL};
  CUresult rc = cu->ModuleLoadData(&fresh.module, v->cubin);
  if (rc == CUDA_SUCCESS) rc = cu->ModuleGetFunction(&fresh.fn, fresh.module, v->kernel);
  if (rc == CUDA_SUCCESS && v->shared_bytes > DEFAULT_SHARED_LIMIT)
    rc = cu->FuncSetAttribute(fresh.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v->shared_bytes);
  if (rc != CUDA_SUCCESS) {
    int status = KHOST__CU_FAIL(cu, rc, err, err_size);
    if (fresh.module) cu->ModuleUnload(fresh.module);
    return status;
  }
  /* A module of another context is left to that context, which frees it when it
   * is destroyed; unloading it would need that context made current here. */
  *slot = fresh;
  return KHOST_STATUS_OK;
}

static int function_of(const khost__cu *cu, const khost__triton_variant *v, CUfunction *fn, char *err,
                       size_t err_size)
{
  CUcontext ctx;
  int status = current_context(cu, &ctx, err, err_size);
  if (status != KHOST_STATUS_OK) return status;
  pthread_mutex_lock(&lock);
  if (!cache) cache = calloc((size_t)khost__triton_nvariants, sizeof *cache);
  if (!cache) {
    status = khost__triton_errorf(err, err_size, KHOST_STATUS_INTERNAL, "out of host memory");
    goto unlock;
  }
  loaded *slot = &cache[v - khost__triton_variants];
  if (slot->ctx != ctx || !slot->fn) status = load_module(cu, v, ctx, slot, err, err_size);
  if (status == KHOST_STATUS_OK) *fn = slot->fn;
unlock:
  pthread_mutex_unlock(&lock);
  return status;
}

int khost__triton_launch(const khost__triton_variant *v, const char *expected, void *const *args,
                         const unsigned int grid[3], void *stream, char *err, size_t err_size)
{
  size_t nargs = strlen(expected);
  if (strcmp(v->args, expected) != 0 || nargs > MAX_ARGS)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_INTERNAL,
                                "variant %s takes arguments \"%s\", its launcher passes \"%s\"", v->name,
                                v->args, expected);
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return KHOST_STATUS_OK;
  if (v->cluster < 1 || grid[0] % (unsigned int)v->cluster != 0)
    return khost__triton_errorf(err, err_size, KHOST_STATUS_INTERNAL,
                                "variant %s: a grid of %u programs is not made of clusters of %d", v->name,
                                grid[0], (int)v->cluster);
  const khost__cu *cu;
  CUfunction fn = NULL;
  int status = khost__cu_open(&cu, err, err_size);
  if (status == KHOST_STATUS_OK) status = function_of(cu, v, &fn, err, err_size);
  if (status != KHOST_STATUS_OK) return status;
  CUdeviceptr scratch[SCRATCH_ARGS] = {0, 0};
  void *params[MAX_ARGS + SCRATCH_ARGS];
  memcpy(params, args, nargs * sizeof *params);
  for (size_t i = 0; i < SCRATCH_ARGS; i++) params[nargs + i] = &scratch[i];
  CUlaunchAttribute cluster = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
  cluster.value.clusterDim.x = (unsigned int)v->cluster;
  cluster.value.clusterDim.y = 1;
  cluster.value.clusterDim.z = 1;
  CUlaunchConfig config = {
      .gridDimX = grid[0],
      .gridDimY = grid[1],
      .gridDimZ = grid[2],
      .blockDimX = (unsigned int)v->num_warps * 32,
      .blockDimY = 1,
      .blockDimZ = 1,
      .sharedMemBytes = (unsigned int)v->shared_bytes,
      .hStream = (CUstream)stream,
      .attrs = &cluster,
      .numAttrs = v->cluster > 1, /* without the attribute, no cluster: the plain launch */
  };
  CUresult rc = cu->LaunchKernelEx(&config, fn, params, NULL);
  return rc == CUDA_SUCCESS ? KHOST_STATUS_OK : KHOST__CU_FAIL(cu, rc, err, err_size);
}

int khost__triton_check_workspace(const khost_input *in, const khost__triton_variant *v, size_t bytes)
{
  if (bytes && (!in->workspace || in->workspace_bytes < bytes))
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "variant %s needs %zu bytes of workspace, the call has %zu", v->name, bytes,
                                in->workspace ? in->workspace_bytes : 0);
  /* The kernels were compiled on the promise of a 16-byte aligned scratch pointer. */
  if (bytes && (uintptr_t)in->workspace % WORKSPACE_ALIGN != 0)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "variant %s needs a %d-byte aligned workspace", v->name, WORKSPACE_ALIGN);
  return KHOST_STATUS_OK;
}

static CUresult read_facts(const khost__cu *cu, khost__triton_device *out)
{
  CUdevice device;
  CUresult rc = cu->CtxGetDevice(&device);
  if (rc == CUDA_SUCCESS)
    rc = cu->DeviceGetAttribute(&out->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  return rc;
}

int khost__triton_device_facts(khost__triton_device *out, char *err, size_t err_size)
{
  const khost__cu *cu;
  CUcontext ctx;
  int status = khost__cu_open(&cu, err, err_size);
  if (status == KHOST_STATUS_OK) status = current_context(cu, &ctx, err, err_size);
  if (status != KHOST_STATUS_OK) return status;
  pthread_mutex_lock(&lock);
  CUresult rc = CUDA_SUCCESS;
  if (facts_ctx != ctx) {
    rc = read_facts(cu, &facts);
    facts_ctx = rc == CUDA_SUCCESS ? ctx : NULL;
  }
  *out = facts;
  pthread_mutex_unlock(&lock);
  return rc == CUDA_SUCCESS ? KHOST_STATUS_OK : KHOST__CU_FAIL(cu, rc, err, err_size);
}

int khost__triton_select_on_device(const khost__triton_rule *rule, khost__triton_shape *s, int ask_device,
                                   const khost__triton_variant **out, char *err, size_t err_size)
{
  int status = ask_device ? khost__triton_device_facts(&s->device, err, err_size) : KHOST_STATUS_OK;
  return status == KHOST_STATUS_OK ? khost__triton_select(rule, s, out, err, err_size) : status;
}

void khost__triton_release(void)
{
  const khost__cu *cu;
  CUcontext ctx = NULL;
  pthread_mutex_lock(&lock);
  if (cache && khost__cu_open(&cu, NULL, 0) == KHOST_STATUS_OK && cu->CtxGetCurrent(&ctx) == CUDA_SUCCESS) {
    for (int i = 0; i < khost__triton_nvariants; i++)
      if (cache[i].module && cache[i].ctx == ctx) cu->ModuleUnload(cache[i].module);
  }
  free(cache);
  cache = NULL;
  facts_ctx = NULL;
  pthread_mutex_unlock(&lock);
  khost__cu_close();
}
