/* khost op conventions: the tensor order and parameter names of each catalog op,
 * one header per op in ops/, and a parameter lookup. Optional for plugins (plugin.h
 * is the ABI); it saves looking tensors up by name. The host's catalog (core/ops/)
 * builds khost_input in exactly this order. All tensors are row-major and
 * contiguous. docs/PLUGINS.md explains each op. */
#ifndef KHOST_OPS_H
#define KHOST_OPS_H

#include "plugin.h"

#include "ops/nvfp4_gemv.h"
#include "ops/copy_transpose.h"
#include "ops/reduce_sum.h"
#include "ops/softmax_online.h"
#include "ops/fp8_block_gemm.h"
#include "ops/kv_block_to_universal.h"
#include "ops/kv_universal_to_block.h"
#include "ops/kv_block_to_operational.h"
#include "ops/kv_operational_to_block.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the value of parameter `name` in `in`, or `fallback` when absent. */
static inline int64_t khost_param_get(const khost_input *in, const char *name, int64_t fallback)
{
  for (int32_t i = 0; i < in->nparams; i++) {
    const char *a = in->params[i].name;
    const char *b = name;
    while (*a && *a == *b) {
      a++;
      b++;
    }
    if (*a == *b) return in->params[i].value;
  }
  return fallback;
}

#ifdef __cplusplus
}
#endif

#endif /* KHOST_OPS_H */
