/* The triton_aot fp8_block_gemm's variant rule and split of k (fp8_block_gemm.c),
 * declared for the tests that drive them with chosen device facts. */
#ifndef KHOST_TRITON_FP8_BLOCK_GEMM_RULE_H
#define KHOST_TRITON_FP8_BLOCK_GEMM_RULE_H

#include <stdint.h>

#include "select.h"

/* Static. */
extern const khost__triton_rule khost__triton_fp8_gemm_rule;

/* How a split variant divides k: `splits` programs along the grid's y, each summing
 * `per_split` steps of block_k (the last one fewer when they do not divide k). */
typedef struct khost__triton_split {
  int64_t per_split, splits;
} khost__triton_split;

/* The split of k for split variant v on s, a shape v can run (so k holds at least one
 * step): as many splits as the SMs hold beside v's tiles (sms / tiles), at least 1 and at
 * most a step each, then spread evenly so that none is empty. One split when
 * s->device.sms is 0. */
khost__triton_split khost__triton_fp8_split(const khost__triton_variant *v, const khost__triton_shape *s);

#endif
