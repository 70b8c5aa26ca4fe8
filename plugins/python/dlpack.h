/* DLPack's C structs as the python plugin uses them (DLPack 1.1: the versioned
 * managed tensor, and the legacy one for consumers that ask for no version).
 * khost's dtype codes and device types are DLPack's (plugin.h), so a khost
 * tensor's description maps onto DLTensor field by field. */
#ifndef KHOST_PYTHON_DLPACK_H
#define KHOST_PYTHON_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#define KHOST__DLPACK_MAJOR 1
#define KHOST__DLPACK_MINOR 1

/* The capsule names of the Python protocol (a consumer renames a capsule it took to "used_...") */
#define KHOST__DLPACK_VERSIONED      "dltensor_versioned"
#define KHOST__DLPACK_LEGACY         "dltensor"
#define KHOST__DLPACK_VERSIONED_USED "used_dltensor_versioned"
#define KHOST__DLPACK_LEGACY_USED    "used_dltensor"

typedef struct khost__dl_device {
  int32_t device_type; /* DLDeviceType: 1 CPU, 2 CUDA */
  int32_t device_id;
} khost__dl_device;

typedef struct khost__dl_dtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} khost__dl_dtype;

typedef struct khost__dl_tensor {
  void *data;
  khost__dl_device device;
  int32_t ndim;
  khost__dl_dtype dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL: compact row-major */
  uint64_t byte_offset;
} khost__dl_tensor;

typedef struct khost__dl_managed {
  khost__dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct khost__dl_managed *self);
} khost__dl_managed;

typedef struct khost__dl_managed_versioned {
  uint32_t major, minor;
  void *manager_ctx;
  void (*deleter)(struct khost__dl_managed_versioned *self);
  uint64_t flags;
  khost__dl_tensor dl_tensor;
} khost__dl_managed_versioned;

/* These structs cross into NumPy and PyTorch as DLPack's own: a field out of place
 * would hand them wrong shapes or data silently. The layouts DLPack's dlpack.h
 * gives on a 64-bit target, checked where the plugin is built. */
_Static_assert(sizeof(khost__dl_dtype) == 4 && offsetof(khost__dl_dtype, code) == 0 &&
                   offsetof(khost__dl_dtype, bits) == 1 && offsetof(khost__dl_dtype, lanes) == 2,
               "DLDataType is {uint8 code, uint8 bits, uint16 lanes} in 4 bytes");
_Static_assert(sizeof(khost__dl_device) == 8 && offsetof(khost__dl_device, device_id) == 4,
               "DLDevice is {int32 device_type, int32 device_id}");
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(offsetof(khost__dl_tensor, device) == 8 && offsetof(khost__dl_tensor, ndim) == 16 &&
                   offsetof(khost__dl_tensor, dtype) == 20 && offsetof(khost__dl_tensor, shape) == 24 &&
                   offsetof(khost__dl_tensor, strides) == 32 &&
                   offsetof(khost__dl_tensor, byte_offset) == 40 && sizeof(khost__dl_tensor) == 48,
               "DLTensor's layout on a 64-bit target");
_Static_assert(offsetof(khost__dl_managed, manager_ctx) == 48 && offsetof(khost__dl_managed, deleter) == 56 &&
                   sizeof(khost__dl_managed) == 64,
               "DLManagedTensor's layout on a 64-bit target");
_Static_assert(offsetof(khost__dl_managed_versioned, minor) == 4 &&
                   offsetof(khost__dl_managed_versioned, manager_ctx) == 8 &&
                   offsetof(khost__dl_managed_versioned, deleter) == 16 &&
                   offsetof(khost__dl_managed_versioned, flags) == 24 &&
                   offsetof(khost__dl_managed_versioned, dl_tensor) == 32 &&
                   sizeof(khost__dl_managed_versioned) == 80,
               "DLManagedTensorVersioned's layout on a 64-bit target");
#endif

#endif
