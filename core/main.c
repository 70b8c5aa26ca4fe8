/* khost: checks and times every backend plugin on the same inputs and prints
 * one comparison table. Exit status: exit_status.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "cupti_timer.h"
#include "device_count.h"
#include "discover.h"
#include "dump.h"
#include "exit_status.h"
#include "lanes.h"
#include "progress.h"
#include "run_reports.h"
#include "runner.h"
#include "shard.h"
#include "standard_fds.h"
#include "start_folder.h"
#include "subcommand.h"
#include "text.h"

static void read_cpu_model(char *buf, size_t n)
{
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  buf[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    snprintf(buf, n, "%s", colon + 2);
    buf[strcspn(buf, "\n")] = '\0';
    break;
  }
  if (f) fclose(f);
}

static void describe_run(khost__run_info *info, const khost__options *o, const char *suite_path,
                         const khost__suite *selected)
{
  memset(info, 0, sizeof *info);
  snprintf(info->khost_version, sizeof info->khost_version, "%s", KHOST_VERSION);
  gethostname(info->host, sizeof info->host - 1);
  read_cpu_model(info->cpu, sizeof info->cpu);
  info->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
  snprintf(info->suite, sizeof info->suite, "%s", suite_path);
  snprintf(info->command, sizeof info->command, "%s", o->command_line);
  snprintf(info->timer, sizeof info->timer, "%s", khost__timer_name(o->timer));
  time_t now = time(NULL);
  strftime(info->date, sizeof info->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  snprintf(info->baseline, sizeof info->baseline, "%s", o->baseline ? o->baseline : o->reference);
  info->selected_cases = selected->ncases;
  info->shard_index = o->shard.index;
  info->shard_count = o->shard.count;
  khost__text_clean_run_info(info);
}

/* The run's entry for device ordinal, added at the end when it has none (NULL when full). */
static khost__run_device *device_entry(khost__run_info *info, int ordinal)
{
  for (int i = 0; i < info->ndevices; i++)
    if (info->devices[i].gpu.ordinal == ordinal) return &info->devices[i];
  if (info->ndevices == KHOST__DEVICES_MAX) return NULL;
  info->devices[info->ndevices].gpu.ordinal = ordinal;
  return &info->devices[info->ndevices++];
}

/* The single-device keys of the run: from the first device of the list that came up. */
static void describe_device(khost__run_info *info, const khost__device_info *d)
{
  snprintf(info->device, sizeof info->device, "%.100s (sm_%d%d)", d->name, d->cc_major, d->cc_minor);
  info->sm_count = d->sm_count;
  info->l2_bytes = d->l2_bytes;
  info->sm_clock_mhz = d->sm_clock_mhz;
  info->mem_clock_mhz = d->mem_clock_mhz;
  info->peak_gbps = d->peak_gbps;
  info->empty_call_s = d->empty_call_s;
  memcpy(info->peak_tflops, d->peak_tflops, sizeof info->peak_tflops);
  info->cuda_driver = d->driver_version;
  info->cuda_runtime = d->runtime_version;
}

/* The device a case's worker reported, into the run's list of devices. */
static void note_device(khost__run_info *info, const khost__device_info *d)
{
  khost__run_device *e = device_entry(info, d->ordinal);
  if (!e) return;
  e->gpu = *d;
  snprintf(e->name, sizeof e->name, "%.100s (sm_%d%d)", d->name, d->cc_major, d->cc_minor);
  int first = 0;
  while (!info->devices[first].name[0]) first++;
  if (&info->devices[first] == e) describe_device(info, d);
  khost__text_clean_run_info(info);
}

static int case_done(void *ctx, const khost__row *rows, int n, const khost__device_info *device,
                     khost__err *err)
{
  khost__run_reports *r = ctx;
  if (device) note_device(&r->info, device);
  return khost__run_reports_add(r, rows, n, device != NULL, err);
}

/* --devices: "all" made a list, a list checked against the visible devices, and
 * an entry in the run's devices for each, in the list's order. */
static int resolve_devices(khost__options *o, khost__run_info *info, khost__err *err)
{
  int visible = 0;
  char why[512] = "";
  int rc = khost__device_count(o->timeout_s, &visible, why, sizeof why, err);
  if (rc == KHOST__OK) rc = khost__devices_resolve(&o->devices, visible, why, err);
  for (int i = 0; rc == KHOST__OK && i < o->devices.count; i++) device_entry(info, o->devices.ordinals[i]);
  return rc;
}

static void warn_failures(const khost__registry *reg)
{
  for (int i = 0; i < reg->nfailures; i++)
    fprintf(stderr, "khost: plugin %s skipped (stage %s): %s\n", reg->failures[i].path,
            khost__load_failure_stage(&reg->failures[i]), reg->failures[i].reason);
}

/* --timer cupti needs libcupti: without it, the run would time nothing as asked. */
static int check_timer(const khost__options *o, khost__err *err)
{
  char why[768];
  if (o->timer != KHOST__TIMER_CUPTI || khost__cupti_loadable(why, sizeof why)) return KHOST__OK;
  return khost__errorf(err, KHOST__E_CONFIG, "--timer cupti: %s", why);
}

/* Suite, checks and reports; returns the exit status. */
static int run(khost__options *o, const khost__registry *reg, khost__err *err)
{
  char path[4096];
  khost__suite suite = {0};
  khost__run_reports r = {0};
  int failed = 0;
  int rc = khost__suite_find(o->suite, path, sizeof path, err);
  if (rc == KHOST__OK) rc = khost__suite_load(path, &suite, err);
  if (rc == KHOST__OK) rc = khost__suite_filter(&suite, o->ops, o->cases, err);
  /* The whole selection is checked, so that every shard accepts or refuses alike. */
  if (rc == KHOST__OK) rc = khost__runner_validate(o, reg, &suite, err);
  if (rc == KHOST__OK) rc = khost__dump_prepare(o, err);
  if (rc == KHOST__OK) rc = check_timer(o, err);
  if (rc != KHOST__OK) goto out;
  describe_run(&r.info, o, path, &suite);
  if (o->spread && (rc = resolve_devices(o, &r.info, err)) != KHOST__OK) goto out;
  khost__shard_select(&suite, &o->shard);
  r.info.shard_cases = suite.ncases;
  r.quiet = o->quiet;
  if ((rc = khost__run_reports_open(&r, o, err)) != KHOST__OK) goto out_reports;
  khost__progress_start(khost__progress_wanted(STDERR_FILENO, o->quiet) ? STDERR_FILENO : -1, suite.ncases);
  if (o->spread)
    rc = khost__run_lanes(o, reg, &suite, &o->devices, case_done, &r, &failed, err);
  else
    rc = khost__run_suite(o, reg, &suite, case_done, &r, &failed, err);
  /* Before the table, which goes to the same terminal. */
  khost__progress_end();
out_reports:;
  khost__err close_err;
  int closed = khost__run_reports_close(&r, r.info.baseline, rc == KHOST__OK, &close_err);
  if (rc == KHOST__OK && closed != KHOST__OK) *err = close_err, rc = closed;
  if (rc == KHOST__OK) failed |= khost__run_reports_failed(&r);
out:
  khost__suite_free(&suite);
  if (rc != KHOST__OK) return rc == KHOST__E_CONFIG ? KHOST__EXIT_USAGE : KHOST__EXIT_FAILED;
  return failed ? KHOST__EXIT_FAILED : KHOST__EXIT_PASS;
}

int main(int argc, char **argv)
{
  khost__options o;
  khost__err err = {{0}};
  khost__registry reg = {0};
  int status = KHOST__EXIT_USAGE, loaded;
  /* A closed stdout (khost | head) is a write error to report, not a reason to die
   * before the reports are closed. */
  signal(SIGPIPE, SIG_IGN);
  /* Before any file is opened or plugin loaded: see standard_fds.h and start_folder.h. */
  if (khost__standard_fds_keep() != 0) {
    snprintf(err.msg, sizeof err.msg, "cannot keep file descriptors 0-2 open: %s", strerror(errno));
    goto fail;
  }
  khost__start_folder_note();
  /* compare and report read reports and load no plugin. */
  if (khost__subcommand_main(argc, argv, &status)) return status;
  if (khost__cli_parse(argc, argv, &o, &err) != KHOST__OK) goto fail;
  if (o.help) return khost__cli_usage(stdout), KHOST__EXIT_PASS;
  if (o.version)
    return printf("khost %s (plugin ABI %d.%d)\n", KHOST_VERSION, KHOST_ABI_MAJOR, KHOST_ABI_MINOR),
           KHOST__EXIT_PASS;
  loaded = khost__discover(&reg, &o, &err);
  /* The plugins' constructors ran, and any of them may have closed fd 0, 1 or 2. */
  khost__standard_fds_restore();
  if (loaded != KHOST__OK) goto fail;
  if (o.list) {
    khost__discover_list(khost__standard_output(), &reg);
    status = o.strict && reg.nfailures ? KHOST__EXIT_USAGE : KHOST__EXIT_PASS;
    goto done;
  }
  warn_failures(&reg);
  if (o.strict && reg.nfailures) {
    snprintf(err.msg, sizeof err.msg, "--strict: %d plugin(s) failed to load", reg.nfailures);
    goto fail;
  }
  status = run(&o, &reg, &err);
  if (status == KHOST__EXIT_PASS || (status == KHOST__EXIT_FAILED && !err.msg[0])) goto done;
fail:
  fprintf(stderr, "khost: %s\n", err.msg);
done:
  khost__registry_free(&reg);
  return status;
}
