#include "json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "report_file.h"

/* 15 digits: more than any measurement holds, and 0.1 stays 0.1 instead of 0.10000000000000001. */
#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15))

/* The document is the head (up to the rows' "["), the rows, each with the
 * separator before it, and the tail (the closing "]", the summary, the closing
 * "}"). Only the head's run description and "finished" change after the rows
 * have begun, and the tail is small: a row is written with the new tail in one
 * write over the old tail, so that writing it costs the row, not the report. */
struct khost__json_writer {
  khost__report_file file;
  khost__run_info info;
  int finished;
  khost__summary_builder summary;
  char *rows; /* the rows as in the document */
  size_t rows_size, rows_capacity;
  int nrows;
  char *head; /* the head as last written to the file */
  size_t head_size;
};

/* JSON has no NaN or infinity; null keeps the document valid and says "no value". */
static json_t *number(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* Zero means "not measured" (a duration, a peak, a speedup). */
static json_t *measured(double v, int known)
{
  return known && v != 0 ? number(v) : json_null();
}

/* A fixed-size text field, which a row that crossed a pipe may have filled to
 * the end without a NUL. Its text is clean (text.h): valid UTF-8. */
static json_t *text_field(const char *s, size_t size)
{
  return json_stringn(s, strnlen(s, size));
}
#define TEXT(field) text_field((field), sizeof(field))

static json_t *mismatch_json(const khost__mismatch *m)
{
  return json_pack("{s:I, s:o, s:o, s:o}", "index", (json_int_t)m->index, "where", TEXT(m->where), "got",
                   number(m->got), "expected", number(m->expected));
}

/* Appends item to *array; a failure (out of memory) drops the whole array, which
 * json_pack then refuses, so that no report holds half an array. */
static void append(json_t **array, json_t *item)
{
  if (json_array_append_new(*array, item) != 0) {
    json_decref(*array);
    *array = NULL;
  }
}

static json_t *mismatches_json(const khost__check_stats *s)
{
  json_t *shown = json_array();
  for (int i = 0; shown && i < s->nshown && i < KHOST__MAX_MISMATCHES; i++)
    append(&shown, mismatch_json(&s->shown[i]));
  return shown;
}

static json_t *value_json(const khost__column *c, const khost__row *r)
{
  khost__value v;
  if (!khost__column_read(c, r, &v)) return json_null();
  switch (c->format) {
  case KHOST__FORMAT_TEXT: return text_field(v.text, v.size);
  case KHOST__FORMAT_COUNT: return json_integer((json_int_t)v.count);
  case KHOST__FORMAT_FLAG: return json_boolean(v.count);
  case KHOST__FORMAT_MISMATCHES: return mismatches_json(v.check);
  case KHOST__FORMAT_SECONDS: return measured(v.number, 1); /* as the table's "-" */
  default: return number(v.number);
  }
}

/* Sets value (a new reference, NULL on failure) at the dotted path in obj,
 * creating the objects on the way: keys keep the order they were first set in. */
static int set_path(json_t *obj, const char *path, json_t *value)
{
  const char *dot;
  while (obj && (dot = strchr(path, '.'))) {
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
    json_t *inner = json_object_get(obj, key);
    if (!inner && json_object_set_new(obj, key, inner = json_object()) != 0) inner = NULL;
    obj = inner;
    path = dot + 1;
  }
  if (obj) return json_object_set_new(obj, path, value);
  json_decref(value);
  return -1;
}

static json_t *row_json(const khost__row *r)
{
  json_t *obj = json_object();
  for (int i = 0; obj && i < khost__ncolumns; i++) {
    const khost__column *c = &khost__columns[i];
    if (c->json && set_path(obj, c->json, value_json(c, r)) != 0) {
      json_decref(obj);
      obj = NULL;
    }
  }
  return obj;
}

/* Zero means "unknown" in a khost__run_info. */
static json_t *count(json_int_t v)
{
  return v > 0 ? json_integer(v) : json_null();
}

/* The shard a run was, null when it ran the whole selection. */
static json_t *shard_json(const khost__run_info *i)
{
  if (i->shard_count == 0) return json_null();
  return json_pack("{s:i, s:i, s:i, s:i}", "index", i->shard_index, "count", i->shard_count, "cases",
                   i->shard_cases, "selected_cases", i->selected_cases);
}

/* A name that may be unknown: null rather than "". */
static json_t *name_json(const char *s, size_t size)
{
  return s[0] ? text_field(s, size) : json_null();
}

static json_t *device_json(const khost__run_device *d)
{
  const khost__device_info *g = &d->gpu;
  return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "ordinal", g->ordinal, "name",
                   name_json(d->name, sizeof d->name), "uuid", name_json(g->uuid, sizeof g->uuid), "sm_count",
                   count(g->sm_count), "l2_bytes", count((json_int_t)g->l2_bytes), "sm_clock_mhz",
                   count(g->sm_clock_mhz), "mem_clock_mhz", count(g->mem_clock_mhz), "peak_gbps",
                   measured(g->peak_gbps, 1), "empty_call_s", measured(g->empty_call_s, 1));
}

static json_t *devices_json(const khost__run_info *i)
{
  json_t *a = json_array();
  for (int k = 0; a && k < i->ndevices && k < KHOST__DEVICES_MAX; k++)
    append(&a, device_json(&i->devices[k]));
  return a;
}

/* The measured matrix peaks by input type, or null when none was measured. */
static json_t *peaks_json(const khost__run_info *i)
{
  json_t *o = NULL;
  for (int t = 0; t < KHOST__PEAKS; t++) {
    if (i->peak_tflops[t] <= 0) continue;
    if (!o) o = json_object();
    if (o) json_object_set_new(o, khost__peak_name((khost__peak_type)t), measured(i->peak_tflops[t], 1));
  }
  return o ? o : json_null();
}

static json_t *run_json(const khost__run_info *i)
{
  /* The CUDA versions as the runtime gives them: 1000 * major + 10 * minor. */
  return json_pack(
      "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
      "s:o, s:o, s:o, s:o}",
      "khost_version", TEXT(i->khost_version), "host", TEXT(i->host), "cpu", TEXT(i->cpu), "ncpus",
      count(i->ncpus), "device", TEXT(i->device), "sm_count", count(i->sm_count), "l2_bytes",
      count((json_int_t)i->l2_bytes), "sm_clock_mhz", count(i->sm_clock_mhz), "mem_clock_mhz",
      count(i->mem_clock_mhz), "peak_gbps", measured(i->peak_gbps, 1), "empty_call_s",
      measured(i->empty_call_s, 1), "timer", TEXT(i->timer), "peak_tflops", peaks_json(i),
      "cuda_driver_version", count(i->cuda_driver), "cuda_runtime_version", count(i->cuda_runtime), "suite",
      TEXT(i->suite), "command", TEXT(i->command), "date", TEXT(i->date), "baseline", TEXT(i->baseline),
      "shard", shard_json(i), "merged_shards", count(i->merged_shards), "devices", devices_json(i));
}

static json_t *backend_json(const khost__backend_summary *b)
{
  return json_pack("{s:o, s:o, s:i, s:o, s:i}", "backend", TEXT(b->name), "device", TEXT(b->device),
                   "speedup_cases", b->speedup_cases, "geomean_speedup",
                   measured(b->geomean_speedup, b->speedup_cases > 0), "wins", b->wins);
}

static json_t *summary_json(const khost__summary *s)
{
  json_t *counts = json_object(), *backends = json_array();
  for (int k = 0; counts && k < KHOST__ROW_STATUS_COUNT; k++) {
    if (json_object_set_new(counts, khost__row_status_name(k), json_integer(s->by_status[k])) != 0) {
      json_decref(counts);
      counts = NULL;
    }
  }
  for (int b = 0; backends && b < s->nbackends; b++) append(&backends, backend_json(&s->backends[b]));
  return json_pack("{s:i, s:o, s:o, s:i}", "rows", s->nrows, "counts", counts, "backends", backends,
                   "rows_omitted", s->rows_omitted);
}

/* The document with its rows left out ("rows": []), as jansson writes it. */
static json_t *document_json(const khost__json_writer *w)
{
  return json_pack("{s:i, s:o, s:b, s:o, s:o, s:o}", "schema_version", KHOST__JSON_SCHEMA_VERSION,
                   "khost_version", TEXT(w->info.khost_version), "finished", w->finished, "run",
                   run_json(&w->info), "rows", json_array(), "summary", summary_json(&w->summary.summary));
}

/* The whole document's text, as jansson writes it, is its head, the rows, and
 * after the last row "\n  " and the tail. */
#define ROWS_MARK       "\n  \"rows\": []"
#define AFTER_LAST_ROW  "\n  "
#define FIRST_ROW_START "\n    "
#define NEXT_ROW_START  ",\n    "
#define ROW_INDENT      "    "

/* The document without its rows, split where they go: the head, up to and with
 * the rows' "[", and the tail, from their "]" on, with the final line end. text
 * holds both; the caller frees it. */
typedef struct split_document {
  char *text;
  struct iovec head, tail;
} split_document;

static int split(const khost__json_writer *w, split_document *d, khost__err *err)
{
  json_t *doc = document_json(w);
  char *mark;
  d->text = doc ? json_dumps(doc, DUMP_FLAGS) : NULL;
  json_decref(doc);
  /* A key's line: text is escaped inside strings, so the mark is only the key itself. */
  if (!d->text || !(mark = strstr(d->text, ROWS_MARK))) {
    free(d->text);
    return khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", w->file.path);
  }
  size_t at = (size_t)(mark - d->text) + strlen(ROWS_MARK) - 1, size = strlen(d->text);
  d->text[size] = '\n'; /* over the NUL: the document ends with a line end */
  d->head = (struct iovec){d->text, at};
  d->tail = (struct iovec){d->text + at, size + 1 - at};
  return KHOST__OK;
}

/* Writes the whole document: the first time, when the head changes, and at the
 * end (a finished document has no padding left). */
static int write_document(khost__json_writer *w, khost__err *err)
{
  split_document d;
  int rc = split(w, &d, err);
  if (rc != KHOST__OK) return rc;
  const struct iovec parts[] = {
      d.head,
      {w->rows, w->rows_size},
      {AFTER_LAST_ROW, w->nrows ? strlen(AFTER_LAST_ROW) : 0},
      d.tail,
  };
  rc = khost__report_file_publish(&w->file, parts, sizeof parts / sizeof parts[0], err);
  if (rc == KHOST__OK && !w->file.stream) {
    free(w->head);
    w->head = d.text; /* only its first head_size bytes are used */
    w->head_size = d.head.iov_len;
    d.text = NULL;
  }
  free(d.text);
  return rc;
}

/* Appends text to the rows, with each line after the first indented to a row's depth. */
static int add_row_text(khost__json_writer *w, const char *text)
{
  size_t lines = 1;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  size_t need = w->rows_size + strlen(NEXT_ROW_START) + strlen(text) + lines * strlen(ROW_INDENT) + 1;
  if (need > w->rows_capacity) {
    size_t capacity = need > 2 * w->rows_capacity ? need : 2 * w->rows_capacity;
    char *grown = realloc(w->rows, capacity);
    if (!grown) return KHOST__E_NOMEM;
    w->rows = grown;
    w->rows_capacity = capacity;
  }
  char *out = w->rows + w->rows_size;
  out += sprintf(out, "%s", w->nrows ? NEXT_ROW_START : FIRST_ROW_START);
  for (const char *p = text; *p; p++) {
    *out++ = *p;
    if (*p == '\n') out += sprintf(out, ROW_INDENT);
  }
  w->rows_size = (size_t)(out - w->rows);
  w->nrows++;
  return KHOST__OK;
}

/* The new row (from row_at in the rows) and the new tail, written over the old tail. */
static int write_row(khost__json_writer *w, size_t row_at, khost__err *err)
{
  split_document d;
  int rc = split(w, &d, err);
  if (rc != KHOST__OK) return rc;
  size_t row_size = w->rows_size - row_at, size = row_size + strlen(AFTER_LAST_ROW) + d.tail.iov_len;
  char *region = malloc(size);
  if (!region) {
    rc = khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", w->file.path);
  } else {
    memcpy(region, w->rows + row_at, row_size);
    memcpy(region + row_size, AFTER_LAST_ROW, strlen(AFTER_LAST_ROW));
    memcpy(region + size - d.tail.iov_len, d.tail.iov_base, d.tail.iov_len);
    rc = khost__report_file_write_at(&w->file, w->head_size + row_at, region, size, err);
  }
  free(region);
  free(d.text);
  return rc;
}

int khost__json_open(const char *path, const khost__run_info *info, mode_t mode, khost__json_writer **out,
                     khost__err *err)
{
  khost__json_writer *w = calloc(1, sizeof *w);
  if (!w) return khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", path);
  w->file.fd = -1;
  w->info = *info;
  khost__summary_builder_init(&w->summary);
  int rc = khost__report_file_open(&w->file, "JSON report", path, mode, err);
  if (rc == KHOST__OK && !w->file.stream) rc = write_document(w, err);
  if (rc != KHOST__OK) {
    khost__json_free(w);
    return rc;
  }
  *out = w;
  return KHOST__OK;
}

int khost__json_append(khost__json_writer *w, const khost__row *row, khost__err *err)
{
  size_t row_at = w->rows_size;
  json_t *obj = row_json(row);
  char *text = obj ? json_dumps(obj, DUMP_FLAGS) : NULL;
  json_decref(obj);
  int rc = text && add_row_text(w, text) == KHOST__OK ? KHOST__OK : KHOST__E_NOMEM;
  free(text);
  if (rc == KHOST__OK) rc = khost__summary_builder_add(&w->summary, row);
  if (rc != KHOST__OK) return khost__errorf(err, rc, "JSON report %s: out of memory", w->file.path);
  return w->file.stream ? KHOST__OK : write_row(w, row_at, err);
}

int khost__json_set_info(khost__json_writer *w, const khost__run_info *info, khost__err *err)
{
  split_document d;
  w->info = *info;
  if (w->file.stream) return KHOST__OK;
  int rc = split(w, &d, err);
  if (rc != KHOST__OK) return rc;
  int same = d.head.iov_len == w->head_size && memcmp(d.head.iov_base, w->head, w->head_size) == 0;
  free(d.text);
  /* The head comes before the rows: a new one means the whole document again. */
  return same ? KHOST__OK : write_document(w, err);
}

int khost__json_end(khost__json_writer *w, int finished, khost__err *err)
{
  w->finished = finished;
  /* A file already holds the unfinished document, as of its last row. */
  return finished || w->file.stream ? write_document(w, err) : KHOST__OK;
}

void khost__json_free(khost__json_writer *w)
{
  if (!w) return;
  khost__report_file_close(&w->file);
  khost__summary_builder_free(&w->summary);
  free(w->rows);
  free(w->head);
  free(w);
}
