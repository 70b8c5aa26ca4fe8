#include "input_checks.h"

#include <stdarg.h>
#include <stdio.h>

/* The host filled these fields when struct_size covers them. */
#define INPUT_MIN_SIZE  (offsetof(khost_input, error_size) + sizeof(size_t))
#define TENSOR_MIN_SIZE (offsetof(khost_tensor, nbytes) + sizeof(size_t))

int khost__input_fail(const khost_input *in, int status, const char *fmt, ...)
{
  if (!in->error || in->error_size == 0) return status;
  int used = snprintf(in->error, in->error_size, "%s: ", in->op ? in->op : "(unnamed op)");
  if (used >= 0 && (size_t)used < in->error_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->error + used, in->error_size - (size_t)used, fmt, ap);
    va_end(ap);
  }
  return status;
}

int khost__input_param(const khost_input *in, const char *name, int64_t min, int64_t max, int64_t *out)
{
  int64_t value = khost_param_get(in, name, INT64_MIN);
  if (value == INT64_MIN)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "parameter %s is missing", name);
  if (value < min || value > max)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "parameter %s = %lld outside [%lld, %lld]",
                             name, (long long)value, (long long)min, (long long)max);
  *out = value;
  return KHOST_STATUS_OK;
}

static bool array_usable(const khost_tensor *array, int32_t count)
{
  return count == 0 || (array && array->struct_size >= TENSOR_MIN_SIZE);
}

int khost__input_counts(const khost_input *in, int32_t ninputs, int32_t noutputs)
{
  if (in->struct_size < INPUT_MIN_SIZE)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "khost_input.struct_size %zu is below %zu",
                             in->struct_size, INPUT_MIN_SIZE);
  if (in->ninputs != ninputs || in->noutputs != noutputs)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "expected %d inputs and %d outputs, got %d and %d", ninputs, noutputs,
                             in->ninputs, in->noutputs);
  if (!array_usable(in->inputs, ninputs) || !array_usable(in->outputs, noutputs))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "tensor array missing or its struct_size below %zu", TENSOR_MIN_SIZE);
  return KHOST_STATUS_OK;
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
      return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                               "%s: dimension %d is %lld, the parameters imply %lld", role, d,
                               (long long)t->shape[d], (long long)shape[d]);
  int64_t stride = 1;
  for (int32_t d = ndim - 1; t->strides && d >= 0; d--) {
    if (t->strides[d] != stride)
      return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                               "%s: stride %d is %lld, only contiguous row-major (%lld) is handled", role, d,
                               (long long)t->strides[d], (long long)stride);
    if (__builtin_mul_overflow(stride, shape[d], &stride))
      return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: shape overflows", role);
  }
  return KHOST_STATUS_OK;
}

static int check_storage(const khost_input *in, const khost_tensor *t, const char *role, int32_t ndim,
                         const int64_t *shape)
{
  size_t need;
  if (!contiguous_bytes(t->dtype, ndim, shape, &need))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: shape overflows or splits a byte", role);
  if (!t->data) return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: data is NULL", role);
  if (t->nbytes < need)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "%s: storage of %zu bytes, the shape needs %zu", role, t->nbytes, need);
  return KHOST_STATUS_OK;
}

int khost__input_tensor(const khost_input *in, const khost_tensor *t, const char *role, int32_t device_type,
                        khost_dtype want, int32_t ndim, const int64_t *shape)
{
  if (t->device_type != device_type)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "%s: device type %d, this kernel reads device type %d only", role,
                             t->device_type, device_type);
  if (t->dtype.code != want.code || t->dtype.bits != want.bits || t->dtype.lanes != 1)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "%s: dtype {code %u, bits %u, lanes %u}, expected {code %u, bits %u, lanes 1}",
                             role, t->dtype.code, t->dtype.bits, t->dtype.lanes, want.code, want.bits);
  if (t->ndim != ndim || !t->shape)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "%s: ndim %d, expected %d", role, t->ndim,
                             ndim);
  int status = check_layout(in, t, role, ndim, shape);
  if (status == KHOST_STATUS_OK) status = check_storage(in, t, role, ndim, shape);
  return status;
}

bool khost__input_aligned(const void *const *pointers, int count, size_t bytes)
{
  for (int i = 0; i < count; i++)
    if ((uintptr_t)pointers[i] % bytes != 0) return false;
  return true;
}
