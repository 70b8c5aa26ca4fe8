/* copy_transpose: out[j][i] = in[i][j] for [m, n] -> [n, m], bit-exact, so fp16
 * and bf16 share the 16-bit kernels (the bits move, nothing is converted).
 *
 * Word path (m and n multiples of the 16-byte word, both buffers 16-byte
 * aligned): a block moves a tile of 16 x 16 words (64 x 64 fp32, 128 x 128
 * 16-bit elements). Each thread loads a VEC x VEC block of elements as VEC row
 * words (16 consecutive threads read 256 contiguous bytes of a row), transposes
 * it in registers into VEC column words, and stores them into shared memory
 * laid out as the output tile. Threads then copy output rows out, again 256
 * contiguous bytes per 16 threads. Both shared-memory phases move 16-byte words
 * and an XOR swizzle keeps each quarter-warp on 8 distinct 16-byte bank groups.
 *
 * Element path (any m, n, alignment): 64 x 64 element tiles through a padded
 * shared array, one element per access, predicated at the edges. */
#include <cute/tensor.hpp>

#include "cute.h"
#include "khost/ops/copy_transpose.h"

namespace {

using cute::uint128_t;

constexpr int THREADS = 256;
constexpr int TILE_WORDS = 16; /* a tile is 16 x 16 words: 256 threads, one VEC x VEC block each */
constexpr int ELEMENT_TILE = 64;
constexpr int ELEMENT_ROWS_PER_PASS = THREADS / ELEMENT_TILE;

template <class E> constexpr int word_lanes = int(sizeof(uint128_t) / sizeof(E));
constexpr int log2_of(int x) { return x == 1 ? 0 : 1 + log2_of(x / 2); }

/* The output tile in shared memory: TILE rows (j) x 16 words (of i). Word
 * (row, w) sits at row * 16 + (w ^ ((row / VEC) % 8)): the threads of a quarter
 * warp write rows VEC apart (one per VEC x VEC block) and read 8 consecutive
 * words of one row, and both patterns land on 8 distinct bank groups. */
template <class E>
__device__ __forceinline__ auto swizzled_tile(uint128_t *smem)
{
  using namespace cute;
  constexpr int VEC = word_lanes<E>;
  auto plain = make_layout(Shape<Int<TILE_WORDS * VEC>, Int<TILE_WORDS>>{}, LayoutRight{});
  return make_tensor(make_smem_ptr(smem), composition(Swizzle<3, 0, log2_of(TILE_WORDS * VEC)>{}, plain));
}

/* Column c of a VEC x VEC block held as VEC row words. */
template <class E>
__device__ __forceinline__ uint128_t column_word(const E (&block)[word_lanes<E>][word_lanes<E>], int c)
{
  E column[word_lanes<E>];
#pragma unroll
  for (int r = 0; r < word_lanes<E>; r++) column[r] = block[r][c];
  uint128_t word;
  memcpy(&word, column, sizeof word);
  return word;
}

template <class E>
__global__ void __launch_bounds__(THREADS) transpose_words(const uint128_t *in, uint128_t *out, int m, int n,
                                                           int tiles_n)
{
  using namespace cute;
  constexpr int VEC = word_lanes<E>;
  constexpr int TILE = TILE_WORDS * VEC;
  __shared__ uint4 smem_words[TILE * TILE_WORDS]; /* uint128_t has a constructor, uint4 none */
  uint128_t *smem = reinterpret_cast<uint128_t *>(smem_words);
  auto in_words = make_layout(make_shape(m, n / VEC), make_stride(int64_t(n / VEC), Int<1>{}));
  auto out_words = make_layout(make_shape(n, m / VEC), make_stride(int64_t(m / VEC), Int<1>{}));
  auto tiler = Shape<Int<TILE>, Int<TILE_WORDS>>{};
  int ti = int(blockIdx.x) / tiles_n, tj = int(blockIdx.x) % tiles_n;
  Tensor gIn = local_tile(make_tensor(make_gmem_ptr(in), in_words), tiler, make_coord(ti, tj));
  Tensor cIn = local_tile(make_identity_tensor(shape(in_words)), tiler, make_coord(ti, tj));
  Tensor gOut = local_tile(make_tensor(make_gmem_ptr(out), out_words), tiler, make_coord(tj, ti));
  Tensor cOut = local_tile(make_identity_tensor(shape(out_words)), tiler, make_coord(tj, ti));
  Tensor sOut = swizzled_tile<E>(smem);

  /* Thread (bi, bj) owns input rows bi * VEC .. + VEC - 1 of word column bj. As
   * m is a multiple of VEC, a block is wholly inside the tensor or wholly out. */
  int bi = int(threadIdx.x) / TILE_WORDS, bj = int(threadIdx.x) % TILE_WORDS;
  if (elem_less(cIn(bi * VEC, bj), shape(in_words))) {
    uint128_t rows[VEC];
#pragma unroll
    for (int r = 0; r < VEC; r++) rows[r] = gIn(bi * VEC + r, bj);
    E block[VEC][VEC];
    memcpy(block, rows, sizeof rows);
#pragma unroll
    for (int c = 0; c < VEC; c++) sOut(bj * VEC + c, bi) = column_word(block, c);
  }
  __syncthreads();
  /* Output word (row, w) came from input block (w, row / VEC): valid together. */
#pragma unroll
  for (int pass = 0; pass < VEC; pass++) {
    int row = int(threadIdx.x) / TILE_WORDS + pass * (THREADS / TILE_WORDS);
    int w = int(threadIdx.x) % TILE_WORDS;
    if (elem_less(cOut(row, w), shape(out_words))) gOut(row, w) = sOut(row, w);
  }
}

template <class E>
__global__ void __launch_bounds__(THREADS) transpose_elements(const E *in, E *out, int m, int n, int tiles_n)
{
  using namespace cute;
  /* Rows padded to an odd number of 4-byte banks: a warp reading a column of
   * the tile then touches 32 distinct banks. */
  constexpr int PAD = int(4 / sizeof(E));
  __shared__ E smem[ELEMENT_TILE * (ELEMENT_TILE + PAD)];
  auto in_layout = make_layout(make_shape(m, n), make_stride(int64_t(n), Int<1>{}));
  auto out_layout = make_layout(make_shape(n, m), make_stride(int64_t(m), Int<1>{}));
  auto tiler = Shape<Int<ELEMENT_TILE>, Int<ELEMENT_TILE>>{};
  int ti = int(blockIdx.x) / tiles_n, tj = int(blockIdx.x) % tiles_n;
  Tensor gIn = local_tile(make_tensor(make_gmem_ptr(in), in_layout), tiler, make_coord(ti, tj));
  Tensor cIn = local_tile(make_identity_tensor(shape(in_layout)), tiler, make_coord(ti, tj));
  Tensor gOut = local_tile(make_tensor(make_gmem_ptr(out), out_layout), tiler, make_coord(tj, ti));
  Tensor cOut = local_tile(make_identity_tensor(shape(out_layout)), tiler, make_coord(tj, ti));
  Tensor sTile = make_tensor(make_smem_ptr(smem), make_layout(tiler, Stride<Int<ELEMENT_TILE + PAD>, _1>{}));

  /* Thread (ty, tx) handles column tx of rows ty, ty + 4, ...: all of them
   * loaded before any is stored. */
  int ty = int(threadIdx.x) / ELEMENT_TILE, tx = int(threadIdx.x) % ELEMENT_TILE;
  constexpr int PASSES = ELEMENT_TILE / ELEMENT_ROWS_PER_PASS;
  E v[PASSES] = {};
#pragma unroll
  for (int p = 0; p < PASSES; p++) {
    int r = ty + p * ELEMENT_ROWS_PER_PASS;
    if (elem_less(cIn(r, tx), shape(in_layout))) v[p] = gIn(r, tx);
  }
#pragma unroll
  for (int p = 0; p < PASSES; p++) sTile(ty + p * ELEMENT_ROWS_PER_PASS, tx) = v[p];
  __syncthreads();
#pragma unroll
  for (int p = 0; p < PASSES; p++) {
    int r = ty + p * ELEMENT_ROWS_PER_PASS;
    if (elem_less(cOut(r, tx), shape(out_layout))) gOut(r, tx) = sTile(tx, r);
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* With a name sink, names the kernel instead of launching it. */
template <class E>
int launch(const khost_input *in, const khost__rows &rows, khost__cute_name *name)
{
  const void *buffers[2] = {rows.in, rows.out};
  constexpr int VEC = word_lanes<E>;
  bool words = rows.m % VEC == 0 && rows.n % VEC == 0 && khost__input_aligned(buffers, 2, 16);
  int64_t tile = words ? TILE_WORDS * VEC : ELEMENT_TILE;
  int64_t tiles_n = ceil_div(rows.n, tile), tiles = ceil_div(rows.m, tile) * tiles_n;
  if (tiles > INT32_MAX)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "%lld tiles exceed the grid limit",
                             (long long)tiles);
  if (name) return khost__cute_named(name, words ? "transpose_words" : "transpose_elements");
  cudaStream_t stream = (cudaStream_t)in->stream;
  int m = int(rows.m), n = int(rows.n);
  if (words) {
    auto src = static_cast<const uint128_t *>(rows.in);
    auto dst = static_cast<uint128_t *>(rows.out);
    transpose_words<E><<<int(tiles), THREADS, 0, stream>>>(src, dst, m, n, int(tiles_n));
  } else {
    auto src = static_cast<const E *>(rows.in);
    auto dst = static_cast<E *>(rows.out);
    transpose_elements<E><<<int(tiles), THREADS, 0, stream>>>(src, dst, m, n, int(tiles_n));
  }
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  return KHOST_STATUS_OK;
}

int supports(const khost_input *in)
{
  khost__rows rows;
  return khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_TRANSPOSED, INT32_MAX, &rows);
}

/* khost__cute_run launches, khost__cute_describe names. */
int dispatch(const khost_input *in, khost__cute_name *name)
{
  khost__rows rows;
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_TRANSPOSED, INT32_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  return rows.element_bytes == 2 ? launch<uint16_t>(in, rows, name) : launch<uint32_t>(in, rows, name);
}

} // namespace

extern const khost_kernel khost__cute_copy_transpose = {
  sizeof(khost_kernel), "copy_transpose", KHOST_DEVICE_CUDA, khost__cute_run<dispatch>, supports, nullptr,
  khost__cute_describe<dispatch>,
  nullptr, /* call_overhead: none */
  0, /* flags: none */
};
