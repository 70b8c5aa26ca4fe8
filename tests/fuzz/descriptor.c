/* libFuzzer target: the descriptor check (core/descriptor.c) on descriptors
 * built from any bytes. Every string is a heap buffer of one byte past its
 * bound, and every struct is as large as its struct_size says (at least the
 * fields read before struct_size is known): memory a correct check may read, so
 * that the sanitizers report any read past it. nkernels never exceeds the array
 * here: an array whose length the host cannot know is what the child process of
 * khost__descriptor_check_isolated is for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "descriptor.h"

#define MAX_KERNELS 16

typedef struct input {
  const uint8_t *data;
  size_t size;
} input;

/* The next byte, 0 once the input is used up. */
static uint8_t take(input *in)
{
  if (!in->size) return 0;
  in->size--;
  return *in->data++;
}

static uint64_t take_bytes(input *in, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | take(in);
  return v;
}

/* Every allocation of one input, freed together. */
typedef struct arena {
  void *blocks[8 + 3 * MAX_KERNELS];
  int n;
} arena;

static void *arena_alloc(arena *a, size_t size)
{
  void *p = calloc(1, size);
  if (!p) abort();
  a->blocks[a->n++] = p;
  return p;
}

/* NULL (length byte 0xff), or a buffer of bound + 1 bytes holding that many bytes
 * of the input, each mapped by `alphabet` when given; a length past the bound
 * fills the buffer and leaves it without a NUL. */
static const char *take_string(input *in, arena *a, size_t bound, const char *alphabet)
{
  uint8_t length = take(in);
  if (length == 0xff) return NULL;
  char *s = arena_alloc(a, bound + 1);
  size_t fill = length > bound ? bound + 1 : length;
  size_t letters = alphabet ? strlen(alphabet) : 0;
  for (size_t i = 0; i < fill; i++) {
    uint8_t b = take(in);
    s[i] = alphabet ? alphabet[b % letters] : (char)b;
  }
  return s;
}

/* Mostly the catalog's ops, so that clashes are common; else any string. */
static const char *take_op(input *in, arena *a)
{
  static const char *const ops[] = {"nvfp4_gemv", "copy_transpose", "reduce_sum", "softmax_online", ""};
  uint8_t pick = take(in);
  if (pick < 0xc0) return ops[pick % (sizeof ops / sizeof ops[0])];
  return take_string(in, a, KHOST__OP_NAME_MAX, NULL);
}

static int run_stub(const khost_input *in)
{
  (void)in;
  return KHOST_STATUS_OK;
}

/* Exactly the bytes a struct of this struct_size holds, and at least `header`. */
static void *place(arena *a, const void *whole, size_t whole_size, size_t struct_size, size_t header)
{
  size_t bytes = struct_size < whole_size ? struct_size : whole_size;
  if (bytes < header) bytes = header;
  void *p = arena_alloc(a, bytes);
  memcpy(p, whole, bytes);
  return p;
}

static const khost_kernel *take_kernel(input *in, arena *a)
{
  uint8_t flags = take(in);
  if (flags & 1) return NULL;
  khost_kernel k = {
      .struct_size = flags & 2 ? take(in) : sizeof(khost_kernel),
      .op = take_op(in, a),
      .device_type = flags & 4 ? (int32_t)take_bytes(in, 4) : KHOST_DEVICE_CPU + (flags >> 3 & 1),
      .run = flags & 16 ? NULL : run_stub,
  };
  return place(a, &k, sizeof k, k.struct_size, sizeof k.struct_size);
}

static const khost_plugin *take_descriptor(input *in, arena *a)
{
  uint8_t flags = take(in);
  int count = take(in) % (MAX_KERNELS + 1);
  const khost_kernel **list = arena_alloc(a, (size_t)(count ? count : 1) * sizeof *list);
  khost_plugin d = {
      .magic = flags & 1 ? take_bytes(in, 8) : KHOST_PLUGIN_MAGIC,
      .abi_major = flags & 2 ? (uint32_t)take_bytes(in, 4) : KHOST_ABI_MAJOR,
      .abi_minor = (uint32_t)take_bytes(in, 4),
      .struct_size = flags & 4 ? take(in) : sizeof(khost_plugin),
      .name = take_string(in, a, KHOST_PLUGIN_NAME_MAX, "abcdefghijklmnopqrstuvwxyz0123456789_A-"),
      .version = take_string(in, a, KHOST__PLUGIN_TEXT_MAX, NULL),
      .language = take_string(in, a, KHOST__PLUGIN_TEXT_MAX, NULL),
      .description = take_string(in, a, KHOST__PLUGIN_TEXT_MAX, NULL),
      .nkernels = count,
      .kernels = flags & 16 ? NULL : list,
  };
  if (flags & 8) {
    int32_t n = (int32_t)take_bytes(in, 4);
    d.nkernels = n < count ? n : count;
  }
  for (int i = 0; i < count; i++) list[i] = take_kernel(in, a);
  return place(a, &d, sizeof d, d.struct_size, offsetof(khost_plugin, name));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  input in = {data, size};
  arena a = {.n = 0};
  const khost_plugin *d = take_descriptor(&in, &a);
  khost__descriptor_progress at;
  char why[1024] = "";
  khost__load_stage stage = khost__descriptor_check(d, &at, why, sizeof why);
  /* The check refuses at a descriptor's own stages only, and always says why. */
  int descriptor_stage = stage == KHOST__STAGE_MAGIC || stage == KHOST__STAGE_ABI ||
                         stage == KHOST__STAGE_STRUCT_SIZE || stage == KHOST__STAGE_DESCRIPTOR;
  if (stage != KHOST__STAGE_COUNT && (!descriptor_stage || !why[0])) abort();
  if (stage == KHOST__STAGE_COUNT && why[0]) abort();
  for (int i = 0; i < a.n; i++) free(a.blocks[i]);
  return 0;
}
