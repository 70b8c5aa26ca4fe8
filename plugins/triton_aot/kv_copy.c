/* The KV-cache layout conversions on kernels/kv_cache.py. Rule: the 16-byte-vector
 * variant of the element size when a run of hd elements is a whole number of 16-byte
 * vectors and both arenas are 16-byte aligned (every chunk then starts on a vector, as
 * khost places chunks on 256-byte boundaries; the kernel checks each chunk's two
 * addresses and copies one that is not element by element); the element-wise variant
 * otherwise. Not yet timed on a GPU. */
#include "kv_copy.h"

#include <stdint.h>
#include <stdio.h>

#include "kv_cache.h"
#include "launch.h"
#include "select.h"

#define VECTOR_BYTES 16

/* A checked call and what the rule reads: m is the chunks (the grid), k the elements of a
 * block (the largest offset the kernel forms), n the head dim. */
typedef struct kv_call {
  khost__kv_call kv;
  khost__triton_shape shape;
} kv_call;

static const char *cannot_run(const khost__triton_variant *v, const khost__triton_shape *s)
{
  const char *misfit = khost__triton_misfit(v, s, 1);
  if (misfit) return misfit;
  if (s->m > INT32_MAX) return "more chunks than a grid holds";
  if (s->k > INT32_MAX) return "a block's offsets would overflow 32 bits";
  return NULL;
}

/* The first variant that can run the input: the vector one before the element-wise one. */
static int preferred(const khost__triton_variant *v, const khost__triton_shape *s)
{
  (void)v;
  (void)s;
  return 1;
}

static int call_of(const khost_input *in, kv_call *call, khost__triton_rule *rule)
{
  int status = khost__kv_open(in, KHOST_DEVICE_CUDA, &call->kv);
  if (status != KHOST_STATUS_OK) return status;
  const khost__kv_call *k = &call->kv;
  const void *const arenas[] = {k->block_stack->data, k->blocks->data};
  khost__triton_shape shape = {
      .m = k->chunks,
      .n = k->dims.hd,
      .k = (int64_t)(k->block_bytes / k->element_bytes),
      .dtype_code = k->block_stack->dtype.code,
      .dtype_bits = k->block_stack->dtype.bits,
      .aligned = k->dims.hd * (int64_t)k->element_bytes % VECTOR_BYTES == 0 &&
                 khost__input_aligned(arenas, 2, VECTOR_BYTES),
  };
  call->shape = shape;
  *rule = (khost__triton_rule){in->op, cannot_run, preferred};
  return KHOST_STATUS_OK;
}

static int prepare(const khost_input *in, kv_call *call, const khost__triton_variant **v)
{
  khost__triton_rule rule;
  int status = call_of(in, call, &rule);
  return status == KHOST_STATUS_OK ? khost__triton_select(&rule, &call->shape, v, in->error, in->error_size)
                                   : status;
}

int khost__triton_kv_supports(const khost_input *in)
{
  kv_call call;
  const khost__triton_variant *v;
  return prepare(in, &call, &v);
}

int khost__triton_kv_describe(const khost_input *in, char *buf, size_t size)
{
  kv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  if (status == KHOST_STATUS_OK) snprintf(buf, size, "%s", v->name);
  return status;
}

int khost__triton_kv_run(const khost_input *in)
{
  kv_call call;
  const khost__triton_variant *v;
  int status = prepare(in, &call, &v);
  if (status != KHOST_STATUS_OK) return status;
  const khost__kv_call *k = &call.kv;
  /* The kernel's vector: VEC elements when v is the vector variant, else 1. */
  int32_t vec = v->aligned ? (int32_t)(VECTOR_BYTES / k->element_bytes) : 1;
  const void *src = khost_tensor_at(in->inputs, KHOST_KV_SRC)->data;
  const void *src_table = k->from_blocks ? k->block_stack_table : k->block_table;
  const void *dst_table = k->from_blocks ? k->block_table : k->block_stack_table;
  void *dst = khost_tensor_at(in->outputs, KHOST_KV_DST)->data;
  int32_t nh = (int32_t)k->dims.nh, nl = (int32_t)k->dims.nl, no = (int32_t)k->dims.no;
  int32_t nt = (int32_t)k->dims.nt, hd_vecs = (int32_t)(k->dims.hd / vec), layout = k->layout;
  int32_t from_blocks = k->from_blocks, permute = k->permute;
  void *args[] = {&src, &src_table, &dst_table, &dst,    &nh,          &nl,
                  &no,  &nt,        &hd_vecs,   &layout, &from_blocks, &permute};
  /* nb = 0: an empty grid, which launches nothing. */
  const unsigned int grid[3] = {(unsigned int)k->chunks, 1, 1};
  return khost__triton_launch(v, "ppppiiiiiiii", args, grid, in->stream, in->error, in->error_size);
}
