#include "json.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "columns.h"
#include "start_folder.h"

/* 15 digits: more than any measurement holds, and 0.1 stays 0.1 instead of 0.10000000000000001. */
#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15))

struct khost__json_writer {
  char *path, *tmp_path; /* from the start folder */
  size_t shown_from;     /* where both read as the user spelled them */
  khost__run_info info;
  khost__row *rows;
  int nrows, capacity;
  int finished;
  int stream; /* path is not a regular file: written once, in place */
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

/* A fixed-size text field. Rows cross a pipe as bytes and messages may quote a
 * plugin, so neither a terminating NUL nor valid UTF-8 is taken for granted:
 * invalid text degrades to ASCII with '?' for every other byte. */
static json_t *text_field(const char *s, size_t size)
{
  size_t n = strnlen(s, size);
  json_t *t = json_stringn(s, n);
  if (t) return t;
  char *ascii = malloc(n + 1);
  if (!ascii) return NULL;
  for (size_t i = 0; i < n; i++) ascii[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
  t = json_stringn(ascii, n);
  free(ascii);
  return t;
}
#define TEXT(field) text_field((field), sizeof(field))

static json_t *mismatch_json(const khost__mismatch *m)
{
  return json_pack("{s:I, s:o, s:o, s:o}", "index", (json_int_t)m->index, "where", TEXT(m->where), "got",
                   number(m->got), "expected", number(m->expected));
}

static json_t *mismatches_json(const khost__check_stats *s)
{
  json_t *shown = json_array();
  for (int i = 0; shown && i < s->nshown && i < KHOST__MAX_MISMATCHES; i++) {
    if (json_array_append_new(shown, mismatch_json(&s->shown[i])) != 0) {
      json_decref(shown);
      shown = NULL;
    }
  }
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

static json_t *run_json(const khost__run_info *i)
{
  /* The CUDA versions as the runtime gives them: 1000 * major + 10 * minor. */
  return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                   "khost_version", TEXT(i->khost_version), "host", TEXT(i->host), "cpu", TEXT(i->cpu),
                   "ncpus", count(i->ncpus), "device", TEXT(i->device), "sm_count", count(i->sm_count),
                   "l2_bytes", count((json_int_t)i->l2_bytes), "sm_clock_mhz", count(i->sm_clock_mhz),
                   "mem_clock_mhz", count(i->mem_clock_mhz), "peak_gbps", measured(i->peak_gbps, 1),
                   "empty_call_s", measured(i->empty_call_s, 1), "cuda_driver_version", count(i->cuda_driver),
                   "cuda_runtime_version", count(i->cuda_runtime), "suite", TEXT(i->suite), "command",
                   TEXT(i->command), "date", TEXT(i->date));
}

static json_t *backend_json(const khost__backend_summary *b)
{
  return json_pack("{s:o, s:o, s:i, s:o, s:i}", "backend", TEXT(b->name), "device", TEXT(b->device),
                   "speedup_cases", b->speedup_cases, "geomean_speedup",
                   measured(b->geomean_speedup, b->speedup_cases > 0), "wins", b->wins);
}

static json_t *summary_json(const khost__row *rows, int nrows)
{
  khost__summary s;
  json_t *counts = json_object(), *backends = json_array();
  khost__summarize(rows, nrows, &s);
  for (int k = 0; counts && k < KHOST__ROW_STATUS_COUNT; k++) {
    if (json_object_set_new(counts, khost__row_status_name(k), json_integer(s.by_status[k])) != 0) {
      json_decref(counts);
      counts = NULL;
    }
  }
  for (int b = 0; backends && b < s.nbackends; b++) {
    if (json_array_append_new(backends, backend_json(&s.backends[b])) != 0) {
      json_decref(backends);
      backends = NULL;
    }
  }
  return json_pack("{s:i, s:o, s:o, s:i}", "rows", s.nrows, "counts", counts, "backends", backends,
                   "rows_omitted", s.rows_omitted);
}

static json_t *document_json(const khost__json_writer *w)
{
  json_t *rows = json_array();
  for (int i = 0; rows && i < w->nrows; i++) {
    if (json_array_append_new(rows, row_json(&w->rows[i])) != 0) {
      json_decref(rows);
      rows = NULL;
    }
  }
  return json_pack("{s:i, s:o, s:b, s:o, s:o, s:o}", "schema_version", KHOST__JSON_SCHEMA_VERSION,
                   "khost_version", TEXT(w->info.khost_version), "finished", w->finished, "run",
                   run_json(&w->info), "rows", rows, "summary", summary_json(w->rows, w->nrows));
}

/* A path of w as the user gave it, for messages. */
static const char *shown(const khost__json_writer *w, const char *path)
{
  return path + w->shown_from;
}

/* Writes the whole document to tmp_path, then renames it over path: rename is
 * atomic, so readers and a killed run only ever see a complete document. A
 * stream is written in place. */
static int write_document(const khost__json_writer *w, khost__err *err)
{
  int rc = KHOST__OK;
  const char *target = w->stream ? w->path : w->tmp_path;
  json_t *doc = document_json(w);
  FILE *f = NULL;
  if (!doc) return khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", shown(w, w->path));
  f = fopen(target, "w");
  if (!f) {
    rc = khost__errorf(err, KHOST__E_IO, "JSON report: cannot create %s: %s", shown(w, target),
                       strerror(errno));
    goto out_doc;
  }
  if (json_dumpf(doc, f, DUMP_FLAGS) != 0 || fputc('\n', f) == EOF)
    rc = khost__errorf(err, KHOST__E_IO, "JSON report: cannot write %s", shown(w, target));
  if (fclose(f) != 0 && rc == KHOST__OK)
    rc = khost__errorf(err, KHOST__E_IO, "JSON report: cannot write %s: %s", shown(w, target),
                       strerror(errno));
  if (rc == KHOST__OK && !w->stream && rename(w->tmp_path, w->path) != 0)
    rc = khost__errorf(err, KHOST__E_IO, "JSON report: cannot rename %s to %s: %s", shown(w, w->tmp_path),
                       shown(w, w->path), strerror(errno));
  if (rc != KHOST__OK && !w->stream) remove(w->tmp_path);
out_doc:
  json_decref(doc);
  return rc;
}

/* An existing path that is not a regular file (after symlinks): a device, a pipe. */
static int is_stream(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

int khost__json_open(const char *path, const khost__run_info *info, khost__json_writer **out, khost__err *err)
{
  int rc;
  char buf[PATH_MAX];
  const char *at = khost__start_folder_path(path, buf, sizeof buf);
  khost__json_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = strdup(at)) || asprintf(&w->tmp_path, "%s.tmp", at) < 0) {
    if (w) w->tmp_path = NULL; /* asprintf leaves it undefined on failure */
    rc = khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", path);
    goto fail;
  }
  w->shown_from = khost__start_folder_added(at, path);
  w->info = *info;
  w->stream = is_stream(at);
  rc = w->stream ? KHOST__OK : write_document(w, err);
  if (rc != KHOST__OK) goto fail;
  *out = w;
  return KHOST__OK;
fail:
  khost__json_free(w);
  return rc;
}

int khost__json_append(khost__json_writer *w, const khost__row *row, khost__err *err)
{
  if (w->nrows == w->capacity) {
    int capacity = w->capacity ? 2 * w->capacity : 16;
    khost__row *grown = realloc(w->rows, (size_t)capacity * sizeof *grown);
    if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "JSON report %s: out of memory", shown(w, w->path));
    w->rows = grown;
    w->capacity = capacity;
  }
  w->rows[w->nrows++] = *row;
  return w->stream ? KHOST__OK : write_document(w, err);
}

void khost__json_set_info(khost__json_writer *w, const khost__run_info *info)
{
  w->info = *info;
}

int khost__json_end(khost__json_writer *w, int finished, khost__err *err)
{
  w->finished = finished;
  /* A file already holds the unfinished document, as of its last row. */
  return finished || w->stream ? write_document(w, err) : KHOST__OK;
}

void khost__json_free(khost__json_writer *w)
{
  if (!w) return;
  free(w->rows);
  free(w->tmp_path);
  free(w->path);
  free(w);
}
