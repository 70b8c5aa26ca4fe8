#include "formats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* e2m1 is small enough to encode by searching its ordered magnitudes, which makes
 * ties-to-even and saturation exact by construction; e4m3fn is encoded by
 * arithmetic on its binades, and tests/test_formats.c checks it against that
 * search. The 16-bit formats use the IEEE layout arithmetic below. */

static const float e2m1_magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

#define E4M3_MAX_CODE 0x7e /* KHOST__E4M3_MAX; 0x7f is NaN */

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

/* e4m3fn by arithmetic, not by search: the generator of fp8_block_gemm quantizes
 * every element of its tensors, hundreds of millions per case. Within a binade
 * 2^e (e >= -6; the subnormals share the quantum of e = -6) the values are
 * 8..15 quanta of 2^(e-3), and the code is (e + 6) * 8 + quanta, so rounding the
 * quanta with rint (nearest even; scaling by a power of two is exact) rounds the
 * code to nearest even too, and 16 quanta carry into the next binade. */
uint8_t khost__e4m3_encode(double x)
{
  if (isnan(x)) return 0x7f;
  double mag = fabs(x);
  uint8_t code = E4M3_MAX_CODE;
  if (mag < KHOST__E4M3_MAX) {
    int e = mag < 0x1p-6 ? -6 : ilogb(mag);
    code = (uint8_t)((e + 6) * 8 + (int)rint(ldexp(mag, 3 - e)));
  }
  return (uint8_t)(minifloat_sign(x, 0x80) | code);
}

/* An IEEE-style binary format with `mant_bits` fraction bits and `exp_bits`
 * exponent bits (sign on top), at most 32 bits wide. */
typedef struct ieee_format {
  int mant_bits, exp_bits;
} ieee_format;

static const ieee_format fp16_format = {10, 5};
static const ieee_format bf16_format = {7, 8};
static const ieee_format e5m2_format = {2, 5}; /* fp8 e5m2 keeps IEEE's infinities and NaNs */

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

/* sig >> shift (shift >= 1), rounded to nearest, ties to even. */
static uint64_t shift_round_even(uint64_t sig, int shift)
{
  uint64_t kept, rest, half;
  if (shift >= 64) return 0; /* sig < 2^53 is below half of 2^shift */
  kept = sig >> shift;
  rest = sig & ((UINT64_C(1) << shift) - 1);
  half = UINT64_C(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) kept++;
  return kept;
}

/* Rounds x once, directly from the double's bits, to the nearest value of f:
 * the 53-bit significand is shifted down to f's last bit with one integer
 * rounding, so there is no double rounding and no dependence on the
 * floating-point environment. A carry out of the fraction lands in the exponent
 * field, as IEEE rounding does (to the next binade, or from the largest finite
 * value to infinity); a subnormal that rounds up to 2^emin becomes the smallest
 * normal the same way. */
static uint32_t ieee_encode(double x, ieee_format f)
{
  const int bias = (1 << (f.exp_bits - 1)) - 1, emin = 1 - bias;
  const uint32_t inf = ((1u << f.exp_bits) - 1) << f.mant_bits;
  uint64_t b, sig;
  uint32_t sign;
  int exp_field, e;
  memcpy(&b, &x, sizeof b);
  sign = (uint32_t)(b >> 63) << (f.mant_bits + f.exp_bits);
  exp_field = (int)((b >> 52) & 0x7ff);
  sig = b & ((UINT64_C(1) << 52) - 1);
  if (exp_field == 0x7ff) return sign | inf | (sig ? 1u << (f.mant_bits - 1) : 0); /* NaN stays quiet NaN */
  if (exp_field == 0) {
    exp_field = 1; /* a double subnormal (or zero) has no implicit bit */
  } else {
    sig |= UINT64_C(1) << 52;
  }
  e = exp_field - 1023; /* x = sig * 2^(e - 52) */
  if (e > bias) return sign | inf;
  if (e < emin) return sign | (uint32_t)shift_round_even(sig, emin - e + 52 - f.mant_bits);
  return sign | (((uint32_t)(e + bias) << f.mant_bits) +
                 ((uint32_t)shift_round_even(sig, 52 - f.mant_bits) - (1u << f.mant_bits)));
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

double khost__e5m2_decode(uint8_t code)
{
  return ieee_decode(code, e5m2_format);
}

double khost__e8m0_decode(uint8_t code)
{
  return code == 0xff ? NAN : ldexp(1.0, (int)code - 127);
}

float khost__fp32_encode(double x)
{
  return (float)x;
}
