/* Test support: a kernel call built by hand (params, tensors, error buffer)
 * with all storage inline, so a test keeps it on its stack and must not copy
 * it (c->in points into it). Tensor data is real memory, or a fake, 256-byte
 * aligned address for checks that never dereference it. */
#ifndef KHOST_TEST_HAND_CALL_H
#define KHOST_TEST_HAND_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "khost/ops.h"

/* The float dtypes the row-wise ops take, and one they decline. */
static const khost_dtype FP16 = {KHOST_DTYPE_FLOAT, 16, 1};
static const khost_dtype BF16 = {KHOST_DTYPE_BFLOAT, 16, 1};
static const khost_dtype FP32 = {KHOST_DTYPE_FLOAT, 32, 1};
static const khost_dtype FP64 = {KHOST_DTYPE_FLOAT, 64, 1};
/* The fp8 type the KV-cache ops also take (copied as bits). */
static const khost_dtype E4M3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};

#define HAND_MAX_TENSORS 8
#define HAND_FAKE_BASE   ((uintptr_t)0x7f0000000000)

typedef struct hand_call {
  khost_param params[8];
  khost_tensor inputs[HAND_MAX_TENSORS], outputs[2];
  int64_t shapes[HAND_MAX_TENSORS + 2][KHOST_MAX_DIMS];
  int64_t strides[HAND_MAX_TENSORS + 2][KHOST_MAX_DIMS];
  int nshapes;
  uintptr_t next_fake;
  char error[512];
  khost_input in;
} hand_call;

static inline void hand_call_init(hand_call *c, const char *op, int threads)
{
  memset(c, 0, sizeof *c);
  c->next_fake = HAND_FAKE_BASE;
  c->in = (khost_input){.struct_size = sizeof(khost_input),
                        .op = op,
                        .params = c->params,
                        .inputs = c->inputs,
                        .outputs = c->outputs,
                        .error = c->error,
                        .error_size = sizeof c->error,
                        .num_threads = threads};
}

static inline void hand_param(hand_call *c, const char *name, int64_t value)
{
  c->params[c->in.nparams++] = (khost_param){name, value};
}

/* Appends a contiguous row-major tensor on device_type holding data, or, when
 * data is NULL, at a fresh fake address; returns it for tweaks. */
static inline khost_tensor *hand_tensor(hand_call *c, bool output, const char *name, int32_t device_type,
                                        khost_dtype dtype, void *data, int ndim, const int64_t *shape)
{
  int64_t *dims = c->shapes[c->nshapes], *strides = c->strides[c->nshapes];
  c->nshapes++;
  int64_t elements = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    dims[d] = shape[d];
    strides[d] = elements;
    elements *= shape[d];
  }
  size_t nbytes = (size_t)elements * dtype.bits / 8;
  if (!data) {
    data = (void *)c->next_fake;
    c->next_fake += (nbytes + 255) / 256 * 256 + 256;
  }
  khost_tensor *t = output ? &c->outputs[c->in.noutputs++] : &c->inputs[c->in.ninputs++];
  *t = (khost_tensor){.struct_size = sizeof(khost_tensor),
                      .name = name,
                      .data = data,
                      .device_type = device_type,
                      .dtype = dtype,
                      .ndim = ndim,
                      .shape = dims,
                      .strides = strides,
                      .nbytes = nbytes};
  return t;
}

/* A well-formed row-wise call of op (copy_transpose, reduce_sum or
 * softmax_online) on [m, n] at fake addresses. */
static inline void hand_rows_call(hand_call *c, const char *op, int32_t device_type, khost_dtype dtype,
                                  int64_t m, int64_t n)
{
  hand_call_init(c, op, 1);
  hand_param(c, "m", m);
  hand_param(c, "n", n);
  const int64_t in[] = {m, n}, transposed[] = {n, m}, reduced[] = {m};
  hand_tensor(c, false, "in", device_type, dtype, NULL, 2, in);
  if (strcmp(op, "copy_transpose") == 0)
    hand_tensor(c, true, "out", device_type, dtype, NULL, 2, transposed);
  else if (strcmp(op, "reduce_sum") == 0)
    hand_tensor(c, true, "out", device_type, dtype, NULL, 1, reduced);
  else
    hand_tensor(c, true, "out", device_type, dtype, NULL, 2, in);
}

/* A well-formed nvfp4_gemv call at fake addresses. */
static inline void hand_gemv_call(hand_call *c, int32_t device_type, int64_t m, int64_t k, int64_t l)
{
  const khost_dtype e2m1 = {KHOST_DTYPE_FLOAT4_E2M1FN, 4, 1}, e4m3 = {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1};
  const khost_dtype fp16 = {KHOST_DTYPE_FLOAT, 16, 1};
  hand_call_init(c, "nvfp4_gemv", 1);
  hand_param(c, "m", m);
  hand_param(c, "k", k);
  hand_param(c, "l", l);
  const int64_t a[] = {l, m, k}, v[] = {l, k}, sfa[] = {l, m, k / 16}, sfv[] = {l, k / 16};
  const int64_t sfa_swz[] = {l, khost_nvfp4_swizzled_bytes(m, k)},
                sfv_swz[] = {l, khost_nvfp4_swizzled_bytes(1, k)};
  const int64_t out[] = {l, m};
  hand_tensor(c, false, "a", device_type, e2m1, NULL, 3, a);
  hand_tensor(c, false, "v", device_type, e2m1, NULL, 2, v);
  hand_tensor(c, false, "sfa", device_type, e4m3, NULL, 3, sfa);
  hand_tensor(c, false, "sfv", device_type, e4m3, NULL, 2, sfv);
  hand_tensor(c, false, "sfa_swizzled", device_type, e4m3, NULL, 2, sfa_swz);
  hand_tensor(c, false, "sfv_swizzled", device_type, e4m3, NULL, 2, sfv_swz);
  hand_tensor(c, true, "c", device_type, fp16, NULL, 2, out);
}

/* A well-formed call of a KV-cache op (kv_block_to_universal, kv_universal_to_block,
 * kv_block_to_operational or kv_operational_to_block) at fake addresses: each arena one
 * flat run of its chunks, back to back, and both u64 tables. layout is set only for the
 * ops to and from the universal layout. */
static inline void hand_kv_call(hand_call *c, const char *op, int32_t device_type, khost_dtype dtype,
                                const khost_kv_dims *k, int layout)
{
  hand_call_init(c, op, 1);
  hand_param(c, "nb", k->nb);
  hand_param(c, "nh", k->nh);
  hand_param(c, "nl", k->nl);
  hand_param(c, "no", k->no);
  hand_param(c, "nt", k->nt);
  hand_param(c, "hd", k->hd);
  if (strstr(op, "universal")) hand_param(c, "layout", layout);
  const khost_dtype u64 = {KHOST_DTYPE_UINT, 64, 1};
  const int64_t chunks = k->nb * k->nl * k->no, elements[] = {chunks * k->nt * k->nh * k->hd};
  const int64_t from_blocks = strncmp(op, "kv_block_to", 11) == 0;
  const int64_t src_entries[] = {from_blocks ? chunks : k->nb},
                dst_entries[] = {from_blocks ? k->nb : chunks};
  hand_tensor(c, false, "src", device_type, dtype, NULL, 1, elements);
  hand_tensor(c, false, "src_table", device_type, u64, NULL, 1, src_entries);
  hand_tensor(c, false, "dst_table", device_type, u64, NULL, 1, dst_entries);
  hand_tensor(c, true, "dst", device_type, dtype, NULL, 1, elements);
}

#endif
