/* The launcher the float row ops share: params m and n, one fp16, bf16 or fp32
 * input [m, n], one output of the same dtype, kernels taking (x, y, m, n). Each op
 * file supplies its rule and grid. */
#ifndef KHOST_TRITON_ROWS_H
#define KHOST_TRITON_ROWS_H

#include "khost/plugin.h"
#include "row_inputs.h"
#include "select.h"

/* One row-wise op. Static. */
typedef struct khost__triton_rows_op {
  khost__rows_out out_kind;
  khost__triton_rule rule;
  /* Programs (the 1-D grid) variant v launches for s; cannot_run keeps it <= INT32_MAX. */
  int64_t (*programs)(const khost__triton_variant *v, const khost__triton_shape *s);
  /* Optional: the scratch bytes v needs for s, 0 for none. A variant that needs some
   * takes it as a fifth kernel argument, (x, y, m, n, scratch). */
  size_t (*workspace)(const khost__triton_variant *v, const khost__triton_shape *s);
} khost__triton_rows_op;

/* khost_kernel.supports for op: OK when a variant can run in, else UNSUPPORTED
 * (or INVALID_ARGUMENT for a malformed input) with the reason in in->error.
 * shape.aligned means: both pointers 16-byte aligned, n a multiple of 16, and m
 * too for a transposed output (its rows have m elements). */
int khost__triton_rows_supports(const khost_input *in, const khost__triton_rows_op *op);

/* khost_kernel.workspace_size for op: the selected variant's scratch bytes in *bytes. */
int khost__triton_rows_workspace(const khost_input *in, const khost__triton_rows_op *op, size_t *bytes);

/* khost_kernel.describe for op: the selected variant's name into buf. */
int khost__triton_rows_describe(const khost_input *in, const khost__triton_rows_op *op, char *buf,
                                size_t size);

/* khost_kernel.run for op: validates, selects and enqueues on in->stream. */
int khost__triton_rows_run(const khost_input *in, const khost__triton_rows_op *op);

#endif
