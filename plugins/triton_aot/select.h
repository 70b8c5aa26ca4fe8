/* Choosing one compiled variant for a call: the rule of each op (in its launcher
 * file) over the variants of the generated table, in manifest order, with the
 * KHOST_TRITON_VARIANT override for measuring every variant through khost. */
#ifndef KHOST_TRITON_SELECT_H
#define KHOST_TRITON_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

/* Name of the environment variable that forces a variant by name. */
#define KHOST_TRITON_VARIANT_ENV "KHOST_TRITON_VARIANT"

/* The facts of the device a rule may read. Plain value; 0 where not asked. */
typedef struct khost__triton_device {
  int sms; /* multiprocessors */
} khost__triton_device;

/* What a rule looks at in one call. Plain value; dimensions an op lacks are 0. */
typedef struct khost__triton_shape {
  int64_t m, n, k, l;
  uint8_t dtype_code, dtype_bits; /* the op's element type */
  int aligned;                    /* every pointer 16-byte aligned and the row lengths the op's kernels
                                     assume aligned multiples of 16 elements */
  khost__triton_device device;    /* all 0 where not asked (supports(), forced variants) */
  int64_t qm, qn, qk;             /* fp8_block_gemm's scale block shape */
} khost__triton_shape;

/* One op's rule. Static. */
typedef struct khost__triton_rule {
  const char *op;
  /* NULL when v can run s, else why not (a static string). */
  const char *(*cannot_run)(const khost__triton_variant *v, const khost__triton_shape *s);
  /* Nonzero when v is a good choice for s among the variants that can run it. */
  int (*preferred)(const khost__triton_variant *v, const khost__triton_shape *s);
} khost__triton_rule;

/* Stores the variant for s in *out (a static table entry): the one named by
 * KHOST_TRITON_VARIANT when it is a variant of this op; else the first variant of
 * the op, in manifest order, that can run s and is preferred; else the last one
 * that can run s. KHOST_STATUS_UNSUPPORTED with the reason when there is none, or
 * when the forced variant cannot run s; KHOST_STATUS_INTERNAL when it names no variant. */
int khost__triton_select(const khost__triton_rule *rule, const khost__triton_shape *s,
                         const khost__triton_variant **out, char *err, size_t err_size);

/* Nonzero when KHOST_TRITON_VARIANT decides op's variant (it names one of op's
 * variants, or none at all): khost__triton_select then asks no rule, so a caller
 * need not gather the device facts only a rule reads. */
int khost__triton_forces(const char *op);

/* The variant called name in the generated table (static), or NULL. */
const khost__triton_variant *khost__triton_find_variant(const char *name);

/* How many programs of v fit one sm_90 multiprocessor by its register file (64K
 * registers, given to each warp in units of 256) and its caps of 32 programs and 64
 * warps; shared memory is not counted. 0 when v's register count is unknown. A rule
 * that sizes a wave reads it, so that the wave follows the registers a Triton version
 * gives the kernel. */
int khost__triton_programs_per_sm(const khost__triton_variant *v);

/* The part of cannot_run every op shares: the element type (only its size when
 * size_only) and the alignment promise. NULL when both hold. */
const char *khost__triton_misfit(const khost__triton_variant *v, const khost__triton_shape *s, int size_only);

#endif
