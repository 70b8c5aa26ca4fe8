#include "rows.h"

#include <stdint.h>
#include <stdio.h>

#include "input_checks.h"
#include "launch.h"
#include "message.h"

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct rows_call {
  khost__triton_shape shape;
  const void *in;
  void *out;
} rows_call;

static int rows_of(const khost_input *in, khost__rows_out out_kind, rows_call *call)
{
  khost__rows rows;
  /* The kernels take 32-bit sizes. */
  int status = khost__rows_open(in, KHOST_DEVICE_CUDA, out_kind, INT32_MAX, &rows);
  if (status != KHOST_STATUS_OK) return status;
  const void *const pointers[] = {rows.in, rows.out};
  int rows_aligned = rows.n % 16 == 0 && (out_kind != KHOST__ROWS_OUT_TRANSPOSED || rows.m % 16 == 0);
  khost__triton_shape shape = {
      .m = rows.m,
      .n = rows.n,
      .dtype_code = rows.dtype.code,
      .dtype_bits = rows.dtype.bits,
      .aligned = rows_aligned && khost__input_aligned(pointers, 2, 16),
  };
  call->shape = shape;
  call->in = rows.in;
  call->out = rows.out;
  return KHOST_STATUS_OK;
}

static int prepare(const khost_input *in, const khost__triton_rows_op *op, rows_call *call,
                   const khost__triton_variant **v)
{
  int status = rows_of(in, op->out_kind, call);
  if (status != KHOST_STATUS_OK) return status;
  return khost__triton_select(&op->rule, &call->shape, v, in->error, in->error_size);
}

int khost__triton_rows_supports(const khost_input *in, const khost__triton_rows_op *op)
{
  rows_call call;
  const khost__triton_variant *v;
  return prepare(in, op, &call, &v);
}

static size_t workspace_of(const khost__triton_rows_op *op, const khost__triton_variant *v,
                           const khost__triton_shape *s)
{
  return op->workspace ? op->workspace(v, s) : 0;
}

int khost__triton_rows_workspace(const khost_input *in, const khost__triton_rows_op *op, size_t *bytes)
{
  rows_call call;
  const khost__triton_variant *v;
  int status = prepare(in, op, &call, &v);
  *bytes = status == KHOST_STATUS_OK ? workspace_of(op, v, &call.shape) : 0;
  return status;
}

int khost__triton_rows_run(const khost_input *in, const khost__triton_rows_op *op)
{
  rows_call call;
  const khost__triton_variant *v;
  int status = prepare(in, op, &call, &v);
  if (status != KHOST_STATUS_OK) return status;
  size_t scratch_bytes = workspace_of(op, v, &call.shape);
  status = khost__triton_check_workspace(in, v, scratch_bytes);
  if (status != KHOST_STATUS_OK) return status;
  int32_t m = (int32_t)call.shape.m, n = (int32_t)call.shape.n;
  void *args[] = {&call.in, &call.out, &m, &n, (void *)&in->workspace};
  const unsigned int grid[3] = {(unsigned int)op->programs(v, &call.shape), 1, 1};
  return khost__triton_launch(v, scratch_bytes ? "ppiip" : "ppii", args, grid, in->stream, in->error,
                              in->error_size);
}

int khost__triton_rows_describe(const khost_input *in, const khost__triton_rows_op *op, char *buf,
                                size_t size)
{
  rows_call call;
  const khost__triton_variant *v;
  int status = prepare(in, op, &call, &v);
  if (status == KHOST_STATUS_OK) snprintf(buf, size, "%s", v->name);
  return status;
}
