/* The kernel the four KV-cache layout conversions share (kv_copy.cu); each op's file
 * (<op>.cu) defines its khost__cute_<op> with KHOST__CUTE_KV_KERNEL. */
#ifndef KHOST_CUTE_KV_COPY_H
#define KHOST_CUTE_KV_COPY_H

#include "cute.h"

/* supports() and the dispatch of any of the four ops (in->op says which). */
int khost__cute_kv_supports(const khost_input *in);
int khost__cute_kv_dispatch(const khost_input *in, khost__cute_name *name);

/* The khost_kernel of op_name. */
#define KHOST__CUTE_KV_KERNEL(op_name)                                                                       \
  {                                                                                                          \
    sizeof(khost_kernel), op_name, KHOST_DEVICE_CUDA, khost__cute_run<khost__cute_kv_dispatch>,              \
        khost__cute_kv_supports, nullptr, khost__cute_describe<khost__cute_kv_dispatch>,                     \
        nullptr, /* call_overhead: none */ 0, /* flags: none */                                              \
  }

#endif
