/* KV-cache conversion kernels with one defect each, picked by -DKV_FAULT_<KIND>
 * (tests/meson.build builds kv_fault_<kind>.so from this file): the mistakes a
 * kernel over pointer tables makes, so that a test can assert khost names each.
 *  - WRONG_ENTRY: kv_block_to_operational reads every chunk through the table
 *    entry after its own (the last wraps to the first);
 *  - OVERRUN: kv_operational_to_block writes each chunk, then its bytes again
 *    one chunk past its end;
 *  - IGNORES_LAYOUT: kv_block_to_universal reads every chunk as NHD, whatever
 *    the case's layout (right for NHD, wrong for HND);
 *  - WRITES_TABLE: kv_operational_to_block, right, then clears the last entry
 *    of dst_table, as a kernel that marks the chunks it has done in place;
 *  - TABLE_OVERRUN: kv_operational_to_block, right, then writes a null entry
 *    one past the end of src_table, as a kernel that terminates its table.
 * Each is otherwise a plain CPU copy through the tables, trusting the host. */
#include <string.h>

#include "khost/ops.h"

typedef struct call {
  khost_kv_dims k;
  int layout;
  size_t es;
  const uint64_t *src_table, *dst_table;
} call;

static call open_call(const khost_input *in)
{
  call c = {
      .k = {khost_param_get(in, "nb", 0), khost_param_get(in, "nh", 0), khost_param_get(in, "nl", 0),
            khost_param_get(in, "no", 0), khost_param_get(in, "nt", 0), khost_param_get(in, "hd", 0)},
      .layout = (int)khost_param_get(in, "layout", KHOST_KV_NHD),
      .es = khost_tensor_at(in->inputs, KHOST_KV_SRC)->dtype.bits / 8,
      .src_table = khost_tensor_at(in->inputs, KHOST_KV_SRC_TABLE)->data,
      .dst_table = khost_tensor_at(in->inputs, KHOST_KV_DST_TABLE)->data,
  };
  return c;
}

static unsigned char *at(uint64_t address)
{
  return (unsigned char *)(uintptr_t)address;
}

#ifndef KV_FAULT_IGNORES_LAYOUT
static size_t chunk_bytes(const call *c)
{
  return (size_t)(c->k.nt * c->k.nh * c->k.hd) * c->es;
}
#endif

/* Calls chunk(c, b, l, o) for every chunk of the call, block after block. */
static void each_chunk(const call *c, void (*chunk)(const call *, int64_t, int64_t, int64_t))
{
  for (int64_t b = 0; b < c->k.nb; b++)
    for (int64_t l = 0; l < c->k.nl; l++)
      for (int64_t o = 0; o < c->k.no; o++) chunk(c, b, l, o);
}

#ifdef KV_FAULT_WRONG_ENTRY
#define OP "kv_block_to_operational"
static void copy_chunk(const call *c, int64_t b, int64_t l, int64_t o)
{
  int64_t wrong = (khost_kv_block_entry(&c->k, b, l, o) + 1) % (c->k.nb * c->k.nl * c->k.no);
  memcpy(at(c->dst_table[b]) + (size_t)khost_kv_operational_index(&c->k, l, o) * c->es,
         at(c->src_table[wrong]), chunk_bytes(c));
}
#endif

#if defined(KV_FAULT_OVERRUN) || defined(KV_FAULT_WRITES_TABLE) || defined(KV_FAULT_TABLE_OVERRUN)
#define OP "kv_operational_to_block"
static void copy_chunk(const call *c, int64_t b, int64_t l, int64_t o)
{
  size_t n = chunk_bytes(c);
  unsigned char *chunk = at(c->dst_table[khost_kv_block_entry(&c->k, b, l, o)]);
  const unsigned char *from = at(c->src_table[b]) + (size_t)khost_kv_operational_index(&c->k, l, o) * c->es;
  memcpy(chunk, from, n);
#ifdef KV_FAULT_OVERRUN
  memcpy(chunk + n, from, n);
#endif
}
#endif

#ifdef KV_FAULT_IGNORES_LAYOUT
#define OP "kv_block_to_universal"
static void copy_chunk(const call *c, int64_t b, int64_t l, int64_t o)
{
  for (int64_t t = 0; t < c->k.nt; t++)
    for (int64_t h = 0; h < c->k.nh; h++)
      memcpy(at(c->dst_table[b]) + (size_t)khost_kv_universal_index(&c->k, h, l, o, t, 0) * c->es,
             at(c->src_table[khost_kv_block_entry(&c->k, b, l, o)]) +
                 (size_t)khost_kv_chunk_index(&c->k, KHOST_KV_NHD, t, h, 0) * c->es,
             (size_t)c->k.hd * c->es);
}
#endif

#if defined(KV_FAULT_WRITES_TABLE)
static void after_copy(const khost_input *in, const call *c)
{
  uint64_t *table = khost_tensor_at(in->inputs, KHOST_KV_DST_TABLE)->data;
  int64_t entries = c->k.nb * c->k.nl * c->k.no;
  if (entries) table[entries - 1] = 0;
}
#elif defined(KV_FAULT_TABLE_OVERRUN)
static void after_copy(const khost_input *in, const call *c)
{
  uint64_t *table = khost_tensor_at(in->inputs, KHOST_KV_SRC_TABLE)->data;
  table[c->k.nb] = 0;
}
#else
/* The other faults are in their copies alone. */
static void after_copy(const khost_input *in, const call *c)
{
  (void)in;
  (void)c;
}
#endif

static int run(const khost_input *in)
{
  call c = open_call(in);
  each_chunk(&c, copy_chunk);
  after_copy(in, &c);
  return KHOST_STATUS_OK;
}

static const khost_kernel kernel = {
    .struct_size = sizeof(khost_kernel),
    .op = OP,
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};
static const khost_kernel *const kernels[] = {&kernel};

static const khost_plugin plugin = {
    .magic = KHOST_PLUGIN_MAGIC,
    .abi_major = KHOST_ABI_MAJOR,
    .abi_minor = KHOST_ABI_MINOR,
    .struct_size = sizeof(khost_plugin),
    .name = KV_FAULT_NAME,
    .version = "0",
    .language = "c",
    .description = "a KV-cache conversion with one defect (tests/plugins/kv_fault.c)",
    .nkernels = 1,
    .kernels = kernels,
};

KHOST_PLUGIN_DEFINE(plugin)
