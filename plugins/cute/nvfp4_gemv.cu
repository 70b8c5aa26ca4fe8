/* nvfp4_gemv: c[b][i] = fp16(sum_j e2m1(a[b][i][j]) * e4m3(sfa[b][i][j/16]) *
 * e2m1(v[b][j]) * e4m3(sfv[b][j/16])), memory-bound: the packed matrix and its
 * scales are 9/16 byte per element and are read once.
 *
 * Mapping (docs/CUTE.md): a row is k/32 chunks of 16 bytes (32 values, two
 * scale blocks). A warp works on bands of rows: TPR lanes share R = 4 rows, so a
 * band is R * 32 / TPR rows, and one item is one step of a band: chunk
 * step * TPR + t of each of the lane's R rows. The grid is persistent (as many
 * blocks as fit the GPU); block b owns a contiguous, balanced range of bands,
 * and its warps split that range's items evenly, so a band's steps may be
 * shared by two warps (their partial sums meet in shared memory at the end).
 *
 * Each warp streams its items through a ring of STAGES shared-memory buffers
 * with cp.async: the copies of the next STAGES - 1 items are in flight while
 * the warp decodes the current one, without holding registers, so the bytes in
 * flight per SM are set by shared memory, not by the register file. Every lane
 * copies its own a and v chunks and reads them back itself; the scale words are
 * copied 4 bytes at a time by whichever lane and read by others, after a
 * __syncwarp.
 *
 * Arithmetic is exact until the fp32 accumulation: e2m1 values doubled are the
 * integers 0, +-1, 2, 3, 4, 6, 8, 12; a block of 16 products sums to at most
 * 16 * 144 in magnitude, so dp4a on int8 lanes gives the exact block dot; the
 * product of two e4m3 scales (and the 1/4 undoing the doubling) is exact in
 * fp32; one FFMA per block adds it to the row sum. The plain (row-contiguous)
 * scale layout is read: a row's scales are k/16 contiguous bytes, 2 per chunk;
 * the swizzled copy exists for tensor-core MMA and would only scatter a GEMV's
 * reads. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cute/tensor.hpp>

#include "cute.h"

namespace {

using cute::uint128_t;

#ifndef KHOST_CUTE_GEMV_ROWS
#define KHOST_CUTE_GEMV_ROWS 4
#endif
#ifndef KHOST_CUTE_GEMV_WARPS
#define KHOST_CUTE_GEMV_WARPS 8
#endif
constexpr int WARP = 32;
constexpr int WARPS = KHOST_CUTE_GEMV_WARPS; /* per block */
constexpr int THREADS = WARPS * WARP;
constexpr int R = KHOST_CUTE_GEMV_ROWS; /* rows per lane: one decode of a v chunk serves R rows */
#ifndef KHOST_CUTE_GEMV_STAGES
#define KHOST_CUTE_GEMV_STAGES 4
#endif
#ifndef KHOST_CUTE_GEMV_MIN_BLOCKS
#define KHOST_CUTE_GEMV_MIN_BLOCKS 2
#endif
constexpr int STAGES = KHOST_CUTE_GEMV_STAGES; /* per warp: STAGES - 1 items in flight while one computes */
constexpr int MIN_BLOCKS = KHOST_CUTE_GEMV_MIN_BLOCKS;

/* prmt byte tables: e2m1 magnitude code 0..7 -> twice its value (0, 1, 2, 3, 4,
 * 6, 8, 12) as int8, and the same negated. The high halves are immediates of
 * the PRMT instruction; the low halves must sit in registers (lookup_tables). */
constexpr uint32_t DOUBLED_LO = 0x03020100u, DOUBLED_HI = 0x0C080604u;
constexpr uint32_t NEGATED_LO = 0xFDFEFF00u, NEGATED_HI = 0xF4F8FAFCu;

struct lookup_tables {
  uint32_t doubled_lo, negated_lo;
};

/* The low table halves in vector registers. Written as constants, ptxas keeps
 * them in uniform registers, which PRMT cannot read, and copies one into a
 * vector register before each of the 48 lookups of a step (45 of 355 loop
 * instructions). OR-ing in zero * threadIdx.x, with a zero ptxas cannot prove
 * (the sign bit of m > 0), makes them per-thread values that stay put. */
__device__ __forceinline__ lookup_tables make_lookup_tables(int positive)
{
  uint32_t salt = (uint32_t(positive) >> 31) * threadIdx.x;
  return {DOUBLED_LO | salt, NEGATED_LO | salt};
}

/* PTX prmt: byte i of the result is byte (selector nibble i & 7) of {b:a};
 * a nibble with bit 3 set replicates that byte's sign bit instead. */
__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector)
{
  uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
  return d;
}

/* Bytes of mask 0xff pick from when_set, bytes 0x00 from when_clear (one LOP3). */
__device__ __forceinline__ uint32_t select_bytes(uint32_t mask, uint32_t when_set, uint32_t when_clear)
{
  return (when_set & mask) | (when_clear & ~mask);
}

/* For the 8 e2m1 codes of word w (code i in nibble i): byte i of *low is 0xff
 * when code i (i < 4) is negative, byte i of *high likewise for code 4 + i.
 * The sign bit of an odd code is bit 7 of its byte of w, that of an even code
 * bit 7 of its byte of w << 4; prmt's sign mode replicates it. */
__device__ __forceinline__ void negative_masks(uint32_t w, uint32_t *low, uint32_t *high)
{
  uint32_t shifted = w << 4;
  *low = prmt(shifted, w, 0xD9C8);
  *high = prmt(shifted, w, 0xFBEA);
}

/* 8 values of v, doubled, as two int8x4 words (codes 0-3, 4-7), and negated. */
struct vector_word {
  uint32_t plus[2];
  uint32_t minus[2];
};

__device__ __forceinline__ vector_word decode_vector_word(uint32_t w, const lookup_tables &tables)
{
  /* Magnitude codes of nibbles 0-3 and 4-7 in the selector's low 16 bits (prmt
   * ignores the rest); bit 3 cleared so that no nibble triggers sign mode. */
  uint32_t magnitude_codes = w & 0x77777777u;
  uint32_t codes[2] = {magnitude_codes, magnitude_codes >> 16};
  uint32_t negative[2];
  negative_masks(w, &negative[0], &negative[1]);
  vector_word out;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    uint32_t doubled = prmt(tables.doubled_lo, DOUBLED_HI, codes[h]);
    uint32_t negated = prmt(tables.negated_lo, NEGATED_HI, codes[h]);
    out.plus[h] = select_bytes(negative[h], negated, doubled);
    out.minus[h] = select_bytes(negative[h], doubled, negated);
  }
  return out;
}

/* dot + the 8 products of a's codes in w with v's matching values, each doubled
 * (so 4x the true products): a's magnitudes times v with a's sign applied. */
__device__ __forceinline__ int dot_word(uint32_t w, const vector_word &v, const lookup_tables &tables,
                                        int dot)
{
  uint32_t magnitude_codes = w & 0x77777777u;
  uint32_t codes[2] = {magnitude_codes, magnitude_codes >> 16};
  uint32_t negative[2];
  negative_masks(w, &negative[0], &negative[1]);
#pragma unroll
  for (int h = 0; h < 2; h++) {
    uint32_t magnitudes = prmt(tables.doubled_lo, DOUBLED_HI, codes[h]);
    dot = __dp4a(int(magnitudes), int(select_bytes(negative[h], v.minus[h], v.plus[h])), dot);
  }
  return dot;
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

/* One warp's buffer for one item. a and v: lane l's chunks at [r][l] and [l].
 * Scales as 4-byte words (two chunks' pairs): sfa holds the band's ROWS rows x
 * TPR pairs, row-major; sfv holds TPR pairs per row subgroup (subgroups of one
 * band can lie in different batches). 64 and 16 words for every TPR. */
struct stage {
  uint128_t a[R][WARP];
  uint128_t v[WARP];
  uint32_t sfa[R * WARP / 2];
  uint32_t sfv[WARP / 2];
};

/* The shape of a band for TPR lanes per row subgroup. */
template <int TPR>
struct band_shape {
  static constexpr int SUBS = WARP / TPR;      /* row subgroups per warp */
  static constexpr int ROWS = R * SUBS;        /* rows per band */
  static constexpr int WORDS = TPR / 2;        /* scale words per row and step */
  static_assert(TPR >= 2 && ROWS * WORDS == R * WARP / 2, "a stage holds every TPR's scales");
};

/* The caller's buffers and the problem's extents. A row's batch is row / m,
 * computed as a multiply-high by batch_magic = ceil(2^(31 + s) / m) and a shift
 * by s - 1, s = ceil(log2 m): exact for rows below 2^31 (the error term
 * row * (batch_magic * m - 2^(31 + s)) stays below 2^(31 + s)). */
struct gemv_views {
  const uint128_t *a, *v;
  const uint32_t *sfa, *sfv;
  __half *c;
  int rows, m, chunks;
  uint32_t batch_magic;
  int batch_shift;

  __device__ __forceinline__ int batch_of(int row) const
  {
    return int(__umulhi(uint32_t(row), batch_magic) >> batch_shift);
  }
};

/* cp.async into a shared-memory address (a 32-bit shared-window offset, so the
 * ring's addresses are plain integer adds): 16 bytes bypassing L1 for the
 * matrix, 16 bytes through L1 for v (every warp of the SM rereads it), 4 bytes
 * through L1 for scale words. */
__device__ __forceinline__ void copy_stream_16(uint32_t dst, const void *src)
{
#ifdef KHOST_CUTE_EVICT_FIRST
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "l"(policy));
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
#endif
}
__device__ __forceinline__ void copy_shared_16(uint32_t dst, const void *src)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void copy_word(uint32_t dst, const void *src)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src));
}

/* Where a lane copies from for the current item. Set up once per band and
 * stepped along it with adds. The lane copies chunk `chunk` of its R rows and of v, and scale words
 * q = lane and lane + 32 of the band's table (row q / WORDS, word q % WORDS of
 * the step); lanes below 16 also copy word lane % WORDS of their subgroup's sfv. */
template <int TPR>
struct lane_sources {
  using BS = band_shape<TPR>;
  const uint128_t *a, *v;
  static constexpr int SCALE_COPIES = R / 2; /* a stage's R * 16 sfa words over 32 lanes */
  const uint32_t *sfa[SCALE_COPIES], *sfv;
  int chunk, word[SCALE_COPIES], vector_word;
  bool rows_in, scale_rows_in[SCALE_COPIES], vector_rows_in;

  __device__ __forceinline__ void start(const gemv_views &g, int band, int lane)
  {
    int words = g.chunks / 2, band_row = band * BS::ROWS, row = band_row + lane / TPR * R;
    chunk = lane % TPR;
    rows_in = row < g.rows;
    a = g.a + int64_t(row) * g.chunks + chunk;
    v = g.v + int64_t(g.batch_of(row)) * g.chunks + chunk;
#pragma unroll
    for (int h = 0; h < SCALE_COPIES; h++) {
      int q = lane + h * WARP, q_row = band_row + q / BS::WORDS;
      word[h] = q % BS::WORDS;
      scale_rows_in[h] = q_row < g.rows;
      sfa[h] = g.sfa + int64_t(q_row) * words + word[h];
    }
    int s_row = band_row + lane / BS::WORDS * R;
    vector_word = lane % BS::WORDS;
    vector_rows_in = lane < WARP / 2 && s_row < g.rows;
    sfv = g.sfv + int64_t(g.batch_of(s_row)) * words + vector_word;
  }

  __device__ __forceinline__ void next()
  {
    a += TPR;
    v += TPR;
    chunk += TPR;
#pragma unroll
    for (int h = 0; h < SCALE_COPIES; h++) {
      sfa[h] += BS::WORDS;
      word[h] += BS::WORDS;
    }
    sfv += BS::WORDS;
    vector_word += BS::WORDS;
  }

  /* Issues the copies of the current item into the stage at shared address st.
   * Chunks past the row end and rows past the last are not copied; nothing
   * reads their slots. */
  __device__ __forceinline__ void copy(const gemv_views &g, uint32_t st, int lane) const
  {
    int words = g.chunks / 2;
    if (rows_in && chunk < g.chunks) {
#pragma unroll
      for (int r = 0; r < R; r++)
        copy_stream_16(st + offsetof(stage, a) + (r * WARP + lane) * 16, a + int64_t(r) * g.chunks);
      copy_shared_16(st + offsetof(stage, v) + lane * 16, v);
    }
#pragma unroll
    for (int h = 0; h < SCALE_COPIES; h++)
      if (scale_rows_in[h] && word[h] < words)
        copy_word(st + offsetof(stage, sfa) + (lane + h * WARP) * 4, sfa[h]);
    if (vector_rows_in && vector_word < words) copy_word(st + offsetof(stage, sfv) + lane * 4, sfv);
  }
};

/* row_sums[r] += the products of lane's chunk of row r with its v chunk. */
template <int TPR>
__device__ __forceinline__ void accumulate_item(const stage &st, int lane, const lookup_tables &tables,
                                                float (&row_sums)[R])
{
  int sub = lane / TPR, t = lane % TPR;
  const uint16_t *sfa_pairs = reinterpret_cast<const uint16_t *>(st.sfa) + sub * R * TPR + t;
  const uint16_t *sfv_pairs = reinterpret_cast<const uint16_t *>(st.sfv) + sub * TPR + t;
  uint32_t vw[4];
  chunk_words(st.v[lane], vw);
  vector_word v[4];
#pragma unroll
  for (int q = 0; q < 4; q++) v[q] = decode_vector_word(vw[q], tables);
  /* The 1/4 undoes the doubling of both operands (exact). */
  __half2 sv = __hmul2(scale_pair(*sfv_pairs), __float2half2_rn(0.25f));
#pragma unroll
  for (int r = 0; r < R; r++) {
    uint32_t aw[4];
    chunk_words(st.a[r][lane], aw);
    int block0 = dot_word(aw[1], v[1], tables, dot_word(aw[0], v[0], tables, 0));
    int block1 = dot_word(aw[3], v[3], tables, dot_word(aw[2], v[2], tables, 0));
    float2 scales = block_scales(scale_pair(sfa_pairs[r * TPR]), sv);
    row_sums[r] = fmaf(float(block0), scales.x, row_sums[r]);
    row_sums[r] = fmaf(float(block1), scales.y, row_sums[r]);
  }
}

/* Sums row_sums over the TPR lanes of each row subgroup and calls emit(r, sum)
 * once per row r of the subgroup. Reduce-scatter: in each of the first log2 R
 * rounds a lane keeps half of its rows and adds its partner's half of the same
 * rows (R - 1 shuffles in all, instead of R * log2 TPR), then plain butterfly
 * rounds finish the one row left. */
template <int TPR, class Emit>
__device__ __forceinline__ void reduce_rows(float (&x)[R], int lane, Emit &&emit)
{
  int t = lane % TPR, first = 0; /* x[0 .. kept) hold rows first .. first + kept */
  constexpr int SCATTER = R < TPR ? R : TPR; /* rows are halved down to R / SCATTER each */
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

/* A warp's share of its block's items: [lo, hi) in the order band-major, step-minor. */
struct item_range {
  int64_t lo, hi;
};

__device__ __forceinline__ item_range warp_items(int64_t items, int warp)
{
  return {items * warp / WARPS, items * (warp + 1) / WARPS};
}

template <int TPR>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS) gemv_bands(gemv_views g, int steps, int bands)
{
  using BS = band_shape<TPR>;
  extern __shared__ uint128_t ring_memory[];
  __shared__ float partial[WARPS][2][R]; /* a warp's sums of its first and last band when shared */
  int warp = int(threadIdx.x) / WARP, lane = int(threadIdx.x) % WARP;
  stage *ring = reinterpret_cast<stage *>(ring_memory) + warp * STAGES;
  uint32_t ring_address = uint32_t(__cvta_generic_to_shared(ring));
  int band_lo = int(int64_t(bands) * blockIdx.x / gridDim.x);
  int band_hi = int(int64_t(bands) * (blockIdx.x + 1) / gridDim.x);
  int64_t items = int64_t(band_hi - band_lo) * steps;
  item_range mine = warp_items(items, warp);
  int64_t count = mine.hi - mine.lo;
  int first_band = band_lo + int(mine.lo / steps), first_step = int(mine.lo % steps);

  /* The producer runs STAGES - 1 items ahead of the consumer, in the same order. */
  int produced_band = first_band, produced_step = first_step;
  lane_sources<TPR> source;
  source.start(g, produced_band, lane);
  for (int s = 0; s < first_step; s++) source.next();
  auto produce = [&](int slot) {
    source.copy(g, ring_address + slot * uint32_t(sizeof(stage)), lane);
    if (++produced_step == steps) {
      produced_step = 0;
      source.start(g, ++produced_band, lane);
    } else {
      source.next();
    }
  };
  for (int j = 0; j < STAGES - 1; j++) {
    if (j < count) produce(j);
    cute::cp_async_fence();
  }

  lookup_tables tables = make_lookup_tables(g.m);
  float row_sums[R] = {};
  int band = first_band, step = first_step, slot = 0;
  for (int64_t j = 0; j < count; j++) {
    __syncwarp(); /* every lane is done reading the slot the next copy refills */
    if (j + STAGES - 1 < count) produce(slot == 0 ? STAGES - 1 : slot - 1);
    cute::cp_async_fence();
    cute::cp_async_wait<STAGES - 1>(); /* this lane's copies of item j have landed */
    __syncwarp();                      /* and every other lane's */
    int chunk = step * TPR + lane % TPR, row = band * BS::ROWS + lane / TPR * R;
    if (chunk < g.chunks && row < g.rows) accumulate_item<TPR>(ring[slot], lane, tables, row_sums);
    if (step == steps - 1 || j == count - 1) {
      int64_t band_first = int64_t(band - band_lo) * steps;
      bool whole = band_first >= mine.lo && band_first + steps <= mine.hi;
      int which = band == first_band ? 0 : 1;
      reduce_rows<TPR>(row_sums, lane, [&](int r, float sum) {
        if (!whole) partial[warp][which][r] = sum;
        else if (row < g.rows) g.c[row + r] = __float2half_rn(sum);
      });
#pragma unroll
      for (int r = 0; r < R; r++) row_sums[r] = 0.0f;
    }
    if (++step == steps) {
      step = 0;
      band++;
    }
    slot = slot == STAGES - 1 ? 0 : slot + 1;
  }

  /* Bands shared by warps (only when a band has several steps, so TPR == 32 and
   * a band is R rows): the warp holding a band's first item adds the partial
   * sums of the following warps that hold its later items, in warp order. */
  __syncthreads();
  if (count == 0 || lane >= R) return;
  int last_band = band_lo + int((mine.hi - 1) / steps);
  int64_t last_first = int64_t(last_band - band_lo) * steps;
  if (last_first < mine.lo || last_first + steps <= mine.hi) return;
  float sum = partial[warp][last_band == first_band ? 0 : 1][lane];
  for (int w = warp + 1; w < WARPS; w++) {
    item_range next = warp_items(items, w);
    if (next.hi == next.lo) continue; /* with fewer items than warps some have none */
    if (band_lo + next.lo / steps != last_band) break;
    sum += partial[w][0][lane];
  }
  g.c[last_band * BS::ROWS + lane] = __float2half_rn(sum);
}

struct gemv_args {
  int64_t m, k, l;
  const void *a, *sfa, *v, *sfv;
  void *c;
};

int check_params(const khost_input *in, gemv_args *args)
{
  int status = khost__cute_check_counts(in, KHOST_NVFP4_GEMV_NINPUTS, KHOST_NVFP4_GEMV_NOUTPUTS);
  if (status == KHOST_STATUS_OK) status = khost__cute_param(in, "m", 1, &args->m);
  if (status == KHOST_STATUS_OK) status = khost__cute_param(in, "k", 16, &args->k);
  if (status == KHOST_STATUS_OK) status = khost__cute_param(in, "l", 1, &args->l);
  if (status != KHOST_STATUS_OK) return status;
  /* The catalog's shapes (m % 128, k % 64) always qualify: k % 64 makes a row's
   * scales whole 4-byte words, which cp.async can copy. */
  if (args->k % 64 != 0 || args->m % R != 0 || args->l * args->m > INT32_MAX)
    return khost__cute_fail(in, KHOST_STATUS_UNSUPPORTED,
                            "nvfp4_gemv: needs k %% 64 == 0 (4-byte scale words), m %% %d == 0 and "
                            "l*m <= 2^31-1; got m = %lld, k = %lld, l = %lld", R,
                            (long long)args->m, (long long)args->k, (long long)args->l);
  return KHOST_STATUS_OK;
}

/* Checks the tensors the kernel reads (not the swizzled scales) and keeps their data pointers. */
int check_tensors(const khost_input *in, gemv_args *args)
{
  const khost_dtype e2m1 = {KHOST_DTYPE_FLOAT4_E2M1FN, 4, 1};
  const khost_dtype e4m3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
  const khost_dtype fp16 = {KHOST_DTYPE_FLOAT, 16, 1};
  int64_t m = args->m, k = args->k, l = args->l;
  const struct {
    const khost_tensor *tensor;
    const char *role;
    khost_dtype dtype;
    int32_t ndim;
    int64_t shape[3];
  } want[] = {
    {khost__cute_tensor(in->inputs, KHOST_NVFP4_GEMV_A), "input a", e2m1, 3, {l, m, k}},
    {khost__cute_tensor(in->inputs, KHOST_NVFP4_GEMV_V), "input v", e2m1, 2, {l, k}},
    {khost__cute_tensor(in->inputs, KHOST_NVFP4_GEMV_SFA), "input sfa", e4m3, 3, {l, m, k / 16}},
    {khost__cute_tensor(in->inputs, KHOST_NVFP4_GEMV_SFV), "input sfv", e4m3, 2, {l, k / 16}},
    {khost__cute_tensor(in->outputs, KHOST_NVFP4_GEMV_C), "output c", fp16, 2, {l, m}},
  };
  for (const auto &w : want) {
    int status = khost__cute_check_tensor(in, w.tensor, w.role, w.dtype, w.ndim, w.shape);
    if (status != KHOST_STATUS_OK) return status;
  }
  args->a = want[0].tensor->data;
  args->v = want[1].tensor->data;
  args->sfa = want[2].tensor->data;
  args->sfv = want[3].tensor->data;
  args->c = want[4].tensor->data;
  return KHOST_STATUS_OK;
}

int check(const khost_input *in, gemv_args *args)
{
  int status = check_params(in, args);
  if (status == KHOST_STATUS_OK) status = check_tensors(in, args);
  if (status != KHOST_STATUS_OK) return status;
  const void *chunked[2] = {args->a, args->v}, *scales[2] = {args->sfa, args->sfv}, *out[1] = {args->c};
  if (!khost__cute_aligned(chunked, 2, 16) || !khost__cute_aligned(scales, 2, 4) ||
      !khost__cute_aligned(out, 1, 2))
    return khost__cute_fail(in, KHOST_STATUS_UNSUPPORTED,
                            "nvfp4_gemv: a and v must be 16-byte aligned, sfa and sfv 4-byte, c 2-byte "
                            "(a %p, v %p, sfa %p, sfv %p, c %p)", args->a, args->v, args->sfa, args->sfv,
                            args->c);
  return KHOST_STATUS_OK;
}

/* batch_magic and batch_shift of gemv_views for m (4 <= m < 2^31). */
void batch_division(int64_t m, gemv_views *g)
{
  int s = 0;
  while ((int64_t(1) << s) < m) s++;
  g->batch_magic = uint32_t(((uint64_t(1) << (31 + s)) + uint64_t(m) - 1) / uint64_t(m));
  g->batch_shift = s - 1;
}

int next_power_of_two(int64_t x)
{
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

/* A persistent grid: as many blocks as are resident at once, each with a
 * balanced range of bands. */
template <int TPR>
int launch(const khost_input *in, const gemv_args &args)
{
  using BS = band_shape<TPR>;
  int rows = int(args.l * args.m), chunks = int(args.k / 32);
  int steps = (chunks + TPR - 1) / TPR, bands = (rows + BS::ROWS - 1) / BS::ROWS;
  size_t ring_bytes = size_t(WARPS) * STAGES * sizeof(stage);
  int device = 0, sms = 0, per_sm = 0;
  KHOST__CUTE_CHECK(in, cudaFuncSetAttribute(gemv_bands<TPR>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             int(ring_bytes)));
  KHOST__CUTE_CHECK(in, cudaGetDevice(&device));
  KHOST__CUTE_CHECK(in, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  KHOST__CUTE_CHECK(in, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemv_bands<TPR>, THREADS,
                                                                      ring_bytes));
  int blocks = bands < sms * per_sm ? bands : sms * per_sm;
  gemv_views g = {static_cast<const uint128_t *>(args.a), static_cast<const uint128_t *>(args.v),
                  static_cast<const uint32_t *>(args.sfa), static_cast<const uint32_t *>(args.sfv),
                  static_cast<__half *>(args.c), rows, int(args.m), chunks, 0, 0};
  batch_division(args.m, &g);
  gemv_bands<TPR><<<blocks, THREADS, ring_bytes, (cudaStream_t)in->stream>>>(g, steps, bands);
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

int supports(const khost_input *in)
{
  gemv_args args;
  return check(in, &args);
}

/* TPR: a warp for rows of 32 chunks or more (steps of 32 chunks), else the
 * smallest power of two that covers the row, so that a band is one step and
 * never shared between warps. */
int run(const khost_input *in)
{
  gemv_args args;
  int status = check(in, &args);
  if (status != KHOST_STATUS_OK) return status;
  switch (next_power_of_two(args.k / 32 < 32 ? args.k / 32 : 32)) {
  case 32: return launch<32>(in, args);
  case 16: return launch<16>(in, args);
  case 8: return launch<8>(in, args);
  case 4: return launch<4>(in, args);
  default: return launch<2>(in, args);
  }
}

} // namespace

const khost_kernel khost__cute_nvfp4_gemv = {
  sizeof(khost_kernel), "nvfp4_gemv", KHOST_DEVICE_CUDA, run, supports, nullptr,
};
