#include "kv_cache.h"

#include <string.h>

/* 2^31 per dimension, as the catalog allows; the products are checked below. */
#define DIM_MAX (INT64_C(1) << 31)

static int dims_of(const khost_input *in, khost__kv_call *call)
{
  static const char *const names[] = {"nb", "nh", "nl", "no", "nt", "hd"};
  int64_t *fields[] = {&call->dims.nb, &call->dims.nh, &call->dims.nl,
                       &call->dims.no, &call->dims.nt, &call->dims.hd};
  for (int i = 0; i < 6; i++) {
    int64_t max = i == 3 ? 2 : DIM_MAX, min = i == 0 ? 0 : 1;
    int status = khost__input_param(in, names[i], min, max, fields[i]);
    if (status != KHOST_STATUS_OK) return status;
  }
  call->layout = (int)khost_param_get(in, "layout", KHOST_KV_NHD);
  if (call->layout != KHOST_KV_NHD && call->layout != KHOST_KV_HND)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "parameter layout = %d is neither NHD (0) nor HND (1)", call->layout);
  return KHOST_STATUS_OK;
}

/* The chunk, block and table sizes, refusing any product that overflows. */
static int sizes_of(const khost_input *in, khost__kv_call *call)
{
  const khost_kv_dims *k = &call->dims;
  uint64_t chunk = 0, block = 0, chunks = 0, per_block = 0;
  int overflow = __builtin_mul_overflow((uint64_t)k->nt, (uint64_t)k->nh, &chunk) ||
                 __builtin_mul_overflow(chunk, (uint64_t)k->hd, &chunk) ||
                 __builtin_mul_overflow(chunk, (uint64_t)call->element_bytes, &chunk) ||
                 __builtin_mul_overflow((uint64_t)k->nl, (uint64_t)k->no, &per_block) ||
                 __builtin_mul_overflow(chunk, per_block, &block) ||
                 __builtin_mul_overflow(per_block, (uint64_t)k->nb, &chunks) || chunks > INT64_MAX / 8 ||
                 block > SIZE_MAX;
  if (overflow)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "the sizes of nb, nh, nl, no, nt, hd overflow");
  call->chunk_bytes = (size_t)chunk;
  call->block_bytes = (size_t)block;
  call->chunks = (int64_t)chunks;
  return KHOST_STATUS_OK;
}

/* An arena: a flat run of one of the four dtypes, whole elements. */
static int check_arena(const khost_input *in, const khost_tensor *t, const char *role, int32_t device_type)
{
  static const khost_dtype allowed[] = {{KHOST_DTYPE_FLOAT, 16, 1},
                                        {KHOST_DTYPE_BFLOAT, 16, 1},
                                        {KHOST_DTYPE_FLOAT, 32, 1},
                                        {KHOST_DTYPE_FLOAT8_E4M3FN, 8, 1}};
  int known = 0;
  for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
    known |= !memcmp(&t->dtype, &allowed[i], sizeof t->dtype);
  if (!known)
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                             "%s: dtype code %u bits %u is not fp16, bf16, fp32 or e4m3", role, t->dtype.code,
                             t->dtype.bits);
  int64_t elements = t->ndim == 1 && t->shape ? t->shape[0] : -1;
  return khost__input_tensor(in, t, role, device_type, t->dtype, 1, &elements);
}

static int check_table(const khost_input *in, const khost_tensor *t, const char *role, int32_t device_type,
                       int64_t entries)
{
  const khost_dtype u64 = {KHOST_DTYPE_UINT, 64, 1};
  return khost__input_tensor(in, t, role, device_type, u64, 1, &entries);
}

static int is_op(const khost_input *in, const char *name)
{
  return in->op && strcmp(in->op, name) == 0;
}

int khost__kv_open(const khost_input *in, int32_t device_type, khost__kv_call *call)
{
  memset(call, 0, sizeof *call);
  int status = khost__input_counts(in, 3, 1);
  if (status == KHOST_STATUS_OK) status = dims_of(in, call);
  if (status != KHOST_STATUS_OK) return status;
  const khost_tensor *src = khost_tensor_at(in->inputs, KHOST_KV_SRC);
  const khost_tensor *dst = khost_tensor_at(in->outputs, KHOST_KV_DST);
  if ((status = check_arena(in, src, "src", device_type)) != KHOST_STATUS_OK ||
      (status = check_arena(in, dst, "dst", device_type)) != KHOST_STATUS_OK)
    return status;
  if (memcmp(&src->dtype, &dst->dtype, sizeof src->dtype))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "src and dst differ in dtype");
  call->element_bytes = src->dtype.bits / 8;
  call->from_blocks = is_op(in, "kv_block_to_universal") || is_op(in, "kv_block_to_operational");
  if (!call->from_blocks && !is_op(in, "kv_universal_to_block") && !is_op(in, "kv_operational_to_block"))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "not a KV-cache layout conversion");
  call->permute = is_op(in, "kv_block_to_universal") || is_op(in, "kv_universal_to_block");
  if ((status = sizes_of(in, call)) != KHOST_STATUS_OK) return status;
  int stack = call->from_blocks ? KHOST_KV_SRC_TABLE : KHOST_KV_DST_TABLE;
  int per_block = call->from_blocks ? KHOST_KV_DST_TABLE : KHOST_KV_SRC_TABLE;
  const khost_tensor *stack_table = khost_tensor_at(in->inputs, stack);
  const khost_tensor *block_table = khost_tensor_at(in->inputs, per_block);
  if ((status = check_table(in, stack_table, stack == KHOST_KV_SRC_TABLE ? "src_table" : "dst_table",
                            device_type, call->chunks)) != KHOST_STATUS_OK ||
      (status = check_table(in, block_table, per_block == KHOST_KV_SRC_TABLE ? "src_table" : "dst_table",
                            device_type, call->dims.nb)) != KHOST_STATUS_OK)
    return status;
  call->block_stack_table = stack_table->data;
  call->block_table = block_table->data;
  call->block_stack = call->from_blocks ? src : dst;
  call->blocks = call->from_blocks ? dst : src;
  return KHOST_STATUS_OK;
}

/* Entry i of table (entries of `bytes` each) inside arena, whole. */
static int check_entries(const khost_input *in, const uint64_t *table, int64_t entries, size_t bytes,
                         const khost_tensor *arena)
{
  uint64_t begin = (uint64_t)(uintptr_t)arena->data, end = begin + arena->nbytes;
  for (int64_t i = 0; i < entries; i++)
    if (table[i] < begin || table[i] > end || end - table[i] < bytes)
      return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT,
                               "table entry %lld of %s does not point at a whole chunk inside it",
                               (long long)i, arena->name ? arena->name : "its arena");
  return KHOST_STATUS_OK;
}

int khost__kv_check_tables(const khost_input *in, const khost__kv_call *call)
{
  int status = check_entries(in, call->block_stack_table, call->chunks, call->chunk_bytes, call->block_stack);
  return status == KHOST_STATUS_OK
             ? check_entries(in, call->block_table, call->dims.nb, call->block_bytes, call->blocks)
             : status;
}
