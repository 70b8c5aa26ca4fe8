#include "runner.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "exit_status.h"
#include "fork_guard.h"
#include "list.h"
#include "progress.h"
#include "standard_fds.h"
#include "watchdog.h"
#include "worker.h"

/* Everything the parent keeps for one case while its workers run. */
typedef struct case_run {
  const khost__options *o;
  const khost__registry *reg;
  const khost__case *c;
  khost__slot *slots;
  khost__row *rows;
  uint8_t *pending;
  int nslots, oracle;
  khost__device_info device;
  int have_device;
  uint8_t *fini_failed; /* the run's, one flag per registry plugin: its fini() failed once */
  int fini_failures;    /* fini() failures in this case's workers */
} case_run;

/* "name" or "name:cpu" / "name:cuda" into plugin name and device (0 = any).
 * name holds KHOST__LIST_ITEM_MAX + 1 bytes: the command line refuses a longer
 * --baseline NAME, and --reference has been found among the loaded plugins. */
static void split_baseline(const char *spec, char *name, size_t n, int *device)
{
  size_t len = strcspn(spec, ":");
  snprintf(name, n, "%.*s", (int)len, spec);
  *device = 0;
  if (!spec[len]) return;
  const char *after = spec + len + 1;
  *device = !strcmp(after, "cpu") ? KHOST_DEVICE_CPU : !strcmp(after, "cuda") ? KHOST_DEVICE_CUDA : -1;
}

/* why (a name that is not loaded, a list that names none), with the names that are. */
static int refuse_naming_loaded(const khost__registry *reg, const char *why, khost__err *err)
{
  char names[2048];
  khost__registry_names(reg, names, sizeof names);
  return khost__errorf(err, KHOST__E_CONFIG, "%s; loaded backends: %s", why, names);
}

static int check_name(const khost__registry *reg, const char *what, const char *name, khost__err *err)
{
  if (khost__registry_find(reg, name)) return KHOST__OK;
  char why[512];
  snprintf(why, sizeof why, "unknown %s '%.300s'", what, name);
  return refuse_naming_loaded(reg, why, err);
}

/* The oracle checks every row of a case, so without its CPU kernel for the op
 * the case would have nothing to compare with (or, with no other kernel for
 * it, no row at all). */
static int check_oracle(const khost__registry *reg, const char *name, const khost__suite *suite,
                        khost__err *err)
{
  const khost__plugin *oracle = khost__registry_find(reg, name);
  for (int i = 0; i < suite->ncases; i++) {
    const char *op = suite->cases[i].op->name;
    if (!khost__plugin_kernel(oracle, op, KHOST_DEVICE_CPU))
      return khost__errorf(err, KHOST__E_CONFIG,
                           "reference backend '%s' has no CPU kernel for %s (case %s); pick another "
                           "--reference or leave the op out (--op)",
                           name, op, suite->cases[i].name);
  }
  return KHOST__OK;
}

/* The distinct ops of the selected cases, comma-separated, in suite order. */
static void selected_ops(const khost__suite *suite, char *buf, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < suite->ncases && used < n; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = suite->cases[j].op == suite->cases[i].op;
    if (!seen)
      used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", suite->cases[i].op->name);
  }
}

/* A backend asked for by name that has no kernel for any selected case would
 * have no row at all: the run could not say what it was asked. */
static int check_has_kernel(const khost__registry *reg, const char *name, const khost__suite *suite,
                            khost__err *err)
{
  const khost__plugin *plugin = khost__registry_find(reg, name);
  static const int devices[2] = {KHOST_DEVICE_CPU, KHOST_DEVICE_CUDA};
  for (int i = 0; i < suite->ncases; i++)
    for (int d = 0; d < 2; d++)
      if (khost__plugin_kernel(plugin, suite->cases[i].op->name, devices[d])) return KHOST__OK;
  char ops[512];
  selected_ops(suite, ops, sizeof ops);
  return khost__errorf(err, KHOST__E_CONFIG,
                       "backend '%s' has no kernel for any selected op (%s); leave it out of --backends or "
                       "select cases of its ops (khost --list shows them)",
                       name, ops);
}

/* Every name of --backends is loaded and has a kernel for a selected case, and
 * there is at least one. */
static int check_backends(const khost__registry *reg, const char *list, const khost__suite *suite,
                          khost__err *err)
{
  char name[KHOST__LIST_ITEM_MAX + 1];
  int names = 0, rc = KHOST__OK;
  for (const char *p = list; rc == KHOST__OK && khost__list_next(&p, name, sizeof name); names++) {
    rc = check_name(reg, "backend", name, err);
    if (rc == KHOST__OK) rc = check_has_kernel(reg, name, suite, err);
  }
  char why[512];
  if (rc == KHOST__OK && !names) {
    snprintf(why, sizeof why, "--backends '%.300s' names no backend", list);
    rc = refuse_naming_loaded(reg, why, err);
  }
  return rc;
}

int khost__runner_validate(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                           khost__err *err)
{
  int rc = check_name(reg, "reference backend", o->reference, err);
  if (rc == KHOST__OK) rc = check_oracle(reg, o->reference, suite, err);
  if (rc == KHOST__OK && o->backends) rc = check_backends(reg, o->backends, suite, err);
  if (rc == KHOST__OK && o->baseline) {
    char name[KHOST__LIST_ITEM_MAX + 1];
    int device;
    split_baseline(o->baseline, name, sizeof name, &device);
    rc = check_name(reg, "baseline backend", name, err);
    if (rc == KHOST__OK && device < 0)
      rc = khost__errorf(err, KHOST__E_CONFIG, "--baseline %s: the device after ':' must be cpu or cuda",
                         o->baseline);
  }
  return rc;
}

static int wanted(const khost__options *o, const char *name, const char *baseline)
{
  return !o->backends || khost__list_has(o->backends, name) || !strcmp(name, baseline) ||
         !strcmp(name, o->reference);
}

static void describe_row(const case_run *r, int s)
{
  khost__row *row = &r->rows[s];
  khost__row_id *id = &row->id;
  const khost__case *c = r->c;
  memset(row, 0, sizeof *row);
  snprintf(id->case_name, sizeof id->case_name, "%s", c->name);
  snprintf(id->op, sizeof id->op, "%s", c->op->name);
  khost__case_format_params(c, id->params, sizeof id->params);
  snprintf(id->backend, sizeof id->backend, "%s", r->reg->plugins[r->slots[s].plugin].desc->name);
  snprintf(id->device, sizeof id->device, "%s",
           r->slots[s].device_type == KHOST_DEVICE_CUDA ? "cuda" : "cpu");
  id->atol = c->atol;
  id->rtol = c->rtol;
  id->case_index = c->index;
  id->device_ordinal = r->o->device;
  id->flops = c->op->flops(c);
  id->bytes = c->op->bytes(c);
}

/* One slot per (wanted plugin, device) that has a kernel for the case's op. */
static int make_slots(case_run *r, const char *baseline, khost__err *err)
{
  int cap = 2 * r->reg->nplugins;
  r->slots = calloc((size_t)cap, sizeof *r->slots);
  r->rows = calloc((size_t)cap, sizeof *r->rows);
  r->pending = calloc((size_t)cap, 1);
  if (!r->slots || !r->rows || !r->pending) return khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  static const int devices[2] = {KHOST_DEVICE_CPU, KHOST_DEVICE_CUDA};
  for (int p = 0; p < r->reg->nplugins; p++) {
    if (!wanted(r->o, r->reg->plugins[p].desc->name, baseline)) continue;
    for (int d = 0; d < 2; d++) {
      if (!khost__plugin_kernel(&r->reg->plugins[p], r->c->op->name, devices[d])) continue;
      r->slots[r->nslots] = (khost__slot){.plugin = p, .device_type = devices[d]};
      r->pending[r->nslots] = 1;
      describe_row(r, r->nslots++);
    }
  }
  return KHOST__OK;
}

static void free_case(case_run *r)
{
  free(r->pending);
  free(r->rows);
  free(r->slots);
}

/* The worker's measurement. The variant stays the one the workers announced (the
 * same name once the kernel is prepared), so that a worker stopped before naming
 * the kernel, such as one whose init failed after a restart, keeps an earlier one's. */
static void take_measurement(case_run *r, int s, const khost__measurement *from)
{
  khost__measurement *m = &r->rows[s].measured;
  char variant[sizeof m->variant];
  memcpy(variant, m->variant, sizeof variant);
  *m = *from;
  memcpy(m->variant, variant, sizeof variant);
  /* The bytes came from a process that ran plugin code: every reader may rely on the NULs. */
  m->message[sizeof m->message - 1] = '\0';
  for (int i = 0; i < KHOST__MAX_MISMATCHES; i++)
    m->check.shown[i].where[sizeof m->check.shown[i].where - 1] = '\0';
  r->pending[s] = 0;
}

static void settle(case_run *r, int s, khost__row_status status, const char *message)
{
  khost__measurement_settle(&r->rows[s].measured, status, "%s", message);
  r->pending[s] = 0;
}

static int any_pending(const case_run *r)
{
  for (int s = 0; s < r->nslots; s++)
    if (r->pending[s]) return 1;
  return 0;
}

static void settle_all(case_run *r, khost__row_status status, const char *message)
{
  for (int s = 0; s < r->nslots; s++)
    if (r->pending[s]) settle(r, s, status, message);
}

/* A SIGKILL that khost did not send: the kernel's out-of-memory killer sends
 * it, without a word, to a process whose memory it takes back. */
static void append_kill_cause(char *message, size_t n, const khost__child_end *end)
{
  size_t used = strlen(message);
  if (end->signaled && end->signo == SIGKILL && !end->killed && used < n)
    snprintf(message + used, n - used,
             ", not by khost: most likely by the kernel's out-of-memory killer (see dmesg)");
}

/* How the worker's end reads for the plugin whose code was running (phase). */
static void describe_culprit_end(const case_run *r, const char *phase, const khost__child_end *end,
                                 char *message, size_t n)
{
  if (end->timed_out)
    snprintf(message, n, "silent for longer than --timeout %g s during %s", r->o->timeout_s, phase);
  else if (end->exited)
    snprintf(message, n, "the process exited with status %d during %s (exit() called?)", end->exit_code,
             phase);
  else
    snprintf(message, n, "the worker was %s during %s", end->how, phase);
  append_kill_cause(message, n, end);
}

/* How the worker's end reads for the backend that was running. */
static void blame(case_run *r, int current, const char *phase, const khost__child_end *end)
{
  char message[512];
  khost__row_status status = end->timed_out ? KHOST__ROW_TIMEOUT : KHOST__ROW_CRASH;
  describe_culprit_end(r, phase, end, message, sizeof message);
  if (current != KHOST__ORACLE_SLOT) return settle(r, current, status, message);
  char whole[600];
  snprintf(whole, sizeof whole, "the reference failed: %s", message);
  settle_all(r, KHOST__ROW_ERROR, whole);
}

/* A fini() that crashed, exited or hung, once every row was final: no row is
 * to blame, so the run says it here, fails (exit status 1), and later workers
 * do not call that fini() again, so that a hang costs --timeout once, not once
 * per case. */
static void report_fini_failure(case_run *r, int plugin, const char *phase, const khost__child_end *end)
{
  char how[512];
  describe_culprit_end(r, phase, end, how, sizeof how);
  khost__progress_say("plugin %s: fini() did not return in the worker of case %s: %s; it is not called again "
                      "in this run",
                      r->reg->plugins[plugin].desc->name, r->c->name, how);
  r->fini_failed[plugin] = 1;
  r->fini_failures++;
}

/* Whose code the worker announced it runs, for the progress line. The message
 * came from a process that ran plugin code: its numbers are checked, its
 * phase taken as printable text only (progress.h). */
static void show_begin(const case_run *r, const khost__begin_msg *b)
{
  char phase[sizeof b->phase + 1];
  snprintf(phase, sizeof phase, "%.*s", (int)sizeof b->phase, b->phase);
  if (b->slot >= 0 && b->slot < r->nslots)
    khost__progress_backend(r->rows[b->slot].id.backend, r->rows[b->slot].id.device, phase);
  else if (b->slot == KHOST__ORACLE_SLOT)
    khost__progress_backend(r->reg->plugins[r->oracle].desc->name, "cpu", phase);
  else if (b->slot == KHOST__FINI_SLOT && b->plugin >= 0 && b->plugin < r->reg->nplugins)
    khost__progress_backend(r->reg->plugins[b->plugin].desc->name, "", phase);
  else
    khost__progress_backend(NULL, NULL, phase);
}

/* Reads one worker's messages until it ends; returns how many slots settled. */
static int listen(case_run *r, khost__child *child, khost__device_info *known)
{
  khost__worker_msg m;
  uint32_t type, size;
  int current = -2, fini_plugin = -1, got, settled = 0;
  char phase[32] = "start-up";
  /* The worker must say something (a new phase, a sample, a row) at least every --timeout
   * seconds: a hung call is caught, a long but living run is not. */
  for (;;) {
    got = khost__child_recv(child, &type, &m, sizeof m, &size, r->o->timeout_s);
    if (got != 1) break;
    if (type == KHOST__MSG_BEGIN) {
      current = m.begin.slot;
      show_begin(r, &m.begin);
      fini_plugin = m.begin.plugin;
      snprintf(phase, sizeof phase, "%s", m.begin.phase);
      if (current >= 0 && current < r->nslots && m.begin.variant[0])
        snprintf(r->rows[current].measured.variant, sizeof r->rows[current].measured.variant, "%.*s",
                 (int)sizeof m.begin.variant - 1, m.begin.variant);
    } else if (type == KHOST__MSG_ROW && m.row.slot >= 0 && m.row.slot < r->nslots) {
      take_measurement(r, m.row.slot, &m.row.measured);
      settled++;
    } else if (type == KHOST__MSG_DEVICE) {
      r->device = m.device;
      r->have_device = 1;
      if (known->peak_gbps <= 0) known->peak_gbps = m.device.peak_gbps;
      if (known->empty_call_s <= 0) known->empty_call_s = m.device.empty_call_s;
      if (!known->peaks_tried) {
        memcpy(known->peak_tflops, m.device.peak_tflops, sizeof known->peak_tflops);
        known->peaks_tried = m.device.peaks_tried;
      }
    }
  }
  khost__child_end end;
  khost__child_finish(child, got < 0, &end);
  if (current == KHOST__FINI_SLOT && fini_plugin >= 0 && fini_plugin < r->reg->nplugins)
    report_fini_failure(r, fini_plugin, phase, &end);
  int culprit = current >= 0 ? current < r->nslots && r->pending[current]
                             : current == KHOST__ORACLE_SLOT && any_pending(r);
  /* Whatever way the worker ended (even exit(0)), the backend it announced has no row. */
  if (culprit) {
    blame(r, current, phase, &end);
    settled++;
  }
  /* With no backend to blame: a worker that ended before its first row, or in
   * khost's own work (input generation), would end the same way again. One that
   * stopped for a restart after a CUDA error has sent its rows: the rest run again. */
  int restart = end.exited && end.exit_code == KHOST__WORKER_EXIT_RESTART;
  if (!culprit && !restart && any_pending(r) && (!settled || current == KHOST__NO_SLOT)) {
    char message[256];
    if (got < 0)
      snprintf(message, sizeof message, "the worker was silent for longer than --timeout %g s during %s",
               r->o->timeout_s, phase);
    else
      snprintf(message, sizeof message, "the worker %s%s during %s", end.signaled ? "was " : "", end.how,
               phase);
    append_kill_cause(message, sizeof message, &end);
    settle_all(r, KHOST__ROW_ERROR, message);
  }
  return settled;
}

/* Set while a backend runs inside khost (--no-isolate). */
static volatile int in_process_worker;

/* A plugin that calls exit() during --no-isolate must not end khost with status 0. */
static void exit_during_worker(void)
{
  /* A copy that plugin code forked and that called exit() is not khost ending. */
  if (!in_process_worker || !khost__fork_guard_owner()) return;
  static const char message[] = "khost: a backend ended the process during --no-isolate; no results\n";
  if (write(STDERR_FILENO, message, sizeof message - 1) < 0) _exit(KHOST__EXIT_FAILED);
  _exit(KHOST__EXIT_FAILED);
}

/* --no-isolate: the worker runs here and writes its messages to a file, which
 * a watchdog thread watches for --timeout. */
static int run_in_process(khost__worker_job *job, khost__child *child, khost__err *err)
{
  static int registered;
  if (!registered) registered = atexit(exit_during_worker) == 0;
  FILE *log = tmpfile();
  if (!log) return khost__errorf(err, KHOST__E_IO, "cannot create a temporary file for --no-isolate");
  int fd = dup(fileno(log));
  fclose(log);
  if (fd < 0) return khost__errorf(err, KHOST__E_IO, "--no-isolate: dup: %s", strerror(errno));
  khost__watchdog *watchdog = NULL;
  int rc = khost__watchdog_start(&watchdog, fd, job, err);
  if (rc != KHOST__OK) return close(fd), rc;
  khost__fork_guard_claim();
  in_process_worker = 1;
  khost__worker_main(fd, job);
  in_process_worker = 0;
  /* The plugins ran here and may have closed fd 0, 1 or 2: the next report must not take it. */
  khost__standard_fds_restore();
  khost__watchdog_stop(watchdog);
  if (lseek(fd, 0, SEEK_SET) != 0) {
    int e = errno;
    close(fd);
    return khost__errorf(err, KHOST__E_IO, "--no-isolate: rewinding the worker's messages: %s", strerror(e));
  }
  child->pid = -1;
  child->fd = fd;
  return KHOST__OK;
}

static int run_workers(case_run *r, khost__device_info *known, khost__err *err)
{
  while (any_pending(r)) {
    khost__worker_job job = {.o = r->o,
                             .reg = r->reg,
                             .c = r->c,
                             .nslots = r->nslots,
                             .slots = r->slots,
                             .pending = r->pending,
                             .oracle_plugin = r->oracle,
                             .known = known,
                             .fini_failed = r->fini_failed};
    khost__child child;
    int rc = r->o->no_isolate ? run_in_process(&job, &child, err)
                              : khost__child_start(&child, khost__worker_main, &job, err);
    if (rc != KHOST__OK) return rc;
    listen(r, &child, known);
  }
  return KHOST__OK;
}

/* The baseline row of the case: --baseline NAME[:DEV], else the reference plugin.
 * Without a device, on the GPU when the run has one (a worker brought it up,
 * whether or not its copy bandwidth could be measured) and the plugin has a
 * CUDA kernel for the op, else on the CPU: one rule for every case, never a
 * fallback to the other device when that row did not pass (speedups over a GPU
 * kernel and over a CPU oracle do not mix in one mean). -1 when there is none. */
static int baseline_slot(const case_run *r, int gpu)
{
  char name[KHOST__LIST_ITEM_MAX + 1];
  int device = 0, has_cuda = 0;
  split_baseline(r->o->baseline ? r->o->baseline : r->o->reference, name, sizeof name, &device);
  for (int s = 0; s < r->nslots; s++)
    has_cuda |= !strcmp(r->rows[s].id.backend, name) && r->slots[s].device_type == KHOST_DEVICE_CUDA;
  if (!device) device = gpu && has_cuda ? KHOST_DEVICE_CUDA : KHOST_DEVICE_CPU;
  for (int s = 0; s < r->nslots; s++) {
    const khost__row *row = &r->rows[s];
    if (!strcmp(row->id.backend, name) && r->slots[s].device_type == device)
      return row->measured.time.samples > 0 && row->measured.status == KHOST__ROW_PASS ? s : -1;
  }
  return -1;
}

/* The GPU a cuda row ran on, when its worker brought one up: with --devices the
 * rows of one report come from several. */
static void name_device(case_run *r)
{
  for (int s = 0; s < r->nslots && r->have_device; s++) {
    if (r->slots[s].device_type != KHOST_DEVICE_CUDA) continue;
    /* From a worker's message: no further than the fields' size. */
    snprintf(r->rows[s].id.device_name, sizeof r->rows[s].id.device_name, "%.*s",
             (int)sizeof r->device.name - 1, r->device.name);
    snprintf(r->rows[s].id.device_uuid, sizeof r->rows[s].id.device_uuid, "%.*s",
             (int)sizeof r->device.uuid - 1, r->device.uuid);
  }
}

static void derive(case_run *r, double peak, int gpu)
{
  int base = baseline_slot(r, gpu);
  for (int s = 0; s < r->nslots; s++) {
    const khost__row *row = &r->rows[s];
    khost__derived *d = &r->rows[s].derived;
    double t = row->measured.time.median;
    d->is_baseline = s == base;
    if (row->measured.time.samples == 0 || t <= 0) continue;
    d->gbps = row->id.bytes / t / 1e9;
    d->tflops = row->id.flops / t / 1e12;
    if (peak > 0 && r->slots[s].device_type == KHOST_DEVICE_CUDA) d->peak_fraction = d->gbps / peak;
    d->sol_fraction = row->measured.sol_s / t;
    /* A fast wrong answer is no speedup. */
    if (base >= 0 && row->measured.status == KHOST__ROW_PASS)
      d->speedup = r->rows[base].measured.time.median / t;
  }
}

int khost__run_suite(const khost__options *o, const khost__registry *reg, const khost__suite *suite,
                     khost__case_done_fn done, void *ctx, int *failed, khost__err *err)
{
  const khost__plugin *oracle = khost__registry_find(reg, o->reference);
  char baseline[KHOST__LIST_ITEM_MAX + 1];
  int baseline_device;
  split_baseline(o->baseline ? o->baseline : o->reference, baseline, sizeof baseline, &baseline_device);
  khost__device_info known = {0}; /* what the first worker to measure sent: peak_gbps, empty_call_s, peaks */
  int rc = KHOST__OK, have_device = 0;
  khost__device_info device_info;
  *failed = 0;
  uint8_t *fini_failed = calloc((size_t)reg->nplugins + 1, 1);
  if (!fini_failed) return khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  for (int i = 0; i < suite->ncases && rc == KHOST__OK; i++) {
    case_run r = {.o = o,
                  .reg = reg,
                  .c = &suite->cases[i],
                  .oracle = (int)(oracle - reg->plugins),
                  .fini_failed = fini_failed};
    khost__progress_case(r.c->name);
    rc = make_slots(&r, baseline, err);
    if (rc == KHOST__OK) rc = run_workers(&r, &known, err);
    *failed |= r.fini_failures > 0;
    if (rc == KHOST__OK) {
      if (r.have_device) device_info = r.device, have_device = 1;
      device_info.peak_gbps = known.peak_gbps;
      device_info.empty_call_s = known.empty_call_s;
      memcpy(device_info.peak_tflops, known.peak_tflops, sizeof device_info.peak_tflops);
      name_device(&r);
      derive(&r, known.peak_gbps, have_device);
      for (int s = 0; s < r.nslots; s++) *failed |= khost__row_status_fails(r.rows[s].measured.status);
      khost__progress_case_done();
      rc = done(ctx, r.rows, r.nslots, have_device ? &device_info : NULL, err);
    }
    free_case(&r);
  }
  free(fini_failed);
  return rc;
}
