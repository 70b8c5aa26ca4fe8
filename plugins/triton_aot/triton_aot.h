/* The kernels of the triton_aot plugin, one per op file (docs/TRITON_AOT.md).
 * Nothing here is exported: the module is built with hidden visibility and only
 * khost_plugin_entry leaves it. */
#ifndef KHOST_TRITON_AOT_H
#define KHOST_TRITON_AOT_H

#include "khost/plugin.h"
#include "select.h"

/* Static, plugin-owned. */
extern const khost_kernel khost__triton_nvfp4_gemv;
extern const khost_kernel khost__triton_copy_transpose;
extern const khost_kernel khost__triton_reduce_sum;
extern const khost_kernel khost__triton_softmax_online;

/* nvfp4_gemv's variant rule, which tests drive with chosen device facts. Static. */
extern const khost__triton_rule khost__triton_gemv_rule;

#endif
