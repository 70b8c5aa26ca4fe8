#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int khost__samples_add(khost__samples *s, double seconds, khost__err *err)
{
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    double *grown = realloc(s->v, (size_t)cap * sizeof *grown);
    if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory storing samples");
    s->v = grown;
    s->cap = cap;
  }
  s->v[s->n++] = seconds;
  s->sum += seconds;
  s->sum_squares += seconds * seconds;
  return KHOST__OK;
}

void khost__samples_drop_last(khost__samples *s)
{
  if (s->n == 0) return;
  double last = s->v[--s->n];
  s->sum -= last;
  s->sum_squares -= last * last;
}

void khost__samples_free(khost__samples *s)
{
  free(s->v);
  memset(s, 0, sizeof *s);
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
  if (s->n >= 1 && s->spent_s >= o->max_time_s) return 1;
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

int khost__samples_summarize(const khost__samples *s, khost__timing *t)
{
  memset(t, 0, sizeof *t);
  if (s->n == 0) return KHOST__OK;
  double *sorted = malloc((size_t)s->n * sizeof *sorted);
  if (!sorted) return KHOST__E_NOMEM;
  memcpy(sorted, s->v, (size_t)s->n * sizeof *sorted);
  qsort(sorted, (size_t)s->n, sizeof *sorted, compare_doubles);
  t->samples = (uint32_t)s->n;
  t->median = s->n % 2 ? sorted[s->n / 2] : 0.5 * (sorted[s->n / 2 - 1] + sorted[s->n / 2]);
  t->min = sorted[0];
  t->max = sorted[s->n - 1];
  /* Two passes for the reported spread: exact where the running sums may cancel. */
  t->mean = s->sum / s->n;
  double squares = 0;
  for (int i = 0; i < s->n; i++) squares += (s->v[i] - t->mean) * (s->v[i] - t->mean);
  t->stddev = s->n > 1 ? sqrt(squares / (s->n - 1)) : 0;
  t->noise = s->n > 1 && t->mean > 0 ? 100.0 * t->stddev / sqrt((double)s->n) / t->mean : 0;
  free(sorted);
  return KHOST__OK;
}
