/* Tests for core/formats.c: every code of e2m1, e4m3fn, e5m2, e8m0, fp16 and bf16 decoded against
 * an independent formula and round-tripped; rounding to nearest even at the ties,
 * saturation, subnormals and overflow; and random doubles against independent
 * encoders (the compiler's _Float16 conversion, and a search over all codes). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "formats.h"

/* xorshift64*: the tests' own random bits, independent of core/rng.c. */
static uint64_t next_random(uint64_t *state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * UINT64_C(0x2545F4914F6CDD1D);
}

/* A random double with a random sign and mantissa and an exponent in [emin, emax]. */
static double random_double(uint64_t *state, int emin, int emax)
{
  uint64_t r = next_random(state);
  double mant = 1.0 + (double)(r >> 12) * 0x1p-52;
  int e = emin + (int)(next_random(state) % (uint64_t)(emax - emin + 1));
  return (r & 1) ? -ldexp(mant, e) : ldexp(mant, e);
}

/* The nearest code to x (finite, >= 0) among codes 0..max_code of a format whose
 * magnitudes grow with the code, ties to the even code, by linear search. */
static unsigned nearest_by_scan(double x, double (*value)(unsigned), unsigned max_code)
{
  unsigned best = 0;
  for (unsigned c = 1; c <= max_code; c++) {
    double d = fabs(value(c) - x), bd = fabs(value(best) - x);
    if (d < bd || (d == bd && (c & 1) == 0)) best = c;
  }
  return best;
}

/* ---- e2m1 ---- */

static double e2m1_formula(unsigned code)
{
  unsigned e = (code >> 1) & 3, m = code & 1;
  double mag = e == 0 ? 0.5 * m : ldexp(1.0 + 0.5 * m, (int)e - 1);
  return (code & 8) ? -mag : mag;
}

Test(e2m1, decodes_every_code)
{
  static const double table[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (unsigned c = 0; c < 16; c++) {
    double want = (c & 8) ? -table[c & 7] : table[c & 7];
    cr_expect_eq(khost__e2m1_decode((uint8_t)c), want, "code %u", c);
    cr_expect_eq(khost__e2m1_decode((uint8_t)c), e2m1_formula(c), "code %u against the bit formula", c);
  }
  cr_expect(signbit(khost__e2m1_decode(8)), "code 8 is -0");
  cr_expect_eq(khost__e2m1_decode(0xf3), khost__e2m1_decode(3), "the high bits are ignored");
}

Test(e2m1, every_code_round_trips)
{
  for (unsigned c = 0; c < 16; c++) {
    cr_expect_eq(khost__e2m1_encode(khost__e2m1_decode((uint8_t)c)), c, "code %u", c);
  }
}

typedef struct encode_row {
  double x;
  unsigned code;
} encode_row;

Test(e2m1, rounds_ties_to_even_and_saturates)
{
  static const encode_row rows[] = {
      {0.25, 0x0}, {0.2500001, 0x1}, {0.75, 0x2}, {1.25, 0x2},      {1.75, 0x4},  {2.5, 0x4},
      {3.5, 0x6},  {5.0, 0x6},       {5.01, 0x7}, {6.5, 0x7},       {1e300, 0x7}, {INFINITY, 0x7},
      {-5.0, 0xe}, {-0.1, 0x8},      {-0.0, 0x8}, {-INFINITY, 0xf}, {NAN, 0x7},   {-2.9, 0xd},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cr_expect_eq(khost__e2m1_encode(rows[i].x), rows[i].code, "e2m1(%a) = %#x, want %#x", rows[i].x,
                 khost__e2m1_encode(rows[i].x), rows[i].code);
  }
}

static double e2m1_value(unsigned c)
{
  return e2m1_formula(c);
}

Test(e2m1, random_values_match_a_search_over_all_codes)
{
  uint64_t state = 42;
  for (int i = 0; i < 20000; i++) {
    double x = random_double(&state, -4, 3);
    unsigned want = nearest_by_scan(fabs(x), e2m1_value, 7) | (x < 0 ? 8u : 0u);
    cr_assert_eq(khost__e2m1_encode(x), want, "x = %a", x);
  }
}

/* ---- e4m3fn ---- */

static double e4m3_formula(unsigned code)
{
  unsigned e = (code >> 3) & 15, m = code & 7;
  double mag;
  if ((code & 0x7f) == 0x7f) return NAN;
  mag = e == 0 ? ldexp(m / 8.0, -6) : ldexp(1.0 + m / 8.0, (int)e - 7);
  return (code & 0x80) ? -mag : mag;
}

Test(e4m3, decodes_every_code)
{
  for (unsigned c = 0; c < 256; c++) {
    double got = khost__e4m3_decode((uint8_t)c), want = e4m3_formula(c);
    if (isnan(want)) {
      cr_expect(isnan(got), "code %#x is NaN", c);
    } else {
      cr_expect_eq(got, want, "code %#x: %a, want %a", c, got, want);
    }
  }
}

Test(e4m3, known_values)
{
  static const encode_row rows[] = {
      {448, 0x7e},    {-448, 0xfe},       {1.0, 0x38}, {-1.0, 0xb8}, {0x1p-6, 0x08},
      {0x1p-9, 0x01}, {7 * 0x1p-9, 0x07}, {0.0, 0x00}, {240, 0x77},  {0x1.ep-3, 0x27},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cr_expect_eq(khost__e4m3_decode((uint8_t)rows[i].code), rows[i].x, "code %#x", rows[i].code);
  }
  cr_expect(isnan(khost__e4m3_decode(0x7f)) && isnan(khost__e4m3_decode(0xff)), "only 0x7f and 0xff are NaN");
  cr_expect(signbit(khost__e4m3_decode(0x80)), "0x80 is -0");
}

Test(e4m3, every_finite_code_round_trips)
{
  for (unsigned c = 0; c < 256; c++) {
    if ((c & 0x7f) == 0x7f) continue;
    cr_expect_eq(khost__e4m3_encode(khost__e4m3_decode((uint8_t)c)), c, "code %#x", c);
  }
  cr_expect_eq(khost__e4m3_encode(khost__e4m3_decode(0xff)), 0x7f, "NaN encodes as 0x7f");
}

Test(e4m3, rounds_ties_to_even_saturates_and_keeps_subnormals)
{
  static const encode_row rows[] = {
      {1.0625, 0x38},                              /* halfway 1 .. 1.125: even 0x38 */
      {1.1875, 0x3a},                              /* halfway 1.125 .. 1.25: even 0x3a */
      {1.0625 + 1e-9, 0x39}, {232, 0x76},          /* halfway 224 .. 240 */
      {0x1p-10, 0x00},                             /* half the smallest subnormal: to zero */
      {0x1.8p-9, 0x02},                            /* 1.5 * 2^-9: halfway codes 1 .. 2, even 2 */
      {5 * 0x1p-10, 0x02},   {15 * 0x1p-10, 0x08}, /* halfway largest subnormal .. smallest normal */
      {0x1p-11, 0x00},       {-0x1p-11, 0x80},     {464, 0x7e}, /* would round to 480, which does not exist:
                                                                   saturate */
      {1e10, 0x7e},          {-1e10, 0xfe},        {INFINITY, 0x7e}, {-INFINITY, 0xfe},
      {NAN, 0x7f},           {-0.0, 0x80},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cr_expect_eq(khost__e4m3_encode(rows[i].x), rows[i].code, "e4m3(%a) = %#x, want %#x", rows[i].x,
                 khost__e4m3_encode(rows[i].x), rows[i].code);
  }
}

Test(e4m3, random_values_match_a_search_over_all_codes)
{
  uint64_t state = 7;
  for (int i = 0; i < 20000; i++) {
    double x = random_double(&state, -12, 9);
    unsigned want = nearest_by_scan(fabs(x), e4m3_formula, 0x7e) | (x < 0 ? 0x80u : 0u);
    cr_assert_eq(khost__e4m3_encode(x), want, "x = %a", x);
  }
}

/* The encoder works by arithmetic on binades: every midpoint between two
 * neighbouring codes, and the doubles just either side of it, land where the
 * search over all codes puts them (ties to even, carries into the next binade,
 * the subnormal-normal boundary, saturation past 448). */
Test(e4m3, every_midpoint_and_its_neighbours_match_a_search_over_all_codes)
{
  for (unsigned c = 0; c < 0x7e; c++) {
    double mid = (e4m3_formula(c) + e4m3_formula(c + 1)) / 2;
    const double xs[] = {mid, nextafter(mid, 0), nextafter(mid, INFINITY), e4m3_formula(c)};
    for (int i = 0; i < 4; i++) {
      unsigned want = nearest_by_scan(xs[i], e4m3_formula, 0x7e);
      cr_assert_eq(khost__e4m3_encode(xs[i]), want, "e4m3(%a) = %#x, want %#x", xs[i],
                   khost__e4m3_encode(xs[i]), want);
      cr_assert_eq(khost__e4m3_encode(-xs[i]), want | 0x80u, "x = -%a", xs[i]);
    }
  }
  cr_expect_eq(khost__e4m3_encode(nextafter(448, 0)), 0x7e);
  cr_expect_eq(khost__e4m3_encode(nextafter(448, INFINITY)), 0x7e);
  cr_expect_eq(khost__e4m3_encode(0x1p-1074), 0x00, "the smallest double is zero");
}

/* ---- fp16 ---- */

static uint16_t fp16_bits_of(_Float16 h)
{
  uint16_t b;
  memcpy(&b, &h, sizeof b);
  return b;
}

/* ---- e5m2 and e8m0 (decode only) ---- */

/* e5m2 by its definition: sign, 5 exponent bits (bias 15), 2 fraction bits; exponent
 * 31 is infinity (fraction 0) or NaN. */
static double e5m2_formula(unsigned code)
{
  unsigned e = (code >> 2) & 31, m = code & 3;
  double mag = e == 31  ? (m ? NAN : INFINITY)
               : e == 0 ? ldexp(m / 4.0, -14)
                        : ldexp(1.0 + m / 4.0, (int)e - 15);
  return (code & 0x80) ? -mag : mag;
}

Test(e5m2, decodes_every_code)
{
  for (unsigned c = 0; c < 256; c++) {
    double got = khost__e5m2_decode((uint8_t)c), want = e5m2_formula(c);
    if (isnan(want)) {
      cr_expect(isnan(got), "code %#x is NaN", c);
    } else {
      cr_expect_eq(got, want, "code %#x: %a, want %a", c, got, want);
    }
  }
  cr_expect_eq(khost__e5m2_decode(0x7b), 57344.0, "the largest finite value");
}

Test(e8m0, decodes_every_code_as_a_power_of_two)
{
  double want = 0x1p-127;
  for (unsigned c = 0; c < 255; c++, want *= 2)
    cr_expect_eq(khost__e8m0_decode((uint8_t)c), want, "code %u", c);
  cr_expect(isnan(khost__e8m0_decode(0xff)), "0xff is NaN");
}

static _Float16 fp16_from_bits(uint16_t b)
{
  _Float16 h;
  memcpy(&h, &b, sizeof h);
  return h;
}

Test(fp16, every_code_decodes_like_the_compiler_and_round_trips)
{
  for (unsigned c = 0; c < 65536; c++) {
    double got = khost__fp16_decode((uint16_t)c), want = (double)fp16_from_bits((uint16_t)c);
    if (isnan(want)) {
      cr_assert(isnan(got), "code %#x is NaN", c);
      cr_assert(isnan(khost__fp16_decode(khost__fp16_encode(got))), "NaN %#x stays NaN", c);
      continue;
    }
    cr_assert_eq(got, want, "code %#x: %a, want %a", c, got, want);
    cr_assert_eq(signbit(got), signbit(want), "code %#x sign", c);
    cr_assert_eq(khost__fp16_encode(got), c, "code %#x round trip", c);
  }
}

Test(fp16, rounds_once_to_nearest_even)
{
  static const encode_row rows[] = {
      {1.0 + 0x1p-11, 0x3c00},           /* tie: even */
      {1.0 + 3 * 0x1p-11, 0x3c02},       /* tie: even, upwards */
      {1.0 + 0x1p-11 + 0x1p-40, 0x3c01}, /* through fp32 this would be a tie and go to 0x3c00 */
      {65504, 0x7bff},
      {65519.99, 0x7bff},
      {65520, 0x7c00}, /* tie between the max and 2^16: even is infinity */
      {1e6, 0x7c00},
      {-1e300, 0xfc00},
      {INFINITY, 0x7c00},
      {-INFINITY, 0xfc00},
      {0x1p-24, 0x0001},
      {0x1p-25, 0x0000}, /* tie to zero */
      {0x1p-25 + 0x1p-60, 0x0001},
      {3 * 0x1p-25, 0x0002},
      {0x1p-14 - 0x1p-25, 0x0400}, /* tie between the largest subnormal and 2^-14 */
      {-0.0, 0x8000},
      {1e-300, 0x0000},
      {-0x1p-1074, 0x8000}, /* a double subnormal */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cr_expect_eq(khost__fp16_encode(rows[i].x), rows[i].code, "fp16(%a) = %#x, want %#x", rows[i].x,
                 khost__fp16_encode(rows[i].x), rows[i].code);
  }
  cr_expect(isnan(khost__fp16_decode(khost__fp16_encode(NAN))));
  cr_expect(isnan(khost__fp16_decode(khost__fp16_encode(-NAN))));
}

Test(fp16, random_doubles_round_like_the_compiler)
{
  uint64_t state = 99;
  for (int i = 0; i < 200000; i++) {
    double x = random_double(&state, -27, 17);
    uint16_t want = fp16_bits_of((_Float16)x);
    cr_assert_eq(khost__fp16_encode(x), want, "x = %a: %#x, want %#x", x, khost__fp16_encode(x), want);
  }
}

/* ---- bf16 ---- */

static double bf16_by_bits(unsigned code)
{
  uint32_t bits = (uint32_t)code << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

Test(bf16, every_code_decodes_as_the_top_of_an_fp32_and_round_trips)
{
  for (unsigned c = 0; c < 65536; c++) {
    double got = khost__bf16_decode((uint16_t)c), want = bf16_by_bits(c);
    if (isnan(want)) {
      cr_assert(isnan(got), "code %#x is NaN", c);
      cr_assert(isnan(khost__bf16_decode(khost__bf16_encode(got))), "NaN %#x stays NaN", c);
      continue;
    }
    cr_assert_eq(got, want, "code %#x: %a, want %a", c, got, want);
    cr_assert_eq(signbit(got), signbit(want), "code %#x sign", c);
    cr_assert_eq(khost__bf16_encode(got), c, "code %#x round trip", c);
  }
}

Test(bf16, rounds_once_to_nearest_even)
{
  static const encode_row rows[] = {
      {1.0 + 0x1p-8, 0x3f80},           /* tie: even */
      {1.0 + 3 * 0x1p-8, 0x3f82},       /* tie: even, upwards */
      {1.0 + 0x1p-8 + 0x1p-30, 0x3f81}, /* through fp32 this would be a tie and go to 0x3f80 */
      {0x1.fep127, 0x7f7f},             /* the largest finite */
      {0x1.ffp127, 0x7f80},             /* tie between the largest and 2^128: even is infinity */
      {1e39, 0x7f80},
      {-INFINITY, 0xff80},
      {0x1p-133, 0x0001}, /* the smallest subnormal */
      {0x1p-134, 0x0000}, /* tie to zero */
      {0x1.8p-133, 0x0002},
      {-0.0, 0x8000},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cr_expect_eq(khost__bf16_encode(rows[i].x), rows[i].code, "bf16(%a) = %#x, want %#x", rows[i].x,
                 khost__bf16_encode(rows[i].x), rows[i].code);
  }
  cr_expect(isnan(khost__bf16_decode(khost__bf16_encode(NAN))));
}

/* The nearest bf16 to a finite x inside the finite range, by binary search over
 * the codes (decoded through fp32 bits) and an exact comparison of distances. */
static uint16_t bf16_by_search(double x)
{
  unsigned lo = 0, hi = 0x7f7f;
  double a = fabs(x), dlo, dhi;
  unsigned pick;
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) / 2;
    if (bf16_by_bits(mid) <= a) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  dlo = a - bf16_by_bits(lo);
  dhi = bf16_by_bits(hi) - a;
  pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo & 1) ? hi : lo;
  return (uint16_t)(pick | (x < 0 ? 0x8000u : 0u));
}

Test(bf16, random_doubles_match_a_search_over_all_codes)
{
  uint64_t state = 1234;
  for (int i = 0; i < 200000; i++) {
    double x = random_double(&state, -130, 126);
    cr_assert_eq(khost__bf16_encode(x), bf16_by_search(x), "x = %a", x);
  }
}

/* ---- fp32 ---- */

Test(fp32, rounds_to_nearest_even)
{
  cr_expect_eq(khost__fp32_encode(1.0 + 0x1p-24), 1.0f, "tie: even");
  cr_expect_eq(khost__fp32_encode(1.0 + 0x1p-24 + 0x1p-50), 1.0f + 0x1p-23f);
  cr_expect_eq(khost__fp32_encode(1.0 + 3 * 0x1p-24), 1.0f + 0x1p-22f, "tie: even, upwards");
  cr_expect(isinf(khost__fp32_encode(1e39)));
}
