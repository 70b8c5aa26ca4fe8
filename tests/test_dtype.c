/* Tests for core/dtype.c: the one table of element types. Every row is checked
 * against facts written out here (name, DLPack code, bits, .npy item), and every
 * decoder against values computed by hand, so a row that drifts fails. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

typedef struct dtype_row {
  khost__dtype_id id;
  const char *name;
  uint8_t code, bits;
  const char *npy_descr;
} dtype_row;

/* DLPack v1.1's codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLFloat8_e4m3fn 10,
 * kDLFloat8_e5m2 12, kDLFloat8_e8m0fnu 14, kDLFloat4_e2m1fn 17. */
static const dtype_row rows[] = {
    {KHOST__DT_FP16, "fp16", 2, 16, "<f2"}, {KHOST__DT_BF16, "bf16", 4, 16, "<u2"},
    {KHOST__DT_FP32, "fp32", 2, 32, "<f4"}, {KHOST__DT_E4M3, "e4m3", 10, 8, "|u1"},
    {KHOST__DT_E2M1, "e2m1", 17, 4, "|u1"}, {KHOST__DT_U8, "u8", 1, 8, "|u1"},
    {KHOST__DT_E5M2, "e5m2", 12, 8, "|u1"}, {KHOST__DT_E8M0, "e8m0", 14, 8, "|u1"},
    {KHOST__DT_U16, "u16", 1, 16, "<u2"},   {KHOST__DT_U32, "u32", 1, 32, "<u4"},
    {KHOST__DT_I32, "i32", 0, 32, "<i4"},   {KHOST__DT_I64, "i64", 0, 64, "<i8"},
    {KHOST__DT_U64, "u64", 1, 64, "<u8"},
};
#define NROWS (sizeof rows / sizeof rows[0])

Test(dtype, every_row_has_its_name_code_bits_and_npy_item)
{
  cr_assert_eq(NROWS, KHOST__DT_COUNT, "a dtype was added to the table without a row here");
  for (size_t i = 0; i < NROWS; i++) {
    khost__dtype_id parsed;
    khost_dtype abi = khost__dtype_abi(rows[i].id);
    cr_expect_str_eq(khost__dtype_name(rows[i].id), rows[i].name);
    cr_expect_eq(khost__dtype_parse(rows[i].name, &parsed), 0, "%s", rows[i].name);
    cr_expect_eq(parsed, rows[i].id, "%s", rows[i].name);
    cr_expect_eq(khost__dtype_bits(rows[i].id), rows[i].bits, "%s", rows[i].name);
    cr_expect_eq(abi.code, rows[i].code, "%s", rows[i].name);
    cr_expect_eq(abi.bits, rows[i].bits, "%s", rows[i].name);
    cr_expect_eq(abi.lanes, 1, "%s", rows[i].name);
    cr_expect_str_eq(khost__dtype_npy_descr(rows[i].id), rows[i].npy_descr, "%s", rows[i].name);
  }
}

Test(dtype, the_npy_item_holds_the_storage_of_whole_bytes)
{
  for (int id = 0; id < KHOST__DT_COUNT; id++) {
    const char *descr = khost__dtype_npy_descr((khost__dtype_id)id);
    size_t bits = khost__dtype_bits((khost__dtype_id)id);
    size_t item = strtoul(descr + 2, NULL, 10);
    /* Sub-byte codes are dumped as the bytes that pack them. */
    cr_expect_eq(item * 8, bits < 8 ? 8 : bits, "%s: %s", khost__dtype_name((khost__dtype_id)id), descr);
  }
}

Test(dtype, unknown_names_and_ids_are_refused)
{
  khost__dtype_id unused;
  cr_expect_neq(khost__dtype_parse("fp8", &unused), 0);
  cr_expect_neq(khost__dtype_parse("FP16", &unused), 0);
  cr_expect_neq(khost__dtype_parse("", &unused), 0);
  cr_expect_str_eq(khost__dtype_name(KHOST__DT_COUNT), "?");
}

Test(dtype, floats_decode_to_their_exact_values)
{
  const uint16_t fp16[] = {0x3c00, 0xc000, 0x0001}; /* 1, -2, 2^-24 */
  const uint16_t bf16[] = {0x3f80, 0x4049, 0x8000}; /* 1, 3.140625, -0 */
  const float fp32[] = {0.1f, -3.5f};
  const uint8_t e4m3[] = {0x38, 0xfe, 0x01};       /* 1, -448, 2^-9 */
  const uint8_t e2m1[] = {0x2f, 0x97};             /* elements 6, 1 | -6, -0.5 ... */
  const uint8_t e5m2[] = {0x3c, 0x7b, 0x01, 0x7c}; /* 1, 57344, 2^-16, inf */
  const uint8_t e8m0[] = {127, 0, 254, 255};       /* 1, 2^-127, 2^127, NaN */
  cr_expect_eq(khost__dtype_value(KHOST__DT_FP16, fp16, 0), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_FP16, fp16, 1), -2.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_FP16, fp16, 2), 0x1p-24);
  cr_expect_eq(khost__dtype_value(KHOST__DT_BF16, bf16, 0), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_BF16, bf16, 1), 3.140625);
  cr_expect(signbit(khost__dtype_value(KHOST__DT_BF16, bf16, 2)));
  cr_expect_eq(khost__dtype_value(KHOST__DT_FP32, fp32, 0), (double)0.1f);
  cr_expect_eq(khost__dtype_value(KHOST__DT_FP32, fp32, 1), -3.5);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E4M3, e4m3, 0), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E4M3, e4m3, 1), -448.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E4M3, e4m3, 2), 0x1p-9);
  /* Element 2j is the low nibble: 0x2f holds 0xf (-6) then 0x2 (1). */
  cr_expect_eq(khost__dtype_value(KHOST__DT_E2M1, e2m1, 0), -6.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E2M1, e2m1, 1), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E2M1, e2m1, 2), 6.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E2M1, e2m1, 3), -0.5);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E5M2, e5m2, 0), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E5M2, e5m2, 1), 57344.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E5M2, e5m2, 2), 0x1p-16);
  cr_expect(isinf(khost__dtype_value(KHOST__DT_E5M2, e5m2, 3)));
  cr_expect_eq(khost__dtype_value(KHOST__DT_E8M0, e8m0, 0), 1.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E8M0, e8m0, 1), 0x1p-127);
  cr_expect_eq(khost__dtype_value(KHOST__DT_E8M0, e8m0, 2), 0x1p127);
  cr_expect(isnan(khost__dtype_value(KHOST__DT_E8M0, e8m0, 3)));
}

Test(dtype, integers_decode_to_their_values)
{
  const uint8_t u8[] = {0, 255};
  const uint16_t u16[] = {65535};
  const uint32_t u32[] = {4294967295u};
  const int32_t i32[] = {-2147483647 - 1, 7};
  const int64_t i64[] = {-(INT64_C(1) << 53), INT64_C(42)};
  const uint64_t u64[] = {UINT64_C(1) << 53, UINT64_C(0x7f0000001000)}; /* a pointer-like value */
  cr_expect_eq(khost__dtype_value(KHOST__DT_U8, u8, 1), 255.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_U16, u16, 0), 65535.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_U32, u32, 0), 4294967295.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_I32, i32, 0), -2147483648.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_I32, i32, 1), 7.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_I64, i64, 0), -0x1p53);
  cr_expect_eq(khost__dtype_value(KHOST__DT_I64, i64, 1), 42.0);
  cr_expect_eq(khost__dtype_value(KHOST__DT_U64, u64, 0), 0x1p53);
  cr_expect_eq(khost__dtype_value(KHOST__DT_U64, u64, 1), (double)UINT64_C(0x7f0000001000));
}
