/* Device helpers shared by the kernels that work along rows: element
 * conversions, words of several elements, the online-softmax merge, reductions
 * across the threads that share a row, a thread's slice of a row tile, and the
 * rule that picks between 16-byte words and single elements.
 *
 * A row is viewed as `nvec` words of type V: V is cute::uint128_t (16 bytes,
 * one LDG.E.128 / STG.E.128) when every row starts on a 16-byte boundary, or
 * the element type itself otherwise, so no word ever straddles two rows. */
#ifndef KHOST_CUTE_ROW_MATH_CUH
#define KHOST_CUTE_ROW_MATH_CUH

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cute/tensor.hpp>

#include "cute.h"

namespace khost__cute {

constexpr int WARP = 32;
constexpr float LOG2E = 1.4426950408889634f;

template <class T> __device__ __forceinline__ float to_float(T x);
template <> __device__ __forceinline__ float to_float<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 x)
{
  return __bfloat162float(x);
}
template <> __device__ __forceinline__ float to_float<float>(float x) { return x; }

/* Rounds to the element type, nearest even (the output rule of every row op). */
template <class T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
  return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }

/* Elements of T in one word V. */
template <class T, class V> constexpr int lanes_of = int(sizeof(V) / sizeof(T));

/* The VEC elements of word w, widened to float. */
template <class T, class V>
__device__ __forceinline__ void unpack(const V &w, float (&x)[lanes_of<T, V>])
{
  T e[lanes_of<T, V>];
  memcpy(e, &w, sizeof(V));
#pragma unroll
  for (int i = 0; i < lanes_of<T, V>; i++) x[i] = to_float(e[i]);
}

/* The 32 bits of a 16-bit pair. */
template <class Pair> __device__ __forceinline__ uint32_t pair_bits(Pair pair)
{
  uint32_t bits;
  memcpy(&bits, &pair, sizeof bits);
  return bits;
}

/* Two floats rounded to a 16-bit pair, first in the low half: one F2FP.PACK_AB. */
template <class T> __device__ __forceinline__ uint32_t pack_pair(float lo, float hi);
template <> __device__ __forceinline__ uint32_t pack_pair<__half>(float lo, float hi)
{
  return pair_bits(__floats2half2_rn(lo, hi));
}
template <> __device__ __forceinline__ uint32_t pack_pair<__nv_bfloat16>(float lo, float hi)
{
  return pair_bits(__floats2bfloat162_rn(lo, hi));
}

/* The word holding x rounded to T. */
template <class T, class V>
__device__ __forceinline__ V pack(const float (&x)[lanes_of<T, V>])
{
  T e[lanes_of<T, V>];
#pragma unroll
  for (int i = 0; i < lanes_of<T, V>; i++) e[i] = from_float<T>(x[i]);
  V w;
  memcpy(&w, e, sizeof(V));
  return w;
}

/* The same for an output word of 16-bit elements, built from 32-bit pairs:
 * assembled element by element, ptxas moved every half through 3 to 4 PRMT,
 * LOP3 and SHF (about 2 instructions per element of a softmax row). Not for
 * splat(): there the pairs led ptxas to spill the fill of the wide shapes. */
template <class T, class V>
__device__ __forceinline__ V pack_output(const float (&x)[lanes_of<T, V>])
{
  constexpr int VEC = lanes_of<T, V>;
  if constexpr (sizeof(T) == 2 && VEC % 2 == 0) {
    uint32_t pairs[VEC / 2];
#pragma unroll
    for (int i = 0; i < VEC / 2; i++) pairs[i] = pack_pair<T>(x[2 * i], x[2 * i + 1]);
    V w;
    memcpy(&w, pairs, sizeof(V));
    return w;
  } else {
    return pack<T, V>(x);
  }
}

/* Running statistics of softmax over some elements: their max and the sum of
 * exp(x - max). The identity is {-inf, 0}. */
struct softmax_stat {
  float max;
  float sum;
};

/* 2^x by the MUFU unit (ex2.approx, the op behind exp2f, 2 ulp); .ftz flushes
 * results below 2^-126 to zero, an absolute error under 1.2e-38. exp2f itself
 * adds range checks for subnormal results that cost more than the MUFU op. */
__device__ __forceinline__ float exp2_fast(float x)
{
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/* exp(x - max) as exp2 with a log2(e) prescale. Rounding (x - max) * log2(e)
 * adds a relative error of about |x - max| * 2^-24 to the result (below 1e-6
 * for the |x - max| < 16 that carry weight), the same order that rounding
 * x - max alone gives any fp32 exp. */
__device__ __forceinline__ float exp_shifted(float x, float max)
{
  return exp2_fast((x - max) * LOG2E);
}

/* log2(x) by the MUFU unit (lg2.approx, absolute error near 2^-22). */
__device__ __forceinline__ float log2_fast(float x)
{
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/* 16-bit rows fold the shift into one FFMA: exp(x - max) / divisor is
 * 2^(x * log2(e) + addend) with addend = -(max * log2(e) + log2(divisor)).
 * Rounding the addend apart from x costs a relative error near
 * (|max| * log2(e) + log2(divisor) + 1) * 2^-24: about 1e-5 with khost's data
 * (|max| near 100, 65536-long rows), under 5% of half an fp16 ulp and under 1%
 * of half a bf16 ulp. Far below one ulp, it can move a rounded output by at most
 * the one ulp that rounding alone may give. It saves the
 * FADD and the FMUL by 1 / sum per element where 16-bit rows are near the
 * issue limit. fp32 outputs, whose ulp is that size, keep exp_shifted. */
__device__ __forceinline__ float exp_addend(float max, float log2_divisor)
{
  return -fmaf(max, LOG2E, log2_divisor);
}

__device__ __forceinline__ float exp_folded(float x, float addend)
{
  return exp2_fast(fmaf(x, LOG2E, addend));
}

/* Merges two partial statistics: the online-softmax rescale. A side whose max
 * is the merged max keeps its sum unscaled, which also keeps {-inf, 0} an
 * identity (-inf - -inf would be NaN). Commutative bit for bit, so butterfly
 * reductions leave every thread with the same value. */
__device__ __forceinline__ softmax_stat merge(softmax_stat a, softmax_stat b)
{
  float max = fmaxf(a.max, b.max);
  float sa = a.max == max ? a.sum : a.sum * exp_shifted(a.max, max);
  float sb = b.max == max ? b.sum : b.sum * exp_shifted(b.max, max);
  return {max, sa + sb};
}

__device__ __forceinline__ float shuffle_xor(float v, int lane_mask)
{
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}

__device__ __forceinline__ softmax_stat shuffle_xor(softmax_stat v, int lane_mask)
{
  return {shuffle_xor(v.max, lane_mask), shuffle_xor(v.sum, lane_mask)};
}

/* Combines value over each aligned run of WIDTH lanes (a power of two <= 32);
 * every lane of a run ends with the same bits when op is commutative. */
template <int WIDTH, class Value, class Op>
__device__ __forceinline__ Value butterfly(Value value, Op op)
{
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) value = op(value, shuffle_xor(value, offset));
  return value;
}

/* Combines `value` over the TPR consecutive threads that share a row (TPR a
 * power of two; rows never share a warp when TPR > 32): a butterfly inside each
 * warp, then, across the TPR / 32 warps of a row, one partial per warp through
 * `scratch` and a second butterfly over those partials. Every thread of the row
 * ends with the same bits. When TPR > 32 the whole block must call it (it
 * synchronises) and `scratch` holds one Value per warp of the block. */
template <int TPR, class Value, class Op>
__device__ __forceinline__ Value group_reduce(Value value, Op op, Value *scratch)
{
  value = butterfly<(TPR < WARP ? TPR : WARP)>(value, op);
  if constexpr (TPR > WARP) {
    constexpr int WARPS = TPR / WARP;
    int warp = int(threadIdx.x) / WARP, lane = int(threadIdx.x) % WARP;
    __syncthreads(); /* an earlier call's readers are done with scratch */
    if (lane == 0) scratch[warp] = value;
    __syncthreads();
    /* Each aligned run of WARPS lanes holds the row's partials in the same order,
     * so every run (and every warp of the row) computes identical bits. */
    value = butterfly<WARPS>(scratch[warp / WARPS * WARPS + lane % WARPS], op);
  }
  return value;
}

/* One thread's words of one step: w[j] is word j as loaded, valid(j) says
 * whether it lies inside the tensor. The words stay packed (a 16-bit row costs
 * half the registers of its floats) and are widened where they are used. */
template <class T, class V, int NV>
struct fragment {
  V w[NV];
  uint32_t valid_bits; /* bit j: word j is inside; a mask, where 16 bools spilled */
  static_assert(NV <= 32, "one bit per word");

  __device__ __forceinline__ bool valid(int j) const { return valid_bits >> j & 1u; }

  /* The elements of word j, widened to float. */
  __device__ __forceinline__ void widen(int j, float (&x)[lanes_of<T, V>]) const { unpack<T>(w[j], x); }

  /* The same, for a second pass over the words: the word goes through an empty
   * asm first, so ptxas cannot reuse the first pass's floats (it would keep all
   * of them live in between, twice the registers of the packed words, and spill). */
  __device__ __forceinline__ void widen_again(int j, float (&x)[lanes_of<T, V>]) const
  {
    constexpr int REGS = (sizeof(V) + 3) / 4;
    uint32_t r[REGS] = {};
    memcpy(r, &w[j], sizeof(V));
#pragma unroll
    for (int i = 0; i < REGS; i++) asm volatile("" : "+r"(r[i]));
    V word;
    memcpy(&word, r, sizeof(V));
    unpack<T>(word, x);
  }
};

/* The word whose elements all equal value (rounded to T). */
template <class T, class V>
__device__ __forceinline__ V splat(float value)
{
  float x[lanes_of<T, V>];
#pragma unroll
  for (int i = 0; i < lanes_of<T, V>; i++) x[i] = value;
  return pack<T, V>(x);
}

/* A read-only load (.nc, no L1 allocation) whose line L2 marks evict-first.
 * For data read exactly once: its lines then replace each other instead of
 * what else L2 holds. That matters most when L2 is full of dirty lines (after a
 * write-heavy kernel, or an L2 flush that writes, as a memset does):
 * evicting them costs a DRAM write each, taken from the reads' bandwidth. */
template <class V>
__device__ __forceinline__ V load_evict_first(const V &src)
{
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  V dst;
  if constexpr (sizeof(V) == 16) {
    uint32_t *d = reinterpret_cast<uint32_t *>(&dst);
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "l"(&src), "l"(policy));
  } else if constexpr (sizeof(V) == 4) {
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b32 %0, [%1], %2;"
        : "=r"(*reinterpret_cast<uint32_t *>(&dst))
        : "l"(&src), "l"(policy));
  } else {
    static_assert(sizeof(V) == 2, "16-byte words or single 4- or 2-byte elements");
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b16 %0, [%1], %2;"
        : "=h"(*reinterpret_cast<uint16_t *>(&dst))
        : "l"(&src), "l"(policy));
  }
  return dst;
}

/* A read-only load (.nc) that allocates no L1 line, with no L2 hint: for data
 * read once by a kernel whose L2 policy measured better left alone (the GEMV's
 * matrix: docs/CUTE.md). */
template <class V>
__device__ __forceinline__ V load_no_allocate(const V &src)
{
  V dst;
  if constexpr (sizeof(V) == 16) {
    uint32_t *d = reinterpret_cast<uint32_t *>(&dst);
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "l"(&src));
  } else {
    static_assert(sizeof(V) == 2, "16-byte words or 2-byte elements");
    asm("ld.global.nc.L1::no_allocate.b16 %0, [%1];" : "=h"(*reinterpret_cast<uint16_t *>(&dst)) : "l"(&src));
  }
  return dst;
}

/* How a row kernel reads its input: plain loads, or evict-first for a kernel
 * that only reads (the row sum). Softmax reads and writes; there the hint
 * measured no better (fp32 a little worse: docs/CUTE.md). */
enum class row_load { plain, evict_first };

/* Loads the words of `step` of a thread slice (1, NV, steps); words outside the
 * tensor read as `fill` (the identity of the caller's reduction), so the
 * arithmetic needs no predicates. All NV loads are issued before any use. */
template <row_load LOAD, class T, class V, int NV, class Src, class Pos, class Shape>
__device__ __forceinline__ void load_fragment(fragment<T, V, NV> &f, const Src &src, const Pos &pos,
                                              const Shape &shape, int step, float fill)
{
#pragma unroll
  for (int j = 0; j < NV; j++) {
    bool inside = cute::elem_less(pos(0, j, step), shape);
    f.valid_bits = j == 0 ? uint32_t(inside) : f.valid_bits | uint32_t(inside) << j;
    if (!inside) f.w[j] = splat<T, V>(fill);
    else if constexpr (LOAD == row_load::evict_first) f.w[j] = load_evict_first(src(0, j, step));
    else f.w[j] = src(0, j, step);
  }
}

/* The pair type of a 16-bit element type (for packed max). */
template <class T> struct pair_of;
template <> struct pair_of<__half> {
  using type = __half2;
};
template <> struct pair_of<__nv_bfloat16> {
  using type = __nv_bfloat162;
};

/* The largest element of a fragment (fmaxf's rule: a NaN loses to a number).
 * 16-bit words are compared packed, two elements per HMNMX2 (exact, and with
 * the same NaN rule), so the max pass widens nothing. */
template <class T, class V, int NV>
__device__ __forceinline__ float fragment_max(const fragment<T, V, NV> &f)
{
  constexpr int VEC = lanes_of<T, V>;
  if constexpr (sizeof(T) == 2 && VEC > 1) {
    using T2 = typename pair_of<T>::type;
    T2 m;
    memcpy(&m, &f.w[0], sizeof m);
#pragma unroll
    for (int j = 0; j < NV; j++) {
      T2 pairs[VEC / 2];
      memcpy(pairs, &f.w[j], sizeof pairs);
#pragma unroll
      for (int i = 0; i < VEC / 2; i++) m = __hmax2(m, pairs[i]);
    }
    return fmaxf(to_float(m.x), to_float(m.y));
  } else {
    float max = -INFINITY;
#pragma unroll
    for (int j = 0; j < NV; j++) {
      float x[VEC];
      f.widen(j, x);
#pragma unroll
      for (int i = 0; i < VEC; i++) max = fmaxf(max, x[i]);
    }
    return max;
  }
}

/* The shift of exp(x - max) for a fragment whose largest element is max: 0 when
 * every element is -inf (or outside), whose terms are then 0, not exp(-inf - -inf). */
__device__ __forceinline__ float finite_shift(float max) { return max == -INFINITY ? 0.0f : max; }

/* Statistics of a fragment loaded with fill -inf (the online update at the
 * granularity of one thread's step: one max, then one sum against it).
 * With KEEP (16-bit rows), the words are then replaced by their exponentials
 * exp(x - max), rounded to T, so that the output pass is one FMUL an element
 * instead of another exponential: at the copy rate the MUFU pipe was the
 * busiest one ncu reported (61% of its peak, 2 ex2 an element). Kept
 * exponentials subtract the shift before the prescale (exp_shifted), so their
 * error before the rounding to T is near 1e-6 relative, far below half an ulp. */
template <bool KEEP, class T, class V, int NV>
__device__ __forceinline__ softmax_stat fragment_stat(fragment<T, V, NV> &f)
{
  constexpr int VEC = lanes_of<T, V>;
  static_assert(!KEEP || sizeof(T) == 2, "16-bit rows: write_kept's accuracy argument is for a 16-bit rounding");
  float max = fragment_max(f);
  float base = finite_shift(max), sum = 0.0f, addend = exp_addend(base, 0.0f);
#pragma unroll
  for (int j = 0; j < NV; j++) {
    float x[VEC];
    f.widen(j, x);
#pragma unroll
    for (int i = 0; i < VEC; i++) {
      x[i] = sizeof(T) == 2 && !KEEP ? exp_folded(x[i], addend) : exp_shifted(x[i], base);
      sum += x[i];
    }
    if constexpr (KEEP) f.w[j] = pack_output<T, V>(x);
  }
  return {max, sum};
}

/* The launch shape a row kernel was instantiated for: TPR threads per row,
 * NV words per thread and step, ROWS rows per block of THREADS threads.
 * elements_shape<T, V, TPR, E> gives E elements (E / VEC words) per thread.
 * MIN_BLOCKS goes to __launch_bounds__: asking for 1024 resident threads per SM
 * caps registers at 64, and with that bound ptxas hoists all NV loads of a step
 * above the arithmetic; without it, it squeezed the row sum into 32 registers by
 * interleaving loads and adds, leaving two loads in flight. A shape with more
 * words per thread than that cap holds passes its own MIN_BLOCKS_ (2: 128
 * registers). */
template <int TPR_, int NV_, int MIN_BLOCKS_ = 0>
struct row_shape {
  static constexpr int TPR = TPR_;
  static constexpr int NV = NV_;
  static constexpr int ROWS = TPR >= 256 ? 1 : 256 / TPR;
  static constexpr int THREADS = ROWS * TPR;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_ ? MIN_BLOCKS_ : THREADS >= 1024 ? 1 : 1024 / THREADS;
};

template <class T, class V, int TPR, int ELEMENTS>
using elements_shape = row_shape<TPR, ELEMENTS / lanes_of<T, V>>;

/* How a row kernel reads, for describe(): by 16-byte words or by elements. */
template <class T, class V>
constexpr const char *access_name = std::is_same_v<T, V> ? "elements" : "words";

/* The row tile of block `block` as (ROWS, TPR * NV, steps) words, its matching
 * coordinates, and this thread's slice of both, (1, NV, steps): thread t of a
 * row owns words t, t + TPR, t + 2 TPR, ... so each warp-wide access is one
 * contiguous span of the row. */
template <class RS, class Tensor>
__device__ __forceinline__ auto thread_words(Tensor &&rows, int block)
{
  using namespace cute;
  auto tiler = Shape<Int<RS::ROWS>, Int<RS::TPR * RS::NV>>{};
  auto threads = Layout<Shape<Int<RS::ROWS>, Int<RS::TPR>>, Stride<Int<RS::TPR>, _1>>{};
  return local_partition(local_tile(rows, tiler, make_coord(block, _)), threads, int(threadIdx.x));
}

/* True when rows of n elements can be read (and, with output_rows, written) as
 * 16-byte words: every row and the buffers start on a 16-byte boundary. */
inline bool rows_vectorizable(const khost__rows &rows, bool output_rows)
{
  const void *buffers[2] = {rows.in, rows.out};
  return (rows.n * rows.element_bytes) % 16 == 0 && khost__input_aligned(buffers, output_rows ? 2 : 1, 16);
}

template <class T> struct type_tag {
  using type = T;
};

/* Returns launch(type_tag<T>{}) with T the CUDA type of rows.type. */
template <class Launch>
int with_element_type(const khost__rows &rows, Launch &&launch)
{
  switch (rows.type) {
  case KHOST__ROWS_FP16: return launch(type_tag<__half>{});
  case KHOST__ROWS_BF16: return launch(type_tag<__nv_bfloat16>{});
  case KHOST__ROWS_FP32: return launch(type_tag<float>{});
  }
  return KHOST_STATUS_INTERNAL;
}

/* Opens in as rows (out_kind, 32-bit sizes) and returns launch(rows, type_tag<T>{},
 * type_tag<V>{}): T the element type, V a 16-byte word where the rows allow it, else T.
 * A reduced output is one element per row, so then only the input decides V. */
template <class Launch>
int with_row_types(const khost_input *in, khost__rows_out out_kind, Launch &&launch)
{
  khost__rows rows;
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, out_kind, INT32_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  bool vectorizable = rows_vectorizable(rows, out_kind == KHOST__ROWS_OUT_SAME);
  return with_element_type(rows, [&](auto tag) {
    return vectorizable ? launch(rows, tag, type_tag<cute::uint128_t>{}) : launch(rows, tag, tag);
  });
}

} // namespace khost__cute

#endif
