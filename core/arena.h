/* Arenas: a tensor placed in chunks, each at its own address inside one guarded
 * allocation, in an order shuffled from the seed and with poisoned gaps
 * between them, so that no kernel can assume the chunks contiguous or in
 * order. Kernels reach the chunks through pointer tables (catalog.h,
 * khost__tensor_spec.table_of); a write outside every chunk lands in a gap and
 * is named by the chunk it follows. */
#ifndef KHOST_ARENA_H
#define KHOST_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

/* Every chunk starts on this boundary, as blocks cut from one cudaMalloc'd
 * tensor do in the engines these layouts come from. */
#define KHOST__ARENA_ALIGN 256
/* Before each chunk a gap of 1 to this many ALIGN units (from the seed): never
 * none, so a chunk's overrun always reaches poison before any neighbour. */
#define KHOST__ARENA_GAP_UNITS 4

/* One arena's placement. Owned by the caller; release with khost__arena_free. */
typedef struct khost__arena {
  size_t chunks;      /* the product of the spec's first chunk_dims extents */
  size_t chunk_bytes; /* the bytes of one chunk's elements */
  size_t bytes;       /* the allocation: the bound of khost__arena_bytes */
  uint64_t *offset;   /* byte offset of each chunk, by chunk number */
  size_t *by_address; /* chunk numbers in the order of their offsets */
} khost__arena;

/* The arena's size for spec, whatever the seed: each chunk rounded up to the
 * alignment plus the largest gap. SIZE_MAX when it overflows. */
size_t khost__arena_bytes(const khost__tensor_spec *spec);

/* Allocates the placement of spec (an arena) and places it for (seed, number),
 * number being the tensor's number among the case's: 0 or KHOST__E_NOMEM. */
int khost__arena_make(khost__arena *a, const khost__tensor_spec *spec, uint64_t seed, int number,
                      khost__err *err);

/* A deep copy of src into *dst: 0 or KHOST__E_NOMEM. */
int khost__arena_copy(khost__arena *dst, const khost__arena *src, khost__err *err);

/* Frees what a owns and zeroes a; a zeroed a is a no-op. */
void khost__arena_free(khost__arena *a);

/* packed (spec order, chunk after chunk) into image (a->bytes): every chunk at
 * its offset, every other byte poison. */
void khost__arena_scatter(const khost__arena *a, const void *packed, void *image);

/* The chunks of image (a->bytes) into packed, in spec order. */
void khost__arena_gather(const khost__arena *a, const void *image, void *packed);

/* The first byte of image outside every chunk that no longer holds the poison
 * pattern, or SIZE_MAX when all of them do. */
size_t khost__arena_gap_written(const khost__arena *a, const void *image);

/* Names byte `at` of the arena of spec into buf: "chunk dst[b=1] byte 40", "the gap
 * after chunk dst[b=1]" or "the gap before the first chunk". */
void khost__arena_locate(const khost__arena *a, const khost__tensor_spec *spec, size_t at, char *buf,
                         size_t size);

#endif
