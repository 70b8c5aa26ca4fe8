#include "nvtx.h"

#include <stdio.h>
#include <string.h>

#ifdef KHOST_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

#define PART_MAX 128

/* The current phase: its parts as the ranges name them, and its open range. */
static struct {
  char parts[3][PART_MAX]; /* case, backend, phase */
  int open;
#ifdef KHOST_HAVE_NVTX
  nvtxRangeId_t range;
#endif
} current;

static void copy_part(char *dst, size_t n, const char *src)
{
  snprintf(dst, n, "%s", src);
  for (char *c = dst; *c; c++)
    if (*c == '/') *c = '|';
}

void khost__nvtx_path(char *buf, size_t n, const char *case_name, const char *backend, const char *phase)
{
  char parts[3][PART_MAX];
  copy_part(parts[0], PART_MAX, case_name);
  copy_part(parts[1], PART_MAX, backend);
  copy_part(parts[2], PART_MAX, phase);
  snprintf(buf, n, "khost/%s/%s/%s", parts[0], parts[1], parts[2]);
}

void khost__nvtx_phase_end(void)
{
#ifdef KHOST_HAVE_NVTX
  if (current.open) nvtxRangeEnd(current.range);
#endif
  current.open = 0;
}

void khost__nvtx_phase(const char *case_name, const char *backend, const char *phase)
{
  khost__nvtx_phase_end();
  copy_part(current.parts[0], PART_MAX, case_name);
  copy_part(current.parts[1], PART_MAX, backend);
  copy_part(current.parts[2], PART_MAX, phase);
#ifdef KHOST_HAVE_NVTX
  char path[4 * PART_MAX + 8];
  khost__nvtx_path(path, sizeof path, case_name, backend, phase);
  current.range = nvtxRangeStartA(path);
#endif
  current.open = 1;
}

void khost__nvtx_call_begin(void)
{
#ifdef KHOST_HAVE_NVTX
  nvtxRangePushA("khost");
  for (int i = 0; i < 3; i++) nvtxRangePushA(current.parts[i]);
#endif
}

void khost__nvtx_call_end(void)
{
#ifdef KHOST_HAVE_NVTX
  for (int i = 0; i < 4; i++) nvtxRangePop();
#endif
}
