/* What the float row ops share: the parameters m, n, dtype; the one input in[m, n]
 * and its generator; and the facts about the dtype that their tolerances are
 * derived from. */
#ifndef KHOST_CORE_OPS_ROWWISE_H
#define KHOST_CORE_OPS_ROWWISE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

#define KHOST__ROWWISE_NPARAMS 3

/* m, n in [1, 2^31]; dtype fp16, bf16 or fp32 (default fp32). Static. */
extern const khost__param_spec khost__rowwise_params[KHOST__ROWWISE_NPARAMS];

/* The parameters of a validated row-op case. Plain value. */
typedef struct khost__rowwise_dims {
  int64_t m, n;
  khost__dtype_id dtype;
} khost__rowwise_dims;

khost__rowwise_dims khost__rowwise_dims_of(const khost__case *c);

/* Bytes of one element of the case's dtype. */
size_t khost__rowwise_elem_bytes(const khost__case *c);

/* Fills set: input "in" [m, n] ("row", "col") and the one output "out" of the
 * given shape and dim names (static), both in the case's dtype. */
void khost__rowwise_tensors(const khost__case *c, khost__tensor_set *set, int out_ndim,
                            const int64_t *out_shape, const char *const *out_dim_names);

/* How the input is drawn: in[i][j] = row_offset(i) + sigma * z(i, j), z standard
 * normal, row_offset uniform in [-offset_max, offset_max] (0 when offset_max is 0). */
typedef struct khost__rowwise_draw {
  double sigma, offset_max;
} khost__rowwise_draw;

/* Fills the input tensor `index` (m*n elements at dst) for seed, each value
 * rounded once to the dtype (round to nearest even). */
void khost__rowwise_generate(const khost__case *c, uint64_t seed, int index, void *dst,
                             khost__rowwise_draw draw);

/* The row ops' variation (core/variation.h): axis 0 the row (m), axis 1 the
 * column (n); the input indexes (row, col), the output the axes out_axes (one
 * per dim of the output). Signs flip only where sign_axes is not 0. */
#define KHOST__ROWWISE_ROW 0
#define KHOST__ROWWISE_COL 1
void khost__rowwise_vary(const khost__case *c, struct khost__variation *v, int permuted_axis,
                         unsigned sign_axes, const int *out_axes);

/* Unit roundoff of a float dtype (half an ulp, relative): 2^-11, 2^-8, 2^-24. */
double khost__rowwise_unit_roundoff(khost__dtype_id dtype);

/* Smallest positive (subnormal) value of a float dtype: one ulp below 2^emin. */
double khost__rowwise_min_subnormal(khost__dtype_id dtype);

#endif
