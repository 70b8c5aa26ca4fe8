/* core/fresh.c on the host: a CPU call's inputs are the documented variation of
 * the generated ones, its outputs poisoned; the per-call check passes a right
 * call and catches one wrong element or one unwritten one; and a timer whose
 * kernel is wrong on one call of many stops at that call, naming it; an
 * arena's inputs vary inside its chunks and its outputs are gathered to be checked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "fresh.h"
#include "khost/ops/kv_cache.h"
#include "plugins/fixture_plugin.h"
#include "timing.h"

#define M 8
#define N 12

/* The call number (1, 2, ...) on which transpose_run flips a bit of its
 * output; 0: never. Each test runs in its own process. */
static int wrong_call, calls;

static int transpose_run(const khost_input *in)
{
  unsigned char *out = khost_tensor_at(in->outputs, 0)->data;
  fixture_transpose(khost_tensor_at(in->inputs, 0), out);
  if (++calls == wrong_call) out[2 * 5] ^= 1; /* element 5: out[col=0, row=5] */
  return KHOST_STATUS_OK;
}

static const khost_kernel transpose_kernel = {.struct_size = sizeof(khost_kernel),
                                              .op = "copy_transpose",
                                              .device_type = KHOST_DEVICE_CPU,
                                              .run = transpose_run};

static khost__case the_case;
static khost__case_data data;
static khost__call call;

/* A case of op with params (name, value pairs), its data from seed, kernel
 * bound to it, and the kernel's own outputs on the generated inputs as the oracle's. */
static void make_case(const char *op, const char *const (*params)[2], size_t nparams, uint64_t seed,
                      const khost_kernel *kernel)
{
  khost__err err = {{0}};
  khost__case_init(&the_case, khost__catalog_find(op), "fresh_unit");
  for (size_t p = 0; p < nparams; p++)
    cr_assert_eq(khost__case_set_param(&the_case, params[p][0], params[p][1], &err), KHOST__OK, "%s",
                 err.msg);
  cr_assert_eq(khost__case_validate(&the_case, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__case_data_make(&data, &the_case, seed, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_prepare(&call, kernel, &data, 2, 0, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_run(&call), KHOST_STATUS_OK);
  cr_assert_eq(khost__call_read_output(&call, 0, data.ref[0], &err), KHOST__OK, "%s", err.msg);
  calls = 0;
}

/* copy_transpose fp16 [8, 12], its generated inputs, and their right outputs
 * (the transpose's, on the generated inputs) as the oracle's. */
static void setup(void)
{
  static const char *const params[][2] = {{"m", "8"}, {"n", "12"}, {"dtype", "fp16"}};
  make_case("copy_transpose", params, 3, 1234, &transpose_kernel);
}

static void teardown(void)
{
  khost__call_free(&call);
  khost__case_data_free(&data);
}

TestSuite(fresh, .init = setup, .fini = teardown);

/* The documented sign word of coordinate x of axis (0 row, 1 col). */
static uint32_t word(uint64_t key, int axis, uint64_t x)
{
  return (uint32_t)(khost__vary_mix(key ^ (x * 3 + (uint64_t)axis)) >> 32);
}

Test(fresh, inputs_are_the_rows_permuted_and_signed_as_documented_and_outputs_poisoned)
{
  khost__err err = {{0}};
  const uint16_t *generated = data.pristine[0];
  for (uint64_t index = 1; index <= 5; index++) {
    khost__vary_call v;
    khost__vary_draw(&data.vary, data.seed, index, &v);
    cr_assert_eq(khost__fresh_inputs(&call, &data, &v, &err), KHOST__OK, "%s", err.msg);
    const uint16_t *in = call.data->in[0][0].data;
    int flipped = 0;
    /* in[i][j] = generated[(a i + b) mod m][j], negated where the top bit of the
     * sum of the source row's and column's words is set. */
    for (uint64_t i = 0; i < M; i++)
      for (uint64_t j = 0; j < N; j++) {
        uint64_t from = (v.a * i + v.b) % M;
        int flip = (uint32_t)(word(v.key, 0, from) + word(v.key, 1, j)) >> 31;
        flipped += flip;
        cr_assert_eq(in[i * N + j], generated[from * N + j] ^ (flip ? 0x8000 : 0),
                     "call %llu, in[%llu][%llu]", (unsigned long long)index, (unsigned long long)i,
                     (unsigned long long)j);
      }
    cr_expect(flipped > 0 && flipped < M * N, "call %llu: %d of %d flipped", (unsigned long long)index,
              flipped, M * N);
    const unsigned char *out = call.out[0].data;
    for (size_t b = 0; b < data.set.outputs[0].nbytes; b++)
      cr_assert_eq(out[b], KHOST__POISON_BYTE, "output byte %zu not poisoned", b);
  }
}

/* Runs the call on variation `index` and checks it. */
static khost__check_stats run_and_check(uint64_t index, void (*damage)(unsigned char *out))
{
  khost__err err = {{0}};
  khost__vary_call v;
  khost__check_stats stats;
  khost__vary_draw(&data.vary, data.seed, index, &v);
  cr_assert_eq(khost__fresh_inputs(&call, &data, &v, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_run(&call), KHOST_STATUS_OK);
  if (damage) damage(call.out[0].data);
  cr_assert_eq(khost__fresh_check(&call, &data, &v, &stats, &err), KHOST__OK, "%s", err.msg);
  return stats;
}

static void flip_a_bit(unsigned char *out)
{
  out[2 * 29] ^= 0x01; /* element 29: out[col=3, row=5] */
}

static void leave_one_unwritten(unsigned char *out)
{
  memset(out + 2 * 29, KHOST__POISON_BYTE, 2);
}

static void nothing(unsigned char *out)
{
  (void)out;
}

Test(fresh, the_check_passes_a_right_call_and_finds_one_wrong_or_unwritten_element)
{
  for (uint64_t index = 1; index <= 4; index++) {
    khost__check_stats s = run_and_check(index, nothing);
    cr_expect_eq(s.count, M * N);
    cr_expect_eq(s.mismatches, 0, "call %llu", (unsigned long long)index);
  }
  khost__check_stats s = run_and_check(5, flip_a_bit);
  cr_expect_eq(s.mismatches, 1);
  cr_expect_eq(s.unwritten, 0);
  cr_assert_eq(s.nshown, 1);
  cr_expect_str_eq(s.shown[0].where, "out[col=3, row=5]");
  s = run_and_check(6, leave_one_unwritten);
  cr_expect_eq(s.mismatches, 1);
  cr_expect_eq(s.unwritten, 1);
}

/* The kernel's output for variation 2 checked as variation 3's: the previous
 * call's right answer is wrong for these inputs. */
Test(fresh, a_previous_calls_output_fails_the_next_calls_check)
{
  khost__err err = {{0}};
  khost__vary_call v2, v3;
  khost__check_stats s;
  khost__vary_draw(&data.vary, data.seed, 2, &v2);
  khost__vary_draw(&data.vary, data.seed, 3, &v3);
  cr_assert_eq(khost__fresh_inputs(&call, &data, &v2, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_run(&call), KHOST_STATUS_OK);
  cr_assert_eq(khost__fresh_check(&call, &data, &v3, &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_gt(s.mismatches, M * N / 4, "%llu of %d", (unsigned long long)s.mismatches, M * N);
}

/* One wrong element on one call of many ends the row's sampling at that call:
 * after setup, call 1 is the warm-up (timed call 1), call 2 sample 1 (timed call
 * 2), ..., call 6 sample 5 (timed call 6). */
Test(fresh, a_timer_stops_at_the_one_wrong_call_of_many_and_names_it)
{
  khost__options o = {
      .warmup_s = 0, .min_samples = 1000, .min_time_s = 100, .max_time_s = 100, .max_noise_pct = 0};
  khost__timer t;
  khost__err err = {{0}};
  int rc, samples = 0;
  wrong_call = 6;
  cr_assert_eq(khost__timer_start(&t, &call, &o, NULL, &err), KHOST__OK, "%s", err.msg);
  while ((rc = khost__timer_sample(&t, &err)) == KHOST__OK && samples < 20) samples++;
  cr_expect_eq(rc, KHOST__E_WRONG, "%s", err.msg);
  cr_expect_eq(samples, 4, "samples before the wrong one");
  cr_expect_str_eq(err.msg,
                   "timed call 6 (sample 5) left 1 of 96 elements out of tolerance (0 never written) on "
                   "inputs no earlier call had seen: a result kept from an earlier call, or work skipped?");
  cr_expect_eq(t.failed.mismatches, 1);
  cr_expect_str_eq(t.failed.shown[0].where, "out[col=0, row=5]");
  khost__timer_free(&t);
}

/* An arena (the KV-cache ops): block stack to operational, nb=2 nl=2 no=2 nt=2
 * nh=2 hd=4 fp16, by a kernel that copies each chunk through the tables. */
static khost_kv_dims kv = {.nb = 2, .nh = 2, .nl = 2, .no = 2, .nt = 2, .hd = 4};

static int kv_run(const khost_input *in)
{
  const uint64_t *stack = khost_tensor_at(in->inputs, KHOST_KV_SRC_TABLE)->data;
  const uint64_t *blocks = khost_tensor_at(in->inputs, KHOST_KV_DST_TABLE)->data;
  size_t chunk_bytes = (size_t)(kv.nt * kv.nh * kv.hd) * 2;
  for (int64_t b = 0; b < kv.nb; b++)
    for (int64_t l = 0; l < kv.nl; l++)
      for (int64_t o = 0; o < kv.no; o++)
        memcpy((char *)(uintptr_t)blocks[b] + khost_kv_operational_index(&kv, l, o) * 2,
               (const void *)(uintptr_t)stack[khost_kv_block_entry(&kv, b, l, o)], chunk_bytes);
  if (++calls == wrong_call) *(char *)(uintptr_t)blocks[1] ^= 1; /* dst[b=1, l=0, o=0, t=0, h=0, d=0] */
  return KHOST_STATUS_OK;
}

static const khost_kernel kv_kernel = {.struct_size = sizeof(khost_kernel),
                                       .op = "kv_block_to_operational",
                                       .device_type = KHOST_DEVICE_CPU,
                                       .run = kv_run};

static void kv_setup(void)
{
  static const char *const params[][2] = {{"nb", "2"}, {"nh", "2"}, {"nl", "2"},      {"no", "2"},
                                          {"nt", "2"}, {"hd", "4"}, {"dtype", "fp16"}};
  make_case("kv_block_to_operational", params, 7, 99, &kv_kernel);
}

TestSuite(fresh_arena, .init = kv_setup, .fini = teardown);

/* Each varied input lands in the arena's chunks (its gaps keep their poison),
 * the tables stay as made, and each call's right output passes its own check
 * and fails the next call's. */
Test(fresh_arena, inputs_vary_inside_the_chunks_and_each_call_is_checked_on_its_own)
{
  khost__err err = {{0}};
  const khost__arena *a = &data.arena[KHOST_KV_SRC];
  size_t packed_bytes = data.set.inputs[KHOST_KV_SRC].nbytes;
  unsigned char *expected = malloc(packed_bytes), *placed = malloc(packed_bytes);
  cr_assert(expected && placed);
  uint64_t table[8];
  memcpy(table, call.table[KHOST_KV_SRC_TABLE].data, sizeof table);
  for (uint64_t index = 1; index <= 4; index++) {
    khost__vary_call v, next;
    khost__check_stats s;
    khost__vary_draw(&data.vary, data.seed, index, &v);
    khost__vary_draw(&data.vary, data.seed, index + 1, &next);
    cr_assert_eq(khost__fresh_inputs(&call, &data, &v, &err), KHOST__OK, "%s", err.msg);
    const unsigned char *image = call.data->in[0][KHOST_KV_SRC].data;
    cr_expect_eq(khost__arena_gap_written(a, image), SIZE_MAX, "call %llu wrote a gap",
                 (unsigned long long)index);
    khost__arena_gather(a, image, placed);
    cr_assert_eq(
        khost__vary_host(&data.vary.inputs[KHOST_KV_SRC], &v, data.elements[KHOST_KV_SRC], expected, 1, &err),
        KHOST__OK);
    cr_expect_eq(memcmp(placed, expected, packed_bytes), 0, "call %llu: chunks not the variation",
                 (unsigned long long)index);
    cr_expect_neq(memcmp(placed, data.elements[KHOST_KV_SRC], packed_bytes), 0, "call %llu: not varied",
                  (unsigned long long)index);
    cr_expect_eq(memcmp(table, call.table[KHOST_KV_SRC_TABLE].data, sizeof table), 0, "a table changed");
    cr_assert_eq(khost__call_run(&call), KHOST_STATUS_OK);
    cr_assert_eq(khost__fresh_check(&call, &data, &v, &s, &err), KHOST__OK, "%s", err.msg);
    cr_expect_eq(s.mismatches, 0, "call %llu", (unsigned long long)index);
    cr_expect_eq(s.count, packed_bytes / 2);
    cr_assert_eq(khost__fresh_check(&call, &data, &next, &s, &err), KHOST__OK, "%s", err.msg);
    cr_expect_gt(s.mismatches, packed_bytes / 2 / 4, "call %llu passes call %llu's check",
                 (unsigned long long)index, (unsigned long long)index + 1);
  }
  free(placed);
  free(expected);
}

/* One flipped bit in one chunk of a gathered output is found and named by its coordinates. */
Test(fresh_arena, a_wrong_element_in_a_chunk_is_named)
{
  khost__err err = {{0}};
  khost__vary_call v;
  khost__check_stats s;
  wrong_call = 1;
  khost__vary_draw(&data.vary, data.seed, 1, &v);
  cr_assert_eq(khost__fresh_inputs(&call, &data, &v, &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(khost__call_run(&call), KHOST_STATUS_OK);
  cr_assert_eq(khost__fresh_check(&call, &data, &v, &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(s.mismatches, 1);
  cr_assert_eq(s.nshown, 1);
  cr_expect_str_eq(s.shown[0].where, "dst[b=1, l=0, o=0, t=0, h=0, d=0]");
}
