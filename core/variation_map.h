/* Where the units of a varied tensor come from: the index arithmetic of a
 * variation (core/variation.h), shared by the host (core/variation.c) and the
 * device (core/cuda_kernels.cu) so that both compute the same bytes. A tensor
 * is walked as rows (all dims but the last) of contiguous units (the last dim):
 * a row's source and sign part cost a few divisions once per row, and the units
 * along a row are reached by adding, never dividing (the walks cost no more
 * than a copy). Plain C with no dependency but <stdint.h>: nvcc compiles it as CUDA. */
#ifndef KHOST_VARIATION_MAP_H
#define KHOST_VARIATION_MAP_H

#include <stdint.h>

#ifdef __CUDACC__
#define KHOST__HOST_DEVICE __host__ __device__
#else
#define KHOST__HOST_DEVICE
#endif

#define KHOST__VARY_AXES    3 /* op axes a variation may name: batch, row, col ... */
#define KHOST__VARY_DIMS    6 /* KHOST_MAX_DIMS of the plugin ABI (variation.c asserts it) */
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
 * permuted axis's index (a coprime to n, a and b below n), and the key of the
 * signs. The unit at source coordinates x flips when the top bit of the 32-bit
 * sum, over the sign axes the tensor indexes, of khost__vary_coord_hash(axis,
 * x[axis]) is set: one random bit per coordinate of a single sign axis, and for
 * two sign axes a pattern no product of a row sign and a column sign makes.
 * 32 bits, not 64: the host's table of a row's words stays in L1. Plain value. */
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

/* The random word of coordinate `coord` of `axis` in call c: the top half of a mix. */
static inline KHOST__HOST_DEVICE uint32_t khost__vary_coord_hash(const khost__vary_call *c, int axis,
                                                                 uint64_t coord)
{
  return (uint32_t)(khost__vary_mix(c->key ^ (coord * KHOST__VARY_AXES + (uint64_t)axis)) >> 32);
}

/* 1 when m's units flip with the coordinates of axis in call c. */
static inline KHOST__HOST_DEVICE int khost__vary_signed(const khost__vary_map *m, const khost__vary_call *c,
                                                        int axis)
{
  return m->sign_mask && axis >= 0 && (c->sign_axes >> axis & 1u);
}

/* The axis m's last dim indexes (a row's units), or KHOST__VARY_NO_AXIS. */
static inline KHOST__HOST_DEVICE int khost__vary_inner_axis(const khost__vary_map *m)
{
  return m->ndim ? m->axis[m->ndim - 1] : KHOST__VARY_NO_AXIS;
}

/* Units per row (the last dim's extent; 1 for a scalar). */
static inline KHOST__HOST_DEVICE uint64_t khost__vary_width(const khost__vary_map *m)
{
  return m->ndim ? (uint64_t)m->shape[m->ndim - 1] : 1;
}

/* Rows: the product of every dim but the last. */
static inline KHOST__HOST_DEVICE uint64_t khost__vary_rows(const khost__vary_map *m)
{
  uint64_t n = 1;
  for (int d = 0; d + 1 < m->ndim; d++) n *= (uint64_t)m->shape[d];
  return n;
}

/* Row r of a varied tensor: the source unit of its unit 0 had its own last dim
 * not been permuted (src), and the sum of the hashes of its sign-axis
 * coordinates (sign), both of the source coordinates. */
typedef struct khost__vary_row {
  uint64_t src;
  uint32_t sign;
} khost__vary_row;

static inline KHOST__HOST_DEVICE khost__vary_row khost__vary_row_of(const khost__vary_map *m,
                                                                    const khost__vary_call *c, uint64_t r)
{
  khost__vary_row row = {0, 0};
  uint64_t stride = khost__vary_width(m);
  for (int d = m->ndim - 2; d >= 0; d--) {
    uint64_t extent = (uint64_t)m->shape[d], i = r % extent;
    int axis = m->axis[d];
    r /= extent;
    if (axis >= 0 && axis == c->permuted_axis) i = (c->a * i + c->b) % c->n;
    if (khost__vary_signed(m, c, axis)) row.sign += khost__vary_coord_hash(c, axis, i);
    row.src += i * stride;
    stride *= extent;
  }
  return row;
}

/* Along a row: j, the source index in the row of the unit at index i, for
 * i = i0, i0 + stride, ...: the permutation when the last dim is permuted,
 * else i itself; khost__vary_next adds, one subtraction at most. Plain value. */
typedef struct khost__vary_cursor {
  uint64_t j, step, n;
} khost__vary_cursor;

static inline KHOST__HOST_DEVICE khost__vary_cursor khost__vary_cursor_at(const khost__vary_map *m,
                                                                          const khost__vary_call *c,
                                                                          uint64_t i0, uint64_t stride)
{
  khost__vary_cursor k;
  int axis = khost__vary_inner_axis(m);
  k.n = khost__vary_width(m);
  if (axis >= 0 && axis == c->permuted_axis) {
    k.j = (c->a * (i0 % k.n) + c->b) % k.n;
    k.step = c->a * (stride % k.n) % k.n;
  } else {
    k.j = i0 % k.n;
    k.step = stride % k.n;
  }
  return k;
}

static inline KHOST__HOST_DEVICE void khost__vary_next(khost__vary_cursor *k)
{
  k->j += k->step;
  if (k->j >= k->n) k->j -= k->n;
}

/* What to XOR into a unit: m's sign mask when the top bit of the row's sign sum
 * plus the hash of the unit's own coordinate (inner_hash, 0 when the last dim
 * is no sign axis) is set. */
static inline KHOST__HOST_DEVICE uint32_t khost__vary_flip(const khost__vary_map *m, uint32_t row_sign,
                                                           uint32_t inner_hash)
{
  return (uint32_t)(row_sign + inner_hash) >> 31 ? m->sign_mask : 0u;
}

#endif
