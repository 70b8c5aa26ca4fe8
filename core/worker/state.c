#include "state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "fork_guard.h"
#include "nvtx.h"
#include "progress.h"

/* The announcement, also noted for the fork guard: the message of a process
 * that plugin code forked names the plugin and the phase. */
static void send_begin(const khost__worker *w, const khost__begin_msg *m)
{
  int p = m->slot >= 0                    ? w->job->slots[m->slot].plugin
          : m->slot == KHOST__ORACLE_SLOT ? w->job->oracle_plugin
          : m->slot == KHOST__FINI_SLOT   ? m->plugin
                                          : -1;
  if (p >= 0) khost__fork_guard_note(w->job->reg->plugins[p].desc->name, m->phase);
  khost__nvtx_phase(w->job->c->name, p >= 0 ? w->job->reg->plugins[p].desc->name : KHOST__NVTX_SELF,
                    m->phase);
  khost__child_send(w->fd, KHOST__MSG_BEGIN, m, sizeof *m);
}

void khost__worker_announce(const khost__worker *w, int slot, const char *phase)
{
  khost__begin_msg m = {.slot = slot};
  snprintf(m.phase, sizeof m.phase, "%.*s", (int)sizeof m.phase - 1, phase);
  if (slot >= 0) memcpy(m.variant, w->rows[slot].variant, sizeof m.variant);
  send_begin(w, &m);
}

void khost__worker_announce_fini(const khost__worker *w, int p)
{
  khost__begin_msg m = {.slot = KHOST__FINI_SLOT, .plugin = p, .phase = "fini"};
  send_begin(w, &m);
}

void khost__worker_settle(khost__worker *w, int s, khost__row_status status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  khost__measurement_vsettle(&w->rows[s], status, fmt, ap);
  va_end(ap);
  w->active[s] = 0;
  w->done[s] = 1;
}

int khost__worker_plugin_ready(khost__worker *w, int p)
{
  if (w->plugin_ready[p]) return w->plugin_ready[p] == 1;
  const khost_plugin *d = w->job->reg->plugins[p].desc;
  int rc = d->init ? d->init(w->plugin_why[p], sizeof w->plugin_why[p]) : KHOST_STATUS_OK;
  khost__fork_guard_check();
  w->plugin_why[p][sizeof w->plugin_why[p] - 1] = '\0'; /* the plugin may have filled it */
  w->plugin_ready[p] = rc == KHOST_STATUS_OK ? 1 : 2;
  return rc == KHOST_STATUS_OK;
}

/* A kernel that failed, or whose output guard failed first, may have changed
 * the inputs unseen: they are rewritten whether or not they look damaged. */
void khost__worker_restore_inputs(khost__worker *w)
{
  khost__err err;
  if (khost__case_data_restore(&w->data, &err) != KHOST__OK)
    khost__progress_say("restoring inputs failed: %s", err.msg);
}

int khost__worker_sync(const khost__worker *w, int s, khost__err *err)
{
  if (w->job->slots[s].device_type != KHOST_DEVICE_CUDA) return KHOST__OK;
  return khost__cuda_sync_device(err);
}

/* Rows go as soon as they are final, so that a later crash (the reference's on
 * a fresh trial, a backend's) cannot take them: the parent blames only rows it
 * has not received. */
void khost__worker_send_rows(khost__worker *w)
{
  for (int s = 0; s < w->job->nslots; s++) {
    if (!w->done[s] || w->sent[s]) continue;
    khost__row_msg m = {.slot = s, .measured = w->rows[s]};
    /* A skipped row has nothing to re-check, so it misses no inputs. */
    m.measured.dump_incomplete |= w->inputs_undumped > 0 && m.measured.status != KHOST__ROW_SKIP;
    khost__child_send(w->fd, KHOST__MSG_ROW, &m, sizeof m);
    w->sent[s] = 1;
  }
}

int khost__worker_any_active(const khost__worker *w)
{
  for (int s = 0; s < w->job->nslots; s++)
    if (w->active[s]) return 1;
  return 0;
}

void khost__worker_free_timers(khost__worker *w)
{
  if (!w->timers) return;
  for (int s = 0; s < w->job->nslots; s++) khost__timer_free(&w->timers[s]);
  free(w->timers);
  w->timers = NULL;
}
