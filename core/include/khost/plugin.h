/* khost plugin ABI: the one header a backend plugin includes.
 *
 * A plugin is a shared object that exports ONE symbol, khost_plugin_entry (type
 * khost_plugin_entry_fn). The host calls it with its own ABI version; the plugin
 * returns a pointer to a static, read-only khost_plugin descriptor, or NULL to
 * refuse that host.
 *
 * Compatibility rules (modelled on the PJRT C API):
 *  - KHOST_ABI_MAJOR must match exactly; a different major is refused.
 *  - Minor versions only append fields to the end of structs. Every versioned
 *    struct starts with (or carries near its start) `struct_size`; a reader
 *    touches a field only when struct_size shows it is present. A plugin built
 *    for an older or newer minor therefore loads as long as the fields the host
 *    needs are inside struct_size.
 *  - Memory: the host owns every tensor, the stream, the workspace and the error
 *    buffer. A plugin allocates nothing it does not free itself, and never
 *    keeps a pointer from khost_input after the call returns.
 *  - A plugin never calls exit() or prints; it reports through return codes and
 *    khost_input.error.
 *
 * This header includes nothing of the host and depends only on the C standard.
 */
#ifndef KHOST_PLUGIN_H
#define KHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KHOST_ABI_MAJOR 1
#define KHOST_ABI_MINOR 3

/* "KHOSTPLG" in ASCII: the first field of every descriptor. */
#define KHOST_PLUGIN_MAGIC UINT64_C(0x4b484f5354504c47)

/* Name of the one exported entry symbol. */
#define KHOST_PLUGIN_ENTRY_SYMBOL "khost_plugin_entry"

/* ABI 1.2: the entry of a library that serves several backends (khost_plugin_set_entry_fn).
 * A host that finds it calls it instead of khost_plugin_entry. */
#define KHOST_PLUGIN_SET_ENTRY_SYMBOL "khost_plugin_set_entry"

/* The longest backend name (khost_plugin.name) the host accepts, in characters. */
#define KHOST_PLUGIN_NAME_MAX 63

#if defined(__GNUC__)
#define KHOST_VISIBLE __attribute__((visibility("default")))
#else
#define KHOST_VISIBLE
#endif
#ifdef __cplusplus
#define KHOST_EXPORT extern "C" KHOST_VISIBLE
#else
#define KHOST_EXPORT KHOST_VISIBLE
#endif

/* Status codes returned by every plugin function. 0 is success. */
typedef enum khost_status {
  KHOST_STATUS_OK = 0,
  KHOST_STATUS_INVALID_ARGUMENT = 1, /* the input is malformed (host bug or ABI misuse) */
  KHOST_STATUS_UNSUPPORTED = 2,      /* declined: shape/dtype not handled (host reports SKIP) */
  KHOST_STATUS_DEVICE_ERROR = 3,     /* a CUDA or driver call failed */
  KHOST_STATUS_INTERNAL = 4          /* anything else */
} khost_status;

/* Where memory lives and where a kernel runs; values are DLPack's DLDeviceType. */
typedef enum khost_device_type { KHOST_DEVICE_CPU = 1, KHOST_DEVICE_CUDA = 2 } khost_device_type;

/* Type codes, equal to DLPack v1.1's DLDataTypeCode so tensors can be exchanged
 * with DLPack users without translation. */
typedef enum khost_dtype_code {
  KHOST_DTYPE_INT = 0,
  KHOST_DTYPE_UINT = 1,
  KHOST_DTYPE_FLOAT = 2, /* IEEE binary16/32/64 by bits */
  KHOST_DTYPE_BFLOAT = 4,
  KHOST_DTYPE_FLOAT8_E4M3FN = 10,
  KHOST_DTYPE_FLOAT8_E5M2 = 12,
  KHOST_DTYPE_FLOAT8_E8M0FNU = 14, /* MX scales: unsigned powers of two */
  KHOST_DTYPE_FLOAT4_E2M1FN = 17
} khost_dtype_code;

/* A DLPack-style element type: code, bits per element, lanes (always 1 here). */
typedef struct khost_dtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} khost_dtype;

#define KHOST_MAX_DIMS 6

/* A strided view of host-owned memory, valid only during one call.
 * Shapes and strides count ELEMENTS, as in DLPack. Sub-byte types (fp4) are
 * packed along the last, contiguous dimension: two e2m1 codes per byte, element
 * 2j in the low nibble. nbytes is the exact size of the storage at data. */
typedef struct khost_tensor {
  size_t struct_size;     /* sizeof(khost_tensor) as the host compiled it */
  const char *name;       /* the op's name for this tensor ("a", "sfa", "out"); host-owned */
  void *data;             /* first element; host-owned; device pointer when device_type is CUDA */
  int32_t device_type;    /* khost_device_type */
  int32_t device_id;      /* CUDA ordinal, 0 for CPU */
  khost_dtype dtype;      /* element type */
  int32_t ndim;           /* number of dimensions, <= KHOST_MAX_DIMS */
  const int64_t *shape;   /* ndim extents; host-owned */
  const int64_t *strides; /* ndim strides in elements (row-major contiguous today); host-owned */
  size_t nbytes;          /* bytes of storage at data */
} khost_tensor;

/* One named integer parameter of the op (for example m, k, l). */
typedef struct khost_param {
  const char *name; /* host-owned */
  int64_t value;
} khost_param;

/* Everything one kernel call receives. Host-owned; valid for the duration of
 * the call (and of supports()/workspace_size() calls). Inputs are read-only:
 * a kernel that writes them is reported as an error. */
typedef struct khost_input {
  size_t struct_size;          /* sizeof(khost_input) as the host compiled it */
  const char *op;              /* op name, as in khost_kernel.op; host-owned */
  int32_t nparams;             /* entries in params */
  const khost_param *params;   /* the op's parameters; host-owned */
  int32_t ninputs;             /* entries in inputs */
  const khost_tensor *inputs;  /* read-only tensors in the op's order; index with khost_tensor_at */
  int32_t noutputs;            /* entries in outputs */
  const khost_tensor *outputs; /* tensors to overwrite completely; index with khost_tensor_at */
  void *stream;                /* cudaStream_t (CUstream) for CUDA kernels; NULL for CPU */
  void *workspace;             /* host-owned scratch of workspace_bytes on the kernel's device, or NULL */
  size_t workspace_bytes;      /* as asked through khost_kernel.workspace_size */
  char *error;                 /* host-owned buffer for a NUL-terminated message */
  size_t error_size;           /* capacity of error in bytes (>= 256) */
  int32_t num_threads;         /* CPU kernels: threads the kernel may use (>= 1) */
} khost_input;

/* Tensor i of khost_input.inputs or .outputs. Arrays are stepped by the host's
 * struct_size (the same for every tensor of an array), never by this header's
 * sizeof: a newer host's khost_tensor may be larger. Borrowed pointer. */
static inline const khost_tensor *khost_tensor_at(const khost_tensor *array, int32_t i)
{
  return (const khost_tensor *)(const void *)((const char *)array + (size_t)i * array->struct_size);
}

/* Runs the op. Returns khost_status; on failure writes a message into in->error.
 * CUDA kernels enqueue on in->stream only and need not synchronise. */
typedef int (*khost_kernel_fn)(const khost_input *in);

/* Optional. KHOST_STATUS_OK when the kernel handles this input; otherwise
 * KHOST_STATUS_UNSUPPORTED with the reason in in->error (reported as SKIP). */
typedef int (*khost_supports_fn)(const khost_input *in);

/* Optional. Stores the scratch bytes the kernel needs for this input. The
 * host allocates them on the kernel's device and passes them as workspace. */
typedef int (*khost_workspace_fn)(const khost_input *in, size_t *bytes);

/* Optional (ABI 1.1). Writes into buf (size bytes, NUL-terminated) a short name of
 * the implementation run() would use for this input, a compiled variant or a code
 * path, so that a result says which one was checked and timed. buf is host-owned. */
typedef int (*khost_describe_fn)(const khost_input *in, char *buf, size_t size);

/* Optional (ABI 1.2). Stores in *seconds the fixed host cost of one run() call
 * for this input that is not the op's work: what an empty kernel of the plugin
 * costs, called the same way (an interpreter's call, for the python plugin).
 * Called once the call is prepared, never inside a timed region; khost reports
 * it beside the row's time. */
typedef int (*khost_call_overhead_fn)(const khost_input *in, double *seconds);

/* Bits of khost_kernel.flags (ABI 1.3). */
/* run() may wait on the host (a stream or event wait inside the call) or enqueue
 * work a CUDA graph cannot hold. khost then never captures the call: its stream
 * check runs it uncaptured and --graph is not applied to its row. */
#define KHOST_KERNEL_NOT_CAPTURABLE (UINT32_C(1) << 0)

/* One implementation of one op on one device. Static, plugin-owned. */
typedef struct khost_kernel {
  size_t struct_size;                   /* sizeof(khost_kernel) as the plugin compiled it */
  const char *op;                       /* catalog op name, as khost --list shows it */
  int32_t device_type;                  /* khost_device_type the kernel runs on and reads from */
  khost_kernel_fn run;                  /* required */
  khost_supports_fn supports;           /* optional, NULL = supports everything valid */
  khost_workspace_fn workspace_size;    /* optional, NULL = no workspace */
  khost_describe_fn describe;           /* optional (ABI 1.1), NULL = the row names no implementation */
  khost_call_overhead_fn call_overhead; /* optional (ABI 1.2), NULL = none reported */
  uint32_t flags;                       /* KHOST_KERNEL_* bits (ABI 1.3); 0 = none */
} khost_kernel;

/* Called once in a short-lived probe process at start-up (a failure or crash
 * there skips the plugin), then once per worker process before its kernels run.
 * Must succeed on a machine without a GPU: defer device work to the first call. Returns
 * khost_status and writes a message into err on failure. */
typedef int (*khost_init_fn)(char *err, size_t err_size);

/* Called once at the end of a process that called init successfully. */
typedef void (*khost_fini_fn)(void);

/* The descriptor a plugin returns. Static, read-only, plugin-owned; it must
 * stay valid until the library is unloaded. One kernel per (op, device). */
typedef struct khost_plugin {
  uint64_t magic;                     /* KHOST_PLUGIN_MAGIC */
  uint32_t abi_major;                 /* KHOST_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;                 /* KHOST_ABI_MINOR the plugin was built with */
  size_t struct_size;                 /* sizeof(khost_plugin) as the plugin compiled it */
  const char *name;                   /* unique backend name, [a-z0-9_]{1,63}, for example "cute" */
  const char *version;                /* the plugin's own version string */
  const char *language;               /* "c", "cuda", "cute", "triton", ... */
  const char *description;            /* one line */
  int32_t nkernels;                   /* entries in kernels */
  const khost_kernel *const *kernels; /* pointers, so khost_kernel may grow */
  khost_init_fn init;                 /* optional */
  khost_fini_fn fini;                 /* optional */
} khost_plugin;

/* The exported entry. host_major/host_minor: the host's ABI version. Returns
 * the plugin's static descriptor, or NULL when it cannot serve this host. */
typedef const khost_plugin *(*khost_plugin_entry_fn)(uint32_t host_major, uint32_t host_minor);

/* ABI 1.2. A part of a plugin set that did not load (a Python module that failed
 * to import): the host records it as a load failure of `source` at `stage`.
 * Plugin-owned, like the set. */
typedef struct khost_plugin_failure {
  size_t struct_size;  /* sizeof(khost_plugin_failure) as the plugin compiled it */
  const char *source;  /* what failed to load (a file), at most 4095 characters */
  const char *stage;   /* the plugin's name for the step that failed, [a-z0-9_]{1,31} ("python") */
  const char *message; /* why, at most 4095 characters; may hold line feeds */
} khost_plugin_failure;

/* ABI 1.2. What khost_plugin_set_entry returns: the descriptors of several
 * backends that one library serves (one per Python module for the python
 * plugin), each checked and registered like the descriptor of a library of its
 * own, and the parts that failed. Static or built once by the entry,
 * plugin-owned, valid until the library is unloaded. */
typedef struct khost_plugin_set {
  size_t struct_size;                          /* sizeof(khost_plugin_set) as the plugin compiled it */
  int32_t nplugins;                            /* entries in plugins, 0 or more */
  const khost_plugin *const *plugins;          /* one descriptor per backend */
  int32_t nfailures;                           /* entries in failures */
  const khost_plugin_failure *const *failures; /* each part that did not load */
} khost_plugin_set;

/* The ABI 1.2 set entry: the set, or NULL when the library cannot serve this host. */
typedef const khost_plugin_set *(*khost_plugin_set_entry_fn)(uint32_t host_major, uint32_t host_minor);

/* Declares the entry function of a plugin that serves any host of the same
 * major. Use: KHOST_PLUGIN_DEFINE(my_descriptor) at file scope. */
#define KHOST_PLUGIN_DEFINE(descriptor)                                                                      \
  KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t host_major, uint32_t host_minor)              \
  {                                                                                                          \
    (void)host_minor;                                                                                        \
    return host_major == KHOST_ABI_MAJOR ? &(descriptor) : NULL;                                             \
  }

#ifdef __cplusplus
}
#endif

#endif /* KHOST_PLUGIN_H */
