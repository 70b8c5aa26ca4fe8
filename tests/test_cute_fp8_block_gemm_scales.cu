/* The scale layouts of the cute plugin's fp8_block_gemm kernels
 * (plugins/cute/fp8_block_gemm_scales.cuh), on the CPU. Each scale tensor is
 * real memory holding, at each scale, that scale's index in khost's sa
 * ([ceil(rows/q), k/qk] row-major), laid out transposed as sa_t; the layout is
 * tiled as CUTLASS's collective tiles it (local_tile by the CTA tile's rows and
 * k, as its load_auxiliary does), and every row and 128-step of k must read
 * sa[row / q][k / qk] and pass the collective's bounds predicate; for the nested
 * layouts, each of the 32 copying threads' slices of a tile, global and shared,
 * stripped of stride-0 modes as the collective strips them, must pair element by
 * element with the right scale. Built by nvcc
 * with the CUTLASS headers, as the plugin is; only when the plugin is built. */
#include <criterion/criterion.h>

#include <vector>

#include "cute/tensor.hpp"
#include "cutlass/detail/blockwise_scale_layout.hpp"
#include "fp8_block_gemm_scales.cuh"

using namespace cute;
using khost__cute_fp8::SCALE_K;

/* sa_t with leading dimension ld >= ceil(rows/q); padding holds -1, a value no scale index has. */
static std::vector<float> indexed_sa_t(int rows, int q, int k, int qk, int ld)
{
  int blocks = (rows + q - 1) / q, k_blocks = k / qk;
  std::vector<float> t(size_t(ld) * k_blocks, -1.0f);
  for (int s = 0; s < k_blocks; s++)
    for (int b = 0; b < blocks; b++) t[size_t(s) * ld + b] = float(b * k_blocks + s);
  return t;
}

/* Every row < rows at every 128-step of k, through layout tiled by TILE_M rows. */
template <int TILE_M, class ScaleLayout>
static void expect_tiled_reads(ScaleLayout layout, const std::vector<float> &t, int rows, int q, int k,
                               int qk)
{
  auto tile = Shape<Int<TILE_M>, _128, Int<SCALE_K>>{};
  Tensor scales = make_tensor(t.data(), layout);
  Tensor tiled = local_tile(scales, tile, make_coord(_, _, _), Step<_1, Underscore, _1>{});
  Tensor where =
      local_tile(make_identity_tensor(shape(layout)), tile, make_coord(_, _, _), Step<_1, Underscore, _1>{});
  for (int r = 0; r < rows; r++)
    for (int s = 0; s < k / SCALE_K; s++) {
      float want = float((r / q) * (k / qk) + s * SCALE_K / qk);
      /* first and last k of the step: one scale spans it */
      for (int kk : {0, SCALE_K - 1}) {
        float got = tiled(r % TILE_M, kk, r / TILE_M, s, 0);
        cr_assert_eq(got, want, "rows %d, q %d, k %d, qk %d: row %d, step %d (+%d) read scale %g, not %g",
                     rows, q, k, qk, r, s, kk, double(got), double(want));
      }
      cr_assert(elem_less(where(r % TILE_M, 0, r / TILE_M, s, 0), shape(layout)),
                "rows %d: row %d, step %d is predicated off", rows, r, s);
    }
}

/* DeepSeek-V3's a: one scale per row (G = 1), sa_t padded to 4 floats a step
 * for TMA (m = 7), or not; on 128- and 64-row tiles. TMA reads the layout with
 * its stride-0 modes dropped: (ld, k/128, 1):(1, ld, ld k/128). */
Test(fp8_block_gemm_scales, rows_of_a_read_sa_t_in_place_or_padded)
{
  const int cases[][2] = {{7, 8}, {64, 64}, {129, 132}, {4096, 4096}};
  for (const auto &c : cases) {
    int m = c[0], ld = c[1], k = 1024;
    auto layout = khost__cute_fp8::make_plain_scales<1>(ld, k / SCALE_K, ld); /* as the kernel makes it */
    std::vector<float> t = indexed_sa_t(m, 1, k, SCALE_K, ld);
    expect_tiled_reads<128>(layout, t, m, 1, k, SCALE_K);
    expect_tiled_reads<64>(layout, t, m, 1, k, SCALE_K);
    auto tma_view = filter_zeros(layout);
    cr_assert_eq(int(size<0>(tma_view)), ld);
    cr_assert_eq(int(size<1>(tma_view)), k / SCALE_K);
    for (int s = 0; s < k / SCALE_K; s++)
      for (int r = 0; r < m; r++)
        cr_assert_eq(int(tma_view(r, s, 0)), s * ld + r, "m = %d: row %d, step %d", m, r, s);
  }
}

/* DeepSeek-V3's b: 128 x 128 blocks (G = 128), n = 2112 ends in half a block. */
Test(fp8_block_gemm_scales, blocks_of_b_read_sb_t)
{
  int n = 2112, k = 7168, blocks = (n + 127) / 128;
  auto layout = khost__cute_fp8::make_plain_scales<128>(blocks, k / SCALE_K, blocks);
  expect_tiled_reads<128>(layout, indexed_sa_t(n, 128, k, SCALE_K, blocks), n, 128, k, SCALE_K);
}

/* The collective's cp.async of the scales (load_auxiliary) gives 32 threads one
 * element each at a time across a tile's G-granular rows, then copies
 * filter_zeros of each thread's global slice into filter_zeros of its shared
 * slice; the nested layouts make the collective pick its K-major shared layout.
 * Each thread's two slices must hold as many elements, and shared element i (row
 * offset within the tile) must get that row's scale, for every tile and step. */
template <int G, class ScaleLayout>
static void expect_copy_pairs(ScaleLayout layout, const std::vector<float> &t, int rows, int q, int k, int qk)
{
  auto tile = Shape<_128, _128, Int<SCALE_K>>{};
  using Config =
      cutlass::detail::Sm90BlockwiseScaleConfig<G, G, SCALE_K, cute::GMMA::Major::K, cute::GMMA::Major::K>;
  auto shared_layout = Config::smem_atom_layoutSFA(tile);
  std::vector<float> shared(size_t(cosize(shared_layout)));
  Tensor sSFA = make_tensor(shared.data(), shared_layout);
  Tensor tiled =
      local_tile(make_tensor(t.data(), layout), tile, make_coord(_, _, _), Step<_1, Underscore, _1>{});
  auto copy =
      make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_32>>{}, Layout<Shape<_1>>{});
  for (int thread = 0; thread < 32; thread++) {
    auto slice = copy.get_slice(thread);
    Tensor to = filter_zeros(slice.partition_D(sSFA));
    for (int mt = 0; mt * 128 < rows; mt++)
      for (int s = 0; s < k / SCALE_K; s++) {
        Tensor from = filter_zeros(slice.partition_S(tiled(_, _, mt, s, 0)));
        cr_assert_eq(int(size(from)), int(size(to)), "q %d: thread %d copies %d scales into %d", q, thread,
                     int(size(from)), int(size(to)));
        for (int i = 0; i < int(size(to)); i++) {
          int r = mt * 128 + int(&to(i) - shared.data()) * G;
          if (r >= rows) continue;
          float want = float((r / q) * (k / qk) + s * SCALE_K / qk);
          cr_assert_eq(from(i), want, "q %d, qk %d: thread %d, tile %d, step %d, element %d read %g, not %g",
                       q, qk, thread, mt, s, i, double(from(i)), double(want));
        }
      }
  }
}

/* Each case {rows, q, k, qk} through the nested layout of granularity G. */
template <int G, size_t N> static void expect_nested_reads(const int (&cases)[N][4])
{
  for (const auto &c : cases) {
    int rows = c[0], q = c[1], k = c[2], qk = c[3];
    auto layout = khost__cute_fp8::make_nested_scales<G>(rows, q, k, qk);
    std::vector<float> t = indexed_sa_t(rows, q, k, qk, (rows + q - 1) / q);
    expect_tiled_reads<128>(layout, t, rows, q, k, qk);
    expect_copy_pairs<G>(layout, t, rows, q, k, qk);
  }
}

/* Square blocks of 128, 256, 512 at granularity 128: each scale repeats over
 * q/128 tiles and qk/128 steps; rows that end inside a block or a tile. */
Test(fp8_block_gemm_scales, square_blocks_repeat_over_tiles_and_steps)
{
  const int cases[][4] = {{129, 128, 256, 128},   {1024, 256, 1024, 256}, {1536, 512, 1536, 512},
                          {4096, 512, 4096, 512}, {65, 512, 512, 512},    {2112, 128, 256, 128}};
  expect_nested_reads<128>(cases);
}

/* Scales per row (G = 1, q = 1: per-token), qk a multiple of 128, rows that end
 * inside a tile. (The kernel takes no other q at G = 1: the nested row mode of
 * q > 1 has stride-0 repeats inside a tile, so the collective's copy of a
 * thread's scales would pair fewer global elements than shared ones.) */
Test(fp8_block_gemm_scales, rows_read_per_row_scales_at_any_block_depth)
{
  const int cases[][4] = {{256, 1, 512, 128}, {100, 1, 768, 256}, {7, 1, 512, 512}, {129, 1, 1024, 256}};
  expect_nested_reads<1>(cases);
}
