#include "variation.h"

#include <string.h>

static uint32_t sign_mask_of(khost__dtype_id dtype)
{
  switch (dtype) {
  case KHOST__DT_FP32: return UINT32_C(0x80000000);
  case KHOST__DT_FP16:
  case KHOST__DT_BF16: return 0x8000;
  case KHOST__DT_E2M1: return 0x88; /* both codes of the byte */
  default: return 0x80;             /* the 8-bit floats */
  }
}

void khost__vary_map_of(khost__vary_map *m, const khost__tensor_spec *t, const int *axes, int is_signed)
{
  size_t bits = khost__dtype_bits(t->dtype);
  memset(m, 0, sizeof *m);
  m->ndim = t->ndim;
  for (int d = 0; d < t->ndim; d++) {
    m->shape[d] = t->shape[d];
    m->axis[d] = axes[d];
  }
  m->unit_bytes = bits < 8 ? 1 : (int)(bits / 8);
  if (bits < 8 && t->ndim > 0) m->shape[t->ndim - 1] = (int64_t)((uint64_t)t->shape[t->ndim - 1] * bits / 8);
  m->sign_mask = is_signed ? sign_mask_of(t->dtype) : 0;
}

uint64_t khost__vary_units(const khost__vary_map *m)
{
  uint64_t n = 1;
  for (int d = 0; d < m->ndim; d++) n *= (uint64_t)m->shape[d];
  return n;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* A multiplier coprime to n from random bits: the permutation must be one. */
static uint64_t coprime(uint64_t bits, uint64_t n)
{
  uint64_t a = 1 + bits % (n - 1);
  while (gcd(a, n) != 1) a = a % (n - 1) + 1;
  return a;
}

void khost__vary_draw(const khost__variation *v, uint64_t seed, uint64_t index, khost__vary_call *out)
{
  memset(out, 0, sizeof *out);
  out->permuted_axis = v->permuted_axis;
  out->sign_axes = v->sign_axes;
  memcpy(out->extent, v->extent, sizeof out->extent);
  out->key = khost__vary_mix(seed ^ khost__vary_mix(index));
  out->a = 1;
  out->n = v->permuted_axis >= 0 ? (uint64_t)v->extent[v->permuted_axis] : 1;
  if (out->n < 2) return;
  /* The offset runs through every value once before the multiplier changes:
   * the first n calls' permutations differ at index 0. */
  out->b = index % out->n;
  out->a = coprime(khost__vary_mix(out->key + index / out->n), out->n);
  if (out->a == 1 && out->b == 0 && out->n > 2) out->a = out->n - 1; /* not the identity */
}

static void copy_unit(unsigned char *dst, const unsigned char *src, int bytes, uint32_t flip)
{
  for (int b = 0; b < bytes; b++) dst[b] = (unsigned char)(src[b] ^ (flip >> (8 * b)));
}

void khost__vary_host(const khost__vary_map *m, const khost__vary_call *c, const void *src, void *dst)
{
  uint64_t n = khost__vary_units(m);
  int bytes = m->unit_bytes;
  for (uint64_t e = 0; e < n; e++) {
    int flip;
    uint64_t from = khost__vary_source(m, c, e, &flip);
    copy_unit((unsigned char *)dst + e * (uint64_t)bytes, (const unsigned char *)src + from * (uint64_t)bytes,
              bytes, flip ? m->sign_mask : 0);
  }
}
