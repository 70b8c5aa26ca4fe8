/* The checker: tolerance boundaries, NaN/Inf status, poison, coordinates. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "buffers.h"
#include "check.h"
#include "formats.h"

static khost__tensor_spec fp32_matrix(int64_t rows, int64_t cols)
{
  khost__tensor_spec s = {.name = "out",
                          .dtype = KHOST__DT_FP32,
                          .ndim = 2,
                          .shape = {rows, cols},
                          .dim_names = {"row", "col"},
                          .nbytes = (size_t)(rows * cols) * 4};
  return s;
}

static khost__check_stats check_one(float got, float ref, double atol, double rtol)
{
  khost__tensor_spec s = fp32_matrix(1, 1);
  khost__check_stats st;
  khost__check_output(&s, &got, &ref, atol, rtol, NULL, &st);
  return st;
}

typedef struct tolerance_case {
  float got, ref;
  double atol, rtol;
  int fails;
} tolerance_case;

static const tolerance_case tolerance_cases[] = {
    {1.0f, 1.0f, 0, 0, 0},         {1.5f, 1.0f, 0.5, 0, 0},            /* exactly at atol: passes */
    {1.5f, 1.0f, 0.25, 0.25, 0},                                       /* atol + rtol*|ref| = 0.5: passes */
    {1.5f, 1.0f, 0.25, 0.2, 1},                                        /* 0.45 < 0.5: fails */
    {-3.0f, -2.0f, 0, 0.5, 0},                                         /* rtol uses |ref| */
    {2.0f, -2.0f, 0, 1.0, 1},                                          /* sign flip beyond 2*rtol */
    {NAN, 1.0f, 1e9, 1e9, 1},                                          /* NaN where a number was expected */
    {1.0f, NAN, 1e9, 1e9, 1},                                          /* a number where NaN was expected */
    {NAN, NAN, 0, 0, 0},                                               /* NaN status agrees */
    {INFINITY, INFINITY, 0, 0, 0}, {-INFINITY, INFINITY, 1e9, 1e9, 1}, /* Inf of the wrong sign */
    {INFINITY, 3e38f, 1e38, 1, 1}, /* Inf where a finite value was expected */
    {0.0f, -0.0f, 0, 0, 1},        /* no tolerance means bit-exact: -0 is not +0 */
    {0.0f, -0.0f, 1e-30, 0, 0},    /* with one, they are equal */
};
#define NCASES (sizeof tolerance_cases / sizeof tolerance_cases[0])

Test(check, tolerance_boundaries_and_special_values)
{
  const tolerance_case *cases = tolerance_cases;
  for (size_t i = 0; i < NCASES; i++) {
    khost__check_stats st = check_one(cases[i].got, cases[i].ref, cases[i].atol, cases[i].rtol);
    cr_expect_eq(st.mismatches, (uint64_t)cases[i].fails, "case %zu: got %g ref %g atol %g rtol %g", i,
                 cases[i].got, cases[i].ref, cases[i].atol, cases[i].rtol);
    cr_expect_eq(st.count, 1);
  }
}

/* A bit copy (copy_transpose: atol = rtol = 0) must keep a NaN's payload. */
Test(check, without_tolerance_a_nan_must_keep_its_bits)
{
  uint32_t quiet = 0x7fc00000u, payload = 0x7fc00123u;
  float a, b;
  memcpy(&a, &quiet, sizeof a);
  memcpy(&b, &payload, sizeof b);
  cr_expect_eq(check_one(b, b, 0, 0).mismatches, 0);
  cr_expect_eq(check_one(a, b, 0, 0).mismatches, 1);
  cr_expect_eq(check_one(a, b, 1e-3, 0).mismatches, 0, "with a tolerance, NaN status is what counts");
}

Test(check, statistics_and_first_mismatches_in_op_coordinates)
{
  enum { R = 3, C = 4 };
  khost__tensor_spec s = fp32_matrix(R, C);
  float ref[R * C], got[R * C];
  for (int i = 0; i < R * C; i++) ref[i] = got[i] = (float)(i + 1);
  got[1 * C + 2] += 0.5f; /* row 1, col 2 */
  got[2 * C + 3] -= 2.0f; /* row 2, col 3 */
  khost__check_stats st;
  khost__check_output(&s, got, ref, 0.1, 0, NULL, &st);
  cr_expect_eq(st.mismatches, 2);
  cr_expect_float_eq(st.max_abs, 2.0, 1e-12);
  cr_expect_float_eq(st.max_rel, 2.0 / 12.0, 1e-12);
  cr_expect_float_eq(st.mean_abs, 2.5 / 12.0, 1e-12);
  cr_assert_eq(st.nshown, 2);
  cr_expect_str_eq(st.shown[0].where, "out[row=1, col=2]");
  cr_expect_eq(st.shown[0].index, 6);
  cr_expect_float_eq(st.shown[0].got, 7.5, 1e-12);
  cr_expect_float_eq(st.shown[0].expected, 7.0, 1e-12);
  cr_expect_str_eq(st.shown[1].where, "out[row=2, col=3]");
}

/* Matching NaNs and infinities are right answers with no error to measure: the
 * error statistics come from the finite elements only and stay finite. */
Test(check, matching_nan_and_inf_leave_the_error_statistics_finite)
{
  khost__tensor_spec s = fp32_matrix(1, 4);
  float ref[4] = {NAN, INFINITY, 1.0f, 2.0f}, got[4] = {NAN, INFINITY, 1.25f, 2.0f};
  khost__check_stats st;
  khost__check_output(&s, got, ref, 0.5, 0, NULL, &st);
  cr_expect_eq(st.mismatches, 0);
  cr_expect_float_eq(st.max_abs, 0.25, 1e-12, "max_abs %g", st.max_abs);
  cr_expect_float_eq(st.max_rel, 0.25, 1e-12, "max_rel %g", st.max_rel);
  cr_expect_float_eq(st.mean_abs, 0.25 / 4, 1e-12, "mean_abs %g", st.mean_abs);
}

Test(check, only_the_first_mismatches_are_kept)
{
  khost__tensor_spec s = fp32_matrix(1, 20);
  float ref[20], got[20];
  for (int i = 0; i < 20; i++) ref[i] = 1, got[i] = 2;
  khost__check_stats st;
  khost__check_output(&s, got, ref, 0, 0, NULL, &st);
  cr_expect_eq(st.mismatches, 20);
  cr_expect_eq(st.nshown, KHOST__MAX_MISMATCHES);
  cr_expect_eq(st.shown[KHOST__MAX_MISMATCHES - 1].index, KHOST__MAX_MISMATCHES - 1);
}

Test(check, poisoned_elements_count_as_unwritten_and_never_pass)
{
  khost__tensor_spec s = {.name = "c",
                          .dtype = KHOST__DT_FP16,
                          .ndim = 2,
                          .shape = {2, 3},
                          .dim_names = {"batch", "row"},
                          .nbytes = 12};
  uint16_t ref[6], got[6];
  for (int i = 0; i < 6; i++) ref[i] = got[i] = khost__fp16_encode(0.25 * (i + 1));
  memset(&got[4], KHOST__POISON_BYTE, 2);
  khost__check_stats st;
  khost__check_output(&s, got, ref, 1e9, 1e9, NULL, &st);
  cr_expect_eq(st.unwritten, 1);
  cr_expect_eq(st.mismatches, 1, "a NaN poison fails even with huge tolerances");
  cr_expect_str_eq(st.shown[0].where, "c[batch=1, row=1]");
}

Test(check, a_poisoned_element_fails_where_the_reference_is_nan)
{
  khost__tensor_spec s = fp32_matrix(1, 3);
  uint32_t nan_bits = 0x7fc00000u;
  float ref[3] = {1, 2, 3}, got[3] = {1, 2, 3};
  memcpy(&ref[1], &nan_bits, sizeof nan_bits);
  memset(&got[1], KHOST__POISON_BYTE, sizeof got[1]);
  khost__check_stats st;
  khost__check_output(&s, got, ref, 1e9, 1e9, NULL, &st);
  cr_expect_eq(st.unwritten, 1);
  cr_expect_eq(st.mismatches, 1, "an unwritten element must not pass as the reference's NaN");
  memcpy(&got[1], &nan_bits, sizeof nan_bits);
  khost__check_output(&s, got, ref, 1e9, 1e9, NULL, &st);
  cr_expect_eq(st.mismatches, 0, "a written NaN still matches a NaN reference");
}

Test(check, bf16_values_are_compared_in_bf16)
{
  khost__tensor_spec s = {
      .name = "y", .dtype = KHOST__DT_BF16, .ndim = 1, .shape = {2}, .dim_names = {"row"}, .nbytes = 4};
  uint16_t ref[2] = {khost__bf16_encode(1.0), khost__bf16_encode(-3.0)};
  uint16_t got[2] = {khost__bf16_encode(1.0078125), khost__bf16_encode(-3.0)}; /* one bf16 ulp above 1 */
  khost__check_stats st;
  khost__check_output(&s, got, ref, 0, 0.01, NULL, &st);
  cr_expect_eq(st.mismatches, 0);
  cr_expect_float_eq(st.max_abs, 0.0078125, 1e-12);
  khost__check_output(&s, got, ref, 0, 0.005, NULL, &st);
  cr_expect_eq(st.mismatches, 1);
}

Test(check, merging_combines_counts_and_maxima)
{
  khost__check_stats a = {
      .count = 10, .mismatches = 1, .unwritten = 0, .max_abs = 1, .max_rel = 0.5, .mean_abs = 0.1};
  khost__check_stats b = {
      .count = 30, .mismatches = 2, .unwritten = 3, .max_abs = 0.5, .max_rel = 0.75, .mean_abs = 0.2};
  khost__check_merge(&a, &b);
  cr_expect_eq(a.count, 40);
  cr_expect_eq(a.mismatches, 3);
  cr_expect_eq(a.unwritten, 3);
  cr_expect_float_eq(a.max_abs, 1, 1e-12);
  cr_expect_float_eq(a.max_rel, 0.75, 1e-12);
  cr_expect_float_eq(a.mean_abs, (1.0 + 6.0) / 40.0, 1e-12);
}

/* The per-call check's yes or no follows the same rule, element by element, and
 * stops at the first failure wherever it is (bytes equal up to it). */
Test(check, passes_follows_the_rule_of_check_output)
{
  for (size_t i = 0; i < NCASES; i++) {
    const tolerance_case *c = &tolerance_cases[i];
    float got[3] = {7, 8, c->got}, ref[3] = {7, 8, c->ref};
    cr_expect_eq(khost__check_passes(KHOST__DT_FP32, got, ref, 3, c->atol, c->rtol, NULL), !c->fails,
                 "case %zu: got %g ref %g atol %g rtol %g", i, c->got, c->ref, c->atol, c->rtol);
  }
  uint16_t ref16[4], got16[4];
  for (int i = 0; i < 4; i++) ref16[i] = got16[i] = khost__fp16_encode(0.5 * (i + 1));
  cr_expect(khost__check_passes(KHOST__DT_FP16, got16, ref16, 4, 0, 0, NULL), "equal bytes pass");
  memset(&got16[0], KHOST__POISON_BYTE, 2);
  cr_expect(!khost__check_passes(KHOST__DT_FP16, got16, ref16, 4, 1e9, 1e9, NULL), "poison never passes");
  got16[0] = ref16[0];
  got16[3] ^= 1;
  cr_expect(!khost__check_passes(KHOST__DT_FP16, got16, ref16, 4, 0, 0, NULL), "one bit off, last element");
  cr_expect(khost__check_passes(KHOST__DT_FP16, got16, ref16, 3, 0, 0, NULL), "only n elements are compared");
  float got[2] = {1.0f, 1.25f}, ref[2] = {1.0f, 1.0f}, bound[2] = {0.0f, 0.2f};
  cr_expect(!khost__check_passes(KHOST__DT_FP32, got, ref, 2, 0, 0.01, bound), "0.25 > 0.01 + 0.2");
  bound[1] = 0.25f;
  cr_expect(khost__check_passes(KHOST__DT_FP32, got, ref, 2, 0, 0.01, bound), "the element's own bound");
}
