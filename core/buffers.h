/* Buffers with guard bands: every tensor a kernel sees sits between two bands
 * of a known pattern, checked after each call, so an out-of-bounds write is
 * caught and named (buffer and side) instead of silently corrupting a neighbour. */
#ifndef KHOST_BUFFERS_H
#define KHOST_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define KHOST__GUARD_BYTES 4096
/* Outputs are filled with this byte before each call: 0xff.. is a NaN in fp16,
 * bf16 and fp32, so an unwritten element can never pass the check. */
#define KHOST__POISON_BYTE 0xff

/* A guarded allocation on the host (device_type KHOST_DEVICE_CPU) or a CUDA
 * device. Owned by the caller; release with khost__buffer_free. */
typedef struct khost__buffer {
  int device_type;
  unsigned char *base; /* start of the allocation (guard below data) */
  void *data;          /* what kernels see */
  size_t nbytes;
} khost__buffer;

/* Allocates nbytes plus two guard bands and writes the guard pattern, after
 * checking that the memory is there (KHOST__E_NOMEM naming the buffer's name
 * and both amounts when it is not). Host memory is written through at once,
 * so that the next check sees it taken. */
int khost__buffer_alloc(khost__buffer *b, int device_type, size_t nbytes, const char *name, khost__err *err);
/* Frees the memory b owns (host or device) and zeroes b; a zeroed b is a no-op. */
void khost__buffer_free(khost__buffer *b);

/* Rewrites both guard bands (after a kernel overwrote them). */
int khost__buffer_reset_guards(khost__buffer *b, khost__err *err);

/* Copies host memory into the buffer's data (any device). */
int khost__buffer_write(khost__buffer *b, const void *src, khost__err *err);
/* Copies the buffer's data into host memory dst (nbytes). */
int khost__buffer_read(const khost__buffer *b, void *dst, khost__err *err);
/* Fills data with KHOST__POISON_BYTE. */
int khost__buffer_poison(khost__buffer *b, khost__err *err);

/* 0 when both guards are intact; else KHOST__E_FAIL with "NAME: N bytes
 * overwritten below the start" / "... past the end" in err. */
int khost__buffer_check_guards(const khost__buffer *b, const char *name, khost__err *err);

/* 64-bit FNV-1a of host bytes (input-mutation checks compare these). */
uint64_t khost__hash_bytes(const void *data, size_t n);

#endif
