/* --shard I/N: one of N disjoint parts of a run's selected cases, so that N
 * processes anywhere (a Slurm job array) together run the whole suite once.
 * A case belongs to shard FNV-1a-64(name) mod N: a property of its name alone,
 * so that adding, removing or reordering other cases of the suite file, or
 * selecting others with --op and --case, moves no case to another shard.
 * docs/CLUSTER.md describes it. */
#ifndef KHOST_SHARD_H
#define KHOST_SHARD_H

#include "error.h"

struct khost__suite;

/* Which shard a process runs. count 0 means no sharding (the whole selection). */
typedef struct khost__shard {
  int index; /* from 0 to count - 1 */
  int count;
} khost__shard;

#define KHOST__SHARD_MAX 100000

/* Reads "I/N" (0 <= I < N <= KHOST__SHARD_MAX) or "slurm" into *out. "slurm"
 * takes I and N from the job array's environment: I = (SLURM_ARRAY_TASK_ID -
 * SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP (MIN 0 and STEP 1 when unset),
 * N = SLURM_ARRAY_TASK_COUNT. A spec or variable that is malformed, missing or
 * out of range is KHOST__E_CONFIG with the value and the reason. */
int khost__shard_parse(const char *spec, khost__shard *out, khost__err *err);

/* The shard (0 to count - 1) the case named name belongs to; count >= 1. */
int khost__shard_of(const char *name, int count);

/* Keeps, in order, the cases of s in shard (none may remain); count 0 keeps all. */
void khost__shard_select(struct khost__suite *s, const khost__shard *shard);

#endif
