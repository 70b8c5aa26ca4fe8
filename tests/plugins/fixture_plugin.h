/* What the fixture plugins of tests/plugins/ share: the descriptor each exports
 * (only its name, language, description, kernels, a static array, and fini()
 * differ; C and CUDA alike), and the plain CPU transpose the CPU ones start from. */
#ifndef KHOST_TESTS_FIXTURE_PLUGIN_H
#define KHOST_TESTS_FIXTURE_PLUGIN_H

#include <string.h>

#include "khost/plugin.h"

/* to[j][i] = src[i][j], elements copied as bytes of their size. */
static inline void fixture_transpose(const khost_tensor *src, unsigned char *to)
{
  const unsigned char *from = (const unsigned char *)src->data;
  int64_t m = src->shape[0], n = src->shape[1];
  size_t size = src->dtype.bits / 8;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      memcpy(to + (size_t)(j * m + i) * size, from + (size_t)(i * n + j) * size, size);
}

#define KHOST_FIXTURE_PLUGIN(NAME, LANGUAGE, DESCRIPTION, KERNELS, FINI)                                     \
  static const khost_plugin fixture_descriptor = {KHOST_PLUGIN_MAGIC,                                        \
                                                  KHOST_ABI_MAJOR,                                           \
                                                  KHOST_ABI_MINOR,                                           \
                                                  sizeof(khost_plugin),                                      \
                                                  NAME,                                                      \
                                                  "1.0",                                                     \
                                                  LANGUAGE,                                                  \
                                                  DESCRIPTION,                                               \
                                                  (int32_t)(sizeof KERNELS / sizeof KERNELS[0]),             \
                                                  KERNELS,                                                   \
                                                  NULL,                                                      \
                                                  FINI};                                                     \
  KHOST_PLUGIN_DEFINE(fixture_descriptor)

#endif
