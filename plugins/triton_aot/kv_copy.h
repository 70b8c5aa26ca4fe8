/* The launcher the four KV-cache layout conversions share: kernels/kv_cache.py's
 * kv_copy, a program per block-stack chunk. Each op's file (<op>.c) defines its
 * khost__triton_<op> with KHOST__TRITON_KV_KERNEL. */
#ifndef KHOST_TRITON_KV_COPY_H
#define KHOST_TRITON_KV_COPY_H

#include <stddef.h>

#include "khost/plugin.h"

/* khost_kernel.supports, .run and .describe of any of the four ops (in->op says which). */
int khost__triton_kv_supports(const khost_input *in);
int khost__triton_kv_run(const khost_input *in);
int khost__triton_kv_describe(const khost_input *in, char *buf, size_t size);

/* The khost_kernel of op_name. */
#define KHOST__TRITON_KV_KERNEL(op_name)                                                                     \
  {                                                                                                          \
    .struct_size = sizeof(khost_kernel), .op = op_name, .device_type = KHOST_DEVICE_CUDA,                    \
    .run = khost__triton_kv_run, .supports = khost__triton_kv_supports,                                      \
    .describe = khost__triton_kv_describe,                                                                   \
  }

#endif
