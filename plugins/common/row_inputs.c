#include "row_inputs.h"

#include <stdbool.h>

#include "input_checks.h"
#include "khost/ops.h"

static int classify(const khost_input *in, khost_dtype dtype, khost__rows *rows)
{
  if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 16 && dtype.lanes == 1)
    rows->type = KHOST__ROWS_FP16;
  else if (dtype.code == KHOST_DTYPE_BFLOAT && dtype.bits == 16 && dtype.lanes == 1)
    rows->type = KHOST__ROWS_BF16;
  else if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 32 && dtype.lanes == 1)
    rows->type = KHOST__ROWS_FP32;
  else
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "input dtype {code %u, bits %u, lanes %u} not handled (fp16, bf16 and fp32 are)",
                             dtype.code, dtype.bits, dtype.lanes);
  rows->dtype = dtype;
  rows->element_bytes = dtype.bits / 8;
  return KHOST_STATUS_OK;
}

/* Fills shape with the output shape for input [m, n]; returns its ndim. */
static int32_t output_shape(khost__rows_out out_shape, int64_t m, int64_t n, int64_t shape[2])
{
  if (out_shape == KHOST__ROWS_OUT_REDUCED) {
    shape[0] = m;
    return 1;
  }
  bool transposed = out_shape == KHOST__ROWS_OUT_TRANSPOSED;
  shape[0] = transposed ? n : m;
  shape[1] = transposed ? m : n;
  return 2;
}

int khost__rows_open(const khost_input *in, int32_t device_type, khost__rows_out out_shape, int64_t max_dim,
                     khost__rows *rows)
{
  *rows = (khost__rows){0};
  int status = khost__input_counts(in, 1, 1);
  if (status == KHOST_STATUS_OK) status = khost__input_param(in, "m", 1, INT64_MAX, &rows->m);
  if (status == KHOST_STATUS_OK) status = khost__input_param(in, "n", 1, INT64_MAX, &rows->n);
  if (status != KHOST_STATUS_OK) return status;
  const khost_tensor *input = khost_tensor_at(in->inputs, KHOST_ROWWISE_IN);
  const khost_tensor *output = khost_tensor_at(in->outputs, KHOST_ROWWISE_OUT);
  const int64_t in_shape[2] = {rows->m, rows->n};
  int64_t out_dims[2];
  int32_t out_ndim = output_shape(out_shape, rows->m, rows->n, out_dims);
  status = classify(in, input->dtype, rows);
  if (status == KHOST_STATUS_OK)
    status = khost__input_tensor(in, input, "input in", device_type, input->dtype, 2, in_shape);
  if (status == KHOST_STATUS_OK)
    status = khost__input_tensor(in, output, "output out", device_type, input->dtype, out_ndim, out_dims);
  if (status != KHOST_STATUS_OK) return status;
  if (rows->m > max_dim || rows->n > max_dim)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "m = %lld, n = %lld: each must be <= %lld",
                             (long long)rows->m, (long long)rows->n, (long long)max_dim);
  rows->in = input->data;
  rows->out = output->data;
  return KHOST_STATUS_OK;
}
