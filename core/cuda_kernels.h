/* The device kernels the host itself needs (core/cuda_kernels.cu, built by nvcc
 * for sm_90a), behind C-callable launchers so that core/cuda.c stays plain C. */
#ifndef KHOST_CUDA_KERNELS_H
#define KHOST_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Queues a one-thread kernel on stream that spins until *release becomes
 * non-zero or timeout_ns of device time pass; on timeout it writes 1 to
 * *timed_out. Both pointers must be device-accessible (host-mapped pinned
 * memory for the host to release it; the caller keeps them alive until the
 * kernel ends). Returns the launch error. */
cudaError_t khost__launch_blocker(cudaStream_t stream, const volatile int *release, volatile int *timed_out,
                                  unsigned long long timeout_ns);

/* Queues a kernel on stream that reads all of buf (bytes, a multiple of 16):
 * afterwards L2 holds only clean lines of buf, whatever was cached (and dirty)
 * before has been evicted and written back. sink is a device word it never
 * writes in practice. Returns the launch error. */
cudaError_t khost__launch_scrub(cudaStream_t stream, const void *buf, size_t bytes, unsigned *sink);

/* Queues a kernel on stream whose block on SM 0 writes out[0] = %globaltimer
 * (ns) and out[1] = that SM's clock64; out stays untouched if no block ran on
 * SM 0. out must be device-accessible (host-mapped pinned memory). Returns the
 * launch error. */
cudaError_t khost__launch_clock_stamp(cudaStream_t stream, int sm_count, unsigned long long *out);

/* Queues a kernel of one warp that does nothing: what a timed call costs at the
 * least. Returns the launch error. */
cudaError_t khost__launch_empty(cudaStream_t stream);

/* Queues the speed-of-light kernel on stream: it reads read_bytes of src and
 * writes written_bytes of dst (each rounded down to 16-byte words; both
 * 16-byte aligned) in one pass, on enough blocks for sm_count SMs. sink is a
 * device word it never writes in practice. Returns the launch error. */
cudaError_t khost__launch_stream(cudaStream_t stream, const void *src, size_t read_bytes, void *dst,
                                 size_t written_bytes, int sm_count, unsigned *sink);

/* cudaSuccess when the current device can run the kernels above (the fat
 * binary holds sm_90a code only); else why not, e.g. cudaErrorNoKernelImageForDevice. */
cudaError_t khost__kernels_loadable(void);

#ifdef __cplusplus
}
#endif

#endif
