/* Tests for core/rng.c: Philox4x32-10 against the published known-answer vectors
 * (Random123, tests/kat_vectors), the counter/key layout of khost__rng_block, its
 * independence of call order, and the uniform and normal transforms. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <math.h>
#include <stdint.h>

#include "rng.h"

typedef struct kat {
  uint32_t ctr[4], key[2], want[4];
} kat;

/* The three "philox4x32 10" lines of Random123's kat_vectors: counter, key, result. */
static kat kats[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

ParameterizedTestParameters(philox, known_answers)
{
  return cr_make_param_array(kat, kats, sizeof kats / sizeof kats[0]);
}

ParameterizedTest(kat *k, philox, known_answers)
{
  uint32_t out[4];
  khost__philox4x32_10(k->ctr, k->key, out);
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(out[i], k->want[i], "word %d: %08x, want %08x", i, out[i], k->want[i]);
  }
}

Test(rng_block, zero_seed_stream_and_index_is_the_zero_vector)
{
  uint32_t out[4];
  khost__rng_block(0, 0, 0, out);
  for (int i = 0; i < 4; i++) cr_expect_eq(out[i], kats[0].want[i], "word %d", i);
}

Test(rng_block, places_index_stream_and_seed_as_documented)
{
  const uint64_t seed = UINT64_C(0x0123456789abcdef), index = UINT64_C(0xfedcba9876543210);
  const uint32_t stream = 0x5a5a1234;
  const uint32_t ctr[4] = {0x76543210, 0xfedcba98, stream, 0};
  const uint32_t key[2] = {0x89abcdef, 0x01234567};
  uint32_t got[4], want[4];
  khost__rng_block(seed, stream, index, got);
  khost__philox4x32_10(ctr, key, want);
  for (int i = 0; i < 4; i++) cr_expect_eq(got[i], want[i], "word %d", i);
}

Test(rng_block, does_not_depend_on_call_order)
{
  enum { N = 512 };
  static uint32_t forward[N][4], backward[N][4];
  for (int i = 0; i < N; i++) khost__rng_block(77, 3, (uint64_t)i, forward[i]);
  for (int i = N - 1; i >= 0; i--) khost__rng_block(77, 3, (uint64_t)i, backward[i]);
  for (int i = 0; i < N; i++) {
    for (int w = 0; w < 4; w++) cr_assert_eq(forward[i][w], backward[i][w], "index %d word %d", i, w);
  }
}

Test(rng_block, seed_stream_and_index_each_change_the_words)
{
  uint32_t base[4], other[4];
  const struct {
    uint64_t seed;
    uint32_t stream;
    uint64_t index;
  } changes[] = {{2, 0, 0}, {UINT64_C(1) << 32 | 1, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 0, UINT64_C(1) << 32}};
  khost__rng_block(1, 0, 0, base);
  for (size_t c = 0; c < sizeof changes / sizeof changes[0]; c++) {
    int same = 0;
    khost__rng_block(changes[c].seed, changes[c].stream, changes[c].index, other);
    for (int w = 0; w < 4; w++) same += other[w] == base[w];
    cr_expect_eq(same, 0, "change %zu left %d words equal", c, same);
  }
}

Test(rng_unit, stays_strictly_inside_zero_one_and_is_monotonic)
{
  cr_expect_eq(khost__rng_unit(0), 0x1p-33);
  cr_expect(khost__rng_unit(UINT32_MAX) < 1.0);
  cr_expect_eq(khost__rng_unit(UINT32_MAX), 1.0 - 0x1p-33);
  cr_expect(khost__rng_unit(1000) < khost__rng_unit(1001));
  cr_expect_eq(khost__rng_unit(UINT32_C(1) << 31), 0.5 + 0x1p-33);
}

Test(rng_normal, is_finite_at_the_extremes)
{
  const uint32_t edges[] = {0, 1, UINT32_MAX / 2, UINT32_MAX};
  for (int a = 0; a < 4; a++) {
    for (int b = 0; b < 4; b++) {
      double z[2];
      khost__rng_normal_pair(edges[a], edges[b], z);
      for (int h = 0; h < 2; h++)
        cr_expect(isfinite(z[h]) && fabs(z[h]) < 7.0, "normal(%u, %u)[%d] = %g", edges[a], edges[b], h, z[h]);
    }
  }
}

Test(rng_normal, pair_is_cosine_and_sine_of_one_radius)
{
  const uint32_t b0 = 0x12345678, b1 = 0x9abcdef0;
  double pair[2];
  khost__rng_normal_pair(b0, b1, pair);
  double r2 = -2.0 * log(khost__rng_unit(b0));
  cr_expect(fabs(pair[0] * pair[0] + pair[1] * pair[1] - r2) < 1e-12 * r2, "both come from one radius");
  cr_expect(fabs(atan2(pair[1], pair[0]) - (2 * M_PI * khost__rng_unit(b1) - 2 * M_PI)) < 1e-9,
            "the angle is 2 pi u1 (here in (pi, 2 pi))");
}

/* With 2^18 samples of each output the standard error of a mean is 0.002, of a
 * variance about 0.003 and of the correlation 0.002, so these bounds are 5 or
 * more standard errors wide. */
Test(rng_normal, pairs_have_mean_zero_variance_one_no_correlation_and_symmetric_tails)
{
  enum { N = 1 << 18 };
  double sum[2] = {0}, sum2[2] = {0}, cross = 0;
  long beyond2 = 0, below_minus2 = 0;
  for (uint64_t i = 0; i < N; i++) {
    uint32_t w[4];
    double z[2];
    khost__rng_block(5, 9, i, w);
    khost__rng_normal_pair(w[0], w[1], z);
    for (int h = 0; h < 2; h++) {
      sum[h] += z[h];
      sum2[h] += z[h] * z[h];
      beyond2 += z[h] > 2;
      below_minus2 += z[h] < -2;
    }
    cross += z[0] * z[1];
  }
  for (int h = 0; h < 2; h++) {
    double mean = sum[h] / N, var = sum2[h] / N - mean * mean;
    cr_expect(fabs(mean) < 0.01, "output %d: mean %g", h, mean);
    cr_expect(fabs(var - 1) < 0.02, "output %d: variance %g", h, var);
  }
  cr_expect(fabs(cross / N) < 0.01, "correlation %g", cross / N);
  /* P(z > 2) = 0.02275 over 2^19 values: 11927 expected, standard deviation 108. */
  cr_expect(labs(beyond2 - 11927) < 600 && labs(below_minus2 - 11927) < 600, "tails %ld %ld", beyond2,
            below_minus2);
}

Test(rng_unit, is_uniform_over_ten_bins)
{
  enum { N = 1 << 17, BINS = 10 };
  long count[BINS] = {0};
  double chi2 = 0;
  for (uint64_t i = 0; i < N / 4; i++) {
    uint32_t w[4];
    khost__rng_block(11, 0, i, w);
    for (int q = 0; q < 4; q++) count[(int)(khost__rng_unit(w[q]) * BINS)]++;
  }
  for (int b = 0; b < BINS; b++) {
    double expect = (double)N / BINS, d = (double)count[b] - expect;
    chi2 += d * d / expect;
  }
  /* 9 degrees of freedom: P(chi2 > 33.7) = 1e-4. */
  cr_expect(chi2 < 33.7, "chi2 %g", chi2);
}
