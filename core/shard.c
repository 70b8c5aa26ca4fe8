#include "shard.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h" /* khost__hash_bytes */
#include "suite.h"
#include "whole_number.h"

/* The job array variable name as a number from lo to hi; fallback when it is unset and fallback >= 0. */
static int slurm_variable(const char *name, long lo, long hi, long fallback, long *out, khost__err *err)
{
  const char *v = getenv(name);
  if (!v && fallback >= 0) {
    *out = fallback;
    return KHOST__OK;
  }
  if (!v)
    return khost__errorf(
        err, KHOST__E_CONFIG,
        "--shard slurm: %s is not set (run it as a task of a Slurm job array: sbatch --array)", name);
  if (!khost__whole_number(v, lo, hi, out))
    return khost__errorf(err, KHOST__E_CONFIG,
                         "--shard slurm: %s is '%.40s', not a whole number from %ld to %ld", name, v, lo, hi);
  return KHOST__OK;
}

/* Task ids need not start at 0 (--array=1-4) and may step (--array=0-12:4):
 * the shard is the task's place in the array. */
static int from_slurm(khost__shard *out, khost__err *err)
{
  long id, min, step, count;
  int rc = slurm_variable("SLURM_ARRAY_TASK_ID", 0, INT_MAX, -1, &id, err);
  if (rc == KHOST__OK) rc = slurm_variable("SLURM_ARRAY_TASK_COUNT", 1, KHOST__SHARD_MAX, -1, &count, err);
  if (rc == KHOST__OK) rc = slurm_variable("SLURM_ARRAY_TASK_MIN", 0, INT_MAX, 0, &min, err);
  if (rc == KHOST__OK) rc = slurm_variable("SLURM_ARRAY_TASK_STEP", 1, INT_MAX, 1, &step, err);
  if (rc != KHOST__OK) return rc;
  long place = (id - min) / step;
  if (id < min || (id - min) % step != 0 || place >= count)
    return khost__errorf(
        err, KHOST__E_CONFIG,
        "--shard slurm: SLURM_ARRAY_TASK_ID %ld is not one of %ld tasks from %ld in steps of %ld "
        "(an array of evenly spaced ids, such as --array=0-%ld, is needed)",
        id, count, min, step, count - 1);
  *out = (khost__shard){.index = (int)place, .count = (int)count};
  return KHOST__OK;
}

int khost__shard_parse(const char *spec, khost__shard *out, khost__err *err)
{
  if (strcmp(spec, "slurm") == 0) return from_slurm(out, err);
  char index[16], count[16];
  long i, n;
  size_t slash = strcspn(spec, "/");
  int ok = spec[slash] == '/' && slash < sizeof index && strlen(spec + slash + 1) < sizeof count;
  if (ok) {
    snprintf(index, sizeof index, "%.*s", (int)slash, spec);
    snprintf(count, sizeof count, "%s", spec + slash + 1);
    ok = khost__whole_number(count, 1, KHOST__SHARD_MAX, &n) && khost__whole_number(index, 0, n - 1, &i);
  }
  if (!ok)
    return khost__errorf(
        err, KHOST__E_CONFIG,
        "--shard needs I/N, a shard I from 0 to N - 1 of N from 1 to %d (0/4), or 'slurm'; got "
        "'%.40s'",
        KHOST__SHARD_MAX, spec);
  *out = (khost__shard){.index = (int)i, .count = (int)n};
  return KHOST__OK;
}

int khost__shard_of(const char *name, int count)
{
  return (int)(khost__hash_bytes(name, strlen(name)) % (uint64_t)count);
}

void khost__shard_select(khost__suite *s, const khost__shard *shard)
{
  int kept = 0;
  if (shard->count == 0) return;
  for (int i = 0; i < s->ncases; i++)
    if (khost__shard_of(s->cases[i].name, shard->count) == shard->index) s->cases[kept++] = s->cases[i];
  s->ncases = kept;
}
