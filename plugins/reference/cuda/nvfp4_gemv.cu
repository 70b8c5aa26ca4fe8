/* nvfp4_gemv on the GPU, plainly: one block of 128 threads per (batch, row); each
 * thread takes whole 16-element scale blocks of the row, the block partial sums
 * are combined in a fixed order and the row is rounded once to fp16 (RNE).
 * It reads the plain scales (sfa, sfv), never the swizzled copies.
 *
 * Only the fp32 accumulation across scale blocks rounds. Within a block every
 * e2m1 product is a multiple of 1/4 of magnitude <= 36, so the 16-term dot
 * product (|dot| <= 576, at most 12 significant bits) is exact in fp32 in any
 * order; sfa*sfv has at most 8 significant bits and lies in [2^-18, 2^18), so it
 * and its product with the dot (at most 20 bits) are exact too. A NaN scale
 * (e4m3 0x7f/0xff) makes its term, and so the row, NaN, as on the CPU. */
#include <cuda_fp16.h>

#include "block_rows.cuh"
#include "cuda_check.h"
#include "khost/ops/nvfp4_gemv.h"
#include "nvfp4_gemv.h"

namespace khost_reference {
namespace {

constexpr int THREADS = 128;
constexpr int BLOCK = 16; /* elements sharing one scale: 8 packed bytes */

/* e2m1 code -> value (docs/FORMATS.md): magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 is the sign. */
__constant__ float e2m1_values[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                      -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

/* e4m3fn (bias 7, no infinity) by its bits, exactly: subnormals (exponent field
 * 0) are mantissa * 2^-9; the normal fields map into an fp32 with exponent + 120. */
__device__ float e4m3_value(uint8_t code)
{
  uint32_t sign = (uint32_t)(code & 0x80u) << 24;
  uint32_t exponent = (code >> 3) & 0xfu, mantissa = code & 0x7u;
  if ((code & 0x7fu) == 0x7fu) return __uint_as_float(sign | 0x7fc00000u);
  if (exponent == 0) return __uint_as_float(sign | __float_as_uint((float)mantissa * 0x1p-9f));
  return __uint_as_float(sign | (exponent + 120u) << 23 | mantissa << 20);
}

/* The exact dot product of one 16-element block of a and v (8 packed bytes each,
 * element 2j in the low nibble), with the e2m1 table in shared memory. */
__device__ float block_dot(const uint8_t *a, const uint8_t *v, const float *e2m1)
{
  float dot = 0.0f;
  for (int byte = 0; byte < BLOCK / 2; byte++) {
    uint8_t ab = a[byte], vb = v[byte];
    dot += e2m1[ab & 0xf] * e2m1[vb & 0xf] + e2m1[ab >> 4] * e2m1[vb >> 4];
  }
  return dot;
}

__global__ void __launch_bounds__(THREADS) gemv_rows(khost__gemv g)
{
  const uint8_t *a_all = static_cast<const uint8_t *>(g.a), *sfa_all = static_cast<const uint8_t *>(g.sfa);
  const uint8_t *v_all = static_cast<const uint8_t *>(g.v), *sfv_all = static_cast<const uint8_t *>(g.sfv);
  uint16_t *c = static_cast<uint16_t *>(g.c);
  __shared__ float e2m1[16];
  if (threadIdx.x < 16) e2m1[threadIdx.x] = e2m1_values[threadIdx.x];
  __syncthreads();
  int64_t blocks = g.k / BLOCK;
  for (int64_t row = blockIdx.x; row < g.l * g.m; row += gridDim.x) { /* row = batch * m + i */
    int64_t batch = row / g.m;
    const uint8_t *a = a_all + row * (g.k / 2), *sa = sfa_all + row * blocks;
    const uint8_t *v = v_all + batch * (g.k / 2), *sv = sfv_all + batch * blocks;
    float sum = 0.0f;
    for (int64_t b = threadIdx.x; b < blocks; b += THREADS) {
      float scale = e4m3_value(sa[b]) * e4m3_value(sv[b]);
      sum += block_dot(a + b * (BLOCK / 2), v + b * (BLOCK / 2), e2m1) * scale;
    }
    sum = block_reduce<THREADS>(sum, add_floats());
    if (threadIdx.x == 0) c[row] = __half_as_ushort(__float2half_rn(sum));
  }
}

int run(const khost_input *in)
{
  khost__gemv gemv;
  int status = khost__gemv_open(in, KHOST_DEVICE_CUDA, INT64_MAX, &gemv);
  if (status != KHOST_STATUS_OK) return status;
  gemv_rows<<<row_blocks(gemv.l * gemv.m), THREADS, 0, static_cast<cudaStream_t>(in->stream)>>>(gemv);
  return KHOST__REFERENCE_CUDA_CHECK(in, cudaGetLastError());
}

} // namespace
} // namespace khost_reference

extern "C" const khost_kernel khost__reference_cuda_nvfp4_gemv = {
    sizeof(khost_kernel), "nvfp4_gemv", KHOST_DEVICE_CUDA, khost_reference::run, nullptr, nullptr,
};
