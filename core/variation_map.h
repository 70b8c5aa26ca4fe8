/* Where one element of a varied tensor comes from: the index arithmetic of a
 * variation (core/variation.h), shared by the host (core/variation.c) and the
 * device (core/cuda_kernels.cu) so that both compute the same bytes. Plain C
 * with no dependency but <stdint.h>: nvcc compiles it as CUDA. */
#ifndef KHOST_VARIATION_MAP_H
#define KHOST_VARIATION_MAP_H

#include <stdint.h>

#ifdef __CUDACC__
#define KHOST__HOST_DEVICE __host__ __device__
#else
#define KHOST__HOST_DEVICE
#endif

#define KHOST__VARY_AXES    3 /* op axes a variation may name: batch, row, col ... */
#define KHOST__VARY_DIMS    4 /* KHOST_MAX_DIMS of the plugin ABI */
#define KHOST__VARY_NO_AXIS (-1)

/* One tensor's storage seen by a variation: units (an element, or for packed
 * fp4 a byte of two) in a row-major array of ndim dims, each dim indexing one
 * of the op's axes or none. Plain value. */
typedef struct khost__vary_map {
  int ndim;
  int64_t shape[KHOST__VARY_DIMS]; /* units per dim */
  int axis[KHOST__VARY_DIMS];      /* the op axis the dim indexes, or KHOST__VARY_NO_AXIS */
  int unit_bytes;                  /* 1, 2 or 4 */
  uint32_t sign_mask;              /* XORed into a unit whose sign flips; 0: never flipped */
} khost__vary_map;

/* One timed call's variation: the permutation x -> (a x + b) mod n of the
 * permuted axis's index (a coprime to n), and the key of the signs, one random
 * bit per coordinate of the sign axes. Plain value. */
typedef struct khost__vary_call {
  int permuted_axis; /* KHOST__VARY_NO_AXIS: none */
  uint64_t a, b, n;
  unsigned sign_axes; /* a bit per axis; 0: no signs */
  int64_t extent[KHOST__VARY_AXES];
  uint64_t key;
} khost__vary_call;

/* The output dtypes the device compares (core/cuda.h, khost__cuda_vary_check);
 * others are compared on the host. */
enum { KHOST__VARY_CHECK_FP16, KHOST__VARY_CHECK_BF16, KHOST__VARY_CHECK_FP32 };

/* splitmix64's finaliser: 64 well-mixed bits of x. */
static inline KHOST__HOST_DEVICE uint64_t khost__vary_mix(uint64_t x)
{
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

/* The unit of the source (the generated tensor) that unit e of the varied
 * tensor copies, and in *flip whether its sign flips: the permutation moves
 * the permuted axis's index, and the sign is that of the source coordinates. */
static inline KHOST__HOST_DEVICE uint64_t khost__vary_source(const khost__vary_map *m,
                                                             const khost__vary_call *c, uint64_t e, int *flip)
{
  uint64_t src = 0, stride = 1;
  int64_t coord[KHOST__VARY_AXES] = {0, 0, 0};
  for (int d = m->ndim - 1; d >= 0; d--) {
    uint64_t extent = (uint64_t)m->shape[d], i = e % extent;
    int axis = m->axis[d];
    e /= extent;
    if (axis >= 0 && axis == c->permuted_axis) i = (c->a * i + c->b) % c->n;
    if (axis >= 0) coord[axis] = (int64_t)i;
    src += i * stride;
    stride *= extent;
  }
  *flip = 0;
  if (m->sign_mask && c->sign_axes) {
    uint64_t index = 0;
    for (int a = 0; a < KHOST__VARY_AXES; a++)
      if (c->sign_axes >> a & 1) index = index * (uint64_t)c->extent[a] + (uint64_t)coord[a];
    *flip = (int)(khost__vary_mix(c->key ^ khost__vary_mix(index)) >> 63);
  }
  return src;
}

#endif
