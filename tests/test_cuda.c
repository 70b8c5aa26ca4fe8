/* Criterion runs each test in its own process, so CUDA is initialised inside
 * the test (need_device), never in the runner that forks it. Tests that need
 * a device skip with the reason where there is none. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cuda.h"
#include "cuda_kernels.h"
#include "khost/plugin.h"
#include "support/vary_walks.h"

#define PREFIX_NO_DEVICE "no CUDA device"

static khost__device_info info;

static void need_device(void)
{
  char why[512] = "";
  khost__err err = {""};
  if (!khost__cuda_available(0, why, sizeof why)) cr_skip("%s", why);
  cr_assert_eq(khost__cuda_init(0, &info, &err), KHOST__OK, "%s", err.msg);
}

static int has_prefix(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void fill_pattern(unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + 7u + (i >> 8));
}

Test(available, an_unavailable_device_comes_with_a_reason)
{
  char why[512] = "";
  if (khost__cuda_available(0, why, sizeof why)) {
    khost__err err = {""};
    cr_assert_eq(khost__cuda_init(0, &info, &err), KHOST__OK, "available but init failed: %s", err.msg);
    khost__cuda_shutdown();
    return;
  }
  cr_assert(has_prefix(why, PREFIX_NO_DEVICE) || has_prefix(why, "CUDA device 0 cannot run"), "reason: '%s'",
            why);
  cr_assert_gt(strlen(why), strlen(PREFIX_NO_DEVICE) + 2, "the reason names the runtime's error: '%s'", why);
}

/* A runtime failure is E_CUDA, which the checker can never take for a kernel's
 * wrong result (E_FAIL there means overwritten guards or a changed input). */
Test(available, init_without_a_device_fails_as_a_cuda_error)
{
  char why[512] = "";
  if (khost__cuda_available(0, why, sizeof why)) cr_skip("a device is available: init succeeds");
  khost__err err = {""};
  cr_assert_eq(khost__cuda_init(0, &info, &err), KHOST__E_CUDA, "%s", err.msg);
  cr_assert(strstr(err.msg, "cuda.c:"), "the message names the failing call: %s", err.msg);
  khost__cuda_shutdown();
}

Test(available, an_ordinal_past_the_last_device_is_unavailable)
{
  char why[512] = "";
  cr_assert_eq(khost__cuda_available(1 << 20, why, sizeof why), 0);
  cr_assert(has_prefix(why, PREFIX_NO_DEVICE), "reason: '%s'", why);
}

TestSuite(gpu, .fini = khost__cuda_shutdown);

Test(gpu, init_describes_the_device)
{
  need_device();
  cr_assert_str_not_empty(info.name);
  cr_assert_eq(info.cc_major, 9, "khost's kernels are sm_90a; got sm_%d%d", info.cc_major, info.cc_minor);
  cr_assert_gt(info.sm_count, 0);
  cr_assert_gt(info.sm_clock_mhz, 100);
  cr_assert_gt(info.mem_clock_mhz, 100);
  cr_assert_gt(info.l2_bytes, (size_t)1 << 20);
  cr_assert_gt(info.global_mem_bytes, info.l2_bytes);
  cr_assert_not_null(khost__cuda_stream());
}

Test(gpu, upload_then_download_returns_the_same_bytes)
{
  enum { N = (1 << 20) + 3 };
  unsigned char *sent = malloc(N), *back = malloc(N);
  void *dev = NULL;
  khost__err err = {""};
  need_device();
  fill_pattern(sent, N);
  memset(back, 0xee, N);
  cr_assert_eq(khost__cuda_malloc(&dev, N, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dev, sent, N, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_download(back, dev, N, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(memcmp(sent, back, N), 0);
  khost__cuda_free(dev);
  free(back);
  free(sent);
}

Test(gpu, memset_writes_only_its_range)
{
  enum { N = 4096, FROM = 1000, TO = 3000 };
  unsigned char sent[N], back[N];
  void *dev = NULL;
  khost__err err = {""};
  need_device();
  fill_pattern(sent, N);
  cr_assert_eq(khost__cuda_malloc(&dev, N, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dev, sent, N, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_memset((char *)dev + FROM, 0xa5, TO - FROM, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_download(back, dev, N, &err), KHOST__OK, "%s", err.msg);
  for (int i = 0; i < N; i++) {
    unsigned char want = i >= FROM && i < TO ? 0xa5 : sent[i];
    cr_assert_eq(back[i], want, "byte %d: %#x, want %#x", i, back[i], want);
  }
  khost__cuda_free(dev);
}

Test(gpu, a_failed_allocation_names_the_call_and_the_error)
{
  void *dev = (void *)1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&dev, (size_t)1 << 60, &err), KHOST__E_NOMEM);
  cr_assert_null(dev);
  cr_assert(strstr(err.msg, "cuda.c:") && strstr(err.msg, "cudaMalloc(") &&
                strstr(err.msg, "cudaErrorMemoryAllocation"),
            "%s", err.msg);
}

Test(gpu, a_failed_copy_is_a_cuda_error)
{
  unsigned char back[16];
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_download(back, NULL, sizeof back, &err), KHOST__E_CUDA, "%s", err.msg);
  cr_assert(strstr(err.msg, "cuda.c:") && strstr(err.msg, "cudaMemcpy"), "%s", err.msg);
}

Test(gpu, a_reported_error_is_not_reported_again_by_the_next_sync)
{
  void *dev = NULL;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&dev, (size_t)1 << 60, &err), KHOST__E_NOMEM);
  /* The runtime would still hold the failed allocation as its last error;
   * a backend settled after it must not be blamed for it. */
  cr_assert_eq(khost__cuda_sync(&err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(cudaPeekAtLastError(), cudaSuccess);
}

/* A kernel of known duration: the blocker, never released (its flag lives in
 * zeroed device memory), runs until its timeout. */
typedef struct spin_call {
  int *flags;
  unsigned long long ns;
} spin_call;

static int status_of(cudaError_t e)
{
  return e == cudaSuccess ? KHOST_STATUS_OK : KHOST_STATUS_DEVICE_ERROR;
}

static int spin(void *arg, int i)
{
  spin_call *s = arg;
  return status_of(khost__launch_blocker(khost__cuda_stream(), s->flags, s->flags + 1, s->ns));
}

static spin_call make_spin(unsigned long long ns)
{
  spin_call s = {NULL, ns};
  khost__err err = {""};
  cr_assert_eq(khost__cuda_malloc((void **)&s.flags, 2 * sizeof(int), &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_memset(s.flags, 0, 2 * sizeof(int), &err), KHOST__OK, "%s", err.msg);
  return s;
}

/* The versions are the runtime's, not invented: the runtime is the one this test
 * was built against (linked statically), and the driver runs it, so its major
 * version is at least the runtime's (CUDA's minor-version compatibility). */
Test(gpu, device_info_has_the_cuda_versions)
{
  need_device();
  cr_expect_eq(info.runtime_version, CUDART_VERSION);
  cr_expect_geq(info.driver_version / 1000, info.runtime_version / 1000, "driver %d, runtime %d",
                info.driver_version, info.runtime_version);
}

/* The clock is measured, not the rated one copied: it must lie between an idle
 * clock and the rated clock plus the stamps' error (0.5% on an H200 even at
 * 4 us; docs/METHODOLOGY.md). */
static void expect_plausible_clock(double sm_mhz)
{
  cr_expect(sm_mhz >= 100 && sm_mhz <= 1.02 * info.sm_clock_mhz, "SM clock %g MHz, rated %d MHz", sm_mhz,
            info.sm_clock_mhz);
}

Test(gpu, time_measures_a_kernel_of_known_duration_and_the_clock_it_ran_at)
{
  const double want = 200e-6;
  need_device();
  spin_call s = make_spin((unsigned long long)(want * 1e9));
  for (int cold = 0; cold <= 1; cold++) {
    double seconds = -1, sm_mhz = -1;
    int status = -1;
    khost__err err = {""};
    cr_assert_eq(khost__cuda_time(spin, &s, 0, 5, cold, &seconds, &sm_mhz, &status, &err), KHOST__OK, "%s",
                 err.msg);
    cr_assert_eq(status, KHOST_STATUS_OK);
    cr_assert(seconds >= want * 0.99 && seconds < want * 1.5, "cold=%d: %g s per call, want %g", cold,
              seconds, want);
    expect_plausible_clock(sm_mhz);
  }
  khost__cuda_free(s.flags);
}

typedef struct failing_call {
  void *buf;
  int fail_at, status, made;
} failing_call;

/* Queues a memset, or returns status at call fail_at. */
static int memset_or_fail(void *arg, int i)
{
  failing_call *f = arg;
  khost__err err;
  f->made++;
  if (i == f->fail_at) return f->status;
  int rc = khost__cuda_memset(f->buf, i + 1, 4096, &err);
  return rc == KHOST__OK ? KHOST_STATUS_OK : KHOST_STATUS_DEVICE_ERROR;
}

Test(gpu, time_stops_at_the_first_failing_call_and_reports_it)
{
  failing_call f = {NULL, 2, KHOST_STATUS_UNSUPPORTED, 0};
  double seconds = -1, sm_mhz = -1;
  int status = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&f.buf, 4096, &err), KHOST__OK, "%s", err.msg);
  int rc = khost__cuda_time(memset_or_fail, &f, 0, 6, 0, &seconds, &sm_mhz, &status, &err);
  cr_assert_eq(rc, KHOST__OK, "%s", err.msg);
  cr_assert_eq(status, KHOST_STATUS_UNSUPPORTED);
  cr_assert_eq(f.made, 3, "calls after the failure must not be made");
  cr_assert_eq(seconds, 0.0);
  khost__cuda_free(f.buf);
}

static int memset_after_a_long_pause(void *arg, int i)
{
  struct timespec pause = {1, 300 * 1000 * 1000};
  if (i == 0) nanosleep(&pause, NULL);
  return memset_or_fail(arg, i);
}

Test(gpu, a_sample_queued_slower_than_the_blocker_waits_is_discarded, .timeout = 60)
{
  failing_call f = {NULL, -1, KHOST_STATUS_OK, 0};
  double seconds = -1, sm_mhz = -1;
  int status = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&f.buf, 4096, &err), KHOST__OK, "%s", err.msg);
  int rc = khost__cuda_time(memset_after_a_long_pause, &f, 0, 2, 0, &seconds, &sm_mhz, &status, &err);
  cr_assert_eq(rc, KHOST__E_DISCARDED, "rc %d: %s", rc, err.msg);
  cr_assert(strstr(err.msg, "discarded"), "%s", err.msg);
  cr_assert_eq(seconds, 0.0);
  rc = khost__cuda_time(memset_or_fail, &f, 0, 2, 0, &seconds, &sm_mhz, &status, &err);
  cr_assert_eq(rc, KHOST__OK, "the next sample is fine: %s", err.msg);
  cr_assert_gt(seconds, 0.0);
  khost__cuda_free(f.buf);
}

Test(gpu, a_graph_of_memsets_has_a_node_per_call_and_replays_them)
{
  enum { CALLS = 4 };
  failing_call f = {NULL, -1, KHOST_STATUS_OK, 0};
  unsigned char back[4096];
  khost__cuda_graph *graph = NULL;
  size_t nodes = 0;
  int status = -1;
  double hot = -1, cold = -1, hot_mhz = -1, cold_mhz = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&f.buf, sizeof back, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_memset(f.buf, 0x11, sizeof back, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_graph_capture(memset_or_fail, &f, CALLS, &graph, &nodes, &status, &err), KHOST__OK,
               "%s", err.msg);
  cr_assert_eq(status, KHOST_STATUS_OK);
  cr_assert_eq(nodes, (size_t)CALLS);
  cr_assert_not_null(graph);
  cr_assert_eq(khost__cuda_download(back, f.buf, sizeof back, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(back[0], 0x11, "capturing must not run the calls");
  cr_assert_eq(khost__cuda_graph_run(graph, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_download(back, f.buf, sizeof back, &err), KHOST__OK, "%s", err.msg);
  for (size_t i = 0; i < sizeof back; i++) cr_assert_eq(back[i], CALLS, "byte %zu", i);
  cr_assert_eq(khost__cuda_graph_time(graph, 0, &hot, &hot_mhz, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_graph_time(graph, 1, &cold, &cold_mhz, &err), KHOST__OK, "%s", err.msg);
  cr_assert(hot > 0 && cold > 0 && hot < 1e-3, "hot %g s, cold %g s per call", hot, cold);
  expect_plausible_clock(hot_mhz);
  expect_plausible_clock(cold_mhz);
  khost__cuda_graph_free(graph);
  khost__cuda_free(f.buf);
}

typedef struct side_call {
  void *buf;
  cudaStream_t side;
} side_call;

static int memset_on_side_stream(void *arg, int i)
{
  side_call *c = arg;
  return status_of(cudaMemsetAsync(c->buf, 7, 4096, c->side));
}

Test(gpu, a_graph_of_work_on_another_stream_has_no_nodes)
{
  side_call c = {NULL, NULL};
  khost__cuda_graph *graph = NULL;
  size_t nodes = 1;
  int status = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&c.buf, 4096, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(cudaStreamCreateWithFlags(&c.side, cudaStreamNonBlocking), cudaSuccess);
  int rc = khost__cuda_graph_capture(memset_on_side_stream, &c, 3, &graph, &nodes, &status, &err);
  cr_assert_eq(rc, KHOST__OK, "%s", err.msg);
  cr_assert_eq(status, KHOST_STATUS_OK);
  cr_assert_eq(nodes, 0);
  cr_assert_null(graph);
  cr_assert_eq(cudaStreamSynchronize(c.side), cudaSuccess);
  cudaStreamDestroy(c.side);
  khost__cuda_free(c.buf);
}

static int memset_then_synchronise(void *arg, int i)
{
  failing_call *f = arg;
  int status = memset_or_fail(f, i);
  if (status != KHOST_STATUS_OK) return status;
  return status_of(cudaStreamSynchronize(khost__cuda_stream()));
}

Test(gpu, a_kernel_that_synchronises_is_not_capturable)
{
  failing_call f = {NULL, -1, KHOST_STATUS_OK, 0};
  khost__cuda_graph *graph = NULL;
  size_t nodes = 1;
  int status = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&f.buf, 4096, &err), KHOST__OK, "%s", err.msg);
  int rc = khost__cuda_graph_capture(memset_then_synchronise, &f, 2, &graph, &nodes, &status, &err);
  cr_assert_neq(rc, KHOST__OK);
  cr_assert(strstr(err.msg, "not capturable") && strstr(err.msg, "cudaErrorStreamCapture"), "%s", err.msg);
  cr_assert_null(graph);
  cr_assert_eq(khost__cuda_sync(&err), KHOST__OK, "no capture error may be left behind: %s", err.msg);
  khost__cuda_free(f.buf);
}

Test(gpu, a_call_failing_during_capture_gives_its_status_and_no_graph)
{
  failing_call f = {NULL, 1, KHOST_STATUS_INTERNAL, 0};
  khost__cuda_graph *graph = NULL;
  size_t nodes = 1;
  int status = -1;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_malloc(&f.buf, 4096, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_graph_capture(memset_or_fail, &f, 3, &graph, &nodes, &status, &err), KHOST__OK,
               "%s", err.msg);
  cr_assert_eq(status, KHOST_STATUS_INTERNAL);
  cr_assert_eq(f.made, 2);
  cr_assert_null(graph);
  khost__cuda_free(f.buf);
}

Test(gpu, copy_bandwidth_is_plausible)
{
  double gbps = 0;
  khost__err err = {""};
  need_device();
  cr_assert_eq(khost__cuda_measure_copy(&gbps, &err), KHOST__OK, "%s", err.msg);
  /* The ceiling catches unit slips: no HBM moves 20 TB/s. */
  cr_assert(gbps > 100 && gbps < 20000, "%g GB/s", gbps);
}

/* An empty kernel costs the launch and the events, microseconds on an H100 or H200
 * (2.9 us cold on an H200), never nothing and never a kernel's worth. */
Test(gpu, an_empty_call_takes_microseconds_cold_and_hot)
{
  need_device();
  for (int cold = 0; cold <= 1; cold++) {
    double seconds = 0;
    khost__err err = {""};
    cr_assert_eq(khost__cuda_measure_empty_call(cold, &seconds, &err), KHOST__OK, "%s", err.msg);
    cr_assert(seconds > 0.3e-6 && seconds < 50e-6, "cold=%d: %g s", cold, seconds);
  }
}

/* The speed of light is the fastest candidate's median, every candidate was
 * timed, and a pass over 64 MiB each way takes tens of microseconds on an
 * H100 or H200, not nothing and not milliseconds. */
Test(gpu, the_speed_of_light_is_the_fastest_candidate)
{
  khost__sol sol;
  khost__err err = {""};
  int n;
  const khost__sol_kernel *kernels = khost__sol_kernels(&n);
  need_device();
  cr_assert_eq(khost__cuda_measure_sol(64 << 20, 64 << 20, 1, &sol, &err), KHOST__OK, "%s", err.msg);
  cr_assert_not_null(sol.kernel);
  for (int k = 0; k < n; k++) {
    cr_expect_gt(sol.seconds_of[k], 0, "%s", kernels[k].name);
    cr_expect_leq(sol.seconds, sol.seconds_of[k], "%s", kernels[k].name);
  }
  cr_expect(sol.seconds > 5e-6 && sol.seconds < 5e-3, "%g s by %s", sol.seconds, sol.kernel->name);
}

/* Each matrix peak is measured and plausible: above 50 TFLOP/s (any tensor-core
 * GPU khost runs on) and below 10,000 (no GPU of today; a unit slip would show). */
Test(gpu, the_matrix_peaks_are_measured_and_plausible, .timeout = 120)
{
  need_device();
  for (int t = 0; t < KHOST__PEAKS; t++) {
    double tflops = 0;
    khost__err err = {""};
    cr_expect_eq(khost__matrix_peak_measure((khost__peak_type)t, &tflops, &err), KHOST__OK, "%s: %s",
                 khost__peak_name((khost__peak_type)t), err.msg);
    cr_expect(tflops > 50 && tflops < 10000, "%s: %g TFLOP/s", khost__peak_name((khost__peak_type)t), tflops);
  }
}

Test(gpu, sync_reports_a_sticky_error_as_such)
{
  khost__err err = {""};
  need_device();
  /* The blocker reading its flag from an unmapped address faults on the device. */
  const int *unmapped = (const int *)(uintptr_t)64;
  cr_assert_eq(khost__launch_blocker(khost__cuda_stream(), unmapped, NULL, 1000), cudaSuccess);
  cr_assert_neq(khost__cuda_sync(&err), KHOST__OK);
  cr_assert(strstr(err.msg, "cudaErrorIllegalAddress") && strstr(err.msg, "sticky"), "%s", err.msg);
}

/* ---- fresh inputs on the device (core/cuda_kernels.cu's vary and vary_check) ---- */

/* src (bytes) varied by c on the device, downloaded into out. */
static void vary_on_device(const khost__vary_map *m, const khost__vary_call *c, const void *src, void *out,
                           size_t bytes)
{
  void *dsrc = NULL, *ddst = NULL;
  khost__err err = {""};
  cr_assert_eq(khost__cuda_malloc(&dsrc, bytes, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_malloc(&ddst, bytes, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dsrc, src, bytes, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_vary(m, c, dsrc, ddst, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_download(out, ddst, bytes, &err), KHOST__OK, "%s", err.msg);
  khost__cuda_free(ddst);
  khost__cuda_free(dsrc);
}

Test(gpu, vary_writes_the_bytes_the_host_writes)
{
  need_device();
  for (size_t k = 0; k < VARY_WALKS; k++) {
    khost__variation v = vary_walk_variation(&vary_walks[k]);
    size_t bytes = khost__vary_units(&v.inputs[0]) * (size_t)v.inputs[0].unit_bytes;
    unsigned char *src = malloc(bytes), *host = malloc(bytes), *device = malloc(bytes);
    khost__err err = {""};
    cr_assert(src && host && device);
    fill_pattern(src, bytes);
    for (uint64_t call = 1; call <= 5; call++) {
      khost__vary_call c;
      khost__vary_draw(&v, 99 + k, call, &c);
      cr_assert_eq(khost__vary_host(&v.inputs[0], &c, src, host, 1, &err), KHOST__OK, "%s", err.msg);
      vary_on_device(&v.inputs[0], &c, src, device, bytes);
      cr_assert_eq(memcmp(host, device, bytes), 0, "%s, call %llu", vary_walks[k].what,
                   (unsigned long long)call);
    }
    free(device);
    free(host);
    free(src);
  }
}

/* The device check of got against ref varied by c: {wrong, unwritten}. */
static void check_on_device(const khost__vary_map *m, const khost__vary_call *c, int dtype, double atol,
                            const float *ref, const float *bound, const float *got, size_t n,
                            unsigned long long counts[2])
{
  void *dref = NULL, *dbound = NULL, *dgot = NULL;
  khost__err err = {""};
  cr_assert_eq(khost__cuda_malloc(&dref, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_malloc(&dbound, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_malloc(&dgot, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dref, ref, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dbound, bound, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_upload(dgot, got, n * 4, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__cuda_vary_check(m, c, dtype, atol, 0, dref, dbound, dgot, counts, &err), KHOST__OK,
               "%s", err.msg);
  khost__cuda_free(dgot);
  khost__cuda_free(dbound);
  khost__cuda_free(dref);
}

/* fp32 [5000, 3], last dim permuted, element signs: the host's varied reference
 * passes; one element off by 0.5 fails unless the bound of the element the
 * variation moved there (found by varying the element numbers alike) allows it;
 * a poisoned element is unwritten. */
Test(gpu, vary_check_counts_what_the_host_rule_counts_with_moved_bounds)
{
  need_device();
  khost__variation v = vary_walk_variation(&vary_walks[VARY_WALKS - 1]);
  khost__vary_map numbers = v.inputs[0];
  numbers.sign_mask = 0;
  size_t n = khost__vary_units(&v.inputs[0]);
  float *ref = malloc(n * 4), *got = malloc(n * 4), *bound = calloc(n, 4);
  uint32_t *index = malloc(n * 4), *moved = malloc(n * 4);
  unsigned long long counts[2];
  khost__err err = {""};
  khost__vary_call c;
  cr_assert(ref && got && bound && index && moved);
  for (size_t i = 0; i < n; i++) ref[i] = 1.0f + (float)(i % 97), index[i] = (uint32_t)i;
  khost__vary_draw(&v, 7, 3, &c);
  cr_assert_eq(khost__vary_host(&v.inputs[0], &c, ref, got, 1, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__vary_host(&numbers, &c, index, moved, 1, &err), KHOST__OK, "%s", err.msg);
  check_on_device(&v.inputs[0], &c, KHOST__VARY_CHECK_FP32, 1e-30, ref, bound, got, n, counts);
  cr_expect(counts[0] == 0 && counts[1] == 0, "right: %llu wrong, %llu unwritten", counts[0], counts[1]);
  got[4321] += got[4321] < 0 ? -0.5f : 0.5f;
  check_on_device(&v.inputs[0], &c, KHOST__VARY_CHECK_FP32, 1e-30, ref, bound, got, n, counts);
  cr_expect_eq(counts[0], 1, "0.5 off with no bound");
  bound[moved[4321]] = 0.75f;
  check_on_device(&v.inputs[0], &c, KHOST__VARY_CHECK_FP32, 1e-30, ref, bound, got, n, counts);
  cr_expect_eq(counts[0], 0, "0.5 off within the bound of the element moved there");
  memset(&got[17], 0xff, 4);
  check_on_device(&v.inputs[0], &c, KHOST__VARY_CHECK_FP32, 1e-30, ref, bound, got, n, counts);
  cr_expect(counts[0] == 1 && counts[1] == 1, "poison: %llu wrong, %llu unwritten", counts[0], counts[1]);
  free(moved);
  free(index);
  free(bound);
  free(got);
  free(ref);
}
