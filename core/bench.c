#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow(double **array, int cap)
{
  double *grown = realloc(*array, (size_t)cap * sizeof *grown);
  if (!grown) return KHOST__E_NOMEM;
  *array = grown;
  return KHOST__OK;
}

int khost__samples_add(khost__samples *s, double seconds, double sm_mhz, khost__err *err)
{
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    if (grow(&s->v, cap) != KHOST__OK || grow(&s->sm_mhz, cap) != KHOST__OK)
      return khost__errorf(err, KHOST__E_NOMEM, "out of memory storing samples");
    s->cap = cap;
  }
  s->v[s->n] = seconds;
  s->sm_mhz[s->n++] = sm_mhz;
  s->sum += seconds;
  s->sum_squares += seconds * seconds;
  return KHOST__OK;
}

void khost__samples_free(khost__samples *s)
{
  free(s->v);
  free(s->sm_mhz);
  memset(s, 0, sizeof *s);
}

int khost__clock_throttled(double sm_mhz, double peak_mhz, double pct)
{
  return sm_mhz > 0 && peak_mhz > 0 && sm_mhz < peak_mhz * pct / 100;
}

static void moments(const khost__samples *s, double *mean, double *stddev)
{
  *mean = s->n ? s->sum / s->n : 0;
  double var = s->n > 1 ? (s->sum_squares - s->n * *mean * *mean) / (s->n - 1) : 0;
  *stddev = var > 0 ? sqrt(var) : 0;
}

double khost__samples_noise_pct(const khost__samples *s)
{
  if (s->n < 2) return INFINITY;
  double mean, stddev;
  moments(s, &mean, &stddev);
  return mean > 0 ? 100.0 * stddev / sqrt((double)s->n) / mean : INFINITY;
}

int khost__samples_done(const khost__samples *s, const khost__options *o)
{
  /* The budget is the row's whole: a warm-up of slow calls leaves less for samples. */
  if (s->n + s->throttled >= 1 && s->warmup_s + s->spent_s >= o->max_time_s) return 1;
  /* nvbench's rule: a minimum time as well as a minimum count, so that a short
   * kernel's median rests on many samples, not on the first ten quiet ones. */
  return s->n >= o->min_samples && s->spent_s >= o->min_time_s &&
         khost__samples_noise_pct(s) <= o->max_noise_pct;
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double khost__sorted_median(double *values, int n)
{
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The median and the lowest of the known clocks (0 when none is known). */
static void summarize_clocks(const khost__samples *s, double *scratch, khost__timing *t)
{
  int known = 0;
  for (int i = 0; i < s->n; i++)
    if (s->sm_mhz[i] > 0) scratch[known++] = s->sm_mhz[i];
  if (known == 0) return;
  t->sm_mhz = khost__sorted_median(scratch, known);
  t->sm_mhz_min = scratch[0];
}

int khost__samples_summarize(const khost__samples *s, khost__timing *t)
{
  memset(t, 0, sizeof *t);
  t->throttled = (uint32_t)s->throttled;
  if (s->n == 0) return KHOST__OK;
  double *sorted = malloc((size_t)s->n * sizeof *sorted);
  if (!sorted) {
    memset(t, 0, sizeof *t);
    return KHOST__E_NOMEM;
  }
  summarize_clocks(s, sorted, t);
  memcpy(sorted, s->v, (size_t)s->n * sizeof *sorted);
  t->samples = (uint32_t)s->n;
  t->median = khost__sorted_median(sorted, s->n);
  t->min = sorted[0];
  t->max = sorted[s->n - 1];
  /* Two passes for the reported spread: exact where the running sums may cancel. */
  t->mean = s->sum / s->n;
  double squares = 0;
  for (int i = 0; i < s->n; i++) squares += (s->v[i] - t->mean) * (s->v[i] - t->mean);
  /* One sample has no spread: NaN, which the reports show as none, not as a perfect 0. */
  t->stddev = s->n > 1 ? sqrt(squares / (s->n - 1)) : NAN;
  t->noise = s->n > 1 && t->mean > 0 ? 100.0 * t->stddev / sqrt((double)s->n) / t->mean : NAN;
  free(sorted);
  return KHOST__OK;
}
