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
  for (int i = 0; i < 20; i++) khost__samples_add(&s, 1.0, 0, &err);
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
  for (int i = 0; i < 4; i++) cr_assert_eq(khost__samples_add(&s, v[i], 0, &err), KHOST__OK);
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

/* Skewed samples: the median is not the mean (one slow outlier must not move it). */
Test(bench, the_median_of_skewed_samples_is_the_middle_one)
{
  khost__samples s = {0};
  khost__err err;
  static const double v[] = {2, 100, 1};
  for (int i = 0; i < 3; i++) cr_assert_eq(khost__samples_add(&s, v[i], 0, &err), KHOST__OK);
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_float_eq(t.median, 2, 1e-12, "median %g", t.median);
  cr_expect_float_eq(t.mean, 103.0 / 3.0, 1e-12);
  khost__samples_free(&s);
}

/* The stopping rule's noise is the relative standard error of the mean, with the n - 1 variance. */
Test(bench, the_rule_s_noise_is_the_relative_standard_error)
{
  khost__samples s = {0};
  khost__err err;
  static const double v[] = {4, 1, 3, 2};
  for (int i = 0; i < 4; i++) cr_assert_eq(khost__samples_add(&s, v[i], 0, &err), KHOST__OK);
  double want = 100.0 * sqrt(5.0 / 3.0) / 2.0 / 2.5;
  cr_expect_float_eq(khost__samples_noise_pct(&s), want, 1e-9, "noise %g, want %g",
                     khost__samples_noise_pct(&s), want);
  khost__samples_free(&s);
}

/* The median and lowest clocks are those of the samples whose clock is known (a CPU sample's is 0). */
Test(bench, the_summary_carries_the_median_and_lowest_known_clocks_and_the_throttled_count)
{
  khost__samples s = {0};
  khost__err err;
  static const double mhz[] = {1980, 0, 1700, 1990, 1975};
  for (int i = 0; i < 5; i++) cr_assert_eq(khost__samples_add(&s, 1e-3 * (i + 1), mhz[i], &err), KHOST__OK);
  s.throttled = 3;
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_eq(t.samples, 5);
  cr_expect_float_eq(t.sm_mhz, 1977.5, 1e-9, "median of 1700, 1975, 1980, 1990: %g", t.sm_mhz);
  cr_expect_float_eq(t.sm_mhz_min, 1700, 1e-9, "the unknown clock (0) is not the lowest: %g", t.sm_mhz_min);
  cr_expect_eq(t.throttled, 3);
  cr_expect_float_eq(t.median, 3e-3, 1e-12, "the times are untouched by the clocks");
  khost__samples_free(&s);
}

Test(bench, without_known_clocks_the_summary_clock_is_zero)
{
  khost__samples s = {0};
  khost__err err;
  khost__samples_add(&s, 1.0, 0, &err);
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_eq(t.sm_mhz, 0.0);
  cr_expect_eq(t.sm_mhz_min, 0.0);
  khost__samples_free(&s);
}

Test(bench, a_clock_under_the_floor_is_throttled)
{
  cr_expect(khost__clock_throttled(1484, 1980, 75), "1484 < 0.75 * 1980 = 1485");
  cr_expect_not(khost__clock_throttled(1485, 1980, 75));
  cr_expect_not(khost__clock_throttled(1980, 1980, 75));
  cr_expect_not(khost__clock_throttled(100, 1980, 0), "a floor of 0 keeps every sample");
  cr_expect_not(khost__clock_throttled(0, 1980, 75), "an unknown clock is never throttled");
  cr_expect_not(khost__clock_throttled(1000, 0, 75), "nor is any clock of a device without a rated one");
  cr_expect(khost__clock_throttled(1979, 1980, 100));
}

/* Every sample throttled: the time budget still ends sampling, with none kept. */
Test(bench, the_budget_ends_sampling_when_every_sample_was_throttled)
{
  khost__samples s = {0};
  khost__options o = rule(10, 0.5, 1.0);
  s.throttled = 4;
  s.spent_s = 0.5;
  cr_expect_not(khost__samples_done(&s, &o), "budget left");
  s.spent_s = 1.0;
  cr_expect(khost__samples_done(&s, &o), "n = 0 but 4 samples were taken");
  s.throttled = 0;
  cr_expect_not(khost__samples_done(&s, &o), "no sample taken at all: take one, however long it runs");
  khost__timing t;
  s.throttled = 4;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_eq(t.samples, 0);
  cr_expect_eq(t.throttled, 4);
}

/* The warm-up's time counts against --max-time, never towards --min-time. */
Test(bench, the_warm_up_spends_the_budget_but_not_the_minimum_time)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(2, 0.5, 1.0);
  o.min_time_s = 0.5;
  khost__samples_add(&s, 1.0, 0, &err);
  s.warmup_s = 0.6;
  s.spent_s = 0.3;
  cr_expect_not(khost__samples_done(&s, &o), "0.9 s of a 1 s budget spent");
  s.spent_s = 0.4;
  cr_expect(khost__samples_done(&s, &o), "warm-up and samples spent the budget");
  for (int i = 0; i < 20; i++) khost__samples_add(&s, 1.0, 0, &err);
  o.max_time_s = 10;
  s.warmup_s = 5;
  cr_expect_not(khost__samples_done(&s, &o), "quiet, but sampled for 0.4 s of a 0.5 s minimum");
  s.warmup_s = 20;
  s.n = 0;
  s.throttled = 0;
  cr_expect_not(khost__samples_done(&s, &o), "no sample taken at all, however long the warm-up");
  khost__samples_free(&s);
}

Test(bench, stops_on_low_noise_only_after_min_samples)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(10, 0.5, 100);
  for (int i = 0; i < 9; i++) khost__samples_add(&s, 1.0, 0, &err);
  cr_expect_not(khost__samples_done(&s, &o), "9 identical samples are not enough");
  khost__samples_add(&s, 1.0, 0, &err);
  cr_expect(khost__samples_done(&s, &o));
  khost__samples_free(&s);
}

Test(bench, keeps_going_while_noisy_until_the_time_budget)
{
  khost__samples s = {0};
  khost__err err;
  khost__options o = rule(2, 0.5, 1.0);
  for (int i = 0; i < 20; i++) khost__samples_add(&s, i % 2 ? 1.0 : 3.0, 0, &err);
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
  khost__samples_add(&s, 2.0, 0, &err);
  cr_expect(isinf(khost__samples_noise_pct(&s)));
  khost__timing t;
  cr_assert_eq(khost__samples_summarize(&s, &t), KHOST__OK);
  cr_expect_float_eq(t.median, 2.0, 1e-12);
  cr_expect(isnan(t.noise) && isnan(t.stddev), "one sample has no spread: noise %g, stddev %g", t.noise,
            t.stddev);
  khost__samples_free(&s);
}

Test(bench, sorted_median_sorts_and_takes_the_middle)
{
  double odd[5] = {5, 1, 4, 2, 3}, even[4] = {8, 2, 6, 4};
  cr_expect_eq(khost__sorted_median(odd, 5), 3);
  for (int i = 1; i < 5; i++) cr_expect_leq(odd[i - 1], odd[i], "sorted in place");
  cr_expect_eq(khost__sorted_median(even, 4), 5, "the mean of the two middle values");
}
