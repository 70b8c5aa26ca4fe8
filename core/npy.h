/* Tensor dumps as NumPy .npy files (format version 1.0), readable by numpy.load. */
#ifndef KHOST_NPY_H
#define KHOST_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "error.h"

/* How a khost element type is stored in .npy (its descr from dtype.h). NumPy has
 * no bf16, fp8 or fp4, so those keep their raw bits: bf16 as '<u2', the fp8 types
 * as '|u1', and packed e2m1 as '|u1' bytes with the last dimension halved. Plain
 * value; descr is static. */
typedef struct khost__npy_layout {
  const char *descr;
  int ndim;
  int64_t shape[KHOST_MAX_DIMS];
} khost__npy_layout;

/* Fills out for a tensor of dtype with the given logical shape (in elements).
 * KHOST__E_CONFIG for an odd last dimension of e2m1 or a bad ndim. */
int khost__npy_layout_of(khost__dtype_id dtype, int ndim, const int64_t *shape, khost__npy_layout *out,
                         khost__err *err);

/* Writes path (from the start folder, start_folder.h) as an .npy of C-order
 * array shape[ndim] of type descr ("<f2", "<f4", "|u1", "<u2", ...); data
 * (borrowed) must hold exactly the nbytes the shape and the descr's item size
 * call for. A partly written file is removed. */
int khost__npy_write(const char *path, const char *descr, int ndim, const int64_t *shape, const void *data,
                     size_t nbytes, khost__err *err);

/* Dumps one tensor of a case (spec and data borrowed; data holds spec->nbytes). */
int khost__npy_write_tensor(const char *path, const khost__tensor_spec *spec, const void *data,
                            khost__err *err);

#endif
