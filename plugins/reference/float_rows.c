/* What the row-wise float ops (copy_transpose, reduce_sum, softmax_online) share:
 * validation of the [m, n] input and its output, and exact element access. */
#include <pthread.h>
#include <stdbool.h>

#include "formats.h"
#include "reference.h"

/* 16-bit pattern -> value, for fp16 and bf16 (every such value is exact in
 * float). Filled once per process; read-only afterwards. */
static float widen_fp16[1 << 16];
static float widen_bf16[1 << 16];
static pthread_once_t widen_once = PTHREAD_ONCE_INIT;

static void fill_widen_tables(void)
{
  for (uint32_t bits = 0; bits < (1u << 16); bits++) {
    widen_fp16[bits] = (float)khost__fp16_decode((uint16_t)bits);
    widen_bf16[bits] = (float)khost__bf16_decode((uint16_t)bits);
  }
}

static int classify(const khost_input *in, khost_dtype dtype, khost__reference_rows *rows)
{
  if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 16 && dtype.lanes == 1) {
    rows->type = KHOST__REFERENCE_FP16;
  } else if (dtype.code == KHOST_DTYPE_BFLOAT && dtype.bits == 16 && dtype.lanes == 1) {
    rows->type = KHOST__REFERENCE_BF16;
  } else if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 32 && dtype.lanes == 1) {
    rows->type = KHOST__REFERENCE_FP32;
  } else {
    return khost__reference_fail(in, KHOST_STATUS_UNSUPPORTED,
                                 "input dtype {code %u, bits %u, lanes %u} not handled "
                                 "(fp16, bf16 and fp32 are)",
                                 dtype.code, dtype.bits, dtype.lanes);
  }
  rows->element_bytes = dtype.bits / 8;
  if (rows->type != KHOST__REFERENCE_FP32) {
    pthread_once(&widen_once, fill_widen_tables);
    rows->widen = rows->type == KHOST__REFERENCE_FP16 ? widen_fp16 : widen_bf16;
  }
  return KHOST_STATUS_OK;
}

/* Fills shape with the output shape for input [m, n]; returns its ndim. */
static int32_t output_shape(khost__reference_rows_out out_shape, int64_t m, int64_t n, int64_t shape[2])
{
  if (out_shape == KHOST__REFERENCE_OUT_REDUCED) {
    shape[0] = m;
    return 1;
  }
  bool transposed = out_shape == KHOST__REFERENCE_OUT_TRANSPOSED;
  shape[0] = transposed ? n : m;
  shape[1] = transposed ? m : n;
  return 2;
}

int khost__reference_rows_open(const khost_input *in, int32_t device_type,
                               khost__reference_rows_out out_shape, khost__reference_rows *rows)
{
  *rows = (khost__reference_rows){0};
  int status = khost__reference_check_counts(in, 1, 1);
  if (status == KHOST_STATUS_OK) status = khost__reference_param(in, "m", 1, &rows->m);
  if (status == KHOST_STATUS_OK) status = khost__reference_param(in, "n", 1, &rows->n);
  if (status != KHOST_STATUS_OK) return status;
  const khost_tensor *input = khost_tensor_at(in->inputs, KHOST_ROWWISE_IN);
  const khost_tensor *output = khost_tensor_at(in->outputs, KHOST_ROWWISE_OUT);
  const int64_t in_shape[2] = {rows->m, rows->n};
  int64_t out_dims[2];
  int32_t out_ndim = output_shape(out_shape, rows->m, rows->n, out_dims);
  status = classify(in, input->dtype, rows);
  if (status == KHOST_STATUS_OK)
    status = khost__reference_check_tensor(in, input, "input in", device_type, input->dtype, 2, in_shape);
  if (status == KHOST_STATUS_OK)
    status = khost__reference_check_tensor(in, output, "output out", device_type, input->dtype, out_ndim,
                                           out_dims);
  if (status != KHOST_STATUS_OK) return status;
  rows->in = input->data;
  rows->out = output->data;
  return KHOST_STATUS_OK;
}

void khost__reference_rows_store(const khost__reference_rows *rows, size_t index, double value)
{
  switch (rows->type) {
  case KHOST__REFERENCE_FP16: ((uint16_t *)rows->out)[index] = khost__fp16_encode(value); break;
  case KHOST__REFERENCE_BF16: ((uint16_t *)rows->out)[index] = khost__bf16_encode(value); break;
  case KHOST__REFERENCE_FP32: ((float *)rows->out)[index] = khost__fp32_encode(value); break;
  }
}
