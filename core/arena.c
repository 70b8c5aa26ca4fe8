#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "check.h"
#include "rng.h"

/* The placement's random stream, apart from every generator's (which use the
 * tensor's number): "ARN" and the number. */
#define ARENA_STREAM UINT32_C(0x41524e00)

static size_t chunk_count(const khost__tensor_spec *spec)
{
  size_t n = 1;
  for (int d = 0; d < spec->chunk_dims; d++)
    if (khost__size_mul(n, (size_t)spec->shape[d], &n)) return SIZE_MAX;
  return n;
}

static size_t aligned(size_t n)
{
  return (n + KHOST__ARENA_ALIGN - 1) / KHOST__ARENA_ALIGN * KHOST__ARENA_ALIGN;
}

size_t khost__arena_bytes(const khost__tensor_spec *spec)
{
  size_t chunks = chunk_count(spec), total;
  if (chunks == SIZE_MAX || spec->nbytes > SIZE_MAX - 2 * KHOST__ARENA_ALIGN * KHOST__ARENA_GAP_UNITS)
    return SIZE_MAX;
  size_t chunk_bytes = chunks ? spec->nbytes / chunks : 0;
  size_t slot = aligned(chunk_bytes) + KHOST__ARENA_GAP_UNITS * KHOST__ARENA_ALIGN;
  return khost__size_mul(chunks, slot, &total) ? SIZE_MAX : total;
}

/* Places a's chunks for (seed, number): a pure function of them. */
static void place(khost__arena *a, uint64_t seed, int number)
{
  uint32_t w[4];
  for (size_t i = 0; i < a->chunks; i++) a->by_address[i] = i;
  /* Fisher-Yates from the seed: any order of the chunks is as likely. */
  for (size_t i = a->chunks; i > 1; i--) {
    khost__rng_block(seed, ARENA_STREAM + (uint32_t)number, i, w);
    size_t j = (size_t)(((uint64_t)w[1] << 32 | w[0]) % i), keep = a->by_address[i - 1];
    a->by_address[i - 1] = a->by_address[j];
    a->by_address[j] = keep;
  }
  size_t at = 0;
  for (size_t i = 0; i < a->chunks; i++) {
    khost__rng_block(seed, ARENA_STREAM + (uint32_t)number, i, w);
    at += (1 + w[2] % KHOST__ARENA_GAP_UNITS) * KHOST__ARENA_ALIGN;
    a->offset[a->by_address[i]] = at;
    at += aligned(a->chunk_bytes);
  }
}

static int allocate(khost__arena *a, khost__err *err)
{
  /* One element at least: malloc(0) may answer NULL for an arena of no chunks. */
  a->offset = malloc((a->chunks + 1) * sizeof *a->offset);
  a->by_address = malloc((a->chunks + 1) * sizeof *a->by_address);
  if (a->offset && a->by_address) return KHOST__OK;
  khost__arena_free(a);
  return khost__errorf(err, KHOST__E_NOMEM, "out of memory for the placement of %zu chunks", a->chunks);
}

int khost__arena_make(khost__arena *a, const khost__tensor_spec *spec, uint64_t seed, int number,
                      khost__err *err)
{
  memset(a, 0, sizeof *a);
  a->chunks = chunk_count(spec);
  a->chunk_bytes = a->chunks ? spec->nbytes / a->chunks : 0;
  a->bytes = khost__arena_bytes(spec);
  int rc = allocate(a, err);
  if (rc == KHOST__OK) place(a, seed, number);
  return rc;
}

int khost__arena_copy(khost__arena *dst, const khost__arena *src, khost__err *err)
{
  *dst = *src;
  int rc = allocate(dst, err);
  if (rc != KHOST__OK) return rc;
  memcpy(dst->offset, src->offset, src->chunks * sizeof *src->offset);
  memcpy(dst->by_address, src->by_address, src->chunks * sizeof *src->by_address);
  return KHOST__OK;
}

void khost__arena_free(khost__arena *a)
{
  free(a->offset);
  free(a->by_address);
  memset(a, 0, sizeof *a);
}

void khost__arena_scatter(const khost__arena *a, const void *packed, void *image)
{
  memset(image, KHOST__POISON_BYTE, a->bytes);
  for (size_t c = 0; c < a->chunks; c++)
    memcpy((char *)image + a->offset[c], (const char *)packed + c * a->chunk_bytes, a->chunk_bytes);
}

void khost__arena_gather(const khost__arena *a, const void *image, void *packed)
{
  for (size_t c = 0; c < a->chunks; c++)
    memcpy((char *)packed + c * a->chunk_bytes, (const char *)image + a->offset[c], a->chunk_bytes);
}

static size_t first_written(const unsigned char *image, size_t from, size_t to)
{
  for (size_t i = from; i < to; i++)
    if (image[i] != KHOST__POISON_BYTE) return i;
  return SIZE_MAX;
}

size_t khost__arena_gap_written(const khost__arena *a, const void *image)
{
  size_t from = 0, found = SIZE_MAX;
  for (size_t i = 0; i < a->chunks && found == SIZE_MAX; i++) {
    size_t c = a->by_address[i];
    found = first_written(image, from, a->offset[c]);
    from = a->offset[c] + a->chunk_bytes;
  }
  return found != SIZE_MAX ? found : first_written(image, from, a->bytes);
}

/* The chunk at or before byte at in address order, or SIZE_MAX when at lies before the first. */
static size_t chunk_before(const khost__arena *a, size_t at)
{
  size_t lo = 0, hi = a->chunks;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->offset[a->by_address[mid]] <= at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? a->by_address[lo - 1] : SIZE_MAX;
}

void khost__arena_locate(const khost__arena *a, const khost__tensor_spec *spec, size_t at, char *buf,
                         size_t size)
{
  size_t c = chunk_before(a, at);
  if (c == SIZE_MAX) {
    snprintf(buf, size, "the gap before the first chunk");
    return;
  }
  /* The chunk's coordinates are those of its number in the leading dims alone. */
  khost__tensor_spec chunks = *spec;
  chunks.ndim = spec->chunk_dims;
  char name[160];
  khost__format_coords(&chunks, c, name, sizeof name);
  if (at < a->offset[c] + a->chunk_bytes)
    snprintf(buf, size, "chunk %s byte %zu", name, (size_t)(at - a->offset[c]));
  else
    snprintf(buf, size, "the gap after chunk %s", name);
}
