#include "dtype.h"

#include <string.h>

#include "formats.h"

/* The decoders the table names: element i of a buffer of that type, exactly. */
static double khost__fp16_at(const void *p, size_t i)
{
  return khost__fp16_decode(((const uint16_t *)p)[i]);
}

static double khost__bf16_at(const void *p, size_t i)
{
  return khost__bf16_decode(((const uint16_t *)p)[i]);
}

static double khost__fp32_at(const void *p, size_t i)
{
  return ((const float *)p)[i];
}

static double khost__e4m3_at(const void *p, size_t i)
{
  return khost__e4m3_decode(((const uint8_t *)p)[i]);
}

/* Two codes a byte, element 2j in the low nibble (docs/FORMATS.md). */
static double khost__e2m1_at(const void *p, size_t i)
{
  uint8_t byte = ((const uint8_t *)p)[i / 2];
  return khost__e2m1_decode((uint8_t)(i % 2 ? byte >> 4 : byte & 0xf));
}

static double khost__u8_at(const void *p, size_t i)
{
  return ((const uint8_t *)p)[i];
}

static double khost__e5m2_at(const void *p, size_t i)
{
  return khost__e5m2_decode(((const uint8_t *)p)[i]);
}

static double khost__e8m0_at(const void *p, size_t i)
{
  return khost__e8m0_decode(((const uint8_t *)p)[i]);
}

static double khost__u16_at(const void *p, size_t i)
{
  return ((const uint16_t *)p)[i];
}

static double khost__u32_at(const void *p, size_t i)
{
  return ((const uint32_t *)p)[i];
}

static double khost__i32_at(const void *p, size_t i)
{
  return ((const int32_t *)p)[i];
}

static double khost__i64_at(const void *p, size_t i)
{
  return (double)((const int64_t *)p)[i];
}

static double khost__u64_at(const void *p, size_t i)
{
  return (double)((const uint64_t *)p)[i];
}

typedef struct dtype_info {
  const char *name;
  khost_dtype abi; /* DLPack code, bits, lanes */
  const char *npy_descr;
  double (*value)(const void *data, size_t i);
} dtype_info;

static const dtype_info dtypes[KHOST__DT_COUNT] = {
#define KHOST__DTYPE_INFO(id, name, code, bits, descr, decode)                                               \
  [KHOST__DT_##id] = {name, {code, bits, 1}, descr, decode},
    KHOST__DTYPE_TABLE(KHOST__DTYPE_INFO)
#undef KHOST__DTYPE_INFO
};

const char *khost__dtype_name(khost__dtype_id id)
{
  return (unsigned)id < KHOST__DT_COUNT ? dtypes[id].name : "?";
}

int khost__dtype_parse(const char *s, khost__dtype_id *out)
{
  for (int i = 0; i < KHOST__DT_COUNT; i++) {
    if (strcmp(dtypes[i].name, s) == 0) {
      *out = (khost__dtype_id)i;
      return 0;
    }
  }
  return -1;
}

size_t khost__dtype_bits(khost__dtype_id id)
{
  return dtypes[id].abi.bits;
}

khost_dtype khost__dtype_abi(khost__dtype_id id)
{
  return dtypes[id].abi;
}

const char *khost__dtype_npy_descr(khost__dtype_id id)
{
  return dtypes[id].npy_descr;
}

double khost__dtype_value(khost__dtype_id id, const void *data, size_t i)
{
  return dtypes[id].value(data, i);
}
