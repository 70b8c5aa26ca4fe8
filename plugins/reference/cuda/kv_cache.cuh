/* The KV-cache layout conversions on the GPU, plainly, all four: one CTA per
 * block-stack chunk (b, l, o), its threads striding over the chunk's elements in
 * chunk order, each element moved as its bits (1, 2 or 4 bytes, never
 * converted) between the chunk, found through the block-stack table, and its
 * place in the block, found through the per-block table, by the index maps of
 * khost/ops/kv_cache.h. The chunk side is read or written coalesced; in the
 * universal layout the block side is too, in runs of hd elements. No vector
 * loads and no persistent loop: this is the baseline the tuned kernels beat. */
#ifndef KHOST_REFERENCE_CUDA_KV_CACHE_CUH
#define KHOST_REFERENCE_CUDA_KV_CACHE_CUH

#include "cuda_check.h"
#include "kv_cache.h"

namespace khost_reference {
namespace {

constexpr int KV_THREADS = 256;
constexpr int64_t KV_MAX_GRID = 2147483647; /* the hardware limit of gridDim.x */

/* The element of block b that element e of chunk (l, o) goes to or comes from. */
__device__ inline int64_t kv_block_element(const khost_kv_dims &k, int layout, bool permute, int64_t l,
                                           int64_t o, int64_t e)
{
  if (!permute) return khost_kv_operational_index(&k, l, o) + e;
  int64_t d = e % k.hd, rest = e / k.hd;
  int64_t t = layout == KHOST_KV_HND ? rest % k.nt : rest / k.nh;
  int64_t h = layout == KHOST_KV_HND ? rest / k.nt : rest % k.nh;
  return khost_kv_universal_index(&k, h, l, o, t, d);
}

template <typename Bits>
__global__ void __launch_bounds__(KV_THREADS)
    kv_copy(const uint64_t *stack_table, const uint64_t *block_table, khost_kv_dims k, int layout,
            bool permute, bool from_blocks)
{
  int64_t chunks = k.nb * k.nl * k.no, chunk_elements = k.nt * k.nh * k.hd;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    int64_t o = c % k.no, l = c / k.no % k.nl, b = c / (k.no * k.nl);
    Bits *chunk = reinterpret_cast<Bits *>(stack_table[khost_kv_block_entry(&k, b, l, o)]);
    Bits *block = reinterpret_cast<Bits *>(block_table[b]);
    for (int64_t e = threadIdx.x; e < chunk_elements; e += KV_THREADS) {
      int64_t at = kv_block_element(k, layout, permute, l, o, e);
      if (from_blocks)
        block[at] = chunk[e];
      else
        chunk[e] = block[at];
    }
  }
}

template <typename Bits> void kv_launch(const khost__kv_call &call, cudaStream_t stream)
{
  int64_t grid = call.chunks < KV_MAX_GRID ? call.chunks : KV_MAX_GRID;
  kv_copy<Bits><<<(unsigned)grid, KV_THREADS, 0, stream>>>(
      call.block_stack_table, call.block_table, call.dims, call.layout, call.permute, call.from_blocks);
}

int kv_run(const khost_input *in)
{
  khost__kv_call call;
  int status = khost__kv_open(in, KHOST_DEVICE_CUDA, &call);
  /* nb = 0: nothing to copy, and a launch of no blocks would be an error. */
  if (status != KHOST_STATUS_OK || call.chunks == 0) return status;
  cudaStream_t stream = static_cast<cudaStream_t>(in->stream);
  if (call.element_bytes == 1)
    kv_launch<uint8_t>(call, stream);
  else if (call.element_bytes == 2)
    kv_launch<uint16_t>(call, stream);
  else
    kv_launch<uint32_t>(call, stream);
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

#endif
