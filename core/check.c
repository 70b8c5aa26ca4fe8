#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "buffers.h"

static int is_poison(size_t element_bytes, const void *data, size_t i)
{
  const unsigned char *p = (const unsigned char *)data + i * element_bytes;
  for (size_t b = 0; b < element_bytes; b++)
    if (p[b] != KHOST__POISON_BYTE) return 0;
  return 1;
}

void khost__format_coords(const khost__tensor_spec *spec, uint64_t i, char *buf, size_t size)
{
  uint64_t index[KHOST_MAX_DIMS];
  for (int d = spec->ndim - 1; d >= 0; d--) {
    index[d] = i % (uint64_t)spec->shape[d];
    i /= (uint64_t)spec->shape[d];
  }
  size_t used = (size_t)snprintf(buf, size, "%s[", spec->name);
  for (int d = 0; d < spec->ndim && used < size; d++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s=%llu", d ? ", " : "",
                             spec->dim_names[d] ? spec->dim_names[d] : "i", (unsigned long long)index[d]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

/* NaN or Inf status differs, or the value is out of tolerance. */
static int mismatch(double got, double ref, double atol, double rtol, double bound)
{
  if (isnan(ref) || isnan(got)) return isnan(ref) != isnan(got);
  if (isinf(ref) || isinf(got)) return got != ref;
  return fabs(got - ref) > atol + rtol * fabs(ref) + bound;
}

/* The statistic of the seed scripts khost replaces, for comparison with theirs:
 * relative where the reference is not near zero, absolute where it is. */
static double mixed_error(double abs_err, double ref)
{
  return fabs(ref) > 1e-6 ? abs_err / (fabs(ref) + 1e-8) : abs_err;
}

static void note_mismatch(const khost__tensor_spec *spec, khost__check_stats *s, uint64_t i, double got,
                          double ref)
{
  s->mismatches++;
  if (s->nshown >= KHOST__MAX_MISMATCHES) return;
  khost__mismatch *m = &s->shown[s->nshown++];
  m->index = i;
  m->got = got;
  m->expected = ref;
  khost__format_coords(spec, i, m->where, sizeof m->where);
}

/* Element i of got against ref: wrong when unwritten (*unwritten set) or, with
 * no tolerance, when its bits differ (bit-exact: -0 is not +0, and a NaN keeps
 * its payload), else by mismatch(). Poison is NaN, so an unwritten element
 * would match a NaN reference under tolerances; the oracle never leaves the
 * pattern (worker.c), so no correct element holds it. */
static int element_wrong(khost__dtype_id dtype, size_t element_bytes, const void *got, const void *ref,
                         size_t i, double atol, double rtol, const float *bound, int *unwritten)
{
  *unwritten = is_poison(element_bytes, got, i);
  if (*unwritten) return 1;
  if (atol == 0 && rtol == 0)
    return memcmp((const char *)got + i * element_bytes, (const char *)ref + i * element_bytes,
                  element_bytes) != 0;
  return mismatch(khost__dtype_value(dtype, got, i), khost__dtype_value(dtype, ref, i), atol, rtol,
                  bound ? bound[i] : 0.0);
}

void khost__check_output(const khost__tensor_spec *spec, const void *got, const void *ref, double atol,
                         double rtol, const float *bound, khost__check_stats *s)
{
  memset(s, 0, sizeof *s);
  size_t n = khost__tensor_elements(spec);
  size_t element_bytes = khost__dtype_bits(spec->dtype) / 8;
  double sum_abs = 0;
  for (size_t i = 0; i < n; i++) {
    double g = khost__dtype_value(spec->dtype, got, i);
    double r = khost__dtype_value(spec->dtype, ref, i);
    int unwritten,
        wrong = element_wrong(spec->dtype, element_bytes, got, ref, i, atol, rtol, bound, &unwritten);
    s->unwritten += (uint64_t)unwritten;
    if (wrong) note_mismatch(spec, s, i, g, r);
    if (isfinite(g) && isfinite(r)) {
      double abs_err = fabs(g - r);
      sum_abs += abs_err;
      if (abs_err > s->max_abs) s->max_abs = abs_err;
      if (r != 0 && abs_err / fabs(r) > s->max_rel) s->max_rel = abs_err / fabs(r);
      s->max_mixed = fmax(s->max_mixed, mixed_error(abs_err, r));
    }
  }
  s->count = n;
  s->mean_abs = n ? sum_abs / (double)n : 0;
}

int khost__check_passes(khost__dtype_id dtype, const void *got, const void *ref, size_t n, double atol,
                        double rtol, const float *bound)
{
  size_t element_bytes = khost__dtype_bits(dtype) / 8;
  /* The usual case, a right answer bit for bit, at the speed of memcmp; the
   * reference holds no poison, so equal bytes are written bytes. */
  if (memcmp(got, ref, n * element_bytes) == 0) return 1;
  for (size_t i = 0; i < n; i++) {
    int unwritten;
    if (element_wrong(dtype, element_bytes, got, ref, i, atol, rtol, bound, &unwritten)) return 0;
  }
  return 1;
}

size_t khost__count_poison(const khost__tensor_spec *spec, const void *data)
{
  size_t n = khost__tensor_elements(spec), element_bytes = khost__dtype_bits(spec->dtype) / 8, found = 0;
  for (size_t i = 0; i < n; i++) found += (size_t)is_poison(element_bytes, data, i);
  return found;
}

void khost__check_merge(khost__check_stats *a, const khost__check_stats *b)
{
  double total = a->mean_abs * (double)a->count + b->mean_abs * (double)b->count;
  a->count += b->count;
  a->mean_abs = a->count ? total / (double)a->count : 0;
  a->unwritten += b->unwritten;
  a->mismatches += b->mismatches;
  a->max_abs = fmax(a->max_abs, b->max_abs);
  a->max_rel = fmax(a->max_rel, b->max_rel);
  a->max_mixed = fmax(a->max_mixed, b->max_mixed);
  for (int i = 0; i < b->nshown && a->nshown < KHOST__MAX_MISMATCHES; i++)
    a->shown[a->nshown++] = b->shown[i];
}
