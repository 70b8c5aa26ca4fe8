#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"
#include "report_read.h"
#include "report_row.h"
#include "run_reports.h"

/* One shard's report, read. A run's own report (no --shard) is shard 0 of 1. */
typedef struct shard_report {
  const char *path;
  khost__report_doc doc;
  khost__run_info info;
} shard_report;

/* A row with where it came from, so that equal case places keep their order. */
typedef struct merged_row {
  khost__row row;
  size_t order;
} merged_row;

static int read_shard(const char *path, shard_report *s, khost__err *err)
{
  s->path = path;
  int rc = khost__report_read(path, &s->doc, err);
  if (rc != KHOST__OK) return rc;
  khost__report_run_info(&s->doc, &s->info);
  if (s->info.shard_count == 0) s->info.shard_count = 1, s->info.shard_index = 0;
  return KHOST__OK;
}

/* b is a shard of the run a is a shard of, and not the same shard. */
static int check_same_run(const shard_report *a, const shard_report *b, khost__err *err)
{
  const khost__run_info *x = &a->info, *y = &b->info;
  if (strcmp(x->khost_version, y->khost_version) != 0)
    return khost__errorf(err, KHOST__E_CONFIG,
                         "%s: khost_version %s is not %s's %s: merge the reports of one khost", b->path,
                         y->khost_version, a->path, x->khost_version);
  if (strcmp(x->suite, y->suite) != 0)
    return khost__errorf(err, KHOST__E_CONFIG,
                         "%s: suite '%.200s' is not %s's '%.200s': merge the shards of one suite", b->path,
                         y->suite, a->path, x->suite);
  if (x->shard_count != y->shard_count)
    return khost__errorf(err, KHOST__E_CONFIG, "%s: shard %d/%d is not one of %s's %d shards", b->path,
                         y->shard_index, y->shard_count, a->path, x->shard_count);
  if (x->selected_cases != y->selected_cases)
    return khost__errorf(
        err, KHOST__E_CONFIG,
        "%s: a shard of %d selected cases, %s of %d: merge the shards of one selection (--op, --case)",
        b->path, y->selected_cases, a->path, x->selected_cases);
  if (x->shard_index == y->shard_index)
    return khost__errorf(err, KHOST__E_CONFIG, "%s and %s are both shard %d/%d", a->path, b->path,
                         x->shard_index, x->shard_count);
  return KHOST__OK;
}

/* Names each shard that is missing or did not finish; the number of them. */
static int count_incomplete(const shard_report *shards, int n)
{
  int count = shards[0].info.shard_count, incomplete = 0;
  for (int i = 0; i < count; i++) {
    int given = -1;
    for (int k = 0; k < n; k++)
      if (shards[k].info.shard_index == i) given = k;
    if (given < 0)
      fprintf(stderr, "khost merge: shard %d/%d is missing: no report of it was given\n", i, count);
    else if (!shards[given].doc.finished)
      fprintf(stderr, "khost merge: %s: shard %d/%d did not finish (its finished is false)\n",
              shards[given].path, i, count);
    incomplete += given < 0 || !shards[given].doc.finished;
  }
  return incomplete;
}

static int by_case_place(const void *a, const void *b)
{
  const merged_row *x = a, *y = b;
  if (x->row.id.case_index != y->row.id.case_index)
    return x->row.id.case_index < y->row.id.case_index ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Every shard's rows, in the suite file's order of their cases: a run's order. */
static int collect_rows(const shard_report *shards, int n, merged_row **out, size_t *nrows, khost__err *err)
{
  size_t total = 0, at = 0;
  for (int k = 0; k < n; k++) total += shards[k].doc.nrows;
  *out = calloc(total ? total : 1, sizeof **out);
  if (!*out) return khost__errorf(err, KHOST__E_NOMEM, "out of memory");
  for (int k = 0; k < n; k++)
    for (size_t i = 0; i < shards[k].doc.nrows; i++, at++) {
      khost__report_row_read(khost__report_row(&shards[k].doc, i), &(*out)[at].row);
      (*out)[at].order = at;
    }
  qsort(*out, total, sizeof **out, by_case_place);
  *nrows = total;
  return KHOST__OK;
}

/* Hands the rows to the reports as a run does, in order. */
static int report_rows(khost__run_reports *r, const merged_row *rows, size_t n, khost__err *err)
{
  int rc = KHOST__OK;
  for (size_t i = 0; i < n && rc == KHOST__OK; i++) rc = khost__run_reports_add(r, &rows[i].row, 1, 0, err);
  return rc;
}

static int same_device(const khost__run_device *a, const khost__run_device *b)
{
  return a->gpu.ordinal == b->gpu.ordinal && !strcmp(a->name, b->name) && !strcmp(a->gpu.uuid, b->gpu.uuid);
}

/* Every shard's devices, in the order of the shards given, each once: shards
 * that ran on one host's devices name them alike, shards on others add theirs. */
static void merge_devices(khost__run_info *info, const shard_report *shards, int n)
{
  info->ndevices = 0;
  for (int k = 0; k < n; k++)
    for (int i = 0; i < shards[k].info.ndevices; i++) {
      const khost__run_device *d = &shards[k].info.devices[i];
      int seen = 0;
      for (int j = 0; j < info->ndevices && !seen; j++) seen = same_device(&info->devices[j], d);
      if (!seen && info->ndevices < KHOST__DEVICES_MAX) info->devices[info->ndevices++] = *d;
    }
}

/* The merged run: the lowest shard's description, as the whole selection's,
 * with the devices of all. */
static void describe_merge(khost__run_info *info, const shard_report *shards, int n)
{
  int lowest = 0;
  for (int k = 1; k < n; k++)
    if (shards[k].info.shard_index < shards[lowest].info.shard_index) lowest = k;
  *info = shards[lowest].info;
  info->merged_shards = n;
  info->shard_count = info->shard_index = info->shard_cases = 0;
  merge_devices(info, shards, n);
}

static int merge_reports(const shard_report *shards, int n, const khost__options *o, khost__err *err)
{
  khost__run_reports r = {.quiet = 1};
  merged_row *rows = NULL;
  size_t nrows = 0;
  int incomplete = count_incomplete(shards, n), rc;
  describe_merge(&r.info, shards, n);
  rc = collect_rows(shards, n, &rows, &nrows, err);
  if (rc == KHOST__OK) rc = khost__run_reports_open(&r, o, err);
  if (rc == KHOST__OK) rc = report_rows(&r, rows, nrows, err);
  khost__err close_err;
  int closed =
      khost__run_reports_close(&r, r.info.baseline[0] ? r.info.baseline : NULL, !incomplete, &close_err);
  if (rc == KHOST__OK && closed != KHOST__OK) *err = close_err, rc = closed;
  free(rows);
  if (rc != KHOST__OK) return rc == KHOST__E_CONFIG ? KHOST__EXIT_USAGE : KHOST__EXIT_FAILED;
  int failed = khost__run_reports_failed(&r);
  if (incomplete)
    fprintf(stderr, "khost merge: %d of %d shards missing or unfinished: the merged report is not finished\n",
            incomplete, shards[0].info.shard_count);
  return failed || incomplete ? KHOST__EXIT_FAILED : KHOST__EXIT_PASS;
}

int khost__merge(const char *const *files, int nfiles, const khost__options *o, khost__err *err)
{
  shard_report *shards = calloc((size_t)nfiles, sizeof *shards);
  int rc = shards ? KHOST__OK : khost__errorf(err, KHOST__E_NOMEM, "out of memory"), read = 0;
  for (; read < nfiles && rc == KHOST__OK; read++) rc = read_shard(files[read], &shards[read], err);
  for (int k = 1; k < nfiles && rc == KHOST__OK; k++)
    for (int j = 0; j < k && rc == KHOST__OK; j++) rc = check_same_run(&shards[j], &shards[k], err);
  int status = rc == KHOST__OK ? merge_reports(shards, nfiles, o, err) : KHOST__EXIT_USAGE;
  for (int k = 0; k < read; k++) khost__report_free(&shards[k].doc);
  free(shards);
  return status;
}
