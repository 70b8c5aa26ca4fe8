/* The device kernels the host itself needs (core/cuda_kernels.cu, built by nvcc
 * for sm_90a), behind C-callable launchers so that core/cuda.c stays plain C. */
#ifndef KHOST_CUDA_KERNELS_H
#define KHOST_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#include "variation_map.h"

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

/* Queues a kernel on stream that writes the units of dst (device memory, as m
 * says) from src varied by c (core/variation_map.h). Returns the launch error. */
cudaError_t khost__launch_vary(cudaStream_t stream, khost__vary_map m, khost__vary_call c, const void *src,
                               void *dst);

/* Queues a kernel on stream that compares every element of got (device memory,
 * as m says) with the element of ref (device memory) that c moves there, sign
 * flipped as c says: the rule of core/check.c (NaN and Inf status, atol + rtol
 * * |ref| + the bound of that element of ref when bound (device floats) is not
 * NULL, bits when atol and rtol are 0; an element whose bytes are all 0xff is
 * unwritten and wrong). Adds the wrong and the unwritten counts to counts[0]
 * and counts[1] (device memory). Returns the launch error. */
cudaError_t khost__launch_vary_check(cudaStream_t stream, khost__vary_map m, khost__vary_call c,
                                     int dtype /* KHOST__VARY_CHECK_* */, double atol, double rtol,
                                     const void *ref, const void *bound, const void *got,
                                     unsigned long long *counts);

/* Queues a speed-of-light kernel on stream: it reads read_bytes of src and
 * writes written_bytes of dst (each rounded down to 16-byte words; both
 * 16-byte aligned) in one pass, a copy (read_first 0: each written word the
 * word read at its index) or every read before any write (read_first 1), on at
 * most `blocks` blocks of `threads` threads (fewer when the words need fewer).
 * sink is a device word it never writes in practice. Returns the launch error. */
cudaError_t khost__launch_stream(cudaStream_t stream, int read_first, const void *src, size_t read_bytes,
                                 void *dst, size_t written_bytes, unsigned blocks, unsigned threads,
                                 unsigned *sink);

/* cudaSuccess when the current device can run the kernels above (the fat
 * binary holds sm_90a code only); else why not, e.g. cudaErrorNoKernelImageForDevice. */
cudaError_t khost__kernels_loadable(void);

#ifdef __cplusplus
}
#endif

#endif
