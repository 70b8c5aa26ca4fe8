/* The KV-cache layout conversions (khost/ops/kv_cache.h), all four: one CTA per
 * block-stack chunk (b, l, o), looping over the grid past 2^31 - 1 chunks. A chunk's
 * elements are visited in chunk order, so the chunk side is read or written as one
 * contiguous span; the block side follows the chunk's runs of hd elements through a
 * CuTe layout (hd, mid, outer) : (1, mid_stride, outer_stride), built from the index
 * maps: the identity for an operational block (the chunk copied flat), the universal
 * strides of h and t for a universal one, in the order of the chunk's layout.
 *
 * Rule: 16-byte words where a run of hd elements is a whole number of them (hd * elem %
 * 16 == 0); then every run of a chunk and of its block starts on a word wherever the
 * chunk and the block do, which the kernel checks for each chunk (khost places every
 * chunk and block on a 256-byte boundary; a table entry off a 16-byte one is copied
 * element by element, right but slower). Otherwise elements, moved as their bits (1,
 * 2 or 4 bytes). Each thread loads UNROLL words before it stores any. Nothing timed yet:
 * neither the tile of UNROLL x 256 threads nor a persistent grid were compared on a GPU. */
#include <cute/tensor.hpp>

#include "khost/ops/kv_cache.h"
#include "kv_cache.h"
#include "kv_copy.h"

namespace {

constexpr int THREADS = 256;
constexpr int UNROLL = 4;
constexpr int64_t MAX_GRID = 2147483647; /* gridDim.x's limit */
constexpr int64_t WORD_BYTES = sizeof(uint4);

/* Where a chunk's elements lie in its block, in elements: element (d, mid, outer) of the
 * chunk in chunk order (d fastest) at d + mid * mid_stride + outer * outer_stride past the
 * chunk's first element there. Plain value, a kernel argument. */
struct kv_map {
  khost_kv_dims k;
  int64_t mid, outer;
  int64_t mid_stride, outer_stride;
  bool permute, from_blocks;
};

kv_map map_of(const khost__kv_call &call)
{
  const khost_kv_dims *k = &call.dims;
  kv_map m = {*k, 0, 0, 0, 0, call.permute != 0, call.from_blocks != 0};
  bool hnd = call.layout == KHOST_KV_HND;
  m.mid = hnd ? k->nt : k->nh;
  m.outer = hnd ? k->nh : k->nt;
  if (!m.permute) { /* flat: the chunk's own order */
    m.mid_stride = k->hd;
    m.outer_stride = m.mid * k->hd;
    return m;
  }
  /* The universal index's steps in h and in t. */
  int64_t h_stride = khost_kv_universal_index(k, 1, 0, 0, 0, 0) - khost_kv_universal_index(k, 0, 0, 0, 0, 0);
  int64_t t_stride = khost_kv_universal_index(k, 0, 0, 0, 1, 0) - khost_kv_universal_index(k, 0, 0, 0, 0, 0);
  m.mid_stride = hnd ? t_stride : h_stride;
  m.outer_stride = hnd ? h_stride : t_stride;
  return m;
}

/* The first element of chunk (l, o) in its block. */
__host__ __device__ __forceinline__ int64_t block_base(const kv_map &m, int64_t l, int64_t o)
{
  return m.permute ? khost_kv_universal_index(&m.k, 0, l, o, 0, 0) : khost_kv_operational_index(&m.k, l, o);
}

/* Where a chunk's units of `lanes` elements, in chunk order, lie in its block, past block_base. */
__host__ __device__ __forceinline__ auto block_layout(const kv_map &m, int64_t lanes)
{
  using namespace cute;
  return make_layout(make_shape(m.k.hd / lanes, m.mid, m.outer),
                     make_stride(Int<1>{}, m.mid_stride / lanes, m.outer_stride / lanes));
}

/* One chunk in units of Word, each `lanes` elements: chunk[i] <-> block[layout(i)]. The
 * addresses come from tables, so the compiler cannot tell they are global (it emits
 * generic LD.E.128 / ST.E.128): __ldg says so for the source, read-only in the kernel
 * (LDG.E.128.CONSTANT), and __isGlobal assumed for the destination (a plain STG.E.128,
 * where __stwb's asm becomes STG.E.128.STRONG.SM). */
template <class Word>
__device__ __forceinline__ void copy_chunk(const kv_map &m, Word *chunk, Word *block, int64_t lanes)
{
  auto layout = block_layout(m, lanes);
  int64_t n = cute::size(layout);
  for (int64_t first = threadIdx.x; first < n; first += THREADS * UNROLL) {
    Word v[UNROLL];
    Word *to[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      int64_t i = first + u * THREADS;
      if (i >= n) break;
      int64_t at = layout(i);
      v[u] = __ldg(m.from_blocks ? chunk + i : block + at);
      to[u] = m.from_blocks ? block + at : chunk + i;
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (first + u * THREADS < n) {
        __builtin_assume(__isGlobal(to[u]));
        *to[u] = v[u];
      }
  }
}

template <class Bits>
__global__ void __launch_bounds__(THREADS)
    kv_copy(const uint64_t *stack_table, const uint64_t *block_table, kv_map m, bool words)
{
  const khost_kv_dims &k = m.k;
  int64_t chunks = k.nb * k.nl * k.no;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    int64_t o = c % k.no, l = c / k.no % k.nl, b = c / (k.no * k.nl);
    uint64_t chunk = stack_table[khost_kv_block_entry(&k, b, l, o)];
    uint64_t block = block_table[b] + uint64_t(block_base(m, l, o)) * sizeof(Bits);
    if (words && (chunk | block) % WORD_BYTES == 0)
      copy_chunk(m, reinterpret_cast<uint4 *>(chunk), reinterpret_cast<uint4 *>(block),
                 int64_t(WORD_BYTES / sizeof(Bits)));
    else
      copy_chunk(m, reinterpret_cast<Bits *>(chunk), reinterpret_cast<Bits *>(block), 1);
  }
}

/* With a name sink, names the kernel instead of launching it. */
template <class Bits> int launch(const khost_input *in, const khost__kv_call &call, khost__cute_name *name)
{
  bool words = call.dims.hd * int64_t(sizeof(Bits)) % WORD_BYTES == 0;
  if (name)
    return khost__cute_named(name, "kv_copy<%s,cta_per_chunk>",
                             words               ? "words"
                             : sizeof(Bits) == 1 ? "b8"
                             : sizeof(Bits) == 2 ? "b16"
                                                 : "b32");
  /* nb = 0: nothing to copy, and a launch of no blocks would be an error. */
  if (call.chunks == 0) return KHOST_STATUS_OK;
  int64_t grid = call.chunks < MAX_GRID ? call.chunks : MAX_GRID;
  kv_copy<Bits><<<unsigned(grid), THREADS, 0, static_cast<cudaStream_t>(in->stream)>>>(
      call.block_stack_table, call.block_table, map_of(call), words);
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

} // namespace

int khost__cute_kv_supports(const khost_input *in)
{
  khost__kv_call call;
  return khost__kv_open(in, KHOST_DEVICE_CUDA, &call);
}

int khost__cute_kv_dispatch(const khost_input *in, khost__cute_name *name)
{
  khost__kv_call call;
  int status = khost__kv_open(in, KHOST_DEVICE_CUDA, &call);
  if (status != KHOST_STATUS_OK) return status;
  if (call.element_bytes == 1) return launch<uint8_t>(in, call, name);
  if (call.element_bytes == 2) return launch<uint16_t>(in, call, name);
  return launch<uint32_t>(in, call, name);
}
