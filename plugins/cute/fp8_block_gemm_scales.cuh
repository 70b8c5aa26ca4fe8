/* The layouts through which fp8_block_gemm's CUTLASS collective reads khost's
 * transposed scales (sa_t [k/qk, ceil(m/qm)], sb_t [k/qk, ceil(n/qn)], row-major),
 * apart from the kernel so that a CPU test can check their index math
 * (tests/test_cute_fp8_block_gemm_scales.cu). The collective reads a scale layout of
 * shape ((G, rows/G), (128, k/128), 1): its granularity G of rows and 128 of k are
 * the static extents of the inner modes (stride 0), and it tiles both like a and
 * b (local_tile by the CTA tile), so that step (row / G, k / 128) finds its scale. */
#ifndef KHOST_CUTE_FP8_BLOCK_GEMM_SCALES_CUH
#define KHOST_CUTE_FP8_BLOCK_GEMM_SCALES_CUH

#include <stdint.h>

#include "cute/layout.hpp"

namespace khost__cute_fp8 {

using namespace cute;

/* The collective's granularity of k: one promotion per 128 of k, the tile's k. */
constexpr int SCALE_K = 128;

/* A transposed scale tensor with q = G and qk = 128 (blocks >= ceil(rows/G) a
 * k-step, leading dimension ld >= blocks) as the collective's M- (N-) major
 * layout ((G, blocks), (128, k/128), 1):((0, 1), (0, ld), ld k/128): row r at
 * k-step s reads s ld + r / G. */
template <int G>
using plain_scales = Layout<Shape<Shape<Int<G>, int32_t>, Shape<Int<SCALE_K>, int32_t>, int32_t>,
                            Stride<Stride<_0, _1>, Stride<_0, int32_t>, int32_t>>;

template <int G> plain_scales<G> make_plain_scales(int blocks, int k_steps, int ld)
{
  return make_layout(make_shape(make_shape(Int<G>{}, blocks), make_shape(Int<SCALE_K>{}, k_steps), 1),
                     make_stride(make_stride(_0{}, _1{}), make_stride(_0{}, ld), ld * k_steps));
}

/* The same for blocks of q = r G rows and qk = rk 128 of k: the collective
 * still steps by G and 128 (its granularities), and each mode's step count is
 * split as (r, blocks) with stride 0 over r, so that step i reads block i / r.
 * The row mode's strides are static: the collective derives its majorness from
 * them at compile time (not M-major here, so it loads these scales with
 * cp.async, never TMA, whose tensor would drop the stride-0 repeats). */
template <int G>
using nested_scales = Layout<
    Shape<Shape<Int<G>, Shape<int32_t, int32_t>>, Shape<Int<SCALE_K>, Shape<int32_t, int32_t>>, int32_t>,
    Stride<Stride<_0, Stride<_0, _1>>, Stride<_0, Stride<_0, int32_t>>, int32_t>>;

template <int G> nested_scales<G> make_nested_scales(int rows, int q, int k, int qk)
{
  int blocks = int((int64_t(rows) + q - 1) / q), k_blocks = k / qk;
  return make_layout(make_shape(make_shape(Int<G>{}, make_shape(q / G, blocks)),
                                make_shape(Int<SCALE_K>{}, make_shape(qk / SCALE_K, k_blocks)), 1),
                     make_stride(make_stride(_0{}, make_stride(_0{}, _1{})),
                                 make_stride(_0{}, make_stride(_0{}, blocks)), blocks * k_blocks));
}

} // namespace khost__cute_fp8

#endif
