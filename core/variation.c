#include "variation.h"

#include <stdlib.h>
#include <string.h>

#include "parallel_rows.h"

/* A map holds every dim a tensor of the ABI may have (the device copies it by value). */
_Static_assert(KHOST__VARY_DIMS == KHOST_MAX_DIMS, "a variation map must hold KHOST_MAX_DIMS dims");

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

void khost__vary_declare(khost__variation *v, const int64_t *extent, int naxes, int permuted_axis,
                         unsigned sign_axes)
{
  memset(v, 0, sizeof *v);
  for (int a = 0; a < KHOST__VARY_AXES; a++) v->extent[a] = a < naxes ? extent[a] : 1;
  v->permuted_axis = permuted_axis;
  v->sign_axes = sign_axes;
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

int khost__vary_walk_start(khost__vary_walk *w, const khost__vary_map *m, const khost__vary_call *c,
                           khost__err *err)
{
  int axis = khost__vary_inner_axis(m);
  uint64_t width = khost__vary_width(m);
  memset(w, 0, sizeof *w);
  w->m = m;
  w->c = c;
  w->inner_permuted = axis >= 0 && axis == c->permuted_axis;
  w->unit_by_unit = w->inner_permuted || khost__vary_signed(m, c, axis);
  if (!khost__vary_signed(m, c, axis)) return KHOST__OK;
  if (!(w->inner_hash = malloc(width * sizeof *w->inner_hash)))
    return khost__errorf(err, KHOST__E_NOMEM, "out of memory for a variation's signs");
  for (uint64_t j = 0; j < width; j++) w->inner_hash[j] = khost__vary_coord_hash(c, axis, j);
  return KHOST__OK;
}

void khost__vary_walk_free(khost__vary_walk *w)
{
  free(w->inner_hash);
  memset(w, 0, sizeof *w);
}

/* XORs mask into every unit of p (nbytes, whole units of unit_bytes, a divisor
 * of 8), eight bytes at a time: a row's sign costs less than its copy. */
static void flip_units(unsigned char *p, size_t nbytes, int unit_bytes, uint32_t mask)
{
  uint64_t word = 0;
  size_t i = 0;
  for (int b = 0; b < 8; b++) word |= (uint64_t)(unsigned char)(mask >> 8 * (b % unit_bytes)) << 8 * b;
  for (; i + 8 <= nbytes; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    v ^= word;
    memcpy(p + i, &v, 8);
  }
  for (; i < nbytes; i++) p[i] ^= (unsigned char)(word >> 8 * (i % 8));
}

/* A unit of `bytes` (1, 2 or 4; constant where inlined), little-endian as the device's. */
static inline __attribute__((always_inline)) uint32_t load_unit(const unsigned char *p, int bytes)
{
  uint32_t v32;
  uint16_t v16;
  if (bytes == 4) return memcpy(&v32, p, 4), v32;
  if (bytes == 2) return memcpy(&v16, p, 2), v16;
  return *p;
}

static inline __attribute__((always_inline)) void store_unit(unsigned char *p, int bytes, uint32_t v)
{
  uint16_t v16 = (uint16_t)v;
  if (bytes == 4)
    memcpy(p, &v, 4);
  else if (bytes == 2)
    memcpy(p, &v16, 2);
  else
    *p = (unsigned char)v;
}

/* One row unit by unit: each unit flipped by its own word and the row's; in
 * place when the last dim is not permuted (a loop the compiler can vectorise),
 * else from the cursor's source units. */
static inline __attribute__((always_inline)) void gather_row(const khost__vary_walk *w, khost__vary_row row,
                                                             const unsigned char *src, unsigned char *dst,
                                                             int bytes)
{
  /* Copies: a store to dst cannot change them, so they stay in registers. */
  khost__vary_map m = *w->m;
  const uint32_t *hash = w->inner_hash;
  uint64_t width = khost__vary_width(&m);
  if (!w->inner_permuted) {
    for (uint64_t i = 0; i < width; i++)
      store_unit(dst + i * bytes, bytes,
                 load_unit(src + i * bytes, bytes) ^ khost__vary_flip(&m, row.sign, hash[i]));
    return;
  }
  khost__vary_cursor k = khost__vary_cursor_at(&m, w->c, 0, 1);
  for (uint64_t i = 0; i < width; i++, khost__vary_next(&k)) {
    uint32_t flip = khost__vary_flip(&m, row.sign, hash ? hash[k.j] : 0);
    store_unit(dst + i * (uint64_t)bytes, bytes, load_unit(src + k.j * (uint64_t)bytes, bytes) ^ flip);
  }
}

static void gather(const khost__vary_walk *w, khost__vary_row row, const unsigned char *src,
                   unsigned char *dst)
{
  switch (w->m->unit_bytes) {
  case 4: gather_row(w, row, src, dst, 4); break;
  case 2: gather_row(w, row, src, dst, 2); break;
  default: gather_row(w, row, src, dst, 1); break;
  }
}

void khost__vary_walk_rows(const khost__vary_walk *w, const void *src, void *dst, uint64_t first,
                           uint64_t end)
{
  uint64_t row_bytes = khost__vary_width(w->m) * (uint64_t)w->m->unit_bytes;
  unsigned char *out = dst;
  for (uint64_t r = first; r < end; r++, out += row_bytes) {
    khost__vary_row row = khost__vary_row_of(w->m, w->c, r);
    const unsigned char *in = (const unsigned char *)src + row.src * (uint64_t)w->m->unit_bytes;
    if (w->unit_by_unit) {
      gather(w, row, in, out);
      continue;
    }
    memcpy(out, in, row_bytes);
    uint32_t flip = khost__vary_flip(w->m, row.sign, 0);
    if (flip) flip_units(out, row_bytes, w->m->unit_bytes, flip);
  }
}

typedef struct host_job {
  const khost__vary_walk *walk;
  const void *src;
  unsigned char *dst;
  uint64_t row_bytes;
} host_job;

static void vary_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const host_job *job = arg;
  khost__vary_walk_rows(job->walk, job->src, job->dst + (uint64_t)begin * job->row_bytes, (uint64_t)begin,
                        (uint64_t)end);
}

int khost__vary_host(const khost__vary_map *m, const khost__vary_call *c, const void *src, void *dst,
                     int threads, khost__err *err)
{
  khost__vary_walk w;
  int rc = khost__vary_walk_start(&w, m, c, err);
  if (rc != KHOST__OK) return rc;
  host_job job = {&w, src, dst, khost__vary_width(m) * (uint64_t)m->unit_bytes};
  khost__parallel_rows((int64_t)khost__vary_rows(m), threads, vary_rows, &job);
  khost__vary_walk_free(&w);
  return KHOST__OK;
}
