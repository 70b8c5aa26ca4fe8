#include "rng.h"

#include <math.h>
#include <stdint.h>

/* Constants of Philox4x32 (Salmon et al., SC'11): the round multipliers, and the
 * Weyl sequence increments (golden ratio and sqrt(3)-1) that bump the key. */
#define PHILOX_M0     UINT32_C(0xD2511F53)
#define PHILOX_M1     UINT32_C(0xCD9E8D57)
#define PHILOX_W0     UINT32_C(0x9E3779B9)
#define PHILOX_W1     UINT32_C(0xBB67AE85)
#define PHILOX_ROUNDS 10

static void philox_round(uint32_t x[4], const uint32_t key[2])
{
  uint64_t p0 = (uint64_t)PHILOX_M0 * x[0];
  uint64_t p1 = (uint64_t)PHILOX_M1 * x[2];
  uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ key[0];
  uint32_t y1 = (uint32_t)p1;
  uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ key[1];
  uint32_t y3 = (uint32_t)p0;
  x[0] = y0;
  x[1] = y1;
  x[2] = y2;
  x[3] = y3;
}

void khost__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
  uint32_t x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int r = 0; r < PHILOX_ROUNDS; r++) {
    if (r > 0) {
      k[0] += PHILOX_W0;
      k[1] += PHILOX_W1;
    }
    philox_round(x, k);
  }
  for (int i = 0; i < 4; i++) out[i] = x[i];
}

void khost__rng_block(uint64_t seed, uint32_t stream, uint64_t index, uint32_t out[4])
{
  const uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), stream, 0};
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  khost__philox4x32_10(ctr, key, out);
}

double khost__rng_unit(uint32_t bits)
{
  /* Centre of one of 2^32 equal bins: exact in a double, strictly inside (0, 1),
   * so log() in Box-Muller never sees 0. */
  return ((double)bits + 0.5) * 0x1p-32;
}

void khost__rng_normal_pair(uint32_t bits0, uint32_t bits1, double out[2])
{
  const double two_pi = 6.283185307179586476925286766559;
  double radius = sqrt(-2.0 * log(khost__rng_unit(bits0)));
  double angle = two_pi * khost__rng_unit(bits1);
  out[0] = radius * cos(angle);
  out[1] = radius * sin(angle);
}
