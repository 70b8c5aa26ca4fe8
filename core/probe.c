/* Plugin init() runs in a child process first: a plugin whose init fails,
 * crashes, exits or hangs is recorded with stage "init" and never reaches a
 * worker, and the parent never holds state that init created (a CUDA context
 * must not exist before fork). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "loader.h"

enum { MSG_BEGIN = 1, MSG_RESULT = 2 };

typedef struct probe_result {
  int32_t index, status;
  char message[1000];
} probe_result;

typedef struct probe_job {
  const khost__registry *reg;
  int first;
  double timeout_s; /* how long one plugin's init and fini may take */
} probe_job;

static int probe_child(int fd, void *arg)
{
  const probe_job *job = arg;
  for (int i = job->first; i < job->reg->nplugins; i++) {
    const khost_plugin *d = job->reg->plugins[i].desc;
    probe_result r = {.index = i};
    khost__child_send(fd, MSG_BEGIN, &i, sizeof i);
    if (d->init) {
      r.status = d->init(r.message, sizeof r.message);
      r.message[sizeof r.message - 1] = '\0';
      if (r.status == KHOST_STATUS_OK && d->fini) d->fini();
    }
    khost__child_send(fd, MSG_RESULT, &r, sizeof r);
  }
  return 0;
}

/* Runs one child from job->first; returns the index after the last plugin it
 * settled. Failures are written into why[i] (empty string = fine). */
static int probe_from(probe_job *job, char (*why)[1024], khost__err *err, int *rc)
{
  khost__child child;
  *rc = khost__child_start(&child, probe_child, job, err);
  if (*rc != KHOST__OK) return job->reg->nplugins;
  int current = -1, settled = job->first, got;
  uint32_t type, size;
  probe_result r;
  while ((got = khost__child_recv(&child, &type, &r, sizeof r, &size, job->timeout_s)) == 1) {
    if (type == MSG_BEGIN) {
      current = r.index;
    } else if (type == MSG_RESULT) {
      if (r.status != KHOST_STATUS_OK)
        snprintf(why[r.index], sizeof why[0], "init returned status %d: %s", r.status, r.message);
      settled = r.index + 1;
      current = -1;
    }
  }
  khost__child_end end;
  khost__child_finish(&child, got < 0, &end);
  if (current >= 0) {
    if (got < 0)
      snprintf(why[current], sizeof why[0], "init timed out: silent for longer than --timeout %g s",
               job->timeout_s);
    else
      snprintf(why[current], sizeof why[0], "init %s", end.how);
    settled = current + 1;
  }
  return current >= 0 ? settled : job->reg->nplugins;
}

/* A shadowed copy is never tried in place of a plugin whose init failed: it
 * would measure another build than the one the user built. Naming the copies
 * in the reason is how the user learns that they exist. */
static void name_shadowed(const khost__registry *reg, const char *path, char *reason, size_t size)
{
  size_t used = strlen(reason);
  const char *lead = "; not tried in its place (the first copy found is the one run): ";
  for (int i = 0; i < reg->nshadowed && used < size; i++) {
    if (strcmp(reg->shadowed[i].shadowed_by, path)) continue;
    used += (size_t)snprintf(reason + used, size - used, "%s%s", lead, reg->shadowed[i].path);
    lead = ", ";
  }
}

static int record_and_drop(khost__registry *reg, char (*why)[1024], khost__err *err)
{
  /* Backwards, so that removing entry i does not shift the ones still to visit. */
  for (int i = reg->nplugins - 1; i >= 0; i--) {
    if (!why[i][0]) continue;
    char reason[sizeof reg->failures[0].reason];
    snprintf(reason, sizeof reason, "%s", why[i]);
    name_shadowed(reg, reg->plugins[i].path, reason, sizeof reason);
    int rc = khost__registry_add_failure(reg, reg->plugins[i].path, KHOST__STAGE_INIT, reason, err);
    if (rc != KHOST__OK) return rc;
    khost__registry_remove(reg, i);
  }
  return KHOST__OK;
}

int khost__registry_probe_init(khost__registry *reg, double timeout_s, khost__err *err)
{
  if (reg->nplugins == 0) return KHOST__OK;
  char(*why)[1024] = calloc((size_t)reg->nplugins, sizeof *why);
  if (!why) return khost__errorf(err, KHOST__E_NOMEM, "out of memory probing plugins");
  int rc = KHOST__OK;
  probe_job job = {.reg = reg, .first = 0, .timeout_s = timeout_s};
  while (job.first < reg->nplugins && rc == KHOST__OK) job.first = probe_from(&job, why, err, &rc);
  if (rc == KHOST__OK) rc = record_and_drop(reg, why, err);
  free(why);
  return rc;
}
