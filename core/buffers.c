#include "buffers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "khost/plugin.h"
#include "memory.h"

/* Not a constant byte: a stray memset or a copy of the neighbour cannot match it. */
static void guard_pattern(unsigned char *dst, size_t n, int side)
{
  for (size_t i = 0; i < n; i++) dst[i] = (unsigned char)(0xA5 ^ (i * 0x3B) ^ (side * 0x5C));
}

static int put(khost__buffer *b, size_t offset, const void *src, size_t n, khost__err *err)
{
  if (b->device_type == KHOST_DEVICE_CPU) {
    memcpy(b->base + offset, src, n);
    return KHOST__OK;
  }
  return khost__cuda_upload(b->base + offset, src, n, err);
}

static int get(const khost__buffer *b, size_t offset, void *dst, size_t n, khost__err *err)
{
  if (b->device_type == KHOST_DEVICE_CPU) {
    memcpy(dst, b->base + offset, n);
    return KHOST__OK;
  }
  return khost__cuda_download(dst, b->base + offset, n, err);
}

/* 256-byte alignment of data, as cudaMalloc gives, so CPU kernels may
 * vectorise. The memory is written at once: a later check of what is available
 * must see it taken, which the kernel counts only once it is touched. */
static int host_alloc(khost__buffer *b, size_t total, const char *name, khost__err *err)
{
  int rc = khost__memory_check(total, name, err);
  if (rc != KHOST__OK) return rc;
  b->base = aligned_alloc(256, (total + 255) / 256 * 256);
  if (!b->base) return khost__errorf(err, KHOST__E_NOMEM, "out of host memory for %zu bytes", b->nbytes);
  memset(b->base, KHOST__POISON_BYTE, total);
  return KHOST__OK;
}

/* Checked against the device's free memory first: a failed cudaMalloc would
 * not say how much was asked for and how much was there. */
static int device_alloc(khost__buffer *b, size_t total, const char *name, khost__err *err)
{
  size_t free_bytes = 0;
  int rc = khost__cuda_memory_free(&free_bytes, err);
  if (rc == KHOST__OK) rc = khost__memory_fits(total, free_bytes, "CUDA device", name, err);
  return rc == KHOST__OK ? khost__cuda_malloc((void **)&b->base, total, err) : rc;
}

int khost__buffer_alloc(khost__buffer *b, int device_type, size_t nbytes, const char *name, khost__err *err)
{
  memset(b, 0, sizeof *b);
  b->device_type = device_type;
  b->nbytes = nbytes;
  /* Sizes come from plugins too (workspace_size()); the guards and the
   * rounding below must not wrap a huge one into a small block. */
  if (nbytes > SIZE_MAX - 2 * KHOST__GUARD_BYTES - 255)
    return khost__errorf(err, KHOST__E_NOMEM, "cannot allocate %zu bytes plus guards", nbytes);
  size_t total = nbytes + 2 * KHOST__GUARD_BYTES;
  int rc =
      device_type == KHOST_DEVICE_CPU ? host_alloc(b, total, name, err) : device_alloc(b, total, name, err);
  if (rc != KHOST__OK) return rc;
  b->data = b->base + KHOST__GUARD_BYTES;
  if ((rc = khost__buffer_reset_guards(b, err)) != KHOST__OK) khost__buffer_free(b);
  return rc;
}

int khost__buffer_reset_guards(khost__buffer *b, khost__err *err)
{
  unsigned char pattern[KHOST__GUARD_BYTES];
  guard_pattern(pattern, sizeof pattern, 0);
  int rc = put(b, 0, pattern, sizeof pattern, err);
  guard_pattern(pattern, sizeof pattern, 1);
  if (rc == KHOST__OK) rc = put(b, KHOST__GUARD_BYTES + b->nbytes, pattern, sizeof pattern, err);
  return rc;
}

void khost__buffer_free(khost__buffer *b)
{
  if (b->base && b->device_type == KHOST_DEVICE_CPU)
    free(b->base);
  else if (b->base)
    khost__cuda_free(b->base);
  memset(b, 0, sizeof *b);
}

int khost__buffer_write(khost__buffer *b, const void *src, khost__err *err)
{
  return put(b, KHOST__GUARD_BYTES, src, b->nbytes, err);
}

int khost__buffer_read(const khost__buffer *b, void *dst, khost__err *err)
{
  return get(b, KHOST__GUARD_BYTES, dst, b->nbytes, err);
}

int khost__buffer_poison(khost__buffer *b, khost__err *err)
{
  if (b->device_type == KHOST_DEVICE_CPU) {
    memset(b->data, KHOST__POISON_BYTE, b->nbytes);
    return KHOST__OK;
  }
  return khost__cuda_memset(b->data, KHOST__POISON_BYTE, b->nbytes, err);
}

/* Bytes of the band that differ from the pattern, 0 when intact. */
static size_t damaged(const unsigned char *band, int side)
{
  unsigned char pattern[KHOST__GUARD_BYTES];
  guard_pattern(pattern, sizeof pattern, side);
  size_t n = 0;
  for (size_t i = 0; i < sizeof pattern; i++) n += band[i] != pattern[i];
  return n;
}

int khost__buffer_check_guards(const khost__buffer *b, const char *name, khost__err *err)
{
  unsigned char band[KHOST__GUARD_BYTES];
  int rc = get(b, 0, band, sizeof band, err);
  if (rc != KHOST__OK) return rc;
  size_t below = damaged(band, 0);
  if ((rc = get(b, KHOST__GUARD_BYTES + b->nbytes, band, sizeof band, err)) != KHOST__OK) return rc;
  size_t above = damaged(band, 1);
  if (below)
    return khost__errorf(err, KHOST__E_FAIL, "%s: %zu guard bytes overwritten below the start", name, below);
  if (above)
    return khost__errorf(err, KHOST__E_FAIL, "%s: %zu guard bytes overwritten past the end", name, above);
  return KHOST__OK;
}

uint64_t khost__hash_bytes(const void *data, size_t n)
{
  const unsigned char *p = data;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
  return h;
}
