/* Counter-based random numbers (Philox 4x32-10, Salmon et al., SC'11): the value
 * for (seed, stream, index) is a pure function, so inputs are the same on any
 * machine, in any order, on CPU or GPU. */
#ifndef KHOST_RNG_H
#define KHOST_RNG_H

#include <stdint.h>

/* One Philox 4x32 block with 10 rounds: out = philox(ctr, key). */
void khost__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The four 32-bit words for element `index` of stream `stream` (a tensor) under
 * `seed`: counter {index lo, index hi, stream, 0}, key {seed lo, seed hi}. */
void khost__rng_block(uint64_t seed, uint32_t stream, uint64_t index, uint32_t out[4]);

/* A uniform double in (0, 1) from 32 random bits: never 0, never 1. */
double khost__rng_unit(uint32_t bits);

/* Both Box-Muller outputs of two words: out[0] the cosine, out[1] its
 * independent sine twin. */
void khost__rng_normal_pair(uint32_t bits0, uint32_t bits1, double out[2]);

#endif
