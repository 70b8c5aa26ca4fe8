#include "report_read.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "columns.h"
#include "report.h"
#include "result.h"
#include "start_folder.h"

#define SCHEMA_VERSION 1

/* The JSON types a key may have; null is allowed wherever the key is optional. */
typedef enum { TYPE_TEXT, TYPE_INTEGER, TYPE_NUMBER, TYPE_BOOLEAN, TYPE_ARRAY, TYPE_OBJECT } type;

static const char *const type_names[] = {"a string",      "an integer", "a number",
                                         "true or false", "an array",   "an object"};

typedef struct key_rule {
  const char *path;
  type type;
  size_t offset, size; /* the khost__run_info field it is read back into; size 0: none */
} key_rule;

#define INFO(field) offsetof(khost__run_info, field), sizeof(((khost__run_info *)0)->field)

/* The run keys a reader shows, each with its field. `peak_tflops`, a compute
 * peak or an object of named peaks, is checked apart (check_peaks) and read
 * apart (read_peaks). */
static const key_rule run_keys[] = {
    {"khost_version", TYPE_TEXT, INFO(khost_version)},
    {"host", TYPE_TEXT, INFO(host)},
    {"cpu", TYPE_TEXT, INFO(cpu)},
    {"ncpus", TYPE_INTEGER, INFO(ncpus)},
    {"device", TYPE_TEXT, INFO(device)},
    {"sm_count", TYPE_INTEGER, INFO(sm_count)},
    {"l2_bytes", TYPE_INTEGER, INFO(l2_bytes)},
    {"sm_clock_mhz", TYPE_INTEGER, INFO(sm_clock_mhz)},
    {"mem_clock_mhz", TYPE_INTEGER, INFO(mem_clock_mhz)},
    {"peak_gbps", TYPE_NUMBER, INFO(peak_gbps)},
    {"empty_call_s", TYPE_NUMBER, INFO(empty_call_s)},
    {"cuda_driver_version", TYPE_INTEGER, INFO(cuda_driver)},
    {"cuda_runtime_version", TYPE_INTEGER, INFO(cuda_runtime)},
    {"suite", TYPE_TEXT, INFO(suite)},
    {"command", TYPE_TEXT, INFO(command)},
    {"date", TYPE_TEXT, INFO(date)},
    {"baseline", TYPE_TEXT, INFO(baseline)},
    {"shard", TYPE_OBJECT, 0, 0},
    {"shard.index", TYPE_INTEGER, INFO(shard_index)},
    {"shard.count", TYPE_INTEGER, INFO(shard_count)},
    {"shard.cases", TYPE_INTEGER, INFO(shard_cases)},
    {"shard.selected_cases", TYPE_INTEGER, INFO(selected_cases)},
    {"merged_shards", TYPE_INTEGER, INFO(merged_shards)},
};

#define DEVICE(field) offsetof(khost__run_device, field), sizeof(((khost__run_device *)0)->field)

/* The keys of each object of run.devices, each with its khost__run_device field. */
static const key_rule device_keys[] = {
    {"ordinal", TYPE_INTEGER, DEVICE(gpu.ordinal)},
    {"name", TYPE_TEXT, DEVICE(name)},
    {"uuid", TYPE_TEXT, DEVICE(gpu.uuid)},
    {"sm_count", TYPE_INTEGER, DEVICE(gpu.sm_count)},
    {"l2_bytes", TYPE_INTEGER, DEVICE(gpu.l2_bytes)},
    {"sm_clock_mhz", TYPE_INTEGER, DEVICE(gpu.sm_clock_mhz)},
    {"mem_clock_mhz", TYPE_INTEGER, DEVICE(gpu.mem_clock_mhz)},
    {"peak_gbps", TYPE_NUMBER, DEVICE(gpu.peak_gbps)},
    {"empty_call_s", TYPE_NUMBER, DEVICE(gpu.empty_call_s)},
};

/* A row's identity: without these a row cannot be told apart or shown. */
static const char *const required_row_keys[] = {"case", "op", "backend", "device", "status"};

static int has_type(const json_t *v, type t)
{
  switch (t) {
  case TYPE_TEXT: return json_is_string(v);
  case TYPE_INTEGER: return json_is_integer(v);
  case TYPE_BOOLEAN: return json_is_boolean(v);
  case TYPE_ARRAY: return json_is_array(v);
  case TYPE_OBJECT: return json_is_object(v);
  default: return json_is_number(v);
  }
}

static type column_type(khost__format f)
{
  switch (f) {
  case KHOST__FORMAT_TEXT: return TYPE_TEXT;
  case KHOST__FORMAT_COUNT: return TYPE_INTEGER;
  case KHOST__FORMAT_FLAG: return TYPE_BOOLEAN;
  case KHOST__FORMAT_MISMATCHES: return TYPE_ARRAY;
  default: return TYPE_NUMBER;
  }
}

json_t *khost__report_value(const json_t *obj, const char *path)
{
  json_t *v = (json_t *)obj;
  while (v && *path) {
    size_t n = strcspn(path, ".");
    v = json_is_object(v) ? json_object_getn(v, path, n) : NULL;
    path += n + (path[n] == '.');
  }
  return json_is_null(v) ? NULL : v;
}

const char *khost__report_text(const json_t *obj, const char *path)
{
  const char *s = json_string_value(khost__report_value(obj, path));
  return s ? s : "";
}

int khost__report_number(const json_t *obj, const char *path, double *v)
{
  json_t *x = khost__report_value(obj, path);
  if (!json_is_number(x)) return 0;
  *v = json_number_value(x);
  return 1;
}

/* The key at path under obj, where present and not null, has type t; so has
 * each object on the way an object. where names obj in messages ("rows[3]"). */
static int check_key(const char *file, const char *where, const json_t *obj, const char *path, type t,
                     khost__err *err)
{
  char prefix[128];
  for (const char *dot = strchr(path, '.'); dot; dot = strchr(dot + 1, '.')) {
    snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - path), path);
    json_t *outer = khost__report_value(obj, prefix);
    if (outer && !json_is_object(outer))
      return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s.%s: expected an object", file,
                           where, prefix);
  }
  json_t *v = khost__report_value(obj, path);
  if (v && !has_type(v, t))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s.%s: expected %s", file, where,
                         path, type_names[t]);
  return KHOST__OK;
}

static int known_status(const char *s)
{
  for (int k = 0; k < KHOST__ROW_STATUS_COUNT; k++)
    if (strcmp(s, khost__row_status_name((khost__row_status)k)) == 0) return 1;
  return 0;
}

static int check_row(const char *file, const json_t *row, size_t i, khost__err *err)
{
  char where[64];
  snprintf(where, sizeof where, "rows[%zu]", i);
  if (!json_is_object(row))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s: expected an object", file, where);
  for (size_t k = 0; k < sizeof required_row_keys / sizeof *required_row_keys; k++)
    if (!json_is_string(khost__report_value(row, required_row_keys[k])))
      return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s.%s: expected a string", file,
                           where, required_row_keys[k]);
  if (!known_status(khost__report_text(row, "status")))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s.status: '%.40s' is not a status",
                         file, where, khost__report_text(row, "status"));
  int rc = KHOST__OK;
  for (int c = 0; c < khost__ncolumns && rc == KHOST__OK; c++)
    if (khost__columns[c].json)
      rc = check_key(file, where, row, khost__columns[c].json, column_type(khost__columns[c].format), err);
  return rc;
}

/* peak_tflops: one compute peak, or an object of named peaks. */
static int check_peaks(const char *file, const json_t *run, khost__err *err)
{
  json_t *peaks = khost__report_value(run, "peak_tflops");
  const char *name;
  json_t *peak;
  if (!peaks || json_is_number(peaks)) return KHOST__OK;
  if (!json_is_object(peaks))
    return khost__errorf(err, KHOST__E_CONFIG,
                         "%s: not a khost report: run.peak_tflops: expected a number or an object of numbers",
                         file);
  json_object_foreach((json_t *)peaks, name, peak)
  {
    if (!json_is_number(peak) && !json_is_null(peak))
      return khost__errorf(err, KHOST__E_CONFIG,
                           "%s: not a khost report: run.peak_tflops.%.40s: expected a number", file, name);
  }
  return KHOST__OK;
}

/* run.devices, where present: objects whose keys have their types. */
static int check_devices(const char *file, const json_t *run, khost__err *err)
{
  json_t *devices = khost__report_value(run, "devices");
  int rc = check_key(file, "run", run, "devices", TYPE_ARRAY, err);
  char where[64];
  for (size_t i = 0; i < json_array_size(devices) && rc == KHOST__OK; i++) {
    json_t *d = json_array_get(devices, i);
    snprintf(where, sizeof where, "run.devices[%zu]", i);
    if (!json_is_object(d))
      return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report: %s: expected an object", file,
                           where);
    for (size_t k = 0; k < sizeof device_keys / sizeof *device_keys && rc == KHOST__OK; k++)
      rc = check_key(file, where, d, device_keys[k].path, device_keys[k].type, err);
  }
  return rc;
}

static int check_document(const char *file, khost__report_doc *doc, khost__err *err)
{
  json_t *version = json_object_get(doc->root, "schema_version");
  json_t *finished = json_object_get(doc->root, "finished");
  if (!json_is_integer(version))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report (it has no integer schema_version)",
                         file);
  if (json_integer_value(version) != SCHEMA_VERSION)
    return khost__errorf(err, KHOST__E_CONFIG, "%s: schema_version %lld is not one this khost reads (%d)",
                         file, (long long)json_integer_value(version), SCHEMA_VERSION);
  doc->run = json_object_get(doc->root, "run");
  doc->rows = json_object_get(doc->root, "rows");
  if (!json_is_object(doc->run) || !json_is_array(doc->rows) || !json_is_boolean(finished))
    return khost__errorf(err, KHOST__E_CONFIG,
                         "%s: not a khost report (it needs a run object, a rows array and finished)", file);
  doc->nrows = json_array_size(doc->rows);
  doc->finished = json_is_true(finished);
  int rc = KHOST__OK;
  for (size_t k = 0; k < sizeof run_keys / sizeof *run_keys && rc == KHOST__OK; k++)
    rc = check_key(file, "run", doc->run, run_keys[k].path, run_keys[k].type, err);
  if (rc == KHOST__OK) rc = check_peaks(file, doc->run, err);
  if (rc == KHOST__OK) rc = check_devices(file, doc->run, err);
  for (size_t i = 0; i < doc->nrows && rc == KHOST__OK; i++)
    rc = check_row(file, json_array_get(doc->rows, i), i, err);
  return rc;
}

static int load(const char *path, khost__report_doc *doc, khost__err *err)
{
  char buf[PATH_MAX];
  const char *at = khost__start_folder_path(path, buf, sizeof buf);
  struct stat st;
  json_error_t jerr;
  if (stat(at, &st) == 0 && S_ISDIR(st.st_mode))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: is a folder, not a report", path);
  FILE *f = fopen(at, "r");
  if (!f) return khost__errorf(err, KHOST__E_IO, "%s: cannot read: %s", path, strerror(errno));
  doc->root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
  int unreadable = ferror(f);
  int saved = errno;
  fclose(f);
  if (unreadable) return khost__errorf(err, KHOST__E_IO, "%s: cannot read: %s", path, strerror(saved));
  if (!doc->root)
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not JSON: line %d, column %d: %s", path, jerr.line,
                         jerr.column, jerr.text);
  if (!json_is_object(doc->root))
    return khost__errorf(err, KHOST__E_CONFIG, "%s: not a khost report (not a JSON object)", path);
  return KHOST__OK;
}

int khost__report_read(const char *path, khost__report_doc *doc, khost__err *err)
{
  memset(doc, 0, sizeof *doc);
  int rc = load(path, doc, err);
  if (rc == KHOST__OK) rc = check_document(path, doc, err);
  if (rc != KHOST__OK) khost__report_free(doc);
  return rc;
}

void khost__report_free(khost__report_doc *doc)
{
  json_decref(doc->root);
  memset(doc, 0, sizeof *doc);
}

json_t *khost__report_row(const khost__report_doc *doc, size_t i)
{
  return json_array_get(doc->rows, i);
}

/* An integer key into a field of int or size_t; a value out of the field's range is left out (0, unknown). */
static void read_integer(const json_t *v, void *field, size_t size)
{
  json_int_t x = json_integer_value(v);
  if (size == sizeof(int) && x >= 0 && x <= INT_MAX) *(int *)field = (int)x;
  if (size == sizeof(size_t) && x >= 0) *(size_t *)field = (size_t)x;
}

/* Each key of keys present in obj into its field of the struct at base. */
static void read_keys(const json_t *obj, const key_rule *keys, size_t n, void *base)
{
  for (size_t k = 0; k < n; k++) {
    const key_rule *key = &keys[k];
    json_t *v = khost__report_value(obj, key->path);
    char *field = (char *)base + key->offset;
    if (!v || key->size == 0) continue;
    if (key->type == TYPE_TEXT) snprintf(field, key->size, "%s", json_string_value(v));
    if (key->type == TYPE_INTEGER) read_integer(v, field, key->size);
    if (key->type == TYPE_NUMBER) *(double *)field = json_number_value(v);
  }
}

/* The peaks khost measures, from an object of named peaks; a single number names no input type. */
static void read_peaks(const json_t *run, khost__run_info *info)
{
  json_t *peaks = khost__report_value(run, "peak_tflops");
  for (int t = 0; t < KHOST__PEAKS && json_is_object(peaks); t++) {
    json_t *v = json_object_get(peaks, khost__peak_name((khost__peak_type)t));
    if (json_is_number(v)) info->peak_tflops[t] = json_number_value(v);
  }
}

void khost__report_run_info(const khost__report_doc *doc, khost__run_info *info)
{
  memset(info, 0, sizeof *info);
  read_keys(doc->run, run_keys, sizeof run_keys / sizeof *run_keys, info);
  read_peaks(doc->run, info);
  json_t *devices = khost__report_value(doc->run, "devices");
  for (size_t i = 0; i < json_array_size(devices) && info->ndevices < KHOST__DEVICES_MAX; i++)
    read_keys(json_array_get(devices, i), device_keys, sizeof device_keys / sizeof *device_keys,
              &info->devices[info->ndevices++]);
}
