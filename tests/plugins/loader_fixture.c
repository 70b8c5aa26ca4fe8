/* One small plugin per loader failure stage, picked by -DBREAK_<STAGE> at build
 * time (tests/meson.build builds one .so per stage, named for what it proves).
 * With no BREAK_ macro it is a good plugin named by FIXTURE_NAME. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
#else
#define init_fn NULL
#endif

static const khost_kernel copy_kernel = {
    .struct_size = sizeof(khost_kernel),
#ifdef BREAK_EMPTY_OP
    .op = "",
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
#else
static const khost_kernel *const kernels[] = {&copy_kernel};
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
#else
    .name = FIXTURE_NAME,
#endif
    .version = "1.0",
    .language = "c",
    .description = "loader test fixture",
#ifdef BREAK_NO_KERNELS
    .nkernels = 0,
#else
    .nkernels = (int32_t)(sizeof kernels / sizeof kernels[0]),
#endif
    .kernels = kernels,
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
#else
KHOST_PLUGIN_DEFINE(descriptor)
#endif
