/* The KV-cache layout conversions on the CPU, all four: every chunk of a block
 * reached through its table entry, its elements moved as bytes (never decoded,
 * so every bit comes through), in runs of hd elements, which are contiguous in
 * every layout. Blocks are split over the threads. */
#include <string.h>

#include "kv_cache.h"
#include "parallel.h"
#include "reference.h"

static unsigned char *at(uint64_t address)
{
  return (unsigned char *)(uintptr_t)address;
}

/* Copies n bytes between a block-stack chunk and its place in a block, in the call's direction. */
static void move(const khost__kv_call *call, unsigned char *chunk, unsigned char *block, size_t n)
{
  if (call->from_blocks)
    memcpy(block, chunk, n);
  else
    memcpy(chunk, block, n);
}

/* Chunk (b, l, o) and its place in block b: whole (operational) or hd elements at a time (universal). */
static void copy_chunk(const khost__kv_call *call, int64_t b, int64_t l, int64_t o)
{
  const khost_kv_dims *k = &call->dims;
  size_t es = call->element_bytes, run = (size_t)k->hd * es;
  unsigned char *chunk = at(call->block_stack_table[khost_kv_block_entry(k, b, l, o)]);
  unsigned char *block = at(call->block_table[b]);
  if (!call->permute) {
    move(call, chunk, block + (size_t)khost_kv_operational_index(k, l, o) * es, call->chunk_bytes);
    return;
  }
  for (int64_t t = 0; t < k->nt; t++)
    for (int64_t h = 0; h < k->nh; h++)
      move(call, chunk + (size_t)khost_kv_chunk_index(k, call->layout, t, h, 0) * es,
           block + (size_t)khost_kv_universal_index(k, h, l, o, t, 0) * es, run);
}

static void copy_blocks(void *arg, int worker, int64_t begin, int64_t end)
{
  const khost__kv_call *call = arg;
  (void)worker;
  for (int64_t b = begin; b < end; b++)
    for (int64_t l = 0; l < call->dims.nl; l++)
      for (int64_t o = 0; o < call->dims.no; o++) copy_chunk(call, b, l, o);
}

int khost__reference_kv_run(const khost_input *in)
{
  khost__kv_call call;
  int status = khost__kv_open(in, KHOST_DEVICE_CPU, &call);
  if (status == KHOST_STATUS_OK) status = khost__kv_check_tables(in, &call);
  if (status != KHOST_STATUS_OK) return status;
  khost__parallel_rows(call.dims.nb, khost__reference_threads(in), copy_blocks, &call);
  return KHOST_STATUS_OK;
}
