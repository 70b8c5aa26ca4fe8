/* The op catalog: every op khost knows, described once (parameters and their
 * rules, tensors, input generator, FLOP/byte counts, tolerances). The loader,
 * runner, checker and reporters only ever see these descriptions. */
#ifndef KHOST_CATALOG_H
#define KHOST_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "error.h"
#include "khost/plugin.h"

#define KHOST__MAX_PARAMS  8
#define KHOST__MAX_TENSORS 8
#define KHOST__NAME_MAX    64

/* The kinds of case parameters. DTYPE values are stored as khost__dtype_id, ENUM
 * values as the index of their name (and handed to plugins as that integer). */
typedef enum { KHOST__PARAM_INT, KHOST__PARAM_DTYPE, KHOST__PARAM_ENUM } khost__param_kind;

/* One parameter's rule: an integer in [min, max] (multiple_of when > 1), a
 * dtype among `dtypes` (a bit mask of 1u << khost__dtype_id), or one of `names`.
 * Static. */
typedef struct khost__param_spec {
  const char *name;
  khost__param_kind kind;
  int64_t min, max, multiple_of; /* INT only */
  unsigned dtypes;               /* DTYPE only */
  bool has_default;
  int64_t default_value;
  const char *const *names; /* ENUM only: the suite names of values 0, 1, ..., NULL-terminated */
} khost__param_spec;

/* A case: one op with concrete parameters, a seed and tolerances, as read from
 * a suite. Plain value; owned by whoever holds it. */
typedef struct khost__case {
  char name[KHOST__NAME_MAX];
  const struct khost__op *op;
  int64_t params[KHOST__MAX_PARAMS]; /* in the order of op->params */
  uint64_t seed;
  double atol, rtol; /* in force: the op's defaults unless the suite overrode them */
  char file[4096];   /* the suite file the case is in, whole (as khost__suite holds it), for messages */
  int line;
  int index; /* its place among the suite file's cases, from 0: the order a merge of shards restores */
} khost__case;

/* The shape and type of one tensor, derived from a case. Plain value. */
typedef struct khost__tensor_spec {
  const char *name;
  khost__dtype_id dtype;
  int ndim;
  int64_t shape[KHOST_MAX_DIMS];
  const char *dim_names[KHOST_MAX_DIMS]; /* for error reports: "batch", "row", ... */
  size_t nbytes;                         /* the packed elements of shape */
  /* An arena (core/arena.h): the first chunk_dims dims number chunks, each placed
   * at its own address inside one allocation, with poisoned gaps; 0 for a plain
   * tensor. Its elements stay in shape's order, chunk after chunk, wherever the
   * host holds them whole (generated inputs, reference outputs, --dump). */
  int chunk_dims;
  /* A pointer table: u64 [chunks of its arena], entry i the address of chunk i,
   * filled by khost for each call on the kernel's device. table_of is that
   * arena's number among the case's tensors (inputs, then outputs); -1 when
   * the tensor is no table. */
  int table_of;
} khost__tensor_spec;

/* Fills *t for a row-major tensor (name and dim_names static). nbytes is the packed
 * storage of shape's elements, or SIZE_MAX when that overflows (validate refuses it). */
void khost__tensor_spec_fill(khost__tensor_spec *t, const char *name, khost__dtype_id dtype, int ndim,
                             const int64_t *shape, const char *const *dim_names);

/* Makes *t (filled) an arena whose first chunk_dims dims number its chunks. */
void khost__tensor_spec_arena(khost__tensor_spec *t, int chunk_dims);

/* Fills *t as the pointer table "name" of arena (a filled spec), whose number among
 * the case's tensors is arena_number: u64 [chunks], dim "chunk". */
void khost__tensor_spec_table(khost__tensor_spec *t, const char *name, const khost__tensor_spec *arena,
                              int arena_number);

/* The bytes t takes where a kernel reads or writes it: nbytes for a plain tensor,
 * the arena's size for an arena (core/arena.h), SIZE_MAX on overflow. */
size_t khost__tensor_storage_bytes(const khost__tensor_spec *t);

/* The elements of t's shape (of a validated case: the product does not overflow). */
size_t khost__tensor_elements(const khost__tensor_spec *t);

/* The tensors of a case. Plain value. */
typedef struct khost__tensor_set {
  int ninputs, noutputs;
  khost__tensor_spec inputs[KHOST__MAX_TENSORS];
  khost__tensor_spec outputs[KHOST__MAX_TENSORS];
} khost__tensor_set;

struct khost__variation;

/* One op. Static; listed in core/ops/meson.build. Every function is pure. */
typedef struct khost__op {
  const char *name;
  const char *summary;
  int nparams;
  const khost__param_spec *params;
  /* Rules across parameters; the message names case, parameter and rule. NULL when
   * there are none. Tensor sizes are checked by khost__case_validate from tensors(). */
  int (*validate)(const khost__case *c, khost__err *err);
  void (*tensors)(const khost__case *c, khost__tensor_set *out);
  /* Fills input tensor `index` (storage of spec->nbytes at dst) for `seed`;
   * element e of a tensor depends only on (seed, index, e). */
  void (*generate)(const khost__case *c, uint64_t seed, int index, void *dst);
  double (*flops)(const khost__case *c);
  double (*bytes)(const khost__case *c); /* fewest bytes a kernel must move */
  /* Default tolerances for this case (the reason is documented in the op's file). */
  void (*tolerance)(const khost__case *c, double *atol, double *rtol);
  /* How each timed call's inputs differ from every earlier call's, with the
   * outputs known exactly (core/variation.h): fills *out for the case's tensors. */
  void (*vary)(const khost__case *c, struct khost__variation *out);
  /* Optional (NULL for none): the part of the error model that depends on the data,
   * not on |ref|. Fills bound[e] for every element e of output `output` with the
   * error element e may carry on top of atol + rtol * |ref|, for the generated
   * inputs (host memory, in tensor order). 0, or KHOST__E_NOMEM. Called once per
   * input set, beside the oracle; the check adds bound[e] unless atol and rtol are
   * both 0 (bit-exact). */
  int (*error_bound)(const khost__case *c, const void *const *inputs, int output, float *bound);
  /* Optional (NULL for none): the matrix peak (a khost__peak_type, core/matrix_peak.h)
   * whose rate bounds the case's FLOPs, for ops whose FLOPs are tensor-core work;
   * their speed of light is the slower of their bytes and their FLOPs at that peak. */
  int (*matrix_peak)(const khost__case *c);
} khost__op;

/* All ops, NULL-terminated. Static. */
const khost__op *const *khost__catalog_ops(void);
/* The op called name, or NULL. Static result. */
const khost__op *khost__catalog_find(const char *name);
/* Comma-separated names of all ops, in a static buffer (for error messages). */
const char *khost__catalog_names(void);

/* Index of parameter `name` in op, or -1. */
int khost__op_param_index(const khost__op *op, const char *name);
/* The value of parameter `name` of a case (must exist). */
int64_t khost__case_param(const khost__case *c, const char *name);

/* A parameter value the suite did not give; khost__case_validate puts the default in. */
#define KHOST__PARAM_UNSET INT64_MIN

/* Sets *c (overwritten) to a case of op called name: every parameter unset, seed 0,
 * atol and rtol unset (NaN), file empty. name is copied (truncated to fit). */
void khost__case_init(khost__case *c, const khost__op *op, const char *name);

/* Sets parameter key of c from its suite text ("4096", "bf16"). 0, or KHOST__E_CONFIG
 * with "case NAME: op ..." for an unknown key, a malformed integer or an unknown dtype. */
int khost__case_set_param(khost__case *c, const char *key, const char *text, khost__err *err);

/* Checks every parameter against its spec, then op->validate; fills defaults
 * first. Refuses a tensor whose bytes (or storage bytes) overflow or exceed
 * KHOST__MAX_TENSOR_BYTES.
 * Then puts the op's default tolerances in place of unset (NaN) atol/rtol.
 * 0 or KHOST__E_CONFIG with "case NAME: op needs ..." in err. */
int khost__case_validate(khost__case *c, khost__err *err);

/* Writes the parameters of a validated case as "m=128 k=4096 l=1" (dtypes by
 * name) into buf (n bytes, truncated to fit, always NUL-terminated). */
void khost__case_format_params(const khost__case *c, char *buf, size_t n);

/* Multiplies sizes, refusing overflow: 0 with *out set, or KHOST__E_CONFIG. */
int khost__size_mul(size_t a, size_t b, size_t *out);

/* Largest bytes one tensor may take before khost refuses a case (default 32 GiB). */
#define KHOST__MAX_TENSOR_BYTES ((size_t)32 << 30)

#endif
