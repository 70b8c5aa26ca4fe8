/* Everything khost does with the CUDA runtime, in one place (core/cuda.c; a
 * build without CUDA gets core/cuda_none.c, whose functions report "built
 * without CUDA"). Only worker processes call these: the parent never touches
 * CUDA, so that fork() stays safe. All functions return 0 or a khost status
 * with "file:line: expression: cudaErrorName: message" in err. One device and
 * one stream per process, owned by this module between khost__cuda_init and
 * khost__cuda_shutdown. */
#ifndef KHOST_CUDA_H
#define KHOST_CUDA_H

#include <stddef.h>

#include "error.h"

/* The timing functions return KHOST__E_DISCARDED when the launch-blocking kernel
 * stopped waiting (queueing the calls took longer than its 1 s timeout, e.g.
 * because they filled the launch queue): the sample is invalid and *seconds is 0,
 * but the device is fine; retry with fewer calls. The tries a sample gets before
 * a discarded one is an error (timed calls and the device measurements alike): */
#define KHOST__CUDA_SAMPLE_TRIES 3

/* What khost reports about the device. Plain value. */
typedef struct khost__device_info {
  char name[128];
  int ordinal, cc_major, cc_minor, sm_count;
  int sm_clock_mhz, mem_clock_mhz; /* peak clocks; each sample measures the SM clock it ran at */
  size_t l2_bytes, global_mem_bytes;
  double peak_gbps; /* measured device-to-device copy, bytes read + written; 0 until measured */
  int driver_version, runtime_version; /* CUDA versions, 1000 * major + 10 * minor (13000 is 13.0) */
  double empty_call_s; /* khost__cuda_measure_empty_call in the run's timing mode; 0 when not measured */
  char uuid[48];       /* "GPU-" and the 16 bytes of cudaDeviceProp.uuid, as nvidia-smi -L prints it */
} khost__device_info;

/* 1 when device `ordinal` exists and can be used; else 0 with the reason in why
 * ("no CUDA device: cudaErrorNoDevice ...", "built without CUDA"). */
int khost__cuda_available(int ordinal, char *why, size_t n);

/* How many CUDA devices are visible (cudaGetDeviceCount), 0 with the reason in
 * why when none is (no driver, no device, built without CUDA). Initialises the
 * CUDA runtime: call it in a child process only, never in khost's parent. */
int khost__cuda_device_count(char *why, size_t n);

/* Selects the device, creates the stream, the L2 flush buffer (>= 2x L2) and the
 * launch-blocking machinery; fills info (without peak_gbps). */
int khost__cuda_init(int ordinal, khost__device_info *info, khost__err *err);
/* Releases everything khost__cuda_init made. Safe to call when init failed. */
void khost__cuda_shutdown(void);

/* The stream every CUDA kernel gets (a cudaStream_t). Owned by this module. */
void *khost__cuda_stream(void);

/* Device memory. Upload and download wait for the copy; memset is queued on the
 * stream, so it is ordered before the kernels and copies that follow it. */
int khost__cuda_malloc(void **ptr, size_t bytes, khost__err *err);
/* The device's free memory in bytes (cudaMemGetInfo), to check an allocation
 * against before making it. */
int khost__cuda_memory_free(size_t *bytes, khost__err *err);
/* Frees memory from khost__cuda_malloc (NULL is a no-op); an error here could
 * only repeat one the next synchronisation reports. */
void khost__cuda_free(void *ptr);
int khost__cuda_upload(void *dst, const void *src, size_t bytes, khost__err *err);
int khost__cuda_download(void *dst, const void *src, size_t bytes, khost__err *err);
int khost__cuda_copy(void *dst, const void *src, size_t bytes, khost__err *err); /* device to device */
int khost__cuda_memset(void *dst, int value, size_t bytes, khost__err *err);

/* Waits for the stream and reports any error a kernel left behind (sticky errors
 * such as an illegal address make the process unusable; the caller then exits). */
int khost__cuda_sync(khost__err *err);

/* Waits for every stream of the device, also those a kernel was not given. */
int khost__cuda_sync_device(khost__err *err);

/* Times one large device-to-device copy (min(2 GiB, free memory/4)), median of a few,
 * counting bytes read plus written. */
int khost__cuda_measure_copy(double *gbps, khost__err *err);

/* The median time of an empty kernel timed as one sample is (cold: L2 flushed
 * first): the launch and event overhead inside every timed call. */
int khost__cuda_measure_empty_call(int cold, double *seconds, khost__err *err);

/* On by default after init: timed calls wait behind the blocking kernel. Off
 * (--no-blocking-kernel) only for profilers such as ncu, which serialise
 * launches and would stall behind it; launch gaps are then timed too. */
int khost__cuda_set_blocking(int on); /* returns the setting it replaces */

/* Work to time: call(arg, i) for i = 0.. enqueues one kernel call on the stream
 * and returns its khost_status. */
typedef int (*khost__cuda_call_fn)(void *arg, int i);

/* One timed sample of `calls` back-to-back calls (call(arg, first+j)), divided
 * by calls. cold: L2 is flushed before the timed region. The calls are queued
 * behind a kernel that holds the stream until they are all enqueued, so launch
 * gaps are not timed. *sm_mhz gets the SM clock over the timed region (SM 0's
 * cycle counter against the GPU's nanosecond timer, read by a tiny kernel just
 * before the start event and just after the stop event), 0 when unknown.
 * *kernel_status gets the first non-OK call status. */
int khost__cuda_time(khost__cuda_call_fn call, void *arg, int first, int calls, int cold, double *seconds,
                     double *sm_mhz, int *kernel_status, khost__err *err);

/* A captured CUDA graph of `calls` calls (call(arg, j), j < calls). Opaque. */
typedef struct khost__cuda_graph khost__cuda_graph;

/* Captures the calls on the stream in thread-local capture mode. *nodes gets the
 * graph's node count: 0 after a successful call means the kernel put its work on
 * another stream (or did none). *kernel_status as above. *graph (freed with
 * khost__cuda_graph_free) stays NULL when there are no nodes or a call failed;
 * a kernel that breaks the capture (synchronises, allocates) is an error. */
int khost__cuda_graph_capture(khost__cuda_call_fn call, void *arg, int calls, khost__cuda_graph **graph,
                              size_t *nodes, int *kernel_status, khost__err *err);
/* Launches the graph once on the stream and waits for it. */
int khost__cuda_graph_run(khost__cuda_graph *graph, khost__err *err);
/* One timed replay (L2 flushed first when cold), divided by the captured call
 * count; *sm_mhz as for khost__cuda_time. */
int khost__cuda_graph_time(khost__cuda_graph *graph, int cold, double *seconds, double *sm_mhz,
                           khost__err *err);
void khost__cuda_graph_free(khost__cuda_graph *graph);

#endif
