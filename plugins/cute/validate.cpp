/* Input validation and error messages shared by the cute kernels. A kernel
 * launched on a malformed tensor would fault the whole worker process, so every
 * tensor is checked against the shape the op's parameters imply first. */
#include "cute.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A tensor is usable only when the host filled every field this plugin reads. */
#define TENSOR_MIN_SIZE (offsetof(khost_tensor, nbytes) + sizeof(size_t))

int khost__cute_fail(const khost_input *in, int status, const char *fmt, ...)
{
  if (in->error && in->error_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->error, in->error_size, fmt, ap);
    va_end(ap);
  }
  return status;
}

int khost__cute_cuda_fail(const khost_input *in, const char *file, int line, cudaError_t error)
{
  const char *slash = strrchr(file, '/');
  return khost__cute_fail(in, KHOST_STATUS_DEVICE_ERROR, "%s:%d: %s: %s", slash ? slash + 1 : file, line,
                          cudaGetErrorName(error), cudaGetErrorString(error));
}

static const char *op_name(const khost_input *in)
{
  return in->op ? in->op : "(unnamed op)";
}

int khost__cute_param(const khost_input *in, const char *name, int64_t min, int64_t *out)
{
  int64_t value = khost_param_get(in, name, INT64_MIN);
  if (value == INT64_MIN)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: parameter %s is missing", op_name(in),
                            name);
  if (value < min)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: parameter %s = %lld, must be >= %lld",
                            op_name(in), name, (long long)value, (long long)min);
  *out = value;
  return KHOST_STATUS_OK;
}

static bool array_usable(const khost_tensor *array, int32_t count)
{
  return count == 0 || (array && array->struct_size >= TENSOR_MIN_SIZE);
}

int khost__cute_check_counts(const khost_input *in, int32_t ninputs, int32_t noutputs)
{
  if (in->ninputs != ninputs || in->noutputs != noutputs)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                            "%s: expected %d inputs and %d outputs, got %d and %d", op_name(in), ninputs,
                            noutputs, in->ninputs, in->noutputs);
  if (!array_usable(in->inputs, ninputs) || !array_usable(in->outputs, noutputs))
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                            "%s: tensor array missing or its struct_size below %zu", op_name(in),
                            TENSOR_MIN_SIZE);
  return KHOST_STATUS_OK;
}

const khost_tensor *khost__cute_tensor(const khost_tensor *array, int32_t index)
{
  return (const khost_tensor *)((const char *)array + (size_t)index * array->struct_size);
}

/* Bytes a contiguous tensor of this shape occupies (sub-byte types packed along
 * the last dimension); false on overflow or a row that does not end on a byte. */
static bool contiguous_bytes(khost_dtype dtype, int32_t ndim, const int64_t *shape, size_t *bytes)
{
  size_t rows = 1;
  for (int32_t d = 0; d + 1 < ndim; d++)
    if (__builtin_mul_overflow(rows, (size_t)shape[d], &rows)) return false;
  size_t row_bits;
  if (__builtin_mul_overflow((size_t)shape[ndim - 1], (size_t)dtype.bits, &row_bits)) return false;
  if (row_bits % 8 != 0) return false;
  return !__builtin_mul_overflow(rows, row_bits / 8, bytes);
}

static int check_layout(const khost_input *in, const khost_tensor *t, const char *role, int32_t ndim,
                        const int64_t *shape)
{
  for (int32_t d = 0; d < ndim; d++)
    if (t->shape[d] != shape[d])
      return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                              "%s: %s: dimension %d is %lld, the parameters imply %lld", op_name(in), role, d,
                              (long long)t->shape[d], (long long)shape[d]);
  int64_t stride = 1;
  for (int32_t d = ndim - 1; t->strides && d >= 0; d--) {
    if (t->strides[d] != stride)
      return khost__cute_fail(in, KHOST_STATUS_UNSUPPORTED,
                              "%s: %s: stride %d is %lld, only contiguous row-major (%lld) is handled",
                              op_name(in), role, d, (long long)t->strides[d], (long long)stride);
    if (__builtin_mul_overflow(stride, shape[d], &stride))
      return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: %s: shape overflows", op_name(in),
                              role);
  }
  return KHOST_STATUS_OK;
}

int khost__cute_check_tensor(const khost_input *in, const khost_tensor *t, const char *role, khost_dtype want,
                             int32_t ndim, const int64_t *shape)
{
  if (t->device_type != KHOST_DEVICE_CUDA)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                            "%s: %s: device type %d, the cute kernels read CUDA device memory only",
                            op_name(in), role, t->device_type);
  if (t->dtype.code != want.code || t->dtype.bits != want.bits || t->dtype.lanes != 1)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                            "%s: %s: dtype {code %u, bits %u, lanes %u}, expected {code %u, bits %u, "
                            "lanes 1}",
                            op_name(in), role, t->dtype.code, t->dtype.bits, t->dtype.lanes, want.code,
                            want.bits);
  if (t->ndim != ndim || !t->shape)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: %s: ndim %d, expected %d", op_name(in),
                            role, t->ndim, ndim);
  int status = check_layout(in, t, role, ndim, shape);
  if (status != KHOST_STATUS_OK) return status;
  size_t need;
  if (!contiguous_bytes(t->dtype, ndim, shape, &need))
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: %s: shape overflows or splits a byte",
                            op_name(in), role);
  if (!t->data || t->nbytes < need)
    return khost__cute_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                            "%s: %s: storage of %zu bytes at %p, the shape needs %zu", op_name(in), role,
                            t->nbytes, t->data, need);
  return KHOST_STATUS_OK;
}

static int classify(const khost_input *in, khost_dtype dtype, khost__cute_rows *rows)
{
  if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 16 && dtype.lanes == 1)
    rows->type = KHOST__CUTE_FP16;
  else if (dtype.code == KHOST_DTYPE_BFLOAT && dtype.bits == 16 && dtype.lanes == 1)
    rows->type = KHOST__CUTE_BF16;
  else if (dtype.code == KHOST_DTYPE_FLOAT && dtype.bits == 32 && dtype.lanes == 1)
    rows->type = KHOST__CUTE_FP32;
  else
    return khost__cute_fail(in, KHOST_STATUS_UNSUPPORTED,
                            "%s: input dtype {code %u, bits %u, lanes %u} not handled "
                            "(fp16, bf16 and fp32 are)",
                            op_name(in), dtype.code, dtype.bits, dtype.lanes);
  rows->element_bytes = dtype.bits / 8;
  return KHOST_STATUS_OK;
}

/* Fills shape with the output shape for input [m, n]; returns its ndim. */
static int32_t output_shape(khost__cute_rows_out out_shape, int64_t m, int64_t n, int64_t shape[2])
{
  if (out_shape == KHOST__CUTE_OUT_REDUCED) {
    shape[0] = m;
    return 1;
  }
  bool transposed = out_shape == KHOST__CUTE_OUT_TRANSPOSED;
  shape[0] = transposed ? n : m;
  shape[1] = transposed ? m : n;
  return 2;
}

int khost__cute_rows_open(const khost_input *in, khost__cute_rows_out out_shape, khost__cute_rows *rows)
{
  *rows = khost__cute_rows{};
  int status = khost__cute_check_counts(in, 1, 1);
  if (status == KHOST_STATUS_OK) status = khost__cute_param(in, "m", 1, &rows->m);
  if (status == KHOST_STATUS_OK) status = khost__cute_param(in, "n", 1, &rows->n);
  if (status != KHOST_STATUS_OK) return status;
  const khost_tensor *input = khost__cute_tensor(in->inputs, KHOST_ROWWISE_IN);
  const khost_tensor *output = khost__cute_tensor(in->outputs, KHOST_ROWWISE_OUT);
  const int64_t in_shape[2] = {rows->m, rows->n};
  int64_t out_dims[2];
  int32_t out_ndim = output_shape(out_shape, rows->m, rows->n, out_dims);
  status = classify(in, input->dtype, rows);
  if (status == KHOST_STATUS_OK)
    status = khost__cute_check_tensor(in, input, "input in", input->dtype, 2, in_shape);
  if (status == KHOST_STATUS_OK)
    status = khost__cute_check_tensor(in, output, "output out", input->dtype, out_ndim, out_dims);
  if (status != KHOST_STATUS_OK) return status;
  if (rows->m > INT32_MAX || rows->n > INT32_MAX)
    return khost__cute_fail(in, KHOST_STATUS_UNSUPPORTED, "%s: m = %lld, n = %lld: each must be <= %d",
                            op_name(in), (long long)rows->m, (long long)rows->n, INT32_MAX);
  rows->in = input->data;
  rows->out = output->data;
  return KHOST_STATUS_OK;
}

bool khost__cute_aligned(const void *const *pointers, int count, size_t bytes)
{
  for (int i = 0; i < count; i++)
    if ((uintptr_t)pointers[i] % bytes != 0) return false;
  return true;
}
