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
#include "discover.h"
#include "dump.h"
#include "exit_status.h"
#include "json.h"
#include "runner.h"
#include "standard_fds.h"
#include "start_folder.h"
#include "subcommand.h"
#include "table.h"
#include "text.h"

/* Everything one run reports into; rows accumulate for the closing table. */
typedef struct reports {
  khost__run_info info;
  khost__json_writer *json; /* NULL also once it could not be written */
  khost__csv_writer *csv;   /* likewise */
  khost__row *rows;
  int nrows;
  int undumped;       /* rows whose --dump files are incomplete */
  int failed_reports; /* reports that could not be written in full */
} reports;

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

static void describe_run(khost__run_info *info, const khost__options *o, const char *suite_path)
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
  khost__text_clean_run_info(info);
}

static void describe_device(khost__run_info *info, const khost__device_info *d)
{
  snprintf(info->device, sizeof info->device, "%.100s (sm_%d%d)", d->name, d->cc_major, d->cc_minor);
  info->sm_count = d->sm_count;
  info->l2_bytes = d->l2_bytes;
  info->sm_clock_mhz = d->sm_clock_mhz;
  info->mem_clock_mhz = d->mem_clock_mhz;
  info->peak_gbps = d->peak_gbps;
  info->empty_call_s = d->empty_call_s;
  info->cuda_driver = d->driver_version;
  info->cuda_runtime = d->runtime_version;
  khost__text_clean_run_info(info);
}

/* A report that could not be written stays as last written; the run goes on
 * without it, for the table and the other report, and exits 1. */
static void drop_report(reports *r, const khost__err *err)
{
  fprintf(stderr, "khost: %s; the run goes on without this report\n", err->msg);
  r->failed_reports++;
}

static void write_json(reports *r, const khost__row *rows, int n, int info_changed)
{
  khost__err err;
  int rc = info_changed ? khost__json_set_info(r->json, &r->info, &err) : KHOST__OK;
  for (int i = 0; i < n && rc == KHOST__OK; i++) rc = khost__json_append(r->json, &rows[i], &err);
  if (rc == KHOST__OK) return;
  drop_report(r, &err);
  khost__json_free(r->json);
  r->json = NULL;
}

static void write_csv(reports *r, const khost__row *rows, int n)
{
  khost__err err;
  int rc = KHOST__OK;
  for (int i = 0; i < n && rc == KHOST__OK; i++) rc = khost__csv_append(r->csv, &rows[i], &err);
  if (rc == KHOST__OK) return;
  drop_report(r, &err);
  khost__csv_free(r->csv);
  r->csv = NULL;
}

/* Keeps a copy of the case's rows, with their text made safe for every report once. */
static int keep_rows(reports *r, const khost__row *rows, int n, khost__err *err)
{
  khost__row *grown = realloc(r->rows, (size_t)(r->nrows + n) * sizeof *grown);
  if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "out of memory keeping results");
  r->rows = grown;
  memcpy(r->rows + r->nrows, rows, (size_t)n * sizeof *rows);
  for (int i = r->nrows; i < r->nrows + n; i++) {
    khost__text_clean_row(&r->rows[i]);
    r->undumped += r->rows[i].measured.dump_incomplete;
  }
  r->nrows += n;
  return KHOST__OK;
}

static int case_done(void *ctx, const khost__row *rows, int n, const khost__device_info *device,
                     khost__err *err)
{
  reports *r = ctx;
  int rc = KHOST__OK;
  if (device) describe_device(&r->info, device);
  /* With no row there is nothing to keep, and realloc(p, 0) would free p. */
  if (n > 0 && (rc = keep_rows(r, rows, n, err)) != KHOST__OK) return rc;
  const khost__row *kept = n > 0 ? r->rows + r->nrows - n : NULL;
  if (r->json) write_json(r, kept, n, device != NULL);
  if (r->csv) write_csv(r, kept, n);
  if (n > 0) fprintf(stderr, "khost: %s done\n", kept[0].id.case_name);
  return KHOST__OK;
}

static int open_reports(reports *r, const khost__options *o, khost__err *err)
{
  int rc = KHOST__OK;
  if (o->json) rc = khost__json_open(o->json, &r->info, o->report_mode, &r->json, err);
  if (rc == KHOST__OK && o->csv) rc = khost__csv_open(o->csv, o->report_mode, &r->csv, err);
  /* Before any case runs, a report path that cannot be written is a bad flag
   * value (exit 2), as an unusable --dump folder is; later write failures stay
   * I/O errors. */
  return rc == KHOST__E_IO ? KHOST__E_CONFIG : rc;
}

static int close_reports(reports *r, const khost__options *o, int finished, khost__err *err)
{
  int rc = KHOST__OK;
  /* Rows already finished are printed even when the run stopped early (a
   * worker that could not be started): they cost GPU time. */
  if (finished || r->nrows > 0)
    rc = khost__table_print(khost__standard_output(), &r->info, r->rows, r->nrows,
                            o->baseline ? o->baseline : o->reference, err);
  if (!finished && r->nrows > 0)
    fprintf(stderr, "khost: the run stopped early; the table above has the %d rows finished before\n",
            r->nrows);
  /* The reports are closed even when the table could not be printed (stdout a
   * closed pipe): they hold the same rows. */
  khost__err json_err, csv_err;
  if (r->json && khost__json_end(r->json, finished, &json_err) != KHOST__OK && rc == KHOST__OK)
    *err = json_err, rc = KHOST__E_IO;
  khost__json_free(r->json);
  if (r->csv && khost__csv_end(r->csv, finished, &csv_err) != KHOST__OK && rc == KHOST__OK)
    *err = csv_err, rc = KHOST__E_IO;
  khost__csv_free(r->csv);
  free(r->rows);
  return rc;
}

static void warn_failures(const khost__registry *reg)
{
  for (int i = 0; i < reg->nfailures; i++)
    fprintf(stderr, "khost: plugin %s skipped (stage %s): %s\n", reg->failures[i].path,
            khost__load_stage_name(reg->failures[i].stage), reg->failures[i].reason);
}

/* --timer cupti needs libcupti: without it, the run would time nothing as asked. */
static int check_timer(const khost__options *o, khost__err *err)
{
  char why[768];
  if (o->timer != KHOST__TIMER_CUPTI || khost__cupti_loadable(why, sizeof why)) return KHOST__OK;
  return khost__errorf(err, KHOST__E_CONFIG, "--timer cupti: %s", why);
}

/* Suite, checks and reports; returns the exit status. */
static int run(const khost__options *o, const khost__registry *reg, khost__err *err)
{
  char path[4096];
  khost__suite suite = {0};
  reports r = {0};
  int failed = 0;
  int rc = khost__suite_find(o->suite, path, sizeof path, err);
  if (rc == KHOST__OK) rc = khost__suite_load(path, &suite, err);
  if (rc == KHOST__OK) rc = khost__suite_filter(&suite, o->ops, o->cases, err);
  if (rc == KHOST__OK) rc = khost__runner_validate(o, reg, &suite, err);
  if (rc == KHOST__OK) rc = khost__dump_prepare(o, err);
  if (rc == KHOST__OK) rc = check_timer(o, err);
  if (rc != KHOST__OK) goto out;
  describe_run(&r.info, o, path);
  if ((rc = open_reports(&r, o, err)) != KHOST__OK) goto out_reports;
  rc = khost__run_suite(o, reg, &suite, case_done, &r, &failed, err);
out_reports:;
  khost__err close_err;
  int closed = close_reports(&r, o, rc == KHOST__OK, &close_err);
  if (rc == KHOST__OK && closed != KHOST__OK) *err = close_err, rc = closed;
  if (rc == KHOST__OK && r.undumped)
    fprintf(stderr, "khost: --dump: %d row(s) lack some of their files (see the messages above)\n",
            r.undumped);
  if (rc == KHOST__OK && r.failed_reports)
    fprintf(stderr, "khost: %d report(s) could not be written in full (see the messages above)\n",
            r.failed_reports);
  failed |= r.undumped > 0 || r.failed_reports > 0;
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
