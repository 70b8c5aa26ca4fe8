/* One small plugin per loader failure stage, picked by -DBREAK_<STAGE> at build
 * time (tests/meson.build builds one .so per stage, named for what it proves).
 * With no BREAK_ macro it is a good plugin named by FIXTURE_NAME; with
 * MANY_KERNELS, a good one of 100,000 kernels. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../support/die_of_signal.h"
#include "khost/plugin.h"

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture_good"
#endif

#ifdef BREAK_UNRESOLVED
/* Defined nowhere: a host that binds symbols lazily would load the plugin and fail
 * only on the first call. */
extern void khost_fixture_missing_symbol(void);
#endif

/* A real (slow) transpose, so that a good fixture is a working backend. */
__attribute__((unused)) static int run_copy(const khost_input *in)
{
#ifdef BREAK_UNRESOLVED
  khost_fixture_missing_symbol();
#endif
  const khost_tensor *src = khost_tensor_at(in->inputs, 0);
  const unsigned char *from = src->data;
  unsigned char *to = khost_tensor_at(in->outputs, 0)->data;
  int64_t m = src->shape[0], n = src->shape[1];
  size_t size = src->dtype.bits / 8;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      memcpy(to + (size_t)(j * m + i) * size, from + (size_t)(i * n + j) * size, size);
  return KHOST_STATUS_OK;
}

#ifdef BREAK_INIT_FAILS
static int init_fn(char *err, size_t size)
{
  snprintf(err, size, "fixture init refuses on purpose");
  return KHOST_STATUS_INTERNAL;
}
#elif defined(BREAK_INIT_CRASHES)
static int init_fn(char *err, size_t size)
{
  (void)err;
  (void)size;
  /* A real segfault signal, not an invalid access a sanitizer would turn into an exit. */
  die_of_signal(SIGSEGV);
  return KHOST_STATUS_INTERNAL;
}
#elif defined(BREAK_INIT_HANGS)
static int init_fn(char *err, size_t size)
{
  (void)err;
  (void)size;
  for (;;) pause();
  return KHOST_STATUS_INTERNAL; /* never reached: the probe kills it at its timeout */
}
#else
#define init_fn NULL
#endif

#ifdef BREAK_OP_UNTERMINATED
/* 64 characters and no NUL: what follows in memory is not part of the name. */
static const struct {
  char text[64];
  char after[8];
} op_text = {"copy_transpose_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "AFTER"};
#endif

static const khost_kernel copy_kernel = {
    .struct_size = sizeof(khost_kernel),
#ifdef BREAK_EMPTY_OP
    .op = "",
#elif defined(BREAK_OP_UNTERMINATED)
    .op = op_text.text,
#else
    .op = "copy_transpose",
#endif
#ifdef BREAK_BAD_DEVICE
    .device_type = 7,
#else
    .device_type = KHOST_DEVICE_CPU,
#endif
#ifdef BREAK_NULL_KERNEL
    .run = NULL,
#else
    .run = run_copy,
#endif
};
#ifdef BREAK_SMALL_KERNEL
static const khost_kernel small_kernel = {
    .struct_size = 8, .op = "reduce_sum", .device_type = 1, .run = run_copy};
static const khost_kernel *const kernels[] = {&copy_kernel, &small_kernel};
#elif defined(BREAK_DUPLICATE_OP)
static const khost_kernel *const kernels[] = {&copy_kernel, &copy_kernel};
#elif defined(BREAK_OVERCOUNT)
/* nkernels says 1000 (below), the array holds one kernel, and what follows it is
 * no pointer to a kernel. */
static const struct {
  const khost_kernel *const array[1];
  uintptr_t after;
} kernel_list = {{&copy_kernel}, 16};
#define KERNEL_LIST kernel_list.array
#elif defined(MANY_KERNELS)
/* 100,000 kernels of distinct ops, made by the entry: loading them must take time
 * in proportion, not in the square. */
#define NMANY 100000
static char many_ops[NMANY][16];
static khost_kernel many[NMANY];
static const khost_kernel *kernels[NMANY];
#else
static const khost_kernel *const kernels[] = {&copy_kernel};
#endif

#ifndef KERNEL_LIST
#define KERNEL_LIST kernels
#endif

#ifdef BREAK_NAME_UNTERMINATED
static const struct {
  char text[64];
  char after[8];
} name_text = {"fixture_name_unterminated_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "AFTER"};
#endif
#ifdef BREAK_TEXT_UNTERMINATED
/* 256 characters of description (one past the bound) and no NUL. */
#define X16  "xxxxxxxxxxxxxxxx"
#define X256 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16
static const struct {
  char text[256];
  char after[8];
} description_text = {X256, "AFTER"};
#endif

static const khost_plugin descriptor = {
#ifdef BREAK_MAGIC
    .magic = 0x1234,
#else
    .magic = KHOST_PLUGIN_MAGIC,
#endif
#ifdef BREAK_ABI_MAJOR
    .abi_major = KHOST_ABI_MAJOR + 1,
#else
    .abi_major = KHOST_ABI_MAJOR,
#endif
    .abi_minor = KHOST_ABI_MINOR,
#ifdef BREAK_STRUCT_SIZE
    .struct_size = 16,
#else
    .struct_size = sizeof(khost_plugin),
#endif
#ifdef BREAK_EMPTY_NAME
    .name = "",
#elif defined(BREAK_NAME_UNTERMINATED)
    .name = name_text.text,
#else
    .name = FIXTURE_NAME,
#endif
    .version = "1.0",
    .language = "c",
#ifdef BREAK_TEXT_UNTERMINATED
    .description = description_text.text,
#else
    .description = "loader test fixture",
#endif
#ifdef BREAK_NO_KERNELS
    .nkernels = 0,
#elif defined(BREAK_OVERCOUNT)
    .nkernels = 1000,
#elif defined(MANY_KERNELS)
    .nkernels = NMANY,
#else
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
#endif
    .kernels = KERNEL_LIST,
    .init = init_fn,
};

#ifdef BREAK_NO_ENTRY
KHOST_EXPORT const khost_plugin *not_the_entry(void);
const khost_plugin *not_the_entry(void)
{
  return &descriptor;
}
#elif defined(BREAK_ENTRY_NULL)
KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t major, uint32_t minor)
{
  /* Refuses every real host: no host passes this version. */
  return major == UINT32_MAX && minor == UINT32_MAX ? &descriptor : NULL;
}
#elif defined(MANY_KERNELS)
KHOST_EXPORT const khost_plugin *khost_plugin_entry(uint32_t major, uint32_t minor)
{
  (void)minor;
  for (int i = 0; i < NMANY; i++) {
    snprintf(many_ops[i], sizeof many_ops[i], "op_%d", i);
    many[i] = copy_kernel;
    many[i].op = many_ops[i];
    kernels[i] = &many[i];
  }
  return major == KHOST_ABI_MAJOR ? &descriptor : NULL;
}
#elif defined(PLUGIN_SET)
/* ABI 1.2: two backends from one library, a third with a broken descriptor (an
 * empty name), and one part that failed at a stage the plugin names. */
static khost_plugin second, broken;
static const khost_plugin *members[] = {&descriptor, &second, &broken};
static const khost_plugin_failure failed = {.struct_size = sizeof(khost_plugin_failure),
                                            .source = "/nowhere/failed_part.py",
                                            .stage = "fixture_stage",
                                            .message = "the part failed\nits last line"};
static const khost_plugin_failure *const failures[] = {&failed};
static const khost_plugin_set set = {.struct_size = sizeof(khost_plugin_set),
                                     .nplugins = 3,
                                     .plugins = members,
                                     .nfailures = 1,
                                     .failures = failures};
KHOST_EXPORT const khost_plugin_set *khost_plugin_set_entry(uint32_t major, uint32_t minor)
{
  (void)minor;
  second = descriptor;
  second.name = FIXTURE_NAME "_second";
  broken = descriptor;
  broken.name = "";
  return major == KHOST_ABI_MAJOR ? &set : NULL;
}
#else
KHOST_PLUGIN_DEFINE(descriptor)
#endif
