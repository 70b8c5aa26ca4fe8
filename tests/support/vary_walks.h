/* The ways a variation walks a tensor (core/variation_map.h), one small tensor
 * each: rows copied whole (signs per row or none), gathered unit by unit (the
 * last dim permuted, or signed), 1, 2 and 4-byte units, rows not a multiple of 8
 * bytes, the permuted axis first, middle or last, and long rows the device
 * splits over blocks. tests/test_variation.c checks the host's walks against
 * the documented formula; tests/test_cuda.c the device's against the host's. */
#ifndef KHOST_TESTS_VARY_WALKS_H
#define KHOST_TESTS_VARY_WALKS_H

#include "variation.h"

typedef struct vary_walk {
  const char *what;
  khost__dtype_id dtype;
  int ndim;
  int64_t shape[3];
  int axes[3];
  int permuted;
  unsigned signs;
} vary_walk;

static const vary_walk vary_walks[] = {
    {"rows permuted, row signs (whole rows)", KHOST__DT_FP16, 2, {7, 5}, {0, 1}, 0, 1u << 0},
    {"columns permuted, row signs", KHOST__DT_BF16, 2, {6, 9}, {0, 1}, 1, 1u << 0},
    {"rows permuted, element signs", KHOST__DT_FP32, 2, {5, 11}, {0, 1}, 0, 3u},
    {"transposed axes, element signs", KHOST__DT_FP16, 2, {11, 5}, {1, 0}, 0, 3u},
    {"columns permuted, no signs", KHOST__DT_FP32, 2, {4, 13}, {0, 1}, 1, 0},
    {"fp4 batch permuted, (batch, row) signs", KHOST__DT_E2M1, 3, {5, 3, 6}, {0, 1, -1}, 0, 3u},
    {"e4m3 middle axis permuted, unsigned", KHOST__DT_E4M3, 3, {2, 7, 3}, {-1, 1, -1}, 1, 0},
    {"long rows, columns permuted, element signs", KHOST__DT_FP16, 2, {3, 3000}, {0, 1}, 1, 3u},
    {"many short rows, transposed, last dim permuted", KHOST__DT_FP32, 2, {5000, 3}, {1, 0}, 0, 3u},
};
#define VARY_WALKS (sizeof vary_walks / sizeof vary_walks[0])

/* The walk's tensor as input 0 of a variation, with the axes' extents. */
static inline khost__variation vary_walk_variation(const vary_walk *w)
{
  static const char *const names[3] = {"a", "b", "c"};
  khost__variation v = {.extent = {1, 1, 1}, .permuted_axis = w->permuted, .sign_axes = w->signs};
  khost__tensor_spec t;
  khost__tensor_spec_fill(&t, "t", w->dtype, w->ndim, w->shape, names);
  khost__vary_map_of(&v.inputs[0], &t, w->axes, w->signs != 0);
  for (int d = 0; d < w->ndim; d++)
    if (w->axes[d] >= 0) v.extent[w->axes[d]] = v.inputs[0].shape[d];
  return v;
}

#endif
