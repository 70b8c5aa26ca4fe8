/* The CUDA runtime is linked statically and opens libcuda.so.1 only on first
 * use, so a binary built here starts, and reports the reason, where no driver
 * is installed. */
#include "cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench.h"
#include "cuda_kernels.h"
#include "khost/plugin.h"

/* How long the blocker holds the stream while the host queues a sample's calls. */
#define BLOCKER_TIMEOUT_NS 1000000000ull
/* The flush reads max(2x L2, this): a device that reports a small or zero L2
 * must still have its cache evicted. */
#define FLUSH_MIN_BYTES ((size_t)128 << 20)
#define COPY_MAX_BYTES  ((size_t)2 << 30)
#define COPY_SAMPLES    7
#define EMPTY_SAMPLES   21
#define MAX_SAMPLES     (COPY_SAMPLES > EMPTY_SAMPLES ? COPY_SAMPLES : EMPTY_SAMPLES)

struct khost__cuda_graph {
  cudaGraphExec_t exec;
  int calls;
};

static struct {
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush;
  size_t flush_bytes;
  volatile int *flags; /* host-mapped pinned memory: [0] release, [1] timed out */
  int *flags_device;   /* the same two ints as the blocker sees them */
  int blocking;        /* queue timed calls behind the blocker (off only for profilers) */
  /* Host-mapped pinned memory: [0], [1] stamped before the start event, [2],
   * [3] after the stop event, each %globaltimer ns then SM 0's clock64. */
  volatile unsigned long long *stamps;
  unsigned long long *stamps_device;
  int sm_count;
} state;

/* Queues one piece of timed work on the stream. */
typedef int (*enqueue_fn)(void *ctx, khost__err *err);

/* The errors after which, as the runtime documents, every later call fails too. */
static int is_sticky(cudaError_t e)
{
  static const cudaError_t sticky[] = {
      cudaErrorIllegalAddress,     cudaErrorLaunchFailure,
      cudaErrorLaunchTimeout,      cudaErrorAssert,
      cudaErrorHardwareStackError, cudaErrorIllegalInstruction,
      cudaErrorMisalignedAddress,  cudaErrorInvalidAddressSpace,
      cudaErrorInvalidPc,          cudaErrorTensorMemoryLeak,
      cudaErrorContained,          cudaErrorMpsClientTerminated,
      cudaErrorExternalDevice,
  };
  for (size_t i = 0; i < sizeof sticky / sizeof sticky[0]; i++)
    if (e == sticky[i]) return 1;
  return 0;
}

static int cuda_status(cudaError_t e, const char *expr, const char *file, int line, khost__err *err)
{
  if (e == cudaSuccess) return KHOST__OK;
  /* The runtime also keeps a failed call's error as its last error, which the
   * next capture would otherwise report again as the calls' fault. */
  if (!is_sticky(e)) (void)cudaGetLastError();
  int code = e == cudaErrorMemoryAllocation ? KHOST__E_NOMEM : KHOST__E_CUDA;
  const char *sticky = is_sticky(e) ? " (sticky error: this process can no longer use CUDA)" : "";
  return khost__errorf(err, code, "%s:%d: %s: %s: %s%s", file, line, expr, cudaGetErrorName(e),
                       cudaGetErrorString(e), sticky);
}

/* Every runtime call goes through this, so a failure names its place and call. */
#define CUDA_CALL(err, expr) cuda_status((expr), #expr, __FILE__, __LINE__, (err))

int khost__cuda_device_count(char *why, size_t n)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(why, n, "no CUDA device: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
  }
  if (count == 0) snprintf(why, n, "no CUDA device");
  return count;
}

/* The form nvidia-smi -L and CUDA_VISIBLE_DEVICES use: GPU-8-4-4-4-12 hex digits. */
static void format_uuid(const cudaUUID_t *u, char *out, size_t n)
{
  const unsigned char *b = (const unsigned char *)u->bytes;
  snprintf(out, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int khost__cuda_available(int ordinal, char *why, size_t n)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(why, n, "no CUDA device: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
  }
  if (ordinal < 0 || ordinal >= count) {
    snprintf(why, n, "no CUDA device %d: %d device(s) visible", ordinal, count);
    return 0;
  }
  /* Asking for the blocker's attributes loads the fat binary: a device other
   * than sm_90a fails here rather than at the first timed sample. */
  if ((e = cudaSetDevice(ordinal)) == cudaSuccess) e = khost__kernels_loadable();
  if (e != cudaSuccess) {
    snprintf(why, n, "CUDA device %d cannot run khost's sm_90a kernels: %s: %s", ordinal, cudaGetErrorName(e),
             cudaGetErrorString(e));
    return 0;
  }
  return 1;
}

static int read_info(int ordinal, khost__device_info *info, khost__err *err)
{
  struct {
    enum cudaDeviceAttr attr;
    int *value;
  } ints[] = {
      {cudaDevAttrComputeCapabilityMajor, &info->cc_major},
      {cudaDevAttrComputeCapabilityMinor, &info->cc_minor},
      {cudaDevAttrMultiProcessorCount, &info->sm_count},
      {cudaDevAttrClockRate, &info->sm_clock_mhz},
      {cudaDevAttrMemoryClockRate, &info->mem_clock_mhz},
  };
  struct cudaDeviceProp prop;
  int l2 = 0, rc = CUDA_CALL(err, cudaGetDeviceProperties(&prop, ordinal));
  for (size_t i = 0; rc == KHOST__OK && i < sizeof ints / sizeof ints[0]; i++)
    rc = CUDA_CALL(err, cudaDeviceGetAttribute(ints[i].value, ints[i].attr, ordinal));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaDriverGetVersion(&info->driver_version));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaRuntimeGetVersion(&info->runtime_version));
  if (rc != KHOST__OK) return rc;
  snprintf(info->name, sizeof info->name, "%.*s", (int)sizeof info->name - 1, prop.name);
  info->ordinal = ordinal;
  info->sm_clock_mhz /= 1000; /* the attributes are in kHz */
  info->mem_clock_mhz /= 1000;
  info->l2_bytes = (size_t)l2;
  info->global_mem_bytes = prop.totalGlobalMem;
  format_uuid(&prop.uuid, info->uuid, sizeof info->uuid);
  return KHOST__OK;
}

static int make_flush_buffer(size_t l2_bytes, khost__err *err)
{
  state.flush_bytes = 2 * l2_bytes > FLUSH_MIN_BYTES ? 2 * l2_bytes : FLUSH_MIN_BYTES;
  int rc = CUDA_CALL(err, cudaMalloc(&state.flush, state.flush_bytes));
  /* Defined contents, so the scrub never reads uninitialised memory. */
  if (rc == KHOST__OK)
    rc = CUDA_CALL(err, cudaMemsetAsync(state.flush, 0x5a, state.flush_bytes, state.stream));
  return rc;
}

/* Pinned host memory that kernels read and write directly: *host for the host
 * (freed by khost__cuda_shutdown), *device for kernels. */
static int map_pinned(size_t bytes, void **host, void **device, khost__err *err)
{
  int rc = CUDA_CALL(err, cudaHostAlloc(host, bytes, cudaHostAllocMapped));
  return rc != KHOST__OK ? rc : CUDA_CALL(err, cudaHostGetDevicePointer(device, *host, 0));
}

static int make_mapped_words(khost__err *err)
{
  void *host = NULL, *device = NULL;
  int rc = map_pinned(2 * sizeof(int), &host, &device, err);
  state.flags = host;
  state.flags_device = device;
  if (rc != KHOST__OK) return rc;
  host = device = NULL;
  rc = map_pinned(4 * sizeof(unsigned long long), &host, &device, err);
  state.stamps = host;
  state.stamps_device = device;
  return rc;
}

int khost__cuda_init(int ordinal, khost__device_info *info, khost__err *err)
{
  memset(info, 0, sizeof *info);
  state.blocking = 1;
  int rc = CUDA_CALL(err, cudaSetDevice(ordinal));
  if (rc == KHOST__OK) rc = read_info(ordinal, info, err);
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaStreamCreateWithFlags(&state.stream, cudaStreamNonBlocking));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaEventCreate(&state.start));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaEventCreate(&state.stop));
  if (rc == KHOST__OK) rc = make_flush_buffer(info->l2_bytes, err);
  if (rc == KHOST__OK) rc = make_mapped_words(err);
  state.sm_count = info->sm_count;
  if (rc != KHOST__OK) khost__cuda_shutdown();
  return rc;
}

void khost__cuda_shutdown(void)
{
  /* Errors are ignored: after a sticky error every call fails, and there is
   * nothing left to do with them. */
  if (state.stamps) cudaFreeHost((void *)state.stamps);
  if (state.flags) cudaFreeHost((void *)state.flags);
  if (state.flush) cudaFree(state.flush);
  if (state.stop) cudaEventDestroy(state.stop);
  if (state.start) cudaEventDestroy(state.start);
  if (state.stream) cudaStreamDestroy(state.stream);
  memset(&state, 0, sizeof state);
}

void *khost__cuda_stream(void)
{
  return state.stream;
}

int khost__cuda_malloc(void **ptr, size_t bytes, khost__err *err)
{
  *ptr = NULL;
  return CUDA_CALL(err, cudaMalloc(ptr, bytes));
}

void khost__cuda_free(void *ptr)
{
  cudaFree(ptr);
}

int khost__cuda_memory_free(size_t *bytes, khost__err *err)
{
  size_t total = 0;
  *bytes = 0;
  return CUDA_CALL(err, cudaMemGetInfo(bytes, &total));
}

/* On the stream, not the legacy default stream, which does not order against
 * a non-blocking stream's kernels. */
static int copy_and_wait(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, khost__err *err)
{
  int rc = CUDA_CALL(err, cudaMemcpyAsync(dst, src, bytes, kind, state.stream));
  return rc != KHOST__OK ? rc : CUDA_CALL(err, cudaStreamSynchronize(state.stream));
}

int khost__cuda_upload(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return copy_and_wait(dst, src, bytes, cudaMemcpyHostToDevice, err);
}

int khost__cuda_download(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return copy_and_wait(dst, src, bytes, cudaMemcpyDeviceToHost, err);
}

int khost__cuda_set_blocking(int on)
{
  int was = state.blocking;
  state.blocking = on;
  return was;
}

int khost__cuda_copy(void *dst, const void *src, size_t bytes, khost__err *err)
{
  return copy_and_wait(dst, src, bytes, cudaMemcpyDeviceToDevice, err);
}

int khost__cuda_memset(void *dst, int value, size_t bytes, khost__err *err)
{
  return CUDA_CALL(err, cudaMemsetAsync(dst, value, bytes, state.stream));
}

/* No cudaGetLastError here: khost's own launches return their errors, and a
 * plugin's launch errors stay in the plugin's own (static) runtime, out of
 * khost's reach; a kernel that faults shows at the synchronisation. */
int khost__cuda_sync(khost__err *err)
{
  return CUDA_CALL(err, cudaStreamSynchronize(state.stream));
}

int khost__cuda_sync_device(khost__err *err)
{
  return CUDA_CALL(err, cudaDeviceSynchronize());
}

static int flush_l2(khost__err *err)
{
  /* Reading, not writing, a buffer of 2x L2: the previous sample's data is
   * evicted, its dirty lines written back here rather than during the next timed
   * call, and L2 is left holding clean lines only. A memset flush (as nvbench and
   * the GPU MODE harness use) leaves up to a whole L2 of dirty lines whose
   * write-back then competes with the timed kernel's traffic. */
  return CUDA_CALL(
      err, khost__launch_scrub(state.stream, state.flush, state.flush_bytes, (unsigned *)state.flush));
}

static int stamp_clock(int second, khost__err *err)
{
  return CUDA_CALL(err,
                   khost__launch_clock_stamp(state.stream, state.sm_count, state.stamps_device + 2 * second));
}

/* SM 0's cycles per microsecond between the stamps; 0 when SM 0 ran no block
 * of one of them (a device partitioned by MPS, say). */
static double stamped_clock_mhz(void)
{
  volatile unsigned long long *s = state.stamps;
  if (!s[0] || !s[2] || s[2] <= s[0] || s[3] < s[1]) return 0;
  return (double)(s[3] - s[1]) / (double)(s[2] - s[0]) * 1e3;
}

/* One sample: (flush) -> blocker -> stamp -> start -> work -> stop -> stamp,
 * then the host releases the blocker, so the work runs back to back however
 * slowly the host queued it. The stamps lie outside the events: on an H200
 * they moved a cold 66 MB read by under 0.1% (docs/METHODOLOGY.md). */
static int timed_region(enqueue_fn enqueue, void *ctx, int cold, double *seconds, double *sm_mhz,
                        khost__err *err)
{
  float ms = 0;
  int rc = cold ? flush_l2(err) : KHOST__OK;
  *seconds = 0;
  *sm_mhz = 0;
  if (rc != KHOST__OK) return rc;
  state.flags[0] = 0;
  state.flags[1] = 0;
  for (int i = 0; i < 4; i++) state.stamps[i] = 0;
  if (state.blocking)
    rc = CUDA_CALL(err, khost__launch_blocker(state.stream, state.flags_device, state.flags_device + 1,
                                              BLOCKER_TIMEOUT_NS));
  if (rc != KHOST__OK) return rc;
  rc = stamp_clock(0, err);
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaEventRecord(state.start, state.stream));
  if (rc == KHOST__OK) rc = enqueue(ctx, err);
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaEventRecord(state.stop, state.stream));
  if (rc == KHOST__OK) rc = stamp_clock(1, err);
  /* Released on every path: a held stream would otherwise wait out the timeout. */
  state.flags[0] = 1;
  if (rc != KHOST__OK) {
    /* The first error is the one to report; waiting only makes sure the next
     * sample's reset of the flag cannot catch this blocker still spinning. */
    cudaStreamSynchronize(state.stream);
    return rc;
  }
  /* The stream, not the stop event: the second stamp comes after it. */
  rc = CUDA_CALL(err, cudaStreamSynchronize(state.stream));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaEventElapsedTime(&ms, state.start, state.stop));
  if (rc != KHOST__OK) return rc;
  if (state.flags[1])
    return khost__errorf(err, KHOST__E_DISCARDED,
                         "sample discarded: queueing it took longer than the %.1f s the blocking kernel "
                         "waits (too many calls for the launch queue?)",
                         BLOCKER_TIMEOUT_NS * 1e-9);
  *seconds = ms * 1e-3;
  *sm_mhz = stamped_clock_mhz();
  return KHOST__OK;
}

typedef struct call_batch {
  khost__cuda_call_fn call;
  void *arg;
  int first, calls, status;
} call_batch;

static int enqueue_calls(void *ctx, khost__err *err)
{
  call_batch *b = ctx;
  for (int j = 0; j < b->calls && b->status == KHOST_STATUS_OK; j++)
    b->status = b->call(b->arg, b->first + j);
  return KHOST__OK;
}

int khost__cuda_time(khost__cuda_call_fn call, void *arg, int first, int calls, int cold, double *seconds,
                     double *sm_mhz, int *kernel_status, khost__err *err)
{
  call_batch b = {call, arg, first, calls, KHOST_STATUS_OK};
  int rc = timed_region(enqueue_calls, &b, cold, seconds, sm_mhz, err);
  *kernel_status = b.status;
  if (b.status != KHOST_STATUS_OK || calls <= 0)
    *seconds = 0;
  else
    *seconds /= calls;
  return rc;
}

typedef struct device_copy {
  void *dst, *src;
  size_t bytes;
} device_copy;

static int enqueue_copy(void *ctx, khost__err *err)
{
  device_copy *c = ctx;
  return CUDA_CALL(err, cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, state.stream));
}

/* One untimed call (warm-up), then the median of n samples (n <= MAX_SAMPLES). A
 * discarded sample is taken again, as a timed call's is: one slow queueing of the
 * host must not cost the run its % of peak. */
static int median_sample(enqueue_fn enqueue, void *ctx, int cold, int n, double *median, khost__err *err)
{
  double s[MAX_SAMPLES], sm_mhz;
  *median = 0;
  int rc = enqueue(ctx, err);
  for (int i = 0; rc == KHOST__OK && i < n; i++)
    for (int attempt = 0; attempt < KHOST__CUDA_SAMPLE_TRIES; attempt++)
      if ((rc = timed_region(enqueue, ctx, cold, &s[i], &sm_mhz, err)) != KHOST__E_DISCARDED) break;
  if (rc == KHOST__OK) *median = khost__sorted_median(s, n);
  return rc;
}

int khost__cuda_measure_copy(double *gbps, khost__err *err)
{
  size_t free_bytes = 0, total_bytes = 0;
  device_copy c = {0};
  double median = 0;
  *gbps = 0;
  int rc = CUDA_CALL(err, cudaMemGetInfo(&free_bytes, &total_bytes));
  if (rc != KHOST__OK) return rc;
  /* Source and destination together take at most half of what is free. */
  c.bytes = free_bytes / 4 < COPY_MAX_BYTES ? free_bytes / 4 : COPY_MAX_BYTES;
  rc = CUDA_CALL(err, cudaMalloc(&c.dst, c.bytes));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaMalloc(&c.src, c.bytes));
  if (rc == KHOST__OK) rc = CUDA_CALL(err, cudaMemsetAsync(c.src, 0x5a, c.bytes, state.stream));
  if (rc == KHOST__OK) rc = median_sample(enqueue_copy, &c, 0, COPY_SAMPLES, &median, err);
  if (rc == KHOST__OK) *gbps = 2.0 * (double)c.bytes / median * 1e-9;
  cudaFree(c.src);
  cudaFree(c.dst);
  return rc;
}

static int enqueue_empty(void *ctx, khost__err *err)
{
  (void)ctx;
  return CUDA_CALL(err, khost__launch_empty(state.stream));
}

int khost__cuda_measure_empty_call(int cold, double *seconds, khost__err *err)
{
  return median_sample(enqueue_empty, NULL, cold, EMPTY_SAMPLES, seconds, err);
}

/* The runtime numbers its stream-capture errors 900..908. */
static int is_capture_error(cudaError_t e)
{
  return e >= cudaErrorStreamCaptureUnsupported && e <= cudaErrorStreamCaptureWrongThread;
}

/* ended: what cudaStreamEndCapture said; during: the capture error the calls
 * left as the runtime's last error, which says what the kernel did wrong. */
static int not_capturable(cudaError_t ended, cudaError_t during, khost__err *err)
{
  cudaError_t cause = during != cudaSuccess ? during : ended;
  return khost__errorf(err, KHOST__E_FAIL,
                       "kernel is not capturable in a CUDA graph (it synchronised, allocated, or used a "
                       "stream the capture forbids): %s: %s; ending the capture gave %s",
                       cudaGetErrorName(cause), cudaGetErrorString(cause), cudaGetErrorName(ended));
}

static int instantiate(cudaGraph_t g, int calls, khost__cuda_graph **graph, khost__err *err)
{
  khost__cuda_graph *out = calloc(1, sizeof *out);
  if (!out) return khost__errorf(err, KHOST__E_NOMEM, "out of memory for a CUDA graph");
  int rc = CUDA_CALL(err, cudaGraphInstantiate(&out->exec, g, 0));
  if (rc != KHOST__OK) {
    free(out);
    return rc;
  }
  out->calls = calls;
  *graph = out;
  return KHOST__OK;
}

/* Runs the calls inside a capture of the stream; *g gets what was captured,
 * or the status says why the calls cannot be captured. */
static int capture_calls(khost__cuda_call_fn call, void *arg, int calls, cudaGraph_t *g, int *kernel_status,
                         khost__err *err)
{
  /* An error that earlier work left behind is reported as such, not blamed on
   * the calls: after this, the last error is theirs. */
  int rc = CUDA_CALL(err, cudaGetLastError());
  if (rc != KHOST__OK) return rc;
  rc = CUDA_CALL(err, cudaStreamBeginCapture(state.stream, cudaStreamCaptureModeThreadLocal));
  if (rc != KHOST__OK) return rc;
  for (int j = 0; j < calls && *kernel_status == KHOST_STATUS_OK; j++) *kernel_status = call(arg, j);
  cudaError_t during = cudaPeekAtLastError();
  cudaError_t ended = cudaStreamEndCapture(state.stream, g);
  if (ended == cudaSuccess && !is_capture_error(during)) return KHOST__OK;
  /* Capture errors are not sticky; leave none behind for khost__cuda_sync. */
  cudaGetLastError();
  return not_capturable(ended, is_capture_error(during) ? during : cudaSuccess, err);
}

int khost__cuda_graph_capture(khost__cuda_call_fn call, void *arg, int calls, khost__cuda_graph **graph,
                              size_t *nodes, int *kernel_status, khost__err *err)
{
  cudaGraph_t g = NULL;
  *graph = NULL;
  *nodes = 0;
  *kernel_status = KHOST_STATUS_OK;
  int rc = capture_calls(call, arg, calls, &g, kernel_status, err);
  if (rc == KHOST__OK && *kernel_status == KHOST_STATUS_OK)
    rc = CUDA_CALL(err, cudaGraphGetNodes(g, NULL, nodes));
  if (rc == KHOST__OK && *nodes > 0) rc = instantiate(g, calls, graph, err);
  if (g) cudaGraphDestroy(g);
  return rc;
}

static int enqueue_graph(void *ctx, khost__err *err)
{
  khost__cuda_graph *graph = ctx;
  return CUDA_CALL(err, cudaGraphLaunch(graph->exec, state.stream));
}

int khost__cuda_graph_run(khost__cuda_graph *graph, khost__err *err)
{
  int rc = enqueue_graph(graph, err);
  return rc != KHOST__OK ? rc : CUDA_CALL(err, cudaStreamSynchronize(state.stream));
}

int khost__cuda_graph_time(khost__cuda_graph *graph, int cold, double *seconds, double *sm_mhz,
                           khost__err *err)
{
  int rc = timed_region(enqueue_graph, graph, cold, seconds, sm_mhz, err);
  *seconds /= graph->calls;
  return rc;
}

void khost__cuda_graph_free(khost__cuda_graph *graph)
{
  if (!graph) return;
  cudaGraphExecDestroy(graph->exec);
  free(graph);
}
