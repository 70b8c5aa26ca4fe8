/* Tests of the reference plugin through its real artifact: the module named by
 * KHOST_REFERENCE_PLUGIN is dlopened and called through khost_plugin_entry, with
 * khost_input built by hand. Expected values are worked out in the comments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "formats.h"
#include "khost/ops.h"
#include "support/hand_call.h"
#include "support/plugin_under_test.h"

/* ---- loading ---- */

static const khost_plugin *load_plugin(void)
{
  return khost_test_plugin("KHOST_REFERENCE_PLUGIN");
}

static const khost_kernel *kernel(const char *op)
{
  return khost_test_kernel(load_plugin(), op, KHOST_DEVICE_CPU);
}

/* ---- building calls (tests/support/hand_call.h) ---- */

static int run_call(const khost_kernel *k, hand_call *c)
{
  return k->run(&c->in);
}

/* Test buffers live until the test's process exits; freed then so that the
 * sanitizer build's leak check sees only real leaks. */
#define MAX_TEST_BUFFERS 256
static void *test_buffers[MAX_TEST_BUFFERS];
static int ntest_buffers;

static void free_test_buffers(void)
{
  while (ntest_buffers > 0) free(test_buffers[--ntest_buffers]);
}

static void *alloc_zero(size_t bytes)
{
  void *p = calloc(bytes ? bytes : 1, 1);
  cr_assert_not_null(p);
  if (ntest_buffers == 0) atexit(free_test_buffers);
  cr_assert_lt(ntest_buffers, MAX_TEST_BUFFERS);
  test_buffers[ntest_buffers++] = p;
  return p;
}

/* Outputs start as all-ones bytes (NaN in every float dtype, as khost poisons
 * them), so a kernel that skips an element cannot pass as having written 0. */
static void *alloc_poison(size_t bytes)
{
  void *p = alloc_zero(bytes);
  memset(p, 0xff, bytes);
  return p;
}

/* A small deterministic generator for test data (not the host's RNG on purpose). */
static uint32_t next_random(uint64_t *state)
{
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(*state >> 33);
}

/* ---- nvfp4_gemv fixtures ---- */

/* Buffers of one nvfp4_gemv call with m, k, l; swizzled scales stay zero (the
 * reference reads the plain ones). */
typedef struct gemv {
  int64_t m, k, l;
  uint8_t *a, *v, *sfa, *sfv, *sfa_swz, *sfv_swz;
  uint16_t *c;
  hand_call call;
} gemv;

static void gemv_init(gemv *g, int64_t m, int64_t k, int64_t l, int threads)
{
  g->m = m;
  g->k = k;
  g->l = l;
  hand_gemv_call(&g->call, KHOST_DEVICE_CPU, m, k, l);
  g->call.in.num_threads = threads;
  uint8_t **inputs[KHOST_NVFP4_GEMV_NINPUTS] = {
      [KHOST_NVFP4_GEMV_A] = &g->a,
      [KHOST_NVFP4_GEMV_V] = &g->v,
      [KHOST_NVFP4_GEMV_SFA] = &g->sfa,
      [KHOST_NVFP4_GEMV_SFV] = &g->sfv,
      [KHOST_NVFP4_GEMV_SFA_SWZ] = &g->sfa_swz,
      [KHOST_NVFP4_GEMV_SFV_SWZ] = &g->sfv_swz,
  };
  for (int i = 0; i < KHOST_NVFP4_GEMV_NINPUTS; i++)
    g->call.inputs[i].data = *inputs[i] = alloc_zero(g->call.inputs[i].nbytes);
  g->call.outputs[KHOST_NVFP4_GEMV_C].data = g->c = alloc_poison(g->call.outputs[KHOST_NVFP4_GEMV_C].nbytes);
}

/* Fills every input with random codes; scale codes skip the NaN ones (0x7f, 0xff). */
static void gemv_fill_random(gemv *g, uint64_t seed)
{
  uint64_t state = seed;
  for (int64_t i = 0; i < g->l * g->m * g->k / 2; i++) g->a[i] = (uint8_t)next_random(&state);
  for (int64_t i = 0; i < g->l * g->k / 2; i++) g->v[i] = (uint8_t)next_random(&state);
  for (int64_t i = 0; i < g->l * g->m * g->k / 16; i++) g->sfa[i] = (uint8_t)(next_random(&state) % 0x7f);
  for (int64_t i = 0; i < g->l * g->k / 16; i++)
    g->sfv[i] = (uint8_t)(next_random(&state) % 0x7f | 0x80 * (i & 1)); /* negative scales too */
}

static uint8_t nibble(const uint8_t *packed, int64_t index)
{
  return (uint8_t)(index % 2 ? packed[index / 2] >> 4 : packed[index / 2] & 0xf);
}

static bool fp16_is_nan(uint16_t bits)
{
  return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
}

/* One hand case for a batch with m = 1, k = 64: runs of (a byte, v byte) pairs
 * (a byte holds elements 2j low and 2j+1 high), four block scales each, and the
 * fp16 bits the exact sum rounds to. */
typedef struct gemv_hand {
  const char *what;
  struct {
    uint8_t a, v;
    int bytes;
  } runs[5];
  uint8_t sfa[4], sfv[4];
  uint16_t want;
} gemv_hand;

static const gemv_hand hand_cases[] = {
    /* 64 * 1.0 * 1.0 = 64 = 0x5400. */
    {"ones", {{0x22, 0x22, 32}}, {0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x5400},
    /* Block scales 1, 2, 4, 8: 16 * 15 = 240 = 1.875 * 2^7 = 0x5b80; proves the j/16 indexing. */
    {"block scales", {{0x22, 0x22, 32}}, {0x38, 0x40, 0x48, 0x50}, {0x38, 0x38, 0x38, 0x38}, 0x5b80},
    /* -6 * 0.5 * 2 (sfa) * 0.5 (sfv) * 64 = -192 = -1.5 * 2^7 = 0xda00. */
    {"signs", {{0xff, 0x11, 32}}, {0x40, 0x40, 0x40, 0x40}, {0x30, 0x30, 0x30, 0x30}, 0xda00},
    /* a = (1, 0) and v = (0.5, 6) per pair: 1 * 0.5 * 32 = 16 = 0x4c00 (swapped nibbles would give 192). */
    {"nibble order", {{0x02, 0x71, 32}}, {0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x4c00},
    /* 28 * 36 + 28 * 36 + 6*4 + (-3)(-3) = 2049, a tie between 2048 and 2050: even 2048 = 0x6800. */
    {"tie to even down",
     {{0xff, 0xff, 14}, {0x77, 0x77, 14}, {0xd7, 0xd6, 1}, {0x00, 0x99, 3}},
     {0x38, 0x38, 0x38, 0x38},
     {0x38, 0x38, 0x38, 0x38},
     0x6800},
    /* As above plus 2 * 1: 2051, a tie between 2050 and 2052: even 2052 = 0x6802. */
    {"tie to even up",
     {{0xff, 0xff, 14}, {0x77, 0x77, 14}, {0xd7, 0xd6, 1}, {0x04, 0x02, 1}, {0x00, 0x99, 2}},
     {0x38, 0x38, 0x38, 0x38},
     {0x38, 0x38, 0x38, 0x38},
     0x6802},
    /* Blocks 0-2 at sfa 2 hold 2 * (28 * 36 + 4 * 4 + 1 * 0.5) = 2049, block 3 one 0.5 * 0.5 at scales
     * 2^-9: 2049 + 2^-20 lies just above the tie, so 2050 = 0x6801. Rounding the sum through any
     * format narrower than 32 bits first would land on the tie and give 2048. */
    {"just above a tie",
     {{0x77, 0x77, 14}, {0x26, 0x16, 1}, {0x00, 0x00, 9}, {0x01, 0x01, 1}, {0x00, 0x00, 7}},
     {0x40, 0x40, 0x40, 0x01},
     {0x38, 0x38, 0x38, 0x01},
     0x6801},
    /* Subnormal scales 2^-9 each: 36 * 64 * 2^-18 = 1.125 * 2^-7 = 0x2080. */
    {"subnormal scales", {{0x77, 0x77, 32}}, {0x01, 0x01, 0x01, 0x01}, {0x01, 0x01, 0x01, 0x01}, 0x2080},
    /* 36 * 64 * 448 * 448 overflows fp16: +inf = 0x7c00. */
    {"overflow", {{0x77, 0x77, 32}}, {0x7e, 0x7e, 0x7e, 0x7e}, {0x7e, 0x7e, 0x7e, 0x7e}, 0x7c00},
    /* Blocks 0 and 1 cancel exactly (+-36 * 16 * 448), block 2 holds one 0.5 * 0.5 at scales 2^-9:
     * 2^-20 survives = fp16 subnormal 16 * 2^-24 = 0x0010. */
    {"cancellation",
     {{0x77, 0x77, 8}, {0xff, 0x77, 8}, {0x01, 0x01, 1}, {0x00, 0x00, 15}},
     {0x7e, 0x7e, 0x01, 0x38},
     {0x38, 0x38, 0x01, 0x38},
     0x0010},
};

#define NHAND ((int64_t)(sizeof hand_cases / sizeof hand_cases[0]))

/* ---- nvfp4_gemv tests ---- */

Test(reference_nvfp4_gemv, hand_computed_sums)
{
  gemv g;
  gemv_init(&g, 1, 64, NHAND, 1);
  for (int64_t b = 0; b < NHAND; b++) {
    int byte = 0;
    for (int r = 0; r < 5; r++)
      for (int i = 0; i < hand_cases[b].runs[r].bytes; i++, byte++) {
        g.a[b * 32 + byte] = hand_cases[b].runs[r].a;
        g.v[b * 32 + byte] = hand_cases[b].runs[r].v;
      }
    cr_assert_eq(byte, 32, "case %s covers %d bytes", hand_cases[b].what, byte);
    memcpy(g.sfa + b * 4, hand_cases[b].sfa, 4);
    memcpy(g.sfv + b * 4, hand_cases[b].sfv, 4);
  }
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &g.call), KHOST_STATUS_OK, "%s", g.call.error);
  for (int64_t b = 0; b < NHAND; b++)
    cr_expect_eq(g.c[b], hand_cases[b].want, "%s: got 0x%04x, want 0x%04x", hand_cases[b].what, g.c[b],
                 hand_cases[b].want);
}

/* With k = 512 every partial sum of the naive formula is a multiple of 2^-20 below
 * 512 * 36 * 448^2 < 2^32, so summing it directly in double is exact too: the two must
 * agree bit for bit. k spans several of the plugin's decode segments. */
Test(reference_nvfp4_gemv, matches_naive_double_sum)
{
  gemv g;
  gemv_init(&g, 16, 512, 3, 2);
  gemv_fill_random(&g, 42);
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &g.call), KHOST_STATUS_OK, "%s", g.call.error);
  for (int64_t b = 0; b < g.l; b++)
    for (int64_t i = 0; i < g.m; i++) {
      double sum = 0.0;
      for (int64_t j = 0; j < g.k; j++) {
        int64_t row = b * g.m + i;
        sum += (double)khost__e2m1_decode(nibble(g.a + row * g.k / 2, j)) *
               khost__e4m3_decode(g.sfa[row * g.k / 16 + j / 16]) *
               khost__e2m1_decode(nibble(g.v + b * g.k / 2, j)) *
               khost__e4m3_decode(g.sfv[b * g.k / 16 + j / 16]);
      }
      cr_expect_eq(g.c[b * g.m + i], khost__fp16_encode(sum), "batch %lld row %lld: 0x%04x vs %.17g",
                   (long long)b, (long long)i, g.c[b * g.m + i], sum);
    }
}

/* Every product and scale at its largest over k = 2^21: the exact sum, about 2^63.8
 * units of 2^-20, needs more than int64 (which would wrap to a negative value) and
 * rounds to +inf in fp16. */
Test(reference_nvfp4_gemv, a_sum_past_int64_is_still_exact)
{
  gemv g;
  gemv_init(&g, 1, INT64_C(1) << 21, 1, 2);
  memset(g.a, 0x77, (size_t)(g.k / 2)); /* 6, 6 */
  memset(g.v, 0x77, (size_t)(g.k / 2));
  memset(g.sfa, 0x7e, (size_t)(g.k / 16)); /* 448 */
  memset(g.sfv, 0x7e, (size_t)(g.k / 16));
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &g.call), KHOST_STATUS_OK, "%s", g.call.error);
  cr_expect_eq(g.c[0], 0x7c00, "got 0x%04x, want +inf", g.c[0]);
}

Test(reference_nvfp4_gemv, nan_scale_poisons_only_its_row)
{
  gemv g;
  gemv_init(&g, 4, 64, 1, 1);
  gemv_fill_random(&g, 7);
  g.sfa[2 * 4 + 3] = 0xff; /* row 2, last block */
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &g.call), KHOST_STATUS_OK, "%s", g.call.error);
  for (int i = 0; i < 4; i++) cr_expect_eq(fp16_is_nan(g.c[i]), i == 2, "row %d: 0x%04x", i, g.c[i]);
}

/* A NaN scale of the vector reaches every row of its batch, and no other batch. */
Test(reference_nvfp4_gemv, nan_vector_scale_poisons_its_whole_batch)
{
  gemv g;
  gemv_init(&g, 4, 64, 2, 1);
  gemv_fill_random(&g, 8);
  g.sfv[1 * 4 + 0] = 0x7f; /* batch 1, first block; 0x7f is e4m3's NaN as 0xff is */
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &g.call), KHOST_STATUS_OK, "%s", g.call.error);
  for (int i = 0; i < 8; i++)
    cr_expect_eq(fp16_is_nan(g.c[i]), i >= 4, "batch %d row %d: 0x%04x", i / 4, i % 4, g.c[i]);
}

Test(reference_nvfp4_gemv, threads_do_not_change_bits)
{
  gemv one, many;
  gemv_init(&one, 256, 512, 3, 1);
  gemv_init(&many, 256, 512, 3, 7);
  gemv_fill_random(&one, 99);
  gemv_fill_random(&many, 99);
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &one.call), KHOST_STATUS_OK, "%s", one.call.error);
  cr_assert_eq(run_call(kernel("nvfp4_gemv"), &many.call), KHOST_STATUS_OK, "%s", many.call.error);
  size_t distinct = 0;
  for (int64_t i = 1; i < 256 * 3; i++) distinct += one.c[i] != one.c[0];
  cr_assert_gt(distinct, 0, "degenerate data: every output equal");
  cr_expect_eq(memcmp(one.c, many.c, 256 * 3 * 2), 0);
}

/* Each row breaks one rule; all must be refused with a message before any work. */
typedef struct gemv_break {
  const char *what;
  void (*apply)(gemv *g);
  int want;
} gemv_break;

static void break_ndim(gemv *g)
{
  g->call.inputs[KHOST_NVFP4_GEMV_A].ndim = 2;
}
static void break_dtype(gemv *g)
{
  g->call.inputs[KHOST_NVFP4_GEMV_SFA].dtype = (khost_dtype){1, 8, 1};
}
static void break_shape(gemv *g)
{
  g->call.shapes[KHOST_NVFP4_GEMV_V][1] = 32;
}
static void break_storage(gemv *g)
{
  g->call.inputs[KHOST_NVFP4_GEMV_SFV].nbytes -= 1;
}
static void break_device(gemv *g)
{
  g->call.outputs[0].device_type = KHOST_DEVICE_CUDA;
}
static void break_count(gemv *g)
{
  g->call.in.ninputs = 4;
}
static void break_param(gemv *g)
{
  g->call.params[1].name = "kk";
}
static void break_block(gemv *g)
{
  g->call.params[1].value = 40;
}
static void break_strides(gemv *g)
{
  g->call.strides[KHOST_NVFP4_GEMV_A][1] = 128;
}

static const gemv_break gemv_breaks[] = {
    {"a with ndim 2", break_ndim, KHOST_STATUS_INVALID_ARGUMENT},
    {"sfa as uint8", break_dtype, KHOST_STATUS_INVALID_ARGUMENT},
    {"v shorter than k", break_shape, KHOST_STATUS_INVALID_ARGUMENT},
    {"sfv one byte short", break_storage, KHOST_STATUS_INVALID_ARGUMENT},
    {"c on the GPU", break_device, KHOST_STATUS_INVALID_ARGUMENT},
    {"four inputs", break_count, KHOST_STATUS_INVALID_ARGUMENT},
    {"k missing", break_param, KHOST_STATUS_INVALID_ARGUMENT},
    {"k not a multiple of 16", break_block, KHOST_STATUS_INVALID_ARGUMENT},
    {"a not contiguous (declined)", break_strides, KHOST_STATUS_UNSUPPORTED},
};

Test(reference_nvfp4_gemv, malformed_inputs_are_refused)
{
  const khost_kernel *k = kernel("nvfp4_gemv");
  for (size_t i = 0; i < sizeof gemv_breaks / sizeof gemv_breaks[0]; i++) {
    gemv g;
    gemv_init(&g, 4, 64, 1, 1);
    gemv_fill_random(&g, 3);
    memset(g.c, 0xab, 8);
    gemv_breaks[i].apply(&g);
    cr_expect_eq(run_call(k, &g.call), gemv_breaks[i].want, "%s", gemv_breaks[i].what);
    cr_expect_neq(g.call.error[0], '\0', "%s: no message", gemv_breaks[i].what);
    cr_expect_eq(g.c[0], 0xabab, "%s: output written before refusing", gemv_breaks[i].what);
  }
}

/* ---- row-wise fixtures ---- */

/* A row-wise call on an [m, n] input of dtype with an output of out_ndim dims. */
typedef struct rows {
  int64_t m, n;
  khost_dtype dtype;
  void *in, *out;
  hand_call call;
} rows;

static void rows_init(rows *r, const char *op, khost_dtype dtype, int64_t m, int64_t n, int threads)
{
  r->m = m;
  r->n = n;
  r->dtype = dtype;
  r->in = alloc_zero((size_t)(m * n) * dtype.bits / 8);
  r->out = alloc_poison((size_t)(m * n) * dtype.bits / 8);
  hand_rows_call(&r->call, op, KHOST_DEVICE_CPU, dtype, m, n);
  r->call.in.num_threads = threads;
  r->call.inputs[KHOST_ROWWISE_IN].data = r->in;
  r->call.outputs[KHOST_ROWWISE_OUT].data = r->out;
}

static double get_value(khost_dtype dtype, const void *data, size_t i)
{
  if (dtype.bits == 32) return ((const float *)data)[i];
  uint16_t bits = ((const uint16_t *)data)[i];
  return dtype.code == KHOST_DTYPE_BFLOAT ? khost__bf16_decode(bits) : khost__fp16_decode(bits);
}

static void set_value(khost_dtype dtype, void *data, size_t i, double x)
{
  if (dtype.bits == 32)
    ((float *)data)[i] = khost__fp32_encode(x);
  else
    ((uint16_t *)data)[i] = dtype.code == KHOST_DTYPE_BFLOAT ? khost__bf16_encode(x) : khost__fp16_encode(x);
}

/* Random values in [-4, 4] (narrow enough that no fp16 softmax output underflows to 0). */
static void rows_fill_random(rows *r, uint64_t seed)
{
  uint64_t state = seed;
  for (int64_t i = 0; i < r->m * r->n; i++)
    set_value(r->dtype, r->in, (size_t)i, ((double)next_random(&state) / 2147483648.0 - 1.0) * 4.0);
}

/* x rounded to dtype, as a double. */
static double rounded(khost_dtype dtype, double x)
{
  uint32_t storage;
  set_value(dtype, &storage, 0, x);
  return get_value(dtype, &storage, 0);
}

static const khost_dtype float_dtypes[] = {
    {KHOST_DTYPE_FLOAT, 16, 1}, {KHOST_DTYPE_BFLOAT, 16, 1}, {KHOST_DTYPE_FLOAT, 32, 1}};
static const char *const float_names[] = {"fp16", "bf16", "fp32"};

/* ---- copy_transpose ---- */

Test(reference_copy_transpose, moves_each_element_bits)
{
  for (int d = 0; d < 3; d++) {
    rows r;
    rows_init(&r, "copy_transpose", float_dtypes[d], 37, 70, 2);
    size_t bytes = float_dtypes[d].bits / 8;
    uint64_t state = (uint64_t)d + 1;
    for (size_t i = 0; i < (size_t)(37 * 70) * bytes; i++)
      ((uint8_t *)r.in)[i] = (uint8_t)next_random(&state);
    cr_assert_eq(run_call(kernel("copy_transpose"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
    for (int64_t i = 0; i < 37; i++)
      for (int64_t j = 0; j < 70; j++)
        cr_assert_eq(memcmp((uint8_t *)r.out + (size_t)(j * 37 + i) * bytes,
                            (uint8_t *)r.in + (size_t)(i * 70 + j) * bytes, bytes),
                     0, "%s: out[%lld][%lld]", float_names[d], (long long)j, (long long)i);
  }
}

/* Raw bits including NaN payloads and -0 must come back unchanged after two transposes. */
Test(reference_copy_transpose, twice_is_identity)
{
  for (int d = 0; d < 3; d++) {
    rows there, back;
    rows_init(&there, "copy_transpose", float_dtypes[d], 65, 33, 3);
    rows_init(&back, "copy_transpose", float_dtypes[d], 33, 65, 3);
    size_t bytes = (size_t)(65 * 33) * float_dtypes[d].bits / 8;
    uint64_t state = 1000u + (uint64_t)d;
    for (size_t i = 0; i < bytes; i++) ((uint8_t *)there.in)[i] = (uint8_t)next_random(&state);
    cr_assert_eq(run_call(kernel("copy_transpose"), &there.call), KHOST_STATUS_OK, "%s", there.call.error);
    memcpy(back.in, there.out, bytes);
    cr_assert_eq(run_call(kernel("copy_transpose"), &back.call), KHOST_STATUS_OK, "%s", back.call.error);
    cr_expect_neq(memcmp(there.out, there.in, bytes), 0, "%s: the transpose changed nothing", float_names[d]);
    cr_expect_eq(memcmp(back.out, there.in, bytes), 0, "%s", float_names[d]);
  }
}

/* ---- reduce_sum ---- */

/* Rows [1, tiny, tiny] where tiny is half an ulp of 1 in the dtype: summing in
 * the dtype would lose both (ties to even), the wide sum keeps 1 + ulp. */
Test(reference_reduce_sum, accumulates_wider_than_the_dtype)
{
  const double tiny[] = {0x1p-11, 0x1p-8, 0x1p-24};
  const uint32_t want_bits[] = {0x3c01, 0x3f81, 0x3f800001};
  for (int d = 0; d < 3; d++) {
    rows r;
    rows_init(&r, "reduce_sum", float_dtypes[d], 1, 3, 1);
    set_value(float_dtypes[d], r.in, 0, 1.0);
    set_value(float_dtypes[d], r.in, 1, tiny[d]);
    set_value(float_dtypes[d], r.in, 2, tiny[d]);
    cr_assert_eq(run_call(kernel("reduce_sum"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
    uint32_t got = 0;
    memcpy(&got, r.out, float_dtypes[d].bits / 8);
    cr_expect_eq(got, want_bits[d], "%s: 0x%x", float_names[d], got);
  }
}

Test(reference_reduce_sum, small_known_rows)
{
  /* Rows: 1+2+3+4 = 10; 0.5-0.25+0.125-4 = -3.625; 3 * (-1.5) + 4.5 = 0 (from non-zero data). */
  const double in[3][4] = {{1, 2, 3, 4}, {0.5, -0.25, 0.125, -4}, {-1.5, -1.5, -1.5, 4.5}};
  const double want[3] = {10, -3.625, 0};
  for (int d = 0; d < 3; d++) {
    rows r;
    rows_init(&r, "reduce_sum", float_dtypes[d], 3, 4, 2);
    for (int i = 0; i < 12; i++) set_value(float_dtypes[d], r.in, (size_t)i, in[i / 4][i % 4]);
    cr_assert_eq(run_call(kernel("reduce_sum"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
    for (int i = 0; i < 3; i++)
      cr_expect_eq(get_value(float_dtypes[d], r.out, (size_t)i), want[i], "%s row %d", float_names[d], i);
  }
}

Test(reference_reduce_sum, row_of_ones_sums_to_n)
{
  for (int d = 0; d < 3; d++) {
    rows r;
    rows_init(&r, "reduce_sum", float_dtypes[d], 2, 200, 2);
    for (int i = 0; i < 400; i++) set_value(float_dtypes[d], r.in, (size_t)i, 1.0);
    cr_assert_eq(run_call(kernel("reduce_sum"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
    cr_expect_eq(get_value(float_dtypes[d], r.out, 0), 200.0, "%s", float_names[d]);
    cr_expect_eq(get_value(float_dtypes[d], r.out, 1), 200.0, "%s", float_names[d]);
  }
}

/* ---- softmax_online ---- */

Test(reference_softmax_online, known_rows)
{
  /* [0, ln 2] -> [1/3, 2/3]; equal values -> 1/4 each; [1000, 1000] and [-1000, -1000] -> 1/2
   * each, only possible because the max is subtracted (exp(1000) overflows, exp(-1000) is 0). */
  for (int d = 0; d < 3; d++) {
    rows two, four, big, small;
    rows_init(&two, "softmax_online", float_dtypes[d], 1, 2, 1);
    rows_init(&four, "softmax_online", float_dtypes[d], 1, 4, 1);
    rows_init(&big, "softmax_online", FP32, 1, 2, 1);
    rows_init(&small, "softmax_online", FP32, 1, 2, 1);
    set_value(float_dtypes[d], two.in, 1, log(2.0));
    double ln2 = get_value(float_dtypes[d], two.in, 1); /* as stored in the dtype */
    for (int j = 0; j < 4; j++) set_value(float_dtypes[d], four.in, (size_t)j, -2.5);
    set_value(FP32, big.in, 0, 1000.0);
    set_value(FP32, big.in, 1, 1000.0);
    set_value(FP32, small.in, 0, -1000.0);
    set_value(FP32, small.in, 1, -1000.0);
    cr_assert_eq(run_call(kernel("softmax_online"), &two.call), KHOST_STATUS_OK, "%s", two.call.error);
    cr_assert_eq(run_call(kernel("softmax_online"), &four.call), KHOST_STATUS_OK, "%s", four.call.error);
    cr_assert_eq(run_call(kernel("softmax_online"), &big.call), KHOST_STATUS_OK, "%s", big.call.error);
    cr_assert_eq(run_call(kernel("softmax_online"), &small.call), KHOST_STATUS_OK, "%s", small.call.error);
    double low = 1.0 / (1.0 + exp(ln2));
    cr_expect_eq(get_value(float_dtypes[d], two.out, 0), rounded(float_dtypes[d], low), "%s", float_names[d]);
    cr_expect_eq(get_value(float_dtypes[d], two.out, 1), rounded(float_dtypes[d], 1.0 - low), "%s",
                 float_names[d]);
    cr_expect(fabs(get_value(float_dtypes[d], two.out, 0) - 1.0 / 3.0) < 2e-3, "%s", float_names[d]);
    for (int j = 0; j < 4; j++) cr_expect_eq(get_value(float_dtypes[d], four.out, (size_t)j), 0.25);
    cr_expect_eq(get_value(FP32, big.out, 0), 0.5);
    cr_expect_eq(get_value(FP32, big.out, 1), 0.5);
    cr_expect_eq(get_value(FP32, small.out, 0), 0.5);
    cr_expect_eq(get_value(FP32, small.out, 1), 0.5);
  }
}

Test(reference_softmax_online, rows_are_distributions)
{
  /* Each output is off by at most half an ulp, relative 2^-11, 2^-8, 2^-24; the row sums to 1. */
  const double tolerance[] = {1e-3, 8e-3, 1e-6};
  for (int d = 0; d < 3; d++) {
    rows r;
    rows_init(&r, "softmax_online", float_dtypes[d], 9, 50, 2);
    rows_fill_random(&r, 5u + (uint64_t)d);
    cr_assert_eq(run_call(kernel("softmax_online"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
    for (int64_t i = 0; i < 9; i++) {
      double sum = 0.0;
      for (int64_t j = 0; j < 50; j++) {
        double p = get_value(float_dtypes[d], r.out, (size_t)(i * 50 + j));
        cr_expect(p > 0.0 && p <= 1.0, "%s [%lld][%lld] = %g", float_names[d], (long long)i, (long long)j, p);
        sum += p;
      }
      cr_expect(fabs(sum - 1.0) < tolerance[d], "%s row %lld sums to %.9g", float_names[d], (long long)i,
                sum);
    }
  }
}

Test(reference_softmax_online, nan_poisons_its_row)
{
  rows r;
  rows_init(&r, "softmax_online", FP32, 2, 3, 1);
  const float in[6] = {1.0f, NAN, 2.0f, 1.0f, 0.5f, 2.0f};
  memcpy(r.in, in, sizeof in);
  cr_assert_eq(run_call(kernel("softmax_online"), &r.call), KHOST_STATUS_OK, "%s", r.call.error);
  /* Row 1: exp(x - 2) / (e^-1 + e^-1.5 + 1). */
  const double total = exp(-1.0) + exp(-1.5) + 1.0,
               want[3] = {exp(-1.0) / total, exp(-1.5) / total, 1 / total};
  for (int j = 0; j < 3; j++) {
    cr_expect(isnan(((float *)r.out)[j]), "row 0 element %d", j);
    cr_expect_float_eq(((float *)r.out)[3 + j], want[j], 1e-6, "row 1 element %d", j);
  }
}

/* ---- row-wise: threads and malformed inputs ---- */

Test(reference_rowwise, threads_do_not_change_bits)
{
  const char *const ops[] = {"copy_transpose", "reduce_sum", "softmax_online"};
  for (int o = 0; o < 3; o++)
    for (int d = 0; d < 3; d++) {
      rows one, many;
      rows_init(&one, ops[o], float_dtypes[d], 301, 129, 1);
      rows_init(&many, ops[o], float_dtypes[d], 301, 129, 5);
      rows_fill_random(&one, 77);
      rows_fill_random(&many, 77);
      cr_assert_eq(run_call(kernel(ops[o]), &one.call), KHOST_STATUS_OK, "%s", one.call.error);
      cr_assert_eq(run_call(kernel(ops[o]), &many.call), KHOST_STATUS_OK, "%s", many.call.error);
      size_t count = strcmp(ops[o], "reduce_sum") == 0 ? 301 : 301 * 129;
      cr_expect_eq(memcmp(one.out, many.out, count * float_dtypes[d].bits / 8), 0, "%s %s", ops[o],
                   float_names[d]);
      for (size_t i = 0; i < count; i++)
        cr_assert(!isnan(get_value(float_dtypes[d], many.out, i)), "%s %s: element %zu unwritten", ops[o],
                  float_names[d], i);
    }
}

typedef struct rows_break {
  const char *what;
  const char *op;
  void (*apply)(rows *r);
  int want;
} rows_break;

static void break_rows_ndim(rows *r)
{
  r->call.inputs[0].ndim = 1;
}
static void break_rows_fp64(rows *r)
{
  r->call.inputs[0].dtype = FP64;
  r->call.outputs[0].dtype = FP64;
}
static void break_rows_mixed(rows *r)
{
  r->call.outputs[0].dtype = BF16;
}
static void break_rows_out_shape(rows *r)
{
  r->call.outputs[0].ndim = 1;
}
static void break_rows_transposed(rows *r)
{
  r->call.shapes[1][0] = r->m;
  r->call.shapes[1][1] = r->n;
}
static void break_rows_param(rows *r)
{
  r->call.in.nparams = 1;
}
static void break_rows_outputs(rows *r)
{
  r->call.in.noutputs = 0;
}
static void break_rows_null(rows *r)
{
  r->call.inputs[0].data = NULL;
}

static const rows_break rows_breaks[] = {
    {"input with ndim 1", "reduce_sum", break_rows_ndim, KHOST_STATUS_INVALID_ARGUMENT},
    {"fp64", "softmax_online", break_rows_fp64, KHOST_STATUS_UNSUPPORTED},
    {"fp64", "copy_transpose", break_rows_fp64, KHOST_STATUS_UNSUPPORTED},
    {"fp16 in, bf16 out", "reduce_sum", break_rows_mixed, KHOST_STATUS_INVALID_ARGUMENT},
    {"softmax out [m]", "softmax_online", break_rows_out_shape, KHOST_STATUS_INVALID_ARGUMENT},
    {"transpose out [m, n]", "copy_transpose", break_rows_transposed, KHOST_STATUS_INVALID_ARGUMENT},
    {"n missing", "softmax_online", break_rows_param, KHOST_STATUS_INVALID_ARGUMENT},
    {"no output", "reduce_sum", break_rows_outputs, KHOST_STATUS_INVALID_ARGUMENT},
    {"no input data", "copy_transpose", break_rows_null, KHOST_STATUS_INVALID_ARGUMENT},
};

Test(reference_rowwise, malformed_inputs_are_refused)
{
  for (size_t i = 0; i < sizeof rows_breaks / sizeof rows_breaks[0]; i++) {
    rows r;
    rows_init(&r, rows_breaks[i].op, FP16, 3, 5, 1);
    rows_fill_random(&r, 11);
    rows_breaks[i].apply(&r);
    cr_expect_eq(run_call(kernel(rows_breaks[i].op), &r.call), rows_breaks[i].want, "%s: %s",
                 rows_breaks[i].op, rows_breaks[i].what);
    cr_expect_neq(r.call.error[0], '\0', "%s: %s: no message", rows_breaks[i].op, rows_breaks[i].what);
    const unsigned char *out = r.out;
    for (size_t b = 0; b < (size_t)(3 * 5) * 2; b++)
      cr_assert_eq(out[b], 0xff, "%s: %s: refused, yet wrote byte %zu", rows_breaks[i].op,
                   rows_breaks[i].what, b);
  }
}

/* ---- the descriptor ---- */

/* The CPU kernels come first; CUDA builds add one CUDA kernel per op after them
 * (tests/test_reference_cuda.c checks those). */
Test(reference_plugin, descriptor_lists_every_op_on_the_cpu)
{
  const khost_plugin *plugin = load_plugin();
  cr_expect_eq(plugin->magic, KHOST_PLUGIN_MAGIC);
  cr_expect_eq(plugin->abi_major, KHOST_ABI_MAJOR);
  cr_expect_eq(plugin->struct_size, sizeof(khost_plugin));
  cr_expect_str_eq(plugin->name, "reference");
  cr_expect_str_eq(plugin->language, "c");
  /* The plugin's kernels follow the op list (test_catalog names it): each op's CPU
   * kernel in list order, then, in a build with CUDA, each op's CUDA kernel. */
  const khost__op *const *ops = khost__catalog_ops();
  int n = 0;
  while (ops[n]) n++;
  cr_assert(plugin->nkernels == n || plugin->nkernels == 2 * n, "%d kernels for %d ops", plugin->nkernels, n);
  for (int i = 0; i < plugin->nkernels; i++) {
    cr_expect_str_eq(plugin->kernels[i]->op, ops[i % n]->name);
    cr_expect_eq(plugin->kernels[i]->device_type, i < n ? KHOST_DEVICE_CPU : KHOST_DEVICE_CUDA, "%s",
                 ops[i % n]->name);
    cr_expect_not_null(plugin->kernels[i]->run, "%s", ops[i % n]->name);
  }
}

Test(reference_plugin, entry_refuses_another_major)
{
  cr_expect_null(khost_test_entry("KHOST_REFERENCE_PLUGIN")(KHOST_ABI_MAJOR + 1, 0));
}
