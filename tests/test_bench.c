/* Sample statistics and the adaptive stopping rule. */
#include <criterion/criterion.h>
#include <math.h>

#include "bench.h"

static khost__options rule(int min_samples, double max_noise, double max_time)
{
  khost__options o = {.min_samples = min_samples, .max_noise_pct = max_noise, .max_time_s = max_time};
  return o;
}

Test(bench, low_noise_stops_only_after_the_minimum_time)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(2, 0.5, 10);
  o.min_time_s = 0.5;
  for (int i = 0; i < 20; i++) khost__samples_add(&s, 1.0, &err);
  s.spent_s = 0.4;
  cr_expect_not(khost__samples_done(&s, &o), "quiet samples, but not enough time yet");
  s.spent_s = 0.5;
  cr_expect(khost__samples_done(&s, &o));
  khost__samples_free(&s);
}

Test(bench, summary_of_known_samples)
{
  khost__samples s = {0};
  khost__err err;
  static const double v[] = {4, 1, 3, 2};
  for (int i = 0; i < 4; i++) cr_assert_eq(khost__samples_add(&s, v[i], &err), KHOST__OK);
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_eq(t.samples, 4);
  cr_expect_float_eq(t.median, 2.5, 1e-12);
  cr_expect_float_eq(t.mean, 2.5, 1e-12);
  cr_expect_float_eq(t.min, 1, 1e-12);
  cr_expect_float_eq(t.max, 4, 1e-12);
  cr_expect_float_eq(t.stddev, sqrt(5.0 / 3.0), 1e-12);
  cr_expect_float_eq(t.noise, 100.0 * sqrt(5.0 / 3.0) / 2.0 / 2.5, 1e-9);
  khost__samples_free(&s);
}

/* The check call after timing is dropped: the summary is that of the samples before it. */
Test(bench, a_dropped_sample_leaves_no_trace_in_the_summary)
{
  khost__samples s = {0};
  khost__err err;
  static const double v[] = {4, 1, 3, 2, 100};
  for (int i = 0; i < 5; i++) cr_assert_eq(khost__samples_add(&s, v[i], &err), KHOST__OK);
  khost__samples_drop_last(&s);
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_eq(t.samples, 4);
  cr_expect_float_eq(t.median, 2.5, 1e-12);
  cr_expect_float_eq(t.max, 4, 1e-12);
  cr_expect_float_eq(khost__samples_noise_pct(&s), t.noise, 1e-9, "the running sums lost the sample too");
  khost__samples_free(&s);
}

Test(bench, stops_on_low_noise_only_after_min_samples)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(10, 0.5, 100);
  for (int i = 0; i < 9; i++) khost__samples_add(&s, 1.0, &err);
  cr_expect_not(khost__samples_done(&s, &o), "9 identical samples are not enough");
  khost__samples_add(&s, 1.0, &err);
  cr_expect(khost__samples_done(&s, &o));
  khost__samples_free(&s);
}

Test(bench, keeps_going_while_noisy_until_the_time_budget)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(2, 0.5, 1.0);
  for (int i = 0; i < 20; i++) khost__samples_add(&s, i % 2 ? 1.0 : 3.0, &err);
  cr_expect_gt(khost__samples_noise_pct(&s), 0.5);
  cr_expect_not(khost__samples_done(&s, &o));
  s.spent_s = 1.0;
  cr_expect(khost__samples_done(&s, &o), "the budget ends sampling");
  khost__samples_free(&s);
}

Test(bench, noise_is_infinite_below_two_samples)
{
  khost__samples s = {0};
  khost__err err;
  cr_expect(isinf(khost__samples_noise_pct(&s)));
  khost__samples_add(&s, 2.0, &err);
  cr_expect(isinf(khost__samples_noise_pct(&s)));
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_float_eq(t.median, 2.0, 1e-12);
  cr_expect_float_eq(t.noise, 0, 1e-12);
  khost__samples_free(&s);
}
