/* nvfp4_gemv: c[b][i] = fp16(sum_j e2m1(a[b][i][j]) * e4m3(sfa[b][i][j/16]) *
 * e2m1(v[b][j]) * e4m3(sfv[b][j/16])), memory-bound: the packed matrix and its
 * scales are 9/16 byte per element and are read once.
 *
 * Mapping (docs/CUTE.md): a row is k/32 chunks of 16 bytes (32 values, two
 * scale blocks). TPR lanes share a group of 4 consecutive rows of one batch;
 * lane t takes chunks t, t + TPR, ... of all 4 rows, so each warp-wide load is
 * TPR contiguous chunks of a row. Every lane decodes its chunk of v once and
 * reuses it for the 4 rows. A lane issues the 10 loads of a step (4 a chunks,
 * 4 scale pairs, 1 v chunk, 1 scale pair: 90 bytes) before using any. Blocks
 * are 4 warps: at 61-66 registers 7 or 8 fit an SM (28-32 warps). When rows are few and
 * long (the grid's warps would not fill the GPU, rows of 8 steps or more), 2 or
 * 4 warps share a group's steps and add their sums in shared memory; so do 4
 * warps for each group of a grid's last, partial wave (plan()).
 *
 * Arithmetic is exact until the fp32 accumulation: e2m1 values doubled are the
 * integers 0, +-1, 2, 3, 4, 6, 8, 12; a block of 16 products sums to at most
 * 16 * 144 in magnitude, so dp4a on int8 lanes gives the exact block dot (as
 * two sums, over the positive and the negative products: dot_word); the
 * product of two e4m3 scales (and the 1/4 undoing the doubling) is exact in
 * fp16; one FFMA per block adds it to the row sum. The plain (row-contiguous)
 * scale layout is read: a row's scales are k/16 contiguous bytes, 2 per chunk;
 * the swizzled copy exists for tensor-core MMA and would only scatter a GEMV's
 * reads. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cute/tensor.hpp>
#include <cutlass/fast_math.h>

#include "khost/ops/nvfp4_gemv.h"
#include "nvfp4_gemv.h"
#include "row_math.cuh"

namespace {

using cute::uint128_t;
using khost__cute::load_no_allocate;

using khost__cute::WARP;
/* 4 warps a block: at the 70 registers a thread then needed, 7 blocks (28 warps)
 * fitted an SM where 8-warp blocks fitted 3 (24 warps); 4 more warps in flight
 * measured +3 points of copy bandwidth on the large shapes (docs/CUTE.md). */
constexpr int THREADS = 128;
/* __launch_bounds__'s minimum: 6 blocks cap registers at 85, which leaves ptxas
 * the 64-68 it wants (a cap of 64 for every kernel, 8 blocks, measured worse on
 * the few-row shape: docs/CUTE.md). */
constexpr int MIN_BLOCKS = 6;
constexpr int R = 4; /* rows per lane: one decode of a v chunk serves R rows */

/* prmt byte table: e2m1 magnitude code 0..7 -> twice its value (0, 1, 2, 3, 4,
 * 6, 8, 12) as int8. The high half is an immediate of the PRMT instruction; the
 * low half must sit in a register (lookup_table). */
constexpr uint32_t DOUBLED_LO = 0x03020100u, DOUBLED_HI = 0x0C080604u;
constexpr uint32_t SIGN_BITS = 0x88888888u; /* bit 3 of every code of a word */

/* The low table half in a vector register. Written as a constant, ptxas keeps
 * it in a uniform register, which PRMT cannot read, and copies it into a vector
 * register before each lookup (45 of 355 loop instructions when it was
 * measured, with 48 lookups a step). OR-ing in zero * threadIdx.x, with a zero ptxas cannot prove
 * (the sign bit of m > 0), makes it a per-thread value that stays put. */
__device__ __forceinline__ uint32_t make_lookup_table(int positive)
{
  return DOUBLED_LO | (uint32_t(positive) >> 31) * threadIdx.x;
}

/* PTX prmt: byte i of the result is byte (selector nibble i & 7) of {b:a};
 * a nibble with bit 3 set replicates that byte's sign bit instead. */
__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector)
{
  uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
  return d;
}

/* 8 values of v: their magnitudes doubled as two int8x4 words (codes 0-3,
 * 4-7) and their sign bits where the codes have them. v is never signed byte
 * by byte: its signs go into a's selectors (dot_word). */
struct vector_word {
  uint32_t magnitudes[2];
  uint32_t signs;
};

__device__ __forceinline__ vector_word decode_vector_word(uint32_t w, uint32_t table)
{
  /* Magnitude codes of nibbles 0-3 and 4-7 in the selector's low 16 bits (prmt
   * ignores the rest); bit 3 cleared so that no nibble triggers sign mode. */
  uint32_t codes = w & ~SIGN_BITS;
  return {{prmt(table, DOUBLED_HI, codes), prmt(table, DOUBLED_HI, codes >> 16)}, w & SIGN_BITS};
}

/* A block's dot product split by the products' signs: positive += the products
 * of a's codes in w with v's that have the same sign, negative += the magnitudes
 * of those with opposite signs (both doubled, so 4x the true products; the block
 * dot is positive - negative). A code with its sign bit set puts prmt in sign
 * mode, which replicates bit 7 of a table byte: 0, as every magnitude is below
 * 0x80. So with v's sign bits xored into w, a lookup yields a's magnitudes in
 * the positive products (0 in the others), and one with the sign bits flipped
 * in the negative ones; both meet v's magnitudes. (As in triton_aot's kernel:
 * signing v took 3 prmt and a select a word, the xor one instruction.) */
__device__ __forceinline__ void dot_word(uint32_t w, const vector_word &v, uint32_t table, int &positive,
                                         int &negative)
{
  uint32_t same = w ^ v.signs, opposite = same ^ SIGN_BITS;
  uint32_t of_positive[2] = {same, same >> 16}, of_negative[2] = {opposite, opposite >> 16};
#pragma unroll
  for (int h = 0; h < 2; h++) {
    positive = __dp4a(int(prmt(table, DOUBLED_HI, of_positive[h])), int(v.magnitudes[h]), positive);
    negative = __dp4a(int(prmt(table, DOUBLED_HI, of_negative[h])), int(v.magnitudes[h]), negative);
  }
}

/* The two e4m3 scales of a chunk (low byte: first block) as fp16, exact; NaN
 * codes stay NaN. */
__device__ __forceinline__ __half2 scale_pair(uint16_t codes)
{
  return __half2(__nv_cvt_fp8x2_to_halfraw2(codes, __NV_E4M3));
}

/* sfa * sfv / 4 for both blocks of a chunk, in fp16 and exact: the significands
 * multiply to at most 8 bits, the smallest product (2^-9 * 2^-9 / 4 = 2^-20) is
 * a multiple of fp16's subnormal step 2^-24, and the largest (448 * 448 / 4 =
 * 50176) is below fp16's 65504; so is every product in between. */
__device__ __forceinline__ float2 block_scales(__half2 matrix, __half2 vector_quarter)
{
  return __half22float2(__hmul2(matrix, vector_quarter));
}

/* The 4 words of a 16-byte chunk. */
__device__ __forceinline__ void chunk_words(const uint128_t &chunk, uint32_t (&w)[4])
{
  memcpy(w, &chunk, sizeof w);
}

/* Everything one lane loads for one step: its chunk of v and of each row. */
struct step_loads {
  uint128_t a[R];
  uint16_t sfa[R];
  uint128_t v;
  uint16_t sfv;
};

/* row_sums[r] += the products of one chunk of row r with the lane's v chunk. */
__device__ __forceinline__ void accumulate_step(const step_loads &in, uint32_t table, float (&row_sums)[R])
{
  uint32_t vw[4];
  chunk_words(in.v, vw);
  vector_word v[4];
#pragma unroll
  for (int q = 0; q < 4; q++) v[q] = decode_vector_word(vw[q], table);
  /* The 1/4 undoes the doubling of both operands (exact). */
  __half2 sv = __hmul2(scale_pair(in.sfv), __float2half2_rn(0.25f));
#pragma unroll
  for (int r = 0; r < R; r++) {
    uint32_t aw[4];
    chunk_words(in.a[r], aw);
    int positive[2] = {}, negative[2] = {};
#pragma unroll
    for (int q = 0; q < 4; q++) dot_word(aw[q], v[q], table, positive[q / 2], negative[q / 2]);
    int block0 = positive[0] - negative[0], block1 = positive[1] - negative[1];
    float2 scales = block_scales(scale_pair(in.sfa[r]), sv);
    row_sums[r] = fmaf(float(block0), scales.x, row_sums[r]);
    row_sums[r] = fmaf(float(block1), scales.y, row_sums[r]);
  }
}

/* Sums x over the TPR lanes of each row group and calls emit(r, sum) once per
 * row r of the group. Reduce-scatter: in each of the first log2 R rounds a lane
 * keeps half of its rows and adds its partner's half of the same rows (R - 1
 * shuffles in all, instead of R * log2 TPR), then plain butterfly rounds finish
 * the one row left. */
template <int TPR, class Emit> __device__ __forceinline__ void reduce_rows(float (&x)[R], int t, Emit &&emit)
{
  constexpr int SCATTER = R < TPR ? R : TPR; /* rows are halved down to R / SCATTER per lane */
  int first = 0;                             /* x[0 .. kept) hold rows first .. first + kept */
#pragma unroll
  for (int offset = TPR / 2, kept = R; offset > 0; offset /= 2) {
    if (kept > R / SCATTER) {
      bool upper = t & offset;
      kept /= 2;
#pragma unroll
      for (int i = 0; i < kept; i++) {
        float mine = upper ? x[kept + i] : x[i], theirs = upper ? x[i] : x[kept + i];
        x[i] = mine + __shfl_xor_sync(0xffffffffu, theirs, offset);
      }
      first += upper ? kept : 0;
    } else {
      x[0] += __shfl_xor_sync(0xffffffffu, x[0], offset);
    }
  }
  if (t % (TPR / SCATTER) == 0)
#pragma unroll
    for (int i = 0; i < R / SCATTER; i++) emit(first + i, x[i]);
}

/* TPR lanes share a group of R rows; W such lane groups (warps, as W > 1 only
 * when TPR is a warp) split the group's steps: lane group `slice` takes steps
 * slice, slice + W, ..., so at any time the W warps of a group read adjacent
 * spans of its rows. The block's groups are first_group, first_group + 1, ... */
template <int TPR, int W>
__device__ __forceinline__ void
row_groups(const uint128_t *a, const uint16_t *sfa, const uint128_t *v, const uint16_t *sfv, __half *c,
           int rows, const cutlass::FastDivmod &rows_per_batch, int chunks_per_row, int first_group)
{
  using namespace cute;
  constexpr int LANE_GROUPS = THREADS / TPR;
  __shared__ float partial[W > 1 ? LANE_GROUPS : 1][R];
  int t = int(threadIdx.x) % TPR, lane_group = int(threadIdx.x) / TPR, slice = lane_group % W;
  int group = first_group + lane_group / W;
  bool group_valid = group * R < rows; /* rows % R == 0: a group is wholly in or out */
  /* By the launch's precomputed multiply and shift: the division it replaces put
   * 25 vector instructions and a MUFU ahead of every warp's first load (GPU MODE's
   * 7168 x 2048 x 4, whose warps run 2 steps, took 1.0-1.2% less time without them on an H200). */
  int batch = group_valid ? rows_per_batch.div(group * R) : 0;

  /* a and sfa as (row, chunk) of 16-byte chunks and of their 2-byte scale
   * pairs (same shape, so one layout); v and sfv as (batch, chunk). */
  auto chunk_stride = make_stride(int64_t(chunks_per_row), _1{});
  auto matrix = make_layout(make_shape(rows, chunks_per_row), chunk_stride);
  auto vectors = make_layout(make_shape(rows_per_batch.div(rows), chunks_per_row), chunk_stride);
  auto row_tiler = Shape<Int<R>, Int<TPR>>{};
  auto vector_tiler = Shape<_1, Int<TPR>>{};
  auto group_rows = make_coord(group, _);
  auto batch_row = make_coord(batch, _);
  /* (R, steps): chunk t of every TPR-chunk step of the group's rows. */
  Tensor tA = local_tile(make_tensor(make_gmem_ptr(a), matrix), row_tiler, group_rows)(_, t, _);
  Tensor tSfa = local_tile(make_tensor(make_gmem_ptr(sfa), matrix), row_tiler, group_rows)(_, t, _);
  /* (steps): the same chunks of the batch's vector. */
  Tensor tV = local_tile(make_tensor(make_gmem_ptr(v), vectors), vector_tiler, batch_row)(0, t, _);
  Tensor tSfv = local_tile(make_tensor(make_gmem_ptr(sfv), vectors), vector_tiler, batch_row)(0, t, _);
  Tensor gC = make_tensor(make_gmem_ptr(c), make_layout(rows));

  uint32_t table = make_lookup_table(rows_per_batch.divisor);
  float row_sums[R] = {};
  int steps = size<1>(tA);
  /* Lanes past the row end (its last step) or in a group past the last row skip
   * both the loads and the arithmetic; the loop bounds are the same for all. */
  for (int step = slice; step < steps; step += W) {
    if (!group_valid || step * TPR + t >= chunks_per_row) continue;
    step_loads in;
#pragma unroll
    for (int r = 0; r < R; r++) {
      in.a[r] = load_no_allocate(tA(r, step));
      in.sfa[r] = load_no_allocate(tSfa(r, step));
    }
    in.v = tV(step);
    in.sfv = tSfv(step);
    accumulate_step(in, table, row_sums);
  }

  reduce_rows<TPR>(row_sums, t, [&](int r, float sum) {
    if constexpr (W == 1) {
      if (group_valid) gC(group * R + r) = __float2half_rn(sum);
    } else {
      partial[lane_group][r] = sum;
    }
  });
  if constexpr (W > 1) {
    /* The first warp of each group adds the others' sums, in warp order. */
    __syncthreads();
    if (slice == 0 && t < R && group_valid) {
      float sum = partial[lane_group][t];
#pragma unroll
      for (int w = 1; w < W; w++) sum += partial[lane_group + w][t];
      gC(group * R + t) = __float2half_rn(sum);
    }
  }
}

/* Blocks before head_blocks take their groups W warps a group; with TAIL_W >
 * W, the later ones (the grid's last, partial wave) TAIL_W warps a group, so
 * that the wave's few groups still keep every warp slot busy. */
template <int TPR, int W, int TAIL_W>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    gemv_rows(const uint128_t *a, const uint16_t *sfa, const uint128_t *v, const uint16_t *sfv, __half *c,
              int rows, cutlass::FastDivmod rows_per_batch, int chunks_per_row, int head_blocks)
{
  constexpr int LANE_GROUPS = THREADS / TPR;
  int block = int(blockIdx.x);
  if constexpr (TAIL_W > W) {
    if (block >= head_blocks) {
      int first = head_blocks * (LANE_GROUPS / W) + (block - head_blocks) * (LANE_GROUPS / TAIL_W);
      row_groups<TPR, TAIL_W>(a, sfa, v, sfv, c, rows, rows_per_batch, chunks_per_row, first);
      return;
    }
  }
  row_groups<TPR, W>(a, sfa, v, sfv, c, rows, rows_per_batch, chunks_per_row, block * (LANE_GROUPS / W));
}

/* The shared checks (plugins/common), then what this kernel declines: rows in
 * 16-byte chunks and groups of R, 32-bit row indices, 16-byte aligned a and v. */
int check(const khost_input *in, khost__gemv *args)
{
  int status = khost__gemv_open(in, KHOST_DEVICE_CUDA, INT64_MAX, args);
  if (status != KHOST_STATUS_OK) return status;
  if (args->k % 32 != 0 || args->m % R != 0 || args->l * args->m > INT32_MAX)
    return khost__input_fail(
        in, KHOST_STATUS_UNSUPPORTED,
        "needs k %% 32 == 0 (16-byte chunks), m %% %d == 0 and l*m <= 2^31-1; got m = %lld, "
        "k = %lld, l = %lld",
        R, (long long)args->m, (long long)args->k, (long long)args->l);
  const void *chunked[2] = {args->a, args->v}, *paired[3] = {args->sfa, args->sfv, args->c};
  if (!khost__input_aligned(chunked, 2, 16) || !khost__input_aligned(paired, 3, 2))
    return khost__input_fail(
        in, KHOST_STATUS_UNSUPPORTED,
        "a and v must be 16-byte aligned, sfa, sfv and c 2-byte aligned (a %p, v %p, sfa %p, "
        "sfv %p, c %p)",
        args->a, args->v, args->sfa, args->sfv, args->c);
  return KHOST_STATUS_OK;
}

/* head_blocks as gemv_rows's; it matters only with TAIL_W > W. With a name sink,
 * names the kernel instead of launching it. */
template <int TPR, int W, int TAIL_W = W>
int launch(const khost_input *in, const khost__gemv &args, khost__cute_name *name, int head_blocks = 0)
{
  if (name && TAIL_W > W)
    return khost__cute_named(name, "gemv_rows<tpr=%d,w=%d,tail_w=%d> head=%d", TPR, W, TAIL_W, head_blocks);
  if (name) return khost__cute_named(name, "gemv_rows<tpr=%d,w=%d>", TPR, W);
  int rows = int(args.l * args.m), chunks_per_row = int(args.k / 32), groups = rows / R;
  constexpr int HEAD_GROUPS = THREADS / TPR / W, TAIL_GROUPS = THREADS / TPR / TAIL_W; /* per block */
  int blocks = TAIL_W > W ? head_blocks + (groups - head_blocks * HEAD_GROUPS + TAIL_GROUPS - 1) / TAIL_GROUPS
                          : (groups + HEAD_GROUPS - 1) / HEAD_GROUPS;
  gemv_rows<TPR, W, TAIL_W><<<blocks, THREADS, 0, (cudaStream_t)in->stream>>>(
      static_cast<const uint128_t *>(args.a), static_cast<const uint16_t *>(args.sfa),
      static_cast<const uint128_t *>(args.v), static_cast<const uint16_t *>(args.sfv),
      static_cast<__half *>(args.c), rows, cutlass::FastDivmod(int(args.m)), chunks_per_row, head_blocks);
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

int supports(const khost_input *in)
{
  khost__gemv args;
  return check(in, &args);
}

/* Warps a row group gets when its block runs in the grid's last, partial wave. */
constexpr int TAIL_W = THREADS / WARP;

/* What plan() needs of the current device: its SMs and how many blocks of the
 * whole-wave and of the last-wave kernel fit on one. */
struct residency {
  int sms, per_sm, tail_per_sm;
};

/* Queried once per host thread and device: the occupancy calls cost host time
 * that every GEMV call would otherwise pay. */
int residency_of(const khost_input *in, residency *out)
{
  thread_local int known_device = -1;
  thread_local residency known = {};
  int device = 0;
  KHOST__CUTE_CHECK(in, cudaGetDevice(&device));
  if (device != known_device) {
    residency r = {};
    KHOST__CUTE_CHECK(in, cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, device));
    KHOST__CUTE_CHECK(
        in, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm, gemv_rows<WARP, 1, 1>, THREADS, 0));
    KHOST__CUTE_CHECK(in, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                              &r.tail_per_sm, gemv_rows<WARP, 1, TAIL_W>, THREADS, 0));
    known = r;
    known_device = device;
  }
  *out = known;
  return KHOST_STATUS_OK;
}

/* How a grid of rows of 32 chunks or more is cut.
 * W, warps per row group: 1, or 2 or 4 (a block's warps) while the grid's warps
 * still all fit on the GPU at once and each keeps a step or more. Few rows would
 * otherwise leave most warp slots empty (GPU MODE's m = 7168, k = 16384: 1792
 * groups for 4224 resident warps on an H200; with 2 warps a group, 73% of copy
 * instead of 63%; its m = 256, k = 7168: 64 groups, 5.2 us with 4 warps a group
 * instead of 8.6, on an H100 and an H200). Grids of more than
 * a wave keep one warp a group: split there, blocks of one or two steps measured
 * worse (docs/CUTE.md).
 * head_blocks, for W = 1 over more than one wave: the blocks of the whole waves,
 * when the groups left for the last wave, at TAIL_W warps each, fit in one wave
 * and give every warp a step or more (else 0: no tail). GPU MODE's m = 4096, k
 * = 7168, l = 8: 2048 blocks for 924 slots, whose last 800 groups would
 * otherwise run 200 blocks on 132 SMs (84% of copy instead of 80%, on an H200). */
int plan(const khost_input *in, const khost__gemv &args, int *w, int *head_blocks)
{
  residency r;
  int status = residency_of(in, &r);
  if (status != KHOST_STATUS_OK) return status;
  constexpr int WARPS = THREADS / WARP;
  int64_t groups = args.l * args.m / R, steps = (args.k / 32 + WARP - 1) / WARP;
  int64_t resident = int64_t(r.sms) * r.per_sm * WARPS;
  *w = 1;
  while (2 * *w <= WARPS && groups * 2 * *w <= resident && steps >= 2 * *w) *w *= 2;
  int64_t slots = int64_t(r.sms) * r.tail_per_sm, blocks = (groups + WARPS - 1) / WARPS;
  int64_t head = slots > 0 ? blocks / slots * slots : 0, tail = groups - head * WARPS;
  bool split = *w == 1 && head > 0 && tail > 0 && tail * TAIL_W <= slots * WARPS && steps >= TAIL_W;
  *head_blocks = split ? int(head) : 0;
  return KHOST_STATUS_OK;
}

/* TPR: the widest power of two up to a warp that a row's chunks fill; W and
 * the tail for rows of a warp's width and more. khost__cute_run launches, khost__cute_describe names. */
int dispatch(const khost_input *in, khost__cute_name *name)
{
  khost__gemv args;
  int status = check(in, &args);
  if (status != KHOST_STATUS_OK) return status;
  int64_t chunks_per_row = args.k / 32;
  if (chunks_per_row >= 32) {
    int w = 1, head_blocks = 0;
    status = plan(in, args, &w, &head_blocks);
    if (status != KHOST_STATUS_OK) return status;
    if (head_blocks > 0) return launch<32, 1, TAIL_W>(in, args, name, head_blocks);
    switch (w) {
    case 4: return launch<32, 4>(in, args, name);
    case 2: return launch<32, 2>(in, args, name);
    default: return launch<32, 1>(in, args, name);
    }
  }
  if (chunks_per_row >= 16) return launch<16, 1>(in, args, name);
  if (chunks_per_row >= 8) return launch<8, 1>(in, args, name);
  if (chunks_per_row >= 4) return launch<4, 1>(in, args, name);
  if (chunks_per_row >= 2) return launch<2, 1>(in, args, name);
  return launch<1, 1>(in, args, name);
}

} // namespace

extern const khost_kernel khost__cute_nvfp4_gemv = {
    sizeof(khost_kernel),           "nvfp4_gemv", KHOST_DEVICE_CUDA,
    khost__cute_run<dispatch>,      supports,     nullptr,
    khost__cute_describe<dispatch>,
    nullptr, /* call_overhead: none */
    0, /* flags: none */
};
