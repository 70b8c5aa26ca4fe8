/* Cheats that keep results (issue 39): a correct CPU copy_transpose that, on a
 * call whose inputs look like an earlier call's, copies out the output it kept
 * instead of working. One per key, picked by -DCACHE_<KIND> (tests/meson.build
 * builds cache_<kind>.so from this file):
 *   SAMPLE     16 bytes sampled across the input, one entry
 *   SAMPLES    the same sample, up to 64 entries
 *   ADDRESS    the input's address
 *   WORKSPACE  the kept output lives in the workspace, marked as filled
 *   COUNT      the call count: it works on every 8th call only
 * Every call served from the cache appends a line to $KHOST_TEST_CACHE_LOG, so
 * that a test tells a cheat that never won (it worked on every call, and its
 * time is honest) from one that won and must have failed: "hit", or "hit on the
 * first inputs" when the entry is the one the process's first call kept (pass
 * 1's inputs, which the timed check repeats by design: its right output is no win). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_plugin.h"
#include "khost/ops.h"

#ifndef CACHE_NAME
#define CACHE_NAME "cache_sample"
#endif

#define KEY_BYTES 16
#ifdef CACHE_SAMPLES
#define ENTRIES 64
#else
#define ENTRIES 1
#endif
#define WORKSPACE_MARK UINT64_C(0x6b686f7374636163) /* "khostcac" */

static void note_hit(int first)
{
  const char *path = getenv("KHOST_TEST_CACHE_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (f) fputs(first ? "hit on the first inputs\n" : "hit\n", f), fclose(f);
}

#ifdef CACHE_WORKSPACE
/* The workspace: a mark, then the output kept by the last call. */
static int workspace_fn(const khost_input *in, size_t *bytes)
{
  *bytes = sizeof(uint64_t) + khost_tensor_at(in->outputs, 0)->nbytes;
  return KHOST_STATUS_OK;
}

static int run(const khost_input *in)
{
  const khost_tensor *dst = khost_tensor_at(in->outputs, 0);
  unsigned char *kept = (unsigned char *)in->workspace + sizeof(uint64_t);
  uint64_t mark;
  memcpy(&mark, in->workspace, sizeof mark);
  if (mark == WORKSPACE_MARK) return note_hit(0), memcpy(dst->data, kept, dst->nbytes), KHOST_STATUS_OK;
  fixture_transpose(khost_tensor_at(in->inputs, 0), dst->data);
  memcpy(kept, dst->data, dst->nbytes);
  mark = WORKSPACE_MARK;
  memcpy(in->workspace, &mark, sizeof mark);
  return KHOST_STATUS_OK;
}
#else
typedef struct entry {
  unsigned char key[KEY_BYTES];
  const void *from;
  unsigned char *out;
  size_t bytes;
  int first; /* kept by the process's first call */
} entry;

static entry cache[ENTRIES];
static int filled, next, kept_any;

static void sample(const khost_tensor *src, unsigned char key[KEY_BYTES])
{
  for (int i = 0; i < KEY_BYTES; i++)
    key[i] = ((const unsigned char *)src->data)[(size_t)i * src->nbytes / KEY_BYTES];
}

/* The kept entry this call's inputs match, or NULL. */
static const entry *lookup(const khost_tensor *src, size_t bytes)
{
#ifdef CACHE_COUNT
  static unsigned long calls;
  if (calls++ % 8 == 0) return NULL;
#endif
  unsigned char key[KEY_BYTES];
  sample(src, key);
  for (int e = 0; e < filled; e++) {
    if (cache[e].bytes != bytes) continue;
#if defined(CACHE_ADDRESS)
    if (cache[e].from == src->data) return &cache[e];
#elif defined(CACHE_COUNT)
    return &cache[e];
#else
    if (!memcmp(cache[e].key, key, KEY_BYTES)) return &cache[e];
#endif
  }
  return NULL;
}

static void keep(const khost_tensor *src, const khost_tensor *dst)
{
  entry *e = &cache[next];
  unsigned char *out = realloc(e->out, dst->nbytes);
  if (!out) return;
  sample(src, e->key);
  e->from = src->data;
  e->out = memcpy(out, dst->data, dst->nbytes);
  e->bytes = dst->nbytes;
  e->first = !kept_any;
  kept_any = 1;
  next = (next + 1) % ENTRIES;
  if (filled < ENTRIES) filled++;
}

static int run(const khost_input *in)
{
  const khost_tensor *src = khost_tensor_at(in->inputs, 0), *dst = khost_tensor_at(in->outputs, 0);
  const entry *hit = lookup(src, dst->nbytes);
  if (hit) return note_hit(hit->first), memcpy(dst->data, hit->out, dst->nbytes), KHOST_STATUS_OK;
  fixture_transpose(src, dst->data);
  keep(src, dst);
  return KHOST_STATUS_OK;
}
#endif

#ifndef CACHE_WORKSPACE
#define workspace_fn NULL
#endif
static const khost_kernel copy_kernel = {.struct_size = sizeof(khost_kernel),
                                         .op = "copy_transpose",
                                         .device_type = KHOST_DEVICE_CPU,
                                         .run = run,
                                         .workspace_size = workspace_fn};
static const khost_kernel *const kernels[] = {&copy_kernel};
KHOST_FIXTURE_PLUGIN(CACHE_NAME, "c", "a transpose that copies out a result it kept", kernels, NULL)
