/* Tests for core/cupti_span.c: what --timer cupti makes of one sample's records. */
#include <criterion/criterion.h>

#include <string.h>
#include "cupti_span.h"

#define N(v) (int)(sizeof(v) / sizeof((v)[0]))

/* First start to last end of what ran between the stamps, gaps included; the
 * flush, blocker and stamps themselves are outside. */
Test(cupti_span, spans_first_start_to_last_end_between_the_stamps)
{
  const khost__cupti_interval v[] = {
      {1000, 5000, 0},   /* the L2 flush, before the first stamp */
      {5100, 6000, 0},   /* the blocker */
      {6100, 6300, 1},   /* first stamp */
      {6500, 9500, 0},   /* the call's first kernel */
      {9600, 9700, 0},   /* a memset of the call */
      {9800, 12500, 0},  /* its second kernel */
      {12600, 12800, 1}, /* second stamp */
  };
  double s = -1;
  khost__err err = {{0}};
  cr_assert_eq(khost__cupti_span(v, N(v), &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_float_eq(s, 6000e-9, 1e-15);
}

/* Records arrive in no particular order (kernels and copies come in buffers of their own). */
Test(cupti_span, takes_records_in_any_order)
{
  const khost__cupti_interval v[] = {
      {12600, 12800, 1}, {9800, 12500, 0}, {1000, 5000, 0}, {6500, 9500, 0}, {6100, 6300, 1},
  };
  double s = -1;
  khost__err err = {{0}};
  cr_assert_eq(khost__cupti_span(v, N(v), &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_float_eq(s, 6000e-9, 1e-15);
}

Test(cupti_span, refuses_a_sample_without_two_stamps)
{
  const khost__cupti_interval one[] = {{100, 200, 1}, {300, 400, 0}};
  const khost__cupti_interval three[] = {{100, 200, 1}, {300, 400, 0}, {500, 600, 1}, {700, 800, 1}};
  double s = -1;
  khost__err err = {{0}};
  cr_expect_eq(khost__cupti_span(one, N(one), &s, &err), KHOST__E_FAIL);
  cr_expect_not_null(strstr(err.msg, "recorded 1 clock stamps"), "%s", err.msg);
  cr_expect_eq(s, 0);
  cr_expect_eq(khost__cupti_span(three, N(three), &s, &err), KHOST__E_FAIL);
  cr_expect_not_null(strstr(err.msg, "recorded 3 clock stamps"), "%s", err.msg);
}

/* A sample whose calls left no record would be timed as nothing. */
Test(cupti_span, refuses_a_sample_with_nothing_between_the_stamps)
{
  const khost__cupti_interval v[] = {{100, 200, 1}, {300, 400, 1}, {500, 600, 0}};
  double s = -1;
  khost__err err = {{0}};
  cr_expect_eq(khost__cupti_span(v, N(v), &s, &err), KHOST__E_FAIL);
  cr_expect_not_null(strstr(err.msg, "no kernel, copy or memset"), "%s", err.msg);
}

/* CUPTI writes 0 for a record it could not time: a span without it would be too short. */
Test(cupti_span, refuses_a_record_without_timestamps)
{
  const khost__cupti_interval v[] = {{100, 200, 1}, {0, 0, 0}, {300, 400, 0}, {500, 600, 1}};
  double s = -1;
  khost__err err = {{0}};
  cr_expect_eq(khost__cupti_span(v, N(v), &s, &err), KHOST__E_FAIL);
  cr_expect_not_null(strstr(err.msg, "no timestamps"), "%s", err.msg);
}
