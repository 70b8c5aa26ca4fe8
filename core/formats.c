#include "formats.h"

#include <math.h>
#include <stdint.h>

/* The minifloats (e2m1, e4m3fn) are small enough to encode by searching their
 * ordered magnitudes, which makes ties-to-even and saturation exact by
 * construction. The 16-bit formats use the IEEE layout arithmetic below. */

static const float e2m1_magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

#define E4M3_MAX_CODE 0x7e /* 448; 0x7f is NaN */

float khost__e2m1_decode(uint8_t code)
{
  float mag = e2m1_magnitudes[code & 7];
  return (code & 8) ? -mag : mag;
}

float khost__e4m3_decode(uint8_t code)
{
  int exp_field = (code >> 3) & 15;
  int mant = code & 7;
  float mag;
  if ((code & 0x7f) == 0x7f) return NAN;
  if (exp_field == 0) {
    mag = ldexpf((float)mant, -9); /* subnormal: (mant/8) * 2^-6 */
  } else {
    mag = ldexpf((float)(8 + mant), exp_field - 7 - 3);
  }
  return (code & 0x80) ? -mag : mag;
}

/* Positive code nearest to mag (>= 0, not NaN) among codes 0..max_code, whose
 * magnitudes increase with the code; ties go to the even code; beyond the
 * largest magnitude saturates. Midpoints of these formats are exact doubles. */
static uint8_t nearest_code(double mag, float (*decode)(uint8_t), uint8_t max_code)
{
  uint8_t lo = 0, hi = max_code;
  double below, above, mid;
  if (mag >= decode(max_code)) return max_code;
  /* Invariant: decode(lo) <= mag < decode(hi). */
  while (hi - lo > 1) {
    uint8_t m = (uint8_t)((lo + hi) / 2);
    if (decode(m) <= mag) {
      lo = m;
    } else {
      hi = m;
    }
  }
  below = decode(lo);
  above = decode(hi);
  mid = (below + above) / 2;
  if (mag < mid) return lo;
  if (mag > mid) return hi;
  return (lo & 1) ? hi : lo;
}

/* Sign bit of a minifloat code whose sign is its top bit at `sign_bit`. */
static uint8_t minifloat_sign(double x, uint8_t sign_bit)
{
  return signbit(x) ? sign_bit : 0;
}

uint8_t khost__e2m1_encode(double x)
{
  if (isnan(x)) return 0x7;
  return (uint8_t)(minifloat_sign(x, 0x8) | nearest_code(fabs(x), khost__e2m1_decode, 7));
}

uint8_t khost__e4m3_encode(double x)
{
  if (isnan(x)) return 0x7f;
  return (uint8_t)(minifloat_sign(x, 0x80) | nearest_code(fabs(x), khost__e4m3_decode, E4M3_MAX_CODE));
}

/* An IEEE-style binary format with `mant_bits` fraction bits and `exp_bits`
 * exponent bits (sign on top), at most 32 bits wide. */
typedef struct ieee_format {
  int mant_bits, exp_bits;
} ieee_format;

static const ieee_format fp16_format = {10, 5};
static const ieee_format bf16_format = {7, 8};

static double ieee_decode(uint32_t bits, ieee_format f)
{
  int bias = (1 << (f.exp_bits - 1)) - 1;
  uint32_t exp_max = (1u << f.exp_bits) - 1;
  uint32_t exp_field = (bits >> f.mant_bits) & exp_max;
  uint32_t mant = bits & ((1u << f.mant_bits) - 1);
  double mag;
  if (exp_field == exp_max) {
    mag = mant ? NAN : INFINITY;
  } else if (exp_field == 0) {
    mag = ldexp((double)mant, 1 - bias - f.mant_bits);
  } else {
    mag = ldexp((double)((1u << f.mant_bits) | mant), (int)exp_field - bias - f.mant_bits);
  }
  return (bits >> (f.mant_bits + f.exp_bits)) & 1 ? -mag : mag;
}

/* Rounds a non-negative double holding an integer-plus-fraction to the nearest
 * integer, ties to even, independent of the floating-point environment. */
static double round_half_even(double s)
{
  double whole = floor(s);
  double frac = s - whole; /* exact: s < 2^53 */
  if (frac > 0.5 || (frac == 0.5 && fmod(whole, 2.0) != 0.0)) whole += 1.0;
  return whole;
}

/* Rounds x once, directly from the double, to the nearest value of format f.
 * Scaling x by its quantum (a power of two) is exact, so the only rounding is
 * round_half_even; a carry out of the fraction lands in the exponent field,
 * which is what IEEE rounding does (up to the next binade, or to infinity). */
static uint32_t ieee_encode(double x, ieee_format f)
{
  int bias = (1 << (f.exp_bits - 1)) - 1;
  uint32_t sign = signbit(x) ? 1u << (f.mant_bits + f.exp_bits) : 0;
  uint32_t inf = ((1u << f.exp_bits) - 1) << f.mant_bits;
  double mag = fabs(x);
  int emin = 1 - bias;
  int e;
  uint32_t bits;
  if (isnan(x)) return sign | inf | (1u << (f.mant_bits - 1));
  if (isinf(x)) return sign | inf;
  if (mag == 0.0) return sign; /* ilogb would raise a domain error for 0 and inf */
  e = ilogb(mag);
  if (e < emin) {
    bits = (uint32_t)round_half_even(ldexp(mag, f.mant_bits - emin));
  } else if (e > bias) {
    return sign | inf;
  } else {
    double frac = round_half_even(ldexp(mag, f.mant_bits - e)); /* in [2^M, 2^(M+1)] */
    bits = ((uint32_t)(e + bias) << f.mant_bits) + ((uint32_t)frac - (1u << f.mant_bits));
  }
  return sign | bits;
}

double khost__fp16_decode(uint16_t h)
{
  return ieee_decode(h, fp16_format);
}

uint16_t khost__fp16_encode(double x)
{
  return (uint16_t)ieee_encode(x, fp16_format);
}

double khost__bf16_decode(uint16_t h)
{
  return ieee_decode(h, bf16_format);
}

uint16_t khost__bf16_encode(double x)
{
  return (uint16_t)ieee_encode(x, bf16_format);
}

float khost__fp32_encode(double x)
{
  return (float)x;
}
