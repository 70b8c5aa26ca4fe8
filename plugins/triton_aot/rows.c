#include "rows.h"

#include <stdint.h>

#include "inputs.h"
#include "launch.h"
#include "message.h"

/* A validated call. Pointers are the host's device memory, valid for the call. */
typedef struct rows_call {
  khost__triton_shape shape;
  void *in;
  void *out;
} rows_call;

static int float_type(khost_dtype dtype)
{
  return dtype.lanes == 1 && ((dtype.code == KHOST_DTYPE_FLOAT && (dtype.bits == 16 || dtype.bits == 32)) ||
                              (dtype.code == KHOST_DTYPE_BFLOAT && dtype.bits == 16));
}

static int rows_of(const khost_input *in, khost__triton_rows_out out_kind, rows_call *call)
{
  int64_t m, n;
  int status = khost__triton_check_counts(in, 1, 1);
  if (status == KHOST_STATUS_OK) status = khost__triton_param(in, "m", 1, &m);
  if (status == KHOST_STATUS_OK) status = khost__triton_param(in, "n", 1, &n);
  if (status != KHOST_STATUS_OK) return status;
  const khost_tensor *x = khost_tensor_at(in->inputs, 0);
  const khost_tensor *y = khost_tensor_at(in->outputs, 0);
  if (!float_type(x->dtype))
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_UNSUPPORTED,
                                "%s: only fp16, bf16 and fp32 are compiled", in->op ? in->op : "?");
  const int64_t in_shape[2] = {m, n};
  const int64_t out_shapes[3][2] = {{m, n}, {n, m}, {m, 0}};
  int32_t out_ndim = out_kind == KHOST__TRITON_OUT_REDUCED ? 1 : 2;
  status = khost__triton_check_tensor(in, x, x->dtype.code, x->dtype.bits, 2, in_shape);
  if (status == KHOST_STATUS_OK)
    status = khost__triton_check_tensor(in, y, x->dtype.code, x->dtype.bits, out_ndim, out_shapes[out_kind]);
  if (status != KHOST_STATUS_OK) return status;
  int rows_aligned = n % 16 == 0 && (out_kind != KHOST__TRITON_OUT_TRANSPOSED || m % 16 == 0);
  khost__triton_shape shape = {
      .m = m,
      .n = n,
      .dtype_code = x->dtype.code,
      .dtype_bits = x->dtype.bits,
      .aligned = rows_aligned && khost__triton_aligned16(x->data) && khost__triton_aligned16(y->data),
  };
  call->shape = shape;
  call->in = x->data;
  call->out = y->data;
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

int khost__triton_rows_run(const khost_input *in, const khost__triton_rows_op *op)
{
  rows_call call;
  const khost__triton_variant *v;
  int status = prepare(in, op, &call, &v);
  if (status != KHOST_STATUS_OK) return status;
  int32_t m = (int32_t)call.shape.m, n = (int32_t)call.shape.n;
  void *args[] = {&call.in, &call.out, &m, &n};
  const unsigned int grid[3] = {(unsigned int)op->programs(v, &call.shape), 1, 1};
  return khost__triton_launch(v, "ppii", args, grid, in->stream, in->error, in->error_size);
}
