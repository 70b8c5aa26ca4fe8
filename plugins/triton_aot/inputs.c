#include "inputs.h"

#include <stddef.h>

#include "message.h"

#define TENSOR_MIN_SIZE (offsetof(khost_tensor, nbytes) + sizeof(size_t))
#define INPUT_MIN_SIZE  (offsetof(khost_input, error_size) + sizeof(size_t))

static const char *op_name(const khost_input *in)
{
  return in->op ? in->op : "(unnamed op)";
}

static int array_usable(const khost_tensor *array, int32_t count)
{
  return count == 0 || (array && array->struct_size >= TENSOR_MIN_SIZE);
}

int khost__triton_check_counts(const khost_input *in, int32_t ninputs, int32_t noutputs)
{
  if (in->struct_size < INPUT_MIN_SIZE)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "khost_input.struct_size %zu is below %zu", in->struct_size, INPUT_MIN_SIZE);
  if (in->ninputs != ninputs || in->noutputs != noutputs)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: expected %d inputs and %d outputs, got %d and %d", op_name(in), ninputs,
                                noutputs, in->ninputs, in->noutputs);
  if (!array_usable(in->inputs, ninputs) || !array_usable(in->outputs, noutputs))
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: tensor array missing or its struct_size below %zu", op_name(in),
                                TENSOR_MIN_SIZE);
  return KHOST_STATUS_OK;
}

int khost__triton_param(const khost_input *in, const char *name, int64_t min, int64_t *out)
{
  int64_t value = khost_param_get(in, name, INT64_MIN);
  if (value == INT64_MIN)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: parameter %s is missing", op_name(in), name);
  if (value < min || value > INT32_MAX)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: parameter %s = %lld outside [%lld, %d]", op_name(in), name,
                                (long long)value, (long long)min, INT32_MAX);
  *out = value;
  return KHOST_STATUS_OK;
}

/* Elements of the shape and whether strides (when given) are row-major contiguous. */
static int contiguous(const khost_tensor *t, int64_t *count)
{
  int64_t stride = 1;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] < 0 || (t->strides && t->shape[d] > 1 && t->strides[d] != stride)) return 0;
    stride *= t->shape[d];
  }
  *count = stride;
  return 1;
}

static int same_shape(const khost_tensor *t, int32_t ndim, const int64_t *shape)
{
  if (t->ndim != ndim || !t->shape) return 0;
  for (int32_t d = 0; d < ndim; d++)
    if (t->shape[d] != shape[d]) return 0;
  return 1;
}

int khost__triton_check_tensor(const khost_input *in, const khost_tensor *t, uint8_t code, uint8_t bits,
                               int32_t ndim, const int64_t *shape)
{
  const char *name = t->name ? t->name : "(unnamed)";
  int64_t count = 0;
  if (t->device_type != KHOST_DEVICE_CUDA)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: tensor %s is not in CUDA memory", op_name(in), name);
  if (t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != 1)
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: tensor %s has dtype (%u, %u), expected (%u, %u)", op_name(in), name,
                                t->dtype.code, t->dtype.bits, code, bits);
  if (!same_shape(t, ndim, shape) || !contiguous(t, &count))
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: tensor %s is not a contiguous tensor of the shape the parameters give",
                                op_name(in), name);
  /* Sub-byte types are packed, and every packed row here ends on a byte. */
  if (t->nbytes < (size_t)count * bits / 8 || (count > 0 && !t->data))
    return khost__triton_errorf(in->error, in->error_size, KHOST_STATUS_INVALID_ARGUMENT,
                                "%s: tensor %s holds %zu bytes, its shape needs %lld", op_name(in), name,
                                t->nbytes, (long long)count * bits / 8);
  return KHOST_STATUS_OK;
}

int khost__triton_aligned16(const void *p)
{
  return ((uintptr_t)p & 15) == 0;
}
