#include "descriptor.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "child.h"

#define TEXT_OF(x)     #x
#define NUMBER_TEXT(x) TEXT_OF(x)

/* Records what is read next. The fence keeps the compiler from moving that read
 * above the record: a check that dies must leave the record of what killed it. */
static void reading(khost__descriptor_progress *at, khost__descriptor_part part, int32_t kernel)
{
  at->part = (int32_t)part;
  at->kernel = kernel;
  atomic_signal_fence(memory_order_seq_cst);
}

static khost__load_stage check_header(const khost_plugin *d, char *why, size_t n)
{
  if (d->magic != KHOST_PLUGIN_MAGIC)
    return snprintf(why, n, "bad magic 0x%016llx (expected 0x%016llx)", (unsigned long long)d->magic,
                    (unsigned long long)KHOST_PLUGIN_MAGIC),
           KHOST__STAGE_MAGIC;
  if (d->abi_major != KHOST_ABI_MAJOR)
    return snprintf(why, n, "ABI major %u, host has %d (minor %u vs %d)", d->abi_major, KHOST_ABI_MAJOR,
                    d->abi_minor, KHOST_ABI_MINOR),
           KHOST__STAGE_ABI;
  /* Every field of ABI 1.0 up to fini is read; later minors only append. */
  if (!KHOST__HAS_FIELD(d, khost_plugin, fini))
    return snprintf(why, n, "descriptor struct_size %zu is smaller than the %zu bytes the host reads",
                    d->struct_size, offsetof(khost_plugin, fini) + sizeof d->fini),
           KHOST__STAGE_STRUCT_SIZE;
  return KHOST__STAGE_COUNT;
}

/* What is wrong with a plugin name, or NULL. Names key --backends, --baseline and
 * the reports' fixed-size fields, so they are short as well as plain. */
static const char *name_problem(const char *s)
{
  if (!s || !*s) return "is empty";
  if (strnlen(s, KHOST_PLUGIN_NAME_MAX + 1) > KHOST_PLUGIN_NAME_MAX)
    return "is longer than " NUMBER_TEXT(KHOST_PLUGIN_NAME_MAX) " characters";
  if (strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s)) return "is not [a-z0-9_]+";
  return NULL;
}

static khost__load_stage check_name(const khost_plugin *d, char *why, size_t n)
{
  const char *problem = name_problem(d->name);
  if (!problem) return KHOST__STAGE_COUNT;
  const char *name = d->name ? d->name : "(null)";
  /* No more of it than was read: a name may lack its NUL. */
  int shown = (int)strnlen(name, KHOST_PLUGIN_NAME_MAX + 1);
  snprintf(why, n, "plugin name '%.*s' %s", shown, name, problem);
  return KHOST__STAGE_DESCRIPTOR;
}

/* version, language or description: optional, and read up to its bound only. */
static khost__load_stage check_text(const khost_plugin *d, const char *text, const char *what, char *why,
                                    size_t n)
{
  if (!text || strnlen(text, KHOST__PLUGIN_TEXT_MAX + 1) <= KHOST__PLUGIN_TEXT_MAX) return KHOST__STAGE_COUNT;
  snprintf(why, n, "plugin '%s' has a %s longer than %d characters", d->name, what, KHOST__PLUGIN_TEXT_MAX);
  return KHOST__STAGE_DESCRIPTOR;
}

static khost__load_stage check_kernel(const khost_kernel *k, int i, char *why, size_t n)
{
  if (!k) return snprintf(why, n, "kernel %d is NULL", i), KHOST__STAGE_DESCRIPTOR;
  if (!KHOST__HAS_FIELD(k, khost_kernel, run))
    return snprintf(why, n, "kernel %d: struct_size %zu is smaller than the %zu bytes the host reads", i,
                    k->struct_size, offsetof(khost_kernel, run) + sizeof k->run),
           KHOST__STAGE_STRUCT_SIZE;
  if (!k->op || !*k->op)
    return snprintf(why, n, "kernel %d has an empty op name", i), KHOST__STAGE_DESCRIPTOR;
  if (strnlen(k->op, KHOST__OP_NAME_MAX + 1) > KHOST__OP_NAME_MAX)
    return snprintf(why, n, "kernel %d has an op name longer than %d characters", i, KHOST__OP_NAME_MAX),
           KHOST__STAGE_DESCRIPTOR;
  if (k->device_type != KHOST_DEVICE_CPU && k->device_type != KHOST_DEVICE_CUDA)
    return snprintf(why, n, "kernel %d (%s) has unknown device type %d", i, k->op, (int)k->device_type),
           KHOST__STAGE_DESCRIPTOR;
  if (!k->run)
    return snprintf(why, n, "kernel %d (%s) has a NULL kernel function", i, k->op), KHOST__STAGE_DESCRIPTOR;
  return KHOST__STAGE_COUNT;
}

typedef struct kernel_key {
  const char *op;
  int32_t device_type, index;
} kernel_key;

static int compare_keys(const void *a, const void *b)
{
  const kernel_key *x = a, *y = b;
  if (x->device_type != y->device_type) return x->device_type < y->device_type ? -1 : 1;
  int order = strcmp(x->op, y->op);
  return order ? order : (x->index > y->index) - (x->index < y->index);
}

/* Refuses the first of kernels[0, count) whose (op, device) an earlier kernel
 * has. Sorted, each clash is a pair of neighbours: O(n log n), where comparing
 * every pair took half a minute for 100,000 kernels. */
static khost__load_stage check_duplicates(const khost_plugin *d, int count, char *why, size_t n)
{
  if (count < 2) return KHOST__STAGE_COUNT;
  kernel_key *keys = malloc((size_t)count * sizeof *keys);
  if (!keys)
    return snprintf(why, n, "out of memory comparing the %d kernels of plugin '%s'", count, d->name),
           KHOST__STAGE_DESCRIPTOR;
  for (int i = 0; i < count; i++) keys[i] = (kernel_key){d->kernels[i]->op, d->kernels[i]->device_type, i};
  qsort(keys, (size_t)count, sizeof *keys, compare_keys);
  int first = count;
  for (int i = 1; i < count; i++)
    if (keys[i].device_type == keys[i - 1].device_type && !strcmp(keys[i].op, keys[i - 1].op) &&
        keys[i].index < first)
      first = keys[i].index;
  free(keys);
  if (first == count) return KHOST__STAGE_COUNT;
  snprintf(why, n, "duplicate op '%s' for one device in plugin '%s'", d->kernels[first]->op, d->name);
  return KHOST__STAGE_DESCRIPTOR;
}

static khost__load_stage check_kernels(const khost_plugin *d, khost__descriptor_progress *at, char *why,
                                       size_t n)
{
  int32_t count = d->nkernels;
  if (count < 1 || !d->kernels)
    return snprintf(why, n, "plugin '%s' lists no kernels", d->name), KHOST__STAGE_DESCRIPTOR;
  at->nkernels = count;
  khost__load_stage stage = KHOST__STAGE_COUNT;
  int good = 0;
  while (good < count && stage == KHOST__STAGE_COUNT) {
    reading(at, KHOST__PART_KERNEL_LIST, good);
    const khost_kernel *k = d->kernels[good];
    reading(at, KHOST__PART_KERNEL, good);
    stage = check_kernel(k, good, why, n);
    if (stage == KHOST__STAGE_COUNT) good++;
  }
  /* Kernels are taken in order: a clash before the first bad kernel is the first problem. */
  khost__load_stage clash = check_duplicates(d, good, why, n);
  return clash != KHOST__STAGE_COUNT ? clash : stage;
}

khost__load_stage khost__descriptor_check(const khost_plugin *d, khost__descriptor_progress *at, char *why,
                                          size_t n)
{
  reading(at, KHOST__PART_HEADER, -1);
  khost__load_stage stage = check_header(d, why, n);
  if (stage != KHOST__STAGE_COUNT) return stage;
  reading(at, KHOST__PART_NAME, -1);
  if ((stage = check_name(d, why, n)) != KHOST__STAGE_COUNT) return stage;
  /* Addresses only: each pointer is read once its part is recorded. */
  const struct {
    khost__descriptor_part part;
    const char *const *text;
    const char *what;
  } texts[] = {{KHOST__PART_VERSION, &d->version, "version"},
               {KHOST__PART_LANGUAGE, &d->language, "language"},
               {KHOST__PART_DESCRIPTION, &d->description, "description"}};
  for (size_t t = 0; t < sizeof texts / sizeof texts[0] && stage == KHOST__STAGE_COUNT; t++) {
    reading(at, texts[t].part, -1);
    stage = check_text(d, *texts[t].text, texts[t].what, why, n);
  }
  return stage != KHOST__STAGE_COUNT ? stage : check_kernels(d, at, why, n);
}

/* The reason for a check that died while reading at->part; returns its stage. */
static khost__load_stage describe_death(const khost__descriptor_progress *at, const char *how, char *why,
                                        size_t n)
{
  static const char *const parts[] = {"the descriptor", "the plugin name", "its version", "its language",
                                      "its description"};
  int part = at->part, i = at->kernel, used;
  if (part == KHOST__PART_KERNEL_LIST)
    used = snprintf(why, n, "entry %d of the kernels array (nkernels %d) cannot be read", i, at->nkernels);
  else if (part == KHOST__PART_KERNEL)
    used = snprintf(why, n, "kernel %d of %d cannot be read", i, at->nkernels);
  else
    used = snprintf(why, n, "%s cannot be read", parts[part]);
  if (used >= 0 && (size_t)used < n)
    snprintf(why + used, n - (size_t)used, " (checking it in a child process: %s)%s", how,
             part >= KHOST__PART_KERNEL_LIST && i > 0 ? "; is nkernels larger than the kernels array?" : "");
  return part == KHOST__PART_HEADER ? KHOST__STAGE_MAGIC : KHOST__STAGE_DESCRIPTOR;
}

enum { MSG_RESULT = 1 };

typedef struct check_result {
  int32_t stage;
  char why[1024];
} check_result;

typedef struct check_job {
  const khost_plugin *d;
  khost__descriptor_progress *at;
} check_job;

static int check_in_child(int fd, void *arg)
{
  const check_job *job = arg;
  check_result r = {0};
  r.stage = (int32_t)khost__descriptor_check(job->d, job->at, r.why, sizeof r.why);
  return khost__child_send(fd, MSG_RESULT, &r, sizeof r) == KHOST__OK ? EXIT_SUCCESS : EXIT_FAILURE;
}

int khost__descriptor_check_isolated(const khost_plugin *d, khost__load_stage *stage, char *why, size_t n,
                                     khost__err *err)
{
  /* Shared with the child, so that its record of what it was reading outlives it. */
  khost__descriptor_progress *at =
      mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED)
    return khost__errorf(err, KHOST__E_NOMEM, "cannot map memory to check a plugin: %s", strerror(errno));
  check_job job = {d, at};
  khost__child child;
  int rc = khost__child_start(&child, check_in_child, &job, err);
  if (rc == KHOST__OK) {
    check_result r;
    uint32_t type = 0, size = 0;
    /* No deadline: the check only reads memory, and a child that dies ends the wait. */
    int got = khost__child_recv(&child, &type, &r, sizeof r, &size, 0);
    khost__child_end end;
    khost__child_finish(&child, 0, &end);
    if (got == 1 && type == MSG_RESULT && size == sizeof r) {
      *stage = (khost__load_stage)r.stage;
      snprintf(why, n, "%s", r.why);
    } else {
      *stage = describe_death(at, end.how, why, n);
    }
  }
  munmap(at, sizeof *at);
  return rc;
}
