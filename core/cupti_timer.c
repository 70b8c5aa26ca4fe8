/* CUPTI through dlopen: the header's types, the library's functions found at
 * run time (cupti.h says why). */
#include "cupti_timer.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cupti.h>

#include "cupti_span.h"

#define BUFFER_BYTES ((size_t)4 << 20)
#define RECORD_ALIGN 8

/* The functions khost calls, as libcupti exports them. */
static struct {
  void *library;
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*result_string)(CUptiResult, const char **);
} api;

/* The records delivered since the last drop. CUPTI may deliver a full buffer
 * from a thread of its own, hence the lock. */
static struct {
  pthread_mutex_t lock;
  khost__cupti_interval *v;
  int n, capacity, lost; /* lost: records that did not fit (out of memory) */
  int started;
} records = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                           CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

static int resolve(void *lib, char *why, size_t n)
{
  struct {
    void **slot;
    const char *name;
  } symbols[] = {
      {(void **)&api.enable, "cuptiActivityEnable"},
      {(void **)&api.disable, "cuptiActivityDisable"},
      {(void **)&api.register_callbacks, "cuptiActivityRegisterCallbacks"},
      {(void **)&api.flush_all, "cuptiActivityFlushAll"},
      {(void **)&api.next_record, "cuptiActivityGetNextRecord"},
      {(void **)&api.result_string, "cuptiGetResultString"},
  };
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (!(*symbols[i].slot = dlsym(lib, symbols[i].name))) {
      snprintf(why, n, "libcupti lacks %s", symbols[i].name);
      return 0;
    }
  return 1;
}

/* The library the header was made for: the soname carries the toolkit's major version. */
static void *open_library(char *why, size_t n)
{
  const char *chosen = getenv("KHOST_CUPTI_LIBRARY");
  char names[3][128];
  int major = CUDART_VERSION / 1000;
  snprintf(names[0], sizeof names[0], "libcupti.so.%d", major);
  snprintf(names[1], sizeof names[1], "/usr/local/cuda/lib64/libcupti.so.%d", major);
  snprintf(names[2], sizeof names[2], "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.%d", major);
  void *lib = NULL;
  for (int i = 0; !lib && i < (chosen && *chosen ? 1 : 3); i++)
    lib = dlopen(chosen && *chosen ? chosen : names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib && chosen && *chosen)
    snprintf(why, n, "cannot open CUPTI ($KHOST_CUPTI_LIBRARY=%.200s): %.300s", chosen, dlerror());
  else if (!lib)
    snprintf(why, n,
             "cannot open CUPTI: %s was not found through the loader's path, /usr/local/cuda/lib64 or "
             "/usr/local/cuda/extras/CUPTI/lib64 (set KHOST_CUPTI_LIBRARY to its file)",
             names[0]);
  return lib;
}

int khost__cupti_loadable(char *why, size_t n)
{
  if (api.library) return 1;
  void *lib = open_library(why, n);
  if (!lib) return 0;
  if (!resolve(lib, why, n)) {
    dlclose(lib);
    memset(&api, 0, sizeof api);
    return 0;
  }
  api.library = lib;
  return 1;
}

static int cupti_status(CUptiResult r, const char *expr, const char *file, int line, khost__err *err)
{
  const char *text = "unknown CUPTI error";
  if (r == CUPTI_SUCCESS) return KHOST__OK;
  api.result_string(r, &text);
  return khost__errorf(err, KHOST__E_CUDA, "%s:%d: %s: %s", file, line, expr, text);
}

/* Every CUPTI call goes through this, so a failure names its place and call. */
#define CUPTI_CALL(err, expr) cupti_status((expr), #expr, __FILE__, __LINE__, (err))

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
  *buffer = aligned_alloc(RECORD_ALIGN, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0;
}

static void keep(uint64_t start, uint64_t end, int is_stamp)
{
  if (records.n == records.capacity) {
    int capacity = records.capacity ? 2 * records.capacity : 256;
    khost__cupti_interval *grown = realloc(records.v, (size_t)capacity * sizeof *grown);
    if (!grown) {
      records.lost++;
      return;
    }
    records.v = grown;
    records.capacity = capacity;
  }
  records.v[records.n++] = (khost__cupti_interval){start, end, is_stamp};
}

static void take_record(const CUpti_Activity *r)
{
  if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
    keep(k->start, k->end, k->name && strcmp(k->name, KHOST__CUPTI_STAMP_KERNEL) == 0);
  } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)r;
    keep(c->start, c->end, 0);
  } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
    const CUpti_ActivityMemcpyPtoP4 *c = (const CUpti_ActivityMemcpyPtoP4 *)r;
    keep(c->start, c->end, 0);
  } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
    keep(m->start, m->end, 0);
  }
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
  CUpti_Activity *r = NULL;
  pthread_mutex_lock(&records.lock);
  while (api.next_record(buffer, valid, &r) == CUPTI_SUCCESS) take_record(r);
  pthread_mutex_unlock(&records.lock);
  free(buffer);
}

int khost__cupti_start(khost__err *err)
{
  char why[512];
  if (!khost__cupti_loadable(why, sizeof why)) return khost__errorf(err, KHOST__E_CUDA, "%s", why);
  int rc = CUPTI_CALL(err, api.register_callbacks(buffer_requested, buffer_completed));
  for (int i = 0; i < NKINDS && rc == KHOST__OK; i++) rc = CUPTI_CALL(err, api.enable(kinds[i]));
  records.started = rc == KHOST__OK;
  return rc;
}

static void clear(void)
{
  pthread_mutex_lock(&records.lock);
  records.n = 0;
  records.lost = 0;
  pthread_mutex_unlock(&records.lock);
}

void khost__cupti_stop(void)
{
  if (!records.started) return;
  for (int i = 0; i < NKINDS; i++) api.disable(kinds[i]);
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  clear();
  free(records.v);
  records.v = NULL;
  records.capacity = 0;
  records.started = 0;
}

/* Forced: the buffer in use is delivered too, not only full ones. */
static int flush(khost__err *err)
{
  return CUPTI_CALL(err, api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
}

int khost__cupti_drop(khost__err *err)
{
  int rc = flush(err);
  clear();
  return rc;
}

int khost__cupti_sample_span(double *seconds, khost__err *err)
{
  *seconds = 0;
  int rc = flush(err);
  pthread_mutex_lock(&records.lock);
  if (rc == KHOST__OK && records.lost)
    rc = khost__errorf(err, KHOST__E_NOMEM, "out of memory keeping %d CUPTI records", records.lost);
  if (rc == KHOST__OK) rc = khost__cupti_span(records.v, records.n, seconds, err);
  records.n = 0;
  records.lost = 0;
  pthread_mutex_unlock(&records.lock);
  return rc;
}
