/* Exact encode/decode of the number formats khost handles (see docs/FORMATS.md).
 * Pure functions, no state; shared by the host and the reference plugin. */
#ifndef KHOST_FORMATS_H
#define KHOST_FORMATS_H

#include <stdint.h>

/* fp4 e2m1: code in 0..15 (higher bits ignored) -> its exact value (code 8 is -0). */
float khost__e2m1_decode(uint8_t code);
/* Nearest e2m1 code to x, ties to even, saturating at +-6 (no inf/NaN in e2m1: NaN -> 0x7). */
uint8_t khost__e2m1_encode(double x);

/* The largest finite e4m3fn value (code 0x7e); quantizers scale a block's absmax to it. */
#define KHOST__E4M3_MAX 448.0

/* fp8 e4m3fn: code -> exact value (NaN for 0x7f and 0xff). */
float khost__e4m3_decode(uint8_t code);
/* Nearest e4m3fn code to x with round-to-nearest-even; |x| beyond 448 saturates to
 * +-448 (0x7e/0xfe); NaN -> 0x7f. */
uint8_t khost__e4m3_encode(double x);

/* fp8 e5m2 (IEEE layout, bias 15): code -> exact value, infinities and NaNs included. */
double khost__e5m2_decode(uint8_t code);

/* e8m0 (MX scales): the power of two 2^(code - 127); 0xff is NaN. No sign, no zero. */
double khost__e8m0_decode(uint8_t code);

/* IEEE binary16: exact decode; encode rounds x (a double) to nearest even,
 * overflowing to infinity, keeping NaN a NaN. */
double khost__fp16_decode(uint16_t h);
uint16_t khost__fp16_encode(double x);

/* bfloat16: the top half of a binary32. Encode rounds the double x directly to
 * nearest even (no double rounding through fp32). */
double khost__bf16_decode(uint16_t h);
uint16_t khost__bf16_encode(double x);

/* binary32 rounded to nearest even from a double (the C cast, made explicit). */
float khost__fp32_encode(double x);

#endif
