/* core/arena.c: placements from the seed (every chunk aligned, apart, inside,
 * in a shuffled order), scatter and gather, the gap check and the naming of a byte. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buffers.h"

/* A block stack of 5 blocks x 2 layers x 2 outer, chunks of 3 x 2 x 5 fp16 (60 bytes). */
static khost__tensor_spec stack_spec(void)
{
  static const char *const dims[] = {"b", "l", "o", "t", "h", "d"};
  const int64_t shape[] = {5, 2, 2, 3, 2, 5};
  khost__tensor_spec s;
  khost__tensor_spec_fill(&s, "src", KHOST__DT_FP16, 6, shape, dims);
  khost__tensor_spec_arena(&s, 3);
  return s;
}

Test(arena, every_chunk_is_aligned_apart_and_inside_with_a_gap_before_it)
{
  khost__tensor_spec s = stack_spec();
  khost__arena a;
  cr_assert_eq(khost__arena_make(&a, &s, 42, 0, NULL), KHOST__OK);
  cr_expect_eq(a.chunks, 20);
  cr_expect_eq(a.chunk_bytes, 60);
  cr_expect_eq(a.bytes, 20 * (256 + KHOST__ARENA_GAP_UNITS * 256));
  cr_expect_eq(khost__tensor_storage_bytes(&s), a.bytes);
  size_t previous_end = 0;
  for (size_t i = 0; i < a.chunks; i++) {
    uint64_t at = a.offset[a.by_address[i]];
    cr_expect_eq(at % KHOST__ARENA_ALIGN, 0, "chunk %zu at %llu", a.by_address[i], (unsigned long long)at);
    cr_expect_geq(at, previous_end + KHOST__ARENA_ALIGN, "no gap before chunk %zu", a.by_address[i]);
    previous_end = at + a.chunk_bytes;
  }
  cr_expect_leq(previous_end, a.bytes);
  khost__arena_free(&a);
}

Test(arena, the_order_is_shuffled_from_the_seed_and_the_same_for_the_same_seed)
{
  khost__tensor_spec s = stack_spec();
  khost__arena a, b, c;
  cr_assert_eq(khost__arena_make(&a, &s, 7, 0, NULL), KHOST__OK);
  cr_assert_eq(khost__arena_make(&b, &s, 7, 0, NULL), KHOST__OK);
  cr_assert_eq(khost__arena_make(&c, &s, 8, 0, NULL), KHOST__OK);
  cr_expect_arr_eq(a.offset, b.offset, a.chunks * sizeof *a.offset);
  cr_expect_neq(memcmp(a.offset, c.offset, a.chunks * sizeof *a.offset), 0);
  size_t in_order = 0, seen[20] = {0};
  for (size_t i = 0; i < a.chunks; i++) {
    in_order += a.by_address[i] == i;
    seen[a.by_address[i]]++;
  }
  cr_expect_lt(in_order, a.chunks, "the chunks lie in their own order");
  for (size_t i = 0; i < a.chunks; i++) cr_expect_eq(seen[i], 1, "chunk %zu placed %zu times", i, seen[i]);
  khost__arena_free(&a);
  khost__arena_free(&b);
  khost__arena_free(&c);
}

Test(arena, scatter_then_gather_is_the_identity_and_the_gaps_hold_poison)
{
  khost__tensor_spec s = stack_spec();
  khost__arena a;
  cr_assert_eq(khost__arena_make(&a, &s, 3, 1, NULL), KHOST__OK);
  unsigned char packed[1200], back[1200], *image = malloc(a.bytes);
  for (size_t i = 0; i < sizeof packed; i++) packed[i] = (unsigned char)(i * 7 + 1) & 0x7f;
  khost__arena_scatter(&a, packed, image);
  khost__arena_gather(&a, image, back);
  cr_expect_arr_eq(packed, back, sizeof packed);
  cr_expect_eq(khost__arena_gap_written(&a, image), SIZE_MAX);
  free(image);
  khost__arena_free(&a);
}

Test(arena, a_write_in_a_gap_is_found_and_named_by_the_chunk_before_it)
{
  khost__tensor_spec s = stack_spec();
  khost__arena a;
  cr_assert_eq(khost__arena_make(&a, &s, 3, 0, NULL), KHOST__OK);
  unsigned char packed[1200] = {0}, *image = malloc(a.bytes);
  khost__arena_scatter(&a, packed, image);
  size_t chunk = 13; /* (b=3, l=0, o=1) */
  size_t past_end = a.offset[chunk] + a.chunk_bytes;
  image[past_end] = 0;
  cr_expect_eq(khost__arena_gap_written(&a, image), past_end);
  char where[256];
  khost__arena_locate(&a, &s, past_end, where, sizeof where);
  cr_expect_str_eq(where, "the gap after chunk src[b=3, l=0, o=1]");
  khost__arena_locate(&a, &s, a.offset[chunk] + 2, where, sizeof where);
  cr_expect_str_eq(where, "chunk src[b=3, l=0, o=1] byte 2");
  khost__arena_locate(&a, &s, 0, where, sizeof where);
  cr_expect_str_eq(where, "the gap before the first chunk");
  image[past_end] = KHOST__POISON_BYTE;
  image[a.bytes - 1] = 1; /* after the last chunk */
  cr_expect_eq(khost__arena_gap_written(&a, image), a.bytes - 1);
  free(image);
  khost__arena_free(&a);
}

Test(arena, no_chunks_take_no_bytes)
{
  khost__tensor_spec s = stack_spec();
  s.shape[0] = 0;
  s.nbytes = 0;
  khost__arena a;
  cr_assert_eq(khost__arena_make(&a, &s, 1, 0, NULL), KHOST__OK);
  cr_expect_eq(a.chunks, 0);
  cr_expect_eq(a.bytes, 0);
  cr_expect_eq(khost__arena_gap_written(&a, ""), SIZE_MAX);
  khost__arena_free(&a);
}

Test(arena, a_size_that_overflows_is_size_max)
{
  khost__tensor_spec s = stack_spec();
  s.shape[0] = INT64_C(1) << 62;
  s.nbytes = (size_t)1 << 40;
  cr_expect_eq(khost__arena_bytes(&s), SIZE_MAX);
}
