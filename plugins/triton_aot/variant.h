/* The table tools/triton_aot.py generates: one entry per compiled Triton kernel
 * variant, in manifest order (manifest.py). The generated C file defines it; the
 * launchers only read it. docs/TRITON_AOT.md describes the calling convention. */
#ifndef KHOST_TRITON_VARIANT_H
#define KHOST_TRITON_VARIANT_H

#include <stddef.h>
#include <stdint.h>

/* One compiled kernel. Static, generated; lives as long as the plugin. */
typedef struct khost__triton_variant {
  const char *name;     /* unique manifest name; KHOST_TRITON_VARIANT=<name> forces it */
  const char *op;       /* the catalog op it implements */
  const char *function; /* the Triton function, i.e. the kernel family ("softmax_tile") */
  const char *kernel;   /* entry symbol in the cubin */
  const char *args;     /* kernel parameters, one letter each (p pointer, i int32, l int64),
                           before the two scratch pointers every Triton 3 kernel also takes */
  uint8_t dtype_code;   /* khost_dtype of the elements it serves (DLPack code) */
  uint8_t dtype_bits;
  uint8_t aligned;                   /* 1: compiled on the promise of 16-byte aligned pointers and row
                                        lengths that are multiples of 16 elements */
  int32_t block_m, block_n, block_k; /* tile constants; 0 when the kernel has none */
  int32_t num_warps;
  int32_t num_stages;
  int32_t cluster;            /* programs per cluster along the grid's x (1: no cluster) */
  int32_t shared_bytes;       /* dynamic shared memory each launch needs */
  const unsigned char *cubin; /* sm_90a ELF image */
  size_t cubin_size;
  int32_t registers; /* per thread, as ptxas recorded them in the cubin */
} khost__triton_variant;

/* The generated table: khost__triton_nvariants entries. */
extern const khost__triton_variant khost__triton_variants[];
extern const int khost__triton_nvariants;

#endif
