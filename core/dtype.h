/* The element types khost knows, each described once: its suite name, its plugin
 * ABI type (DLPack code and bits), its .npy descriptor and its exact decoder.
 * Every other place that needs a fact about a dtype asks this table.
 *
 * tools/triton_aot.py reads KHOST__DTYPE_TABLE from this file to type the Triton
 * kernels' arguments, so the table keeps one X(...) row per line. */
#ifndef KHOST_DTYPE_H
#define KHOST_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "khost/plugin.h"

/* X(ID, name, DLPack code, bits, npy descr, decoder): ID gives KHOST__DT_<ID>; name
 * is what a suite writes; bits is the element's storage (e2m1 packs two codes a
 * byte); descr is the .npy item written for the raw storage (numpy has no bf16 or
 * fp8, so those keep their bits as unsigned integers); the decoder returns
 * element i of a buffer as its exact value (64-bit integers exactly up to 2^53). */
#define KHOST__DTYPE_TABLE(X)                                                                                \
  X(FP16, "fp16", KHOST_DTYPE_FLOAT, 16, "<f2", khost__fp16_at)                                              \
  X(BF16, "bf16", KHOST_DTYPE_BFLOAT, 16, "<u2", khost__bf16_at)                                             \
  X(FP32, "fp32", KHOST_DTYPE_FLOAT, 32, "<f4", khost__fp32_at)                                              \
  X(E4M3, "e4m3", KHOST_DTYPE_FLOAT8_E4M3FN, 8, "|u1", khost__e4m3_at)                                       \
  X(E2M1, "e2m1", KHOST_DTYPE_FLOAT4_E2M1FN, 4, "|u1", khost__e2m1_at)                                       \
  X(U8, "u8", KHOST_DTYPE_UINT, 8, "|u1", khost__u8_at)                                                      \
  X(E5M2, "e5m2", KHOST_DTYPE_FLOAT8_E5M2, 8, "|u1", khost__e5m2_at)                                         \
  X(E8M0, "e8m0", KHOST_DTYPE_FLOAT8_E8M0FNU, 8, "|u1", khost__e8m0_at)                                      \
  X(U16, "u16", KHOST_DTYPE_UINT, 16, "<u2", khost__u16_at)                                                  \
  X(U32, "u32", KHOST_DTYPE_UINT, 32, "<u4", khost__u32_at)                                                  \
  X(I32, "i32", KHOST_DTYPE_INT, 32, "<i4", khost__i32_at)                                                   \
  X(I64, "i64", KHOST_DTYPE_INT, 64, "<i8", khost__i64_at)                                                   \
  X(U64, "u64", KHOST_DTYPE_UINT, 64, "<u8", khost__u64_at)

/* Element types, in the table's order. A parameter's dtype mask is a bit per id. */
typedef enum {
#define KHOST__DTYPE_ID(id, name, code, bits, descr, decode) KHOST__DT_##id,
  KHOST__DTYPE_TABLE(KHOST__DTYPE_ID)
#undef KHOST__DTYPE_ID
      KHOST__DT_COUNT
} khost__dtype_id;

/* "fp16", ...; "?" for an id outside the table. Static. */
const char *khost__dtype_name(khost__dtype_id id);
/* 0 and *out set when s names a dtype, else -1. */
int khost__dtype_parse(const char *s, khost__dtype_id *out);
/* Bits of one element's storage. */
size_t khost__dtype_bits(khost__dtype_id id);
/* The plugin ABI's DLPack-coded type. */
khost_dtype khost__dtype_abi(khost__dtype_id id);
/* The .npy descriptor of the raw storage ("<f2"). Static. */
const char *khost__dtype_npy_descr(khost__dtype_id id);
/* The exact value of element i of data, stored as dtype (packed for e2m1). */
double khost__dtype_value(khost__dtype_id id, const void *data, size_t i);

#endif
