/* Tests for core/catalog.c and the ops it registers: lookup, size arithmetic, parameter parsing and
 * validation (every rule broken once, with its exact message), defaults, tensor shapes and counts, and the
 * input generators (determinism, coverage of the fp4/fp8 codes, the swizzled scale layout). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "formats.h"
#include "khost/ops.h"

/* A case of `op` named perf_x with "key=value" settings, or NULL settings to stop. */
static khost__case make_case(const char *op, const char *const *settings)
{
  khost__case c;
  khost__err err = {{0}};
  const khost__op *o = khost__catalog_find(op);
  cr_assert_not_null(o, "op %s", op);
  khost__case_init(&c, o, "perf_x");
  for (int i = 0; settings && settings[i]; i++) {
    char key[32];
    const char *eq = strchr(settings[i], '=');
    cr_assert_not_null(eq);
    snprintf(key, sizeof key, "%.*s", (int)(eq - settings[i]), settings[i]);
    cr_assert_eq(khost__case_set_param(&c, key, eq + 1, &err), KHOST__OK, "%s: %s", settings[i], err.msg);
  }
  return c;
}

static khost__case valid_case(const char *op, const char *const *settings)
{
  khost__err err = {{0}};
  khost__case c = make_case(op, settings);
  cr_assert_eq(khost__case_validate(&c, &err), KHOST__OK, "%s", err.msg);
  return c;
}

#define SETTINGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- lookup ---- */

Test(catalog, finds_every_op_and_lists_them)
{
  const char *names[] = {"nvfp4_gemv",
                         "copy_transpose",
                         "reduce_sum",
                         "softmax_online",
                         "fp8_block_gemm",
                         "kv_block_to_universal",
                         "kv_universal_to_block",
                         "kv_block_to_operational",
                         "kv_operational_to_block"};
  const khost__op *const *ops = khost__catalog_ops();
  int n = 0;
  while (ops[n]) n++;
  cr_expect_eq(n, 9);
  for (int i = 0; i < 9; i++) {
    const khost__op *op = khost__catalog_find(names[i]);
    cr_assert_not_null(op, "%s", names[i]);
    cr_expect_str_eq(op->name, names[i]);
    cr_expect(op->tensors && op->generate && op->flops && op->bytes && op->tolerance && op->summary,
              "%s has every required function", names[i]);
  }
  cr_expect_null(khost__catalog_find("nvfp4_gemm"));
  cr_expect_null(khost__catalog_find(""));
  cr_expect_str_eq(
      khost__catalog_names(),
      "nvfp4_gemv, copy_transpose, reduce_sum, softmax_online, fp8_block_gemm, kv_block_to_universal, "
      "kv_universal_to_block, kv_block_to_operational, kv_operational_to_block");
}

/* khost/ops.h includes one header per op, a list written beside the build's op list:
 * every op of the catalog (built from that list) has its line, and no other op does. */
Test(catalog, the_public_ops_header_includes_every_op_s_header_and_no_other)
{
  FILE *f = fopen(KHOST_SOURCE_ROOT "/core/include/khost/ops.h", "r");
  cr_assert_not_null(f);
  static char text[16384];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  int includes = 0, ops = 0;
  for (const char *p = text; (p = strstr(p, "#include \"ops/")); p++) includes++;
  for (const khost__op *const *op = khost__catalog_ops(); *op; op++, ops++) {
    char line[128];
    snprintf(line, sizeof line, "#include \"ops/%s.h\"", (*op)->name);
    cr_expect_not_null(strstr(text, line), "khost/ops.h lacks %s", line);
  }
  cr_expect_eq(includes, ops, "khost/ops.h includes %d headers of ops/ for %d ops", includes, ops);
}

Test(catalog, finds_parameters_by_name)
{
  const khost__op *op = khost__catalog_find("nvfp4_gemv");
  cr_expect_eq(khost__op_param_index(op, "m"), 0);
  cr_expect_eq(khost__op_param_index(op, "l"), 2);
  cr_expect_eq(khost__op_param_index(op, "dtype"), -1);
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=256", "k=512", "l=3"));
  cr_expect_eq(khost__case_param(&c, "k"), 512);
  cr_expect_eq(khost__case_param(&c, "l"), 3);
}

/* ---- sizes ---- */

Test(size_mul, multiplies_and_refuses_overflow)
{
  size_t out = 7;
  cr_expect_eq(khost__size_mul(3, 5, &out), KHOST__OK);
  cr_expect_eq(out, 15);
  cr_expect_eq(khost__size_mul(0, SIZE_MAX, &out), KHOST__OK);
  cr_expect_eq(out, 0);
  cr_expect_eq(khost__size_mul(SIZE_MAX, 1, &out), KHOST__OK);
  cr_expect_eq(out, SIZE_MAX);
  out = 7;
  cr_expect_eq(khost__size_mul(SIZE_MAX / 2 + 1, 2, &out), KHOST__E_CONFIG);
  cr_expect_eq(khost__size_mul((size_t)1 << 32, (size_t)1 << 32, &out), KHOST__E_CONFIG);
  cr_expect_eq(out, 7, "a refused product leaves *out alone");
}

/* ---- parsing suite text ---- */

typedef struct text_row {
  const char *op, *key, *text, *message;
} text_row;

static text_row bad_texts[] = {
    {"nvfp4_gemv", "m", "12x", "case perf_x: m = '12x' is not an integer in -(2^63-1)..2^63-1"},
    {"nvfp4_gemv", "k", "", "case perf_x: k = '' is not an integer in -(2^63-1)..2^63-1"},
    {"nvfp4_gemv", "k", "99999999999999999999",
     "case perf_x: k = '99999999999999999999' is not an integer in -(2^63-1)..2^63-1"},
    {"copy_transpose", "dtype", "fp8",
     "case perf_x: dtype = 'fp8' is not a dtype (copy_transpose takes fp16, "
     "bf16, fp32)"},
    {"nvfp4_gemv", "dtype", "fp16",
     "case perf_x: op nvfp4_gemv has no parameter 'dtype' (parameters: m, k, l)"},
};

Test(case_set_param, refuses_bad_text)
{
  for (size_t i = 0; i < sizeof bad_texts / sizeof bad_texts[0]; i++) {
    const text_row *row = &bad_texts[i];
    khost__case c = make_case(row->op, NULL);
    khost__err err = {{0}};
    cr_expect_eq(khost__case_set_param(&c, row->key, row->text, &err), KHOST__E_CONFIG, "%s", row->message);
    cr_expect_str_eq(err.msg, row->message);
  }
}

Test(case_set_param, stores_integers_and_dtypes)
{
  khost__case c = make_case("softmax_online", SETTINGS("m=-5", "n=9223372036854775807", "dtype=bf16"));
  cr_expect_eq(c.params[0], -5, "parsing keeps the value; validation judges it");
  cr_expect_eq(c.params[1], INT64_MAX);
  cr_expect_eq(c.params[2], KHOST__DT_BF16);
}

/* ---- validation: every rule broken once ---- */
/* Tables are looped over inside one test: Criterion re-executes the test binary
 * for each parameterized test, so pointers in parameters would dangle under PIE. */

typedef struct rule_row {
  const char *op;
  const char *settings[4];
  const char *message;
} rule_row;

static rule_row broken_rules[] = {
    {"nvfp4_gemv", {"m=100", "k=256"}, "case perf_x: nvfp4_gemv needs m to be a multiple of 128, got 100"},
    {"nvfp4_gemv", {"m=0", "k=256"}, "case perf_x: nvfp4_gemv needs m to be at least 128, got 0"},
    {"nvfp4_gemv",
     {"m=2147483776", "k=256"},
     "case perf_x: nvfp4_gemv needs m to be at most 2147483648, got "
     "2147483776"},
    {"nvfp4_gemv", {"m=128", "k=96"}, "case perf_x: nvfp4_gemv needs k to be a multiple of 64, got 96"},
    {"nvfp4_gemv", {"m=128", "k=-64"}, "case perf_x: nvfp4_gemv needs k to be at least 64, got -64"},
    {"nvfp4_gemv", {"m=128", "k=64", "l=0"}, "case perf_x: nvfp4_gemv needs l to be at least 1, got 0"},
    {"nvfp4_gemv", {"k=64", "l=2"}, "case perf_x: missing parameter 'm' for op nvfp4_gemv"},
    {"nvfp4_gemv", {"m=128"}, "case perf_x: missing parameter 'k' for op nvfp4_gemv"},
    {"reduce_sum", {"m=4", "n=0"}, "case perf_x: reduce_sum needs n to be at least 1, got 0"},
    {"reduce_sum", {"m=4"}, "case perf_x: missing parameter 'n' for op reduce_sum"},
    {"softmax_online", {"m=0", "n=4"}, "case perf_x: softmax_online needs m to be at least 1, got 0"},
    {"softmax_online",
     {"m=1", "n=2147483649"},
     "case perf_x: softmax_online needs n to be at most 2147483648, "
     "got 2147483649"},
    {"copy_transpose",
     {"m=2", "n=2", "dtype=e4m3"},
     "case perf_x: copy_transpose needs dtype to be one of fp16, bf16, fp32, got e4m3"},
    {"copy_transpose",
     {"m=2", "n=2", "dtype=u8"},
     "case perf_x: copy_transpose needs dtype to be one of fp16, bf16, fp32, got u8"},
    /* 2^20 x 2^14 fp32 = 64 GiB */
    {"copy_transpose",
     {"m=1048576", "n=16384"},
     "case perf_x: copy_transpose needs tensor in to take at most "
     "34359738368 bytes, got 68719476736"},
    /* 2^31 x 2^31 x 4 bytes = 2^64: the product itself overflows */
    {"reduce_sum",
     {"m=2147483648", "n=2147483648"},
     "case perf_x: reduce_sum needs tensor in to take at most "
     "34359738368 bytes, but its size overflows"},
    {"nvfp4_gemv",
     {"m=2147483648", "k=2147483648", "l=2147483648"},
     "case perf_x: nvfp4_gemv needs tensor a to take at most 34359738368 bytes, but its size overflows"},
    /* a: 2^17 * 2^19 / 2 = 2^35 bytes fits exactly; sfa is smaller; c is tiny: accepted. Doubling m is not.
     */
    {"nvfp4_gemv",
     {"m=262144", "k=524288"},
     "case perf_x: nvfp4_gemv needs tensor a to take at most "
     "34359738368 bytes, got 68719476736"},
};

Test(case_validate, names_case_op_parameter_and_rule)
{
  for (size_t r = 0; r < sizeof broken_rules / sizeof broken_rules[0]; r++) {
    const rule_row *row = &broken_rules[r];
    const char *settings[5] = {0};
    for (int i = 0; i < 4 && row->settings[i]; i++) settings[i] = row->settings[i];
    khost__case c = make_case(row->op, settings);
    khost__err err = {{0}};
    cr_expect_eq(khost__case_validate(&c, &err), KHOST__E_CONFIG, "%s", row->message);
    cr_expect_str_eq(err.msg, row->message);
  }
}

Test(case_validate, accepts_the_largest_tensor_allowed)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=131072", "k=524288"));
  khost__tensor_set set;
  c.op->tensors(&c, &set);
  cr_expect_eq(set.inputs[KHOST_NVFP4_GEMV_A].nbytes, KHOST__MAX_TENSOR_BYTES);
}

Test(case_validate, refuses_a_negative_tolerance)
{
  khost__case c = make_case("reduce_sum", SETTINGS("m=1", "n=1"));
  khost__err err = {{0}};
  c.rtol = -1e-3;
  cr_expect_eq(khost__case_validate(&c, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "case perf_x: reduce_sum needs rtol to be a finite number >= 0, got -0.001");
  c = make_case("reduce_sum", SETTINGS("m=1", "n=1"));
  c.atol = INFINITY;
  cr_expect_eq(khost__case_validate(&c, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "case perf_x: reduce_sum needs atol to be a finite number >= 0, got inf");
}

Test(case_validate, fills_defaults_and_the_ops_tolerances)
{
  khost__case gemv = valid_case("nvfp4_gemv", SETTINGS("m=128", "k=64"));
  cr_expect_eq(khost__case_param(&gemv, "l"), 1, "l defaults to 1");
  cr_expect_eq(gemv.atol, 1e-3);
  cr_expect_eq(gemv.rtol, 1e-3);

  khost__case row = valid_case("copy_transpose", SETTINGS("m=3", "n=5"));
  cr_expect_eq(khost__case_param(&row, "dtype"), KHOST__DT_FP32, "dtype defaults to fp32");
  cr_expect_eq(row.atol, 0.0);

  khost__case given = make_case("reduce_sum", SETTINGS("m=3", "n=5"));
  khost__err err = {{0}};
  given.atol = 0.25;
  cr_assert_eq(khost__case_validate(&given, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(given.atol, 0.25, "a tolerance the suite gave is kept");
  double atol, rtol;
  given.op->tolerance(&given, &atol, &rtol);
  cr_expect_eq(given.rtol, rtol, "the one it did not give is the op's");
}

Test(case_format_params, writes_names_and_values)
{
  char buf[128];
  khost__case gemv = valid_case("nvfp4_gemv", SETTINGS("m=1024", "k=4096"));
  khost__case soft = valid_case("softmax_online", SETTINGS("m=7", "n=33", "dtype=bf16"));
  khost__case_format_params(&gemv, buf, sizeof buf);
  cr_expect_str_eq(buf, "m=1024 k=4096 l=1");
  khost__case_format_params(&soft, buf, sizeof buf);
  cr_expect_str_eq(buf, "m=7 n=33 dtype=bf16");
  khost__case_format_params(&soft, buf, 6);
  cr_expect_str_eq(buf, "m=7 n", "truncated, terminated");
}

/* ---- tensors and counts ---- */

static void expect_tensor(const khost__tensor_spec *t, const char *name, khost__dtype_id dtype, int ndim,
                          const int64_t *shape, const char *const *dims, size_t nbytes)
{
  cr_expect_str_eq(t->name, name);
  cr_expect_eq(t->dtype, dtype, "%s dtype", name);
  cr_expect_eq(t->ndim, ndim, "%s ndim", name);
  for (int d = 0; d < ndim && d < t->ndim; d++) {
    cr_expect_eq(t->shape[d], shape[d], "%s dim %d", name, d);
    cr_expect_str_eq(t->dim_names[d], dims[d], "%s dim %d", name, d);
  }
  cr_expect_eq(t->nbytes, nbytes, "%s nbytes %zu, want %zu", name, t->nbytes, nbytes);
}

Test(nvfp4_gemv, describes_tensors_in_the_order_of_ops_h)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=384", "k=192", "l=2"));
  khost__tensor_set s;
  c.op->tensors(&c, &s);
  cr_assert_eq(s.ninputs, 6);
  cr_assert_eq(s.noutputs, 1);
  /* k/16 = 12 scale columns: 3 tiles of 4; m = 384: 3 tiles of 128. */
  expect_tensor(&s.inputs[0], "a", KHOST__DT_E2M1, 3, (int64_t[]){2, 384, 192},
                (const char *[]){"batch", "row", "k"}, 2 * 384 * 192 / 2);
  expect_tensor(&s.inputs[1], "v", KHOST__DT_E2M1, 2, (int64_t[]){2, 192}, (const char *[]){"batch", "k"},
                2 * 192 / 2);
  expect_tensor(&s.inputs[2], "sfa", KHOST__DT_E4M3, 3, (int64_t[]){2, 384, 12},
                (const char *[]){"batch", "row", "kblock"}, 2 * 384 * 12);
  expect_tensor(&s.inputs[3], "sfv", KHOST__DT_E4M3, 2, (int64_t[]){2, 12},
                (const char *[]){"batch", "kblock"}, 2 * 12);
  expect_tensor(&s.inputs[4], "sfa_swz", KHOST__DT_E4M3, 2, (int64_t[]){2, 3 * 3 * 512},
                (const char *[]){"batch", "offset"}, 2 * 3 * 3 * 512);
  expect_tensor(&s.inputs[5], "sfv_swz", KHOST__DT_E4M3, 2, (int64_t[]){2, 3 * 512},
                (const char *[]){"batch", "offset"}, 2 * 3 * 512);
  expect_tensor(&s.outputs[0], "c", KHOST__DT_FP16, 2, (int64_t[]){2, 384}, (const char *[]){"batch", "row"},
                2 * 384 * 2);
}

Test(nvfp4_gemv, counts_flops_and_bytes)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=1024", "k=4096", "l=64"));
  double m = 1024, k = 4096, l = 64;
  cr_expect_eq(c.op->flops(&c), 2 * m * k * l);
  cr_expect_eq(c.op->bytes(&c), (m * k / 2 + m * k / 16 + k / 2 + k / 16 + 2 * m) * l);
}

typedef struct row_op_row {
  const char *op;
  int out_ndim;
  int64_t out_shape[2];
  const char *out_dims[2];
  double flops, bytes; /* for m = 6, n = 10, fp16 */
} row_op_row;

static row_op_row row_ops[] = {
    {"copy_transpose", 2, {10, 6}, {"col", "row"}, 0, 2 * 60 * 2},
    {"reduce_sum", 1, {6}, {"row"}, 60, (60 + 6) * 2},
    {"softmax_online", 2, {6, 10}, {"row", "col"}, 5 * 60, 2 * 60 * 2},
};

static void expect_row_op(const row_op_row *row)
{
  khost__case c = valid_case(row->op, SETTINGS("m=6", "n=10", "dtype=fp16"));
  khost__tensor_set s;
  size_t out_elems = 1;
  c.op->tensors(&c, &s);
  cr_assert_eq(s.ninputs, 1);
  cr_assert_eq(s.noutputs, 1);
  expect_tensor(&s.inputs[0], "in", KHOST__DT_FP16, 2, (int64_t[]){6, 10}, (const char *[]){"row", "col"},
                120);
  for (int d = 0; d < row->out_ndim; d++) out_elems *= (size_t)row->out_shape[d];
  expect_tensor(&s.outputs[0], "out", KHOST__DT_FP16, row->out_ndim, row->out_shape, row->out_dims,
                out_elems * 2);
  cr_expect_eq(c.op->flops(&c), row->flops, "%s flops", row->op);
  cr_expect_eq(c.op->bytes(&c), row->bytes, "%s bytes", row->op);
}

Test(row_ops, describe_tensors_and_counts)
{
  for (size_t i = 0; i < sizeof row_ops / sizeof row_ops[0]; i++) expect_row_op(&row_ops[i]);
}

/* ---- tolerances ---- */

static void tolerance_of(const char *op, const char *dtype, const char *n, double *atol, double *rtol)
{
  char dt[32], nn[32];
  snprintf(dt, sizeof dt, "dtype=%s", dtype);
  snprintf(nn, sizeof nn, "n=%s", n);
  khost__case c = valid_case(op, SETTINGS("m=4", nn, dt));
  *atol = c.atol;
  *rtol = c.rtol;
}

Test(tolerance, copy_is_exact_and_row_ops_follow_the_output_ulp)
{
  double atol, rtol, a16, r16, a32, r32, abf, rbf;
  tolerance_of("copy_transpose", "bf16", "64", &atol, &rtol);
  cr_expect(atol == 0 && rtol == 0, "copy_transpose is bit-exact");

  tolerance_of("reduce_sum", "fp16", "4096", &a16, &r16);
  tolerance_of("reduce_sum", "bf16", "4096", &abf, &rbf);
  tolerance_of("reduce_sum", "fp32", "4096", &a32, &r32);
  cr_expect_eq(r16, 0x1p-10, "two half-ulps of fp16");
  cr_expect_eq(rbf, 0x1p-7, "two half-ulps of bf16");
  cr_expect_eq(r32, 0x1p-23, "two half-ulps of fp32");
  /* 2 * 12 levels * 2^-24 * 4096 * sqrt(2/pi), plus a subnormal ulp. */
  cr_expect(fabs(a32 - 2 * 12 * 0x1p-24 * 4096 * sqrt(2 / M_PI)) < 1e-12, "atol %g", a32);
  cr_expect(fabs(a16 - (a32 - 0x1p-149 + 0x1p-24)) < 1e-15, "fp16 adds its subnormal ulp: %g", a16);

  tolerance_of("softmax_online", "fp32", "4096", &a32, &r32);
  tolerance_of("softmax_online", "fp16", "4096", &a16, &r16);
  tolerance_of("softmax_online", "bf16", "4096", &abf, &rbf);
  cr_expect(r32 > 5e-6 && r32 < 2e-5, "fp32 softmax near 1e-5: %g", r32);
  cr_expect(r16 > 0x1p-10 && r16 < 0x1p-10 + 2e-5, "fp16 softmax: %g", r16);
  cr_expect(rbf > 0x1p-7 && rbf < 0x1p-7 + 2e-5, "bf16 softmax: %g", rbf);
  cr_expect_eq(a16, 0x1p-24, "one fp16 subnormal ulp");
}

/* ---- generators ---- */

static void *generate(const khost__case *c, int index, uint64_t seed, size_t *nbytes)
{
  khost__tensor_set s;
  c->op->tensors(c, &s);
  *nbytes = s.inputs[index].nbytes;
  void *buf = malloc(*nbytes);
  cr_assert_not_null(buf);
  memset(buf, 0xa5, *nbytes); /* so a byte the generator skips shows */
  c->op->generate(c, seed, index, buf);
  return buf;
}

typedef struct gen_row {
  const char *op;
  const char *settings[4];
} gen_row;

static gen_row gen_cases[] = {
    {"nvfp4_gemv", {"m=256", "k=512", "l=2"}},        {"copy_transpose", {"m=7", "n=33", "dtype=fp16"}},
    {"reduce_sum", {"m=5", "n=9", "dtype=bf16"}},     {"softmax_online", {"m=3", "n=31", "dtype=fp32"}},
    {"softmax_online", {"m=1", "n=1", "dtype=fp16"}},
};

static bool all_zero(const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (p[i]) return false;
  }
  return true;
}

static void expect_seeded_generator(const gen_row *row)
{
  const char *settings[5] = {0};
  for (int i = 0; i < 4 && row->settings[i]; i++) settings[i] = row->settings[i];
  khost__case c = valid_case(row->op, settings);
  khost__tensor_set s;
  c.op->tensors(&c, &s);
  for (int t = 0; t < s.ninputs; t++) {
    size_t n;
    uint8_t *a = generate(&c, t, 1, &n), *b = generate(&c, t, 1, &n), *other = generate(&c, t, 2, &n);
    cr_expect_eq(memcmp(a, b, n), 0, "%s input %d: same seed, same bytes", row->op, t);
    cr_expect_neq(memcmp(a, other, n), 0, "%s input %d: another seed, other bytes", row->op, t);
    cr_expect(!all_zero(a, n), "%s input %d is not all zero", row->op, t);
    free(a);
    free(b);
    free(other);
  }
}

Test(generate, is_deterministic_seeded_and_never_all_zero)
{
  for (size_t i = 0; i < sizeof gen_cases / sizeof gen_cases[0]; i++) expect_seeded_generator(&gen_cases[i]);
}

Test(generate, a_larger_case_extends_a_smaller_one)
{
  khost__case small = valid_case("nvfp4_gemv", SETTINGS("m=128", "k=256", "l=1"));
  khost__case big = valid_case("nvfp4_gemv", SETTINGS("m=128", "k=256", "l=3"));
  for (int t = KHOST_NVFP4_GEMV_A; t <= KHOST_NVFP4_GEMV_SFV_SWZ; t++) {
    size_t ns, nb;
    uint8_t *a = generate(&small, t, 9, &ns), *b = generate(&big, t, 9, &nb);
    cr_expect_eq(nb, 3 * ns);
    cr_expect_eq(memcmp(a, b, ns), 0, "input %d: batch 0 does not depend on l", t);
    free(a);
    free(b);
  }
  khost__case rows2 = valid_case("reduce_sum", SETTINGS("m=2", "n=17"));
  khost__case rows5 = valid_case("reduce_sum", SETTINGS("m=5", "n=17"));
  size_t n2, n5;
  uint8_t *a = generate(&rows2, 0, 4, &n2), *b = generate(&rows5, 0, 4, &n5);
  cr_expect_eq(memcmp(a, b, n2), 0, "rows 0-1 do not depend on m");
  free(a);
  free(b);
}

Test(nvfp4_gemv, fp4_bytes_cover_every_code_in_both_nibbles)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=128", "k=256"));
  size_t n;
  uint8_t *a = generate(&c, KHOST_NVFP4_GEMV_A, 3, &n), *v = generate(&c, KHOST_NVFP4_GEMV_V, 3, &n);
  long lo[16] = {0}, hi[16] = {0}, vcodes = 0;
  bool vseen[16] = {false};
  for (size_t i = 0; i < 128 * 256 / 2; i++) {
    lo[a[i] & 15]++;
    hi[a[i] >> 4]++;
  }
  for (size_t i = 0; i < 256 / 2; i++) vseen[v[i] & 15] = vseen[v[i] >> 4] = true;
  /* 16384 bytes: each code expected 1024 times per nibble, standard deviation 31. */
  for (int code = 0; code < 16; code++) {
    cr_expect(lo[code] > 850 && lo[code] < 1200, "low nibble code %d seen %ld times", code, lo[code]);
    cr_expect(hi[code] > 850 && hi[code] < 1200, "high nibble code %d seen %ld times", code, hi[code]);
    vcodes += vseen[code];
  }
  cr_expect_geq(vcodes, 15, "v (256 codes) shows nearly every code: %ld", vcodes);
  free(a);
  free(v);
}

Test(nvfp4_gemv, scales_span_several_exponents_with_subnormals_and_no_nan)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=1024", "k=1024"));
  size_t n;
  uint8_t *sfa = generate(&c, KHOST_NVFP4_GEMV_SFA, 5, &n);
  long fields[16] = {0}, distinct = 0;
  for (size_t i = 0; i < n; i++) {
    float s = khost__e4m3_decode(sfa[i]);
    cr_assert(isfinite(s) && s > 0, "scale %zu = code %#x is finite and positive", i, sfa[i]);
    cr_assert(s <= 0.234375f, "scale %zu = %g keeps outputs inside fp16", i, s);
    fields[(sfa[i] >> 3) & 15]++;
  }
  for (int f = 0; f < 16; f++) distinct += fields[f] > 0;
  cr_expect_geq(distinct, 5, "scales use %ld exponent fields", distinct);
  /* 65536 scales, 1/64 subnormal: 1024 expected. */
  cr_expect(fields[0] > 850 && fields[0] < 1200, "subnormal scales: %ld", fields[0]);
  free(sfa);
}

/* docs/FORMATS.md's layout, written out again here on purpose. */
static size_t expected_swizzled_offset(size_t i, size_t j, size_t k16)
{
  size_t tiles_k = (k16 + 3) / 4;
  return ((i / 128) * tiles_k + j / 4) * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + (j % 4);
}

Test(nvfp4_gemv, swizzled_scales_are_the_plain_ones_moved)
{
  khost__case c = valid_case("nvfp4_gemv", SETTINGS("m=256", "k=320", "l=2"));
  const size_t m = 256, k16 = 320 / 16, l = 2, tiles_k = (k16 + 3) / 4;
  size_t n_sfa, n_swz, n_sfv, n_vswz;
  uint8_t *sfa = generate(&c, KHOST_NVFP4_GEMV_SFA, 8, &n_sfa);
  uint8_t *swz = generate(&c, KHOST_NVFP4_GEMV_SFA_SWZ, 8, &n_swz);
  uint8_t *sfv = generate(&c, KHOST_NVFP4_GEMV_SFV, 8, &n_sfv);
  uint8_t *vswz = generate(&c, KHOST_NVFP4_GEMV_SFV_SWZ, 8, &n_vswz);
  size_t per_batch = (m / 128) * tiles_k * 512, vper_batch = tiles_k * 512;
  cr_assert_eq(n_swz, l * per_batch);
  cr_assert_eq(n_vswz, l * vper_batch);
  for (size_t b = 0; b < l; b++) {
    for (size_t i = 0; i < m; i++) {
      for (size_t j = 0; j < k16; j++) {
        cr_assert_eq(swz[b * per_batch + expected_swizzled_offset(i, j, k16)], sfa[(b * m + i) * k16 + j],
                     "sfa b=%zu i=%zu j=%zu", b, i, j);
      }
    }
  }
  /* The vector's scales fill row 0 of each tile; the other 127 rows are zero padding. */
  long nonzero = 0;
  for (size_t b = 0; b < l; b++) {
    for (size_t j = 0; j < k16; j++) {
      cr_assert_eq(vswz[b * vper_batch + expected_swizzled_offset(0, j, k16)], sfv[b * k16 + j],
                   "sfv b=%zu j=%zu", b, j);
    }
  }
  for (size_t i = 0; i < n_vswz; i++) nonzero += vswz[i] != 0;
  cr_expect_eq(nonzero, (long)(l * k16), "only the vector's scales are nonzero");
  free(sfa);
  free(swz);
  free(sfv);
  free(vswz);
}
