/* The KV-cache layout conversions through cudaMemcpyBatchAsync (kv_batch.c): the
 * operational ops, whose chunks are copied flat, one copy each; the universal ones
 * are declined (docs/VENDOR.md). Each op's file (<op>.c) defines its kernel with
 * KHOST__VENDOR_KV_KERNEL. */
#ifndef KHOST_VENDOR_KV_BATCH_H
#define KHOST_VENDOR_KV_BATCH_H

#include "vendor.h"

/* khost_kernel.supports, .run and .describe of any of the four ops (in->op says which). */
int khost__vendor_kv_supports(const khost_input *in);
int khost__vendor_kv_run(const khost_input *in);
int khost__vendor_kv_describe(const khost_input *in, char *buf, size_t size);

/* The host's ABI minor, from the plugin's entry: a host before 1.3 cannot read
 * KHOST_KERNEL_NOT_CAPTURABLE, so it would capture the flat ops; supports() then declines them. */
void khost__vendor_kv_set_host_minor(uint32_t host_minor);

/* Releases the host buffers run() keeps between calls. For the plugin's fini. */
void khost__vendor_kv_release(void);

/* The khost_kernel of op_name, with its KHOST_KERNEL_* flags: the flat ops wait on the host
 * and enqueue a batch no CUDA graph holds, so they are KHOST_KERNEL_NOT_CAPTURABLE. */
#define KHOST__VENDOR_KV_KERNEL(op_name, kernel_flags)                                                       \
  {                                                                                                          \
    .struct_size = sizeof(khost_kernel), .op = op_name, .device_type = KHOST_DEVICE_CUDA,                    \
    .run = khost__vendor_kv_run, .supports = khost__vendor_kv_supports,                                      \
    .describe = khost__vendor_kv_describe, .flags = kernel_flags,                                            \
  }

#endif
