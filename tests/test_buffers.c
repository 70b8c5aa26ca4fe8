/* Guarded host buffers: guards, poison, round trips, hashing. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "buffers.h"
#include "khost/plugin.h"
#include "memory.h"

Test(buffers, guards_catch_writes_on_either_side)
{
  khost__buffer b;
  khost__err err;
  cr_assert_eq(khost__buffer_alloc(&b, KHOST_DEVICE_CPU, 100, "x", &err), KHOST__OK);
  cr_expect_eq((uintptr_t)b.data % 256, 0, "data is 256-byte aligned");
  cr_expect_eq(khost__buffer_check_guards(&b, "x", &err), KHOST__OK);
  ((unsigned char *)b.data)[100] ^= 0xff;
  cr_expect_eq(khost__buffer_check_guards(&b, "x", &err), KHOST__E_FAIL);
  cr_expect_str_eq(err.msg, "x: 1 guard bytes overwritten past the end");
  cr_expect_eq(khost__buffer_reset_guards(&b, &err), KHOST__OK);
  cr_expect_eq(khost__buffer_check_guards(&b, "x", &err), KHOST__OK);
  memset((unsigned char *)b.data - 8, 0, 8);
  cr_expect_eq(khost__buffer_check_guards(&b, "y", &err), KHOST__E_FAIL);
  cr_expect(strstr(err.msg, "y: 8 guard bytes overwritten below the start"), "%s", err.msg);
  khost__buffer_free(&b);
  cr_expect_null(b.base);
}

Test(buffers, writes_reads_and_poison)
{
  khost__buffer b;
  khost__err err;
  unsigned char src[64], dst[64];
  for (int i = 0; i < 64; i++) src[i] = (unsigned char)(i * 7 + 1);
  cr_assert_eq(khost__buffer_alloc(&b, KHOST_DEVICE_CPU, sizeof src, "b", &err), KHOST__OK);
  cr_expect_eq(khost__buffer_write(&b, src, &err), KHOST__OK);
  cr_expect_eq(khost__buffer_read(&b, dst, &err), KHOST__OK);
  cr_expect_arr_eq(dst, src, sizeof src);
  cr_expect_eq(khost__buffer_poison(&b, &err), KHOST__OK);
  cr_expect_eq(khost__buffer_read(&b, dst, &err), KHOST__OK);
  for (int i = 0; i < 64; i++) cr_expect_eq(dst[i], KHOST__POISON_BYTE);
  cr_expect_eq(khost__buffer_check_guards(&b, "b", &err), KHOST__OK, "poison stays inside");
  khost__buffer_free(&b);
}

Test(buffers, hash_sees_a_single_bit)
{
  unsigned char data[1000];
  for (int i = 0; i < 1000; i++) data[i] = (unsigned char)(i ^ 0x5a);
  uint64_t h = khost__hash_bytes(data, sizeof data);
  cr_expect_eq(h, khost__hash_bytes(data, sizeof data));
  data[999] ^= 1;
  cr_expect_neq(h, khost__hash_bytes(data, sizeof data));
  cr_expect_eq(khost__hash_bytes(data, 0), UINT64_C(0xcbf29ce484222325), "FNV-1a offset basis for no bytes");
}

Test(buffers, a_size_that_would_wrap_with_its_guards_is_refused)
{
  khost__buffer b;
  khost__err err = {""};
  cr_assert_eq(khost__buffer_alloc(&b, KHOST_DEVICE_CPU, SIZE_MAX - 16, "huge", &err), KHOST__E_NOMEM);
  cr_expect_null(b.base);
  cr_expect_not_null(strstr(err.msg, "plus guards"), "%s", err.msg);
}

/* Refused before anything is allocated, naming the buffer and both amounts: with
 * memory overcommitted the allocation itself would succeed, and the process be
 * killed when it wrote the memory. */
Test(buffers, a_host_buffer_larger_than_the_memory_available_is_refused_before_it_is_made)
{
  khost__buffer b;
  khost__err err = {""};
  size_t too_much = khost__memory_available() + ((size_t)1 << 30);
  cr_assert_eq(khost__buffer_alloc(&b, KHOST_DEVICE_CPU, too_much, "big", &err), KHOST__E_NOMEM);
  cr_expect_null(b.base);
  cr_expect_not_null(strstr(err.msg, "not enough host memory for big: "), "%s", err.msg);
  cr_expect_not_null(strstr(err.msg, " available"), "%s", err.msg);
}
