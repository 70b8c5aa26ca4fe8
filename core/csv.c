#include "csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "report_file.h"

typedef struct line {
  FILE *f;
  int nfields;
} line;

static void separate(line *l)
{
  if (l->nfields++ > 0) fputc(',', l->f);
}

static int needs_quotes(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strchr(",\"\r\n", s[i])) return 1;
  return 0;
}

/* RFC 4180: a field holding a comma, quote or line break is quoted, quotes doubled.
 * size bounds the field, as a row that crossed a pipe may lack its NUL. */
static void text(FILE *f, const char *s, size_t size)
{
  size_t n = strnlen(s, size);
  if (!needs_quotes(s, n)) {
    fwrite(s, 1, n, f);
    return;
  }
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') fputc('"', f);
    fputc(s[i], f);
  }
  fputc('"', f);
}

/* One field of row: empty when the row has no such value (not timed, not
 * checked, not comparable, no spread in one sample) or it is not finite. */
static void field(line *l, const khost__column *c, const khost__row *r)
{
  khost__value v;
  int has = khost__column_read(c, r, &v);
  separate(l);
  if (!has) return;
  if (c->format == KHOST__FORMAT_TEXT)
    text(l->f, v.text, v.size);
  else if (c->format == KHOST__FORMAT_COUNT || c->format == KHOST__FORMAT_FLAG)
    fprintf(l->f, "%" PRIu64, v.count);
  else if (isfinite(v.number))
    fprintf(l->f, "%.15g", v.number);
}

#define FINISHED_TITLE "finished"
/* The run's column, at the place it had when it was the last: the rows'
 * columns added since come after it, as places only grow. */
#define FINISHED_AT 34

static int finish_line(FILE *f, khost__err *err)
{
  fputc('\n', f);
  if (fflush(f) != 0 || ferror(f))
    return khost__errorf(err, KHOST__E_IO, "CSV report: write failed: %s", strerror(errno));
  return KHOST__OK;
}

int khost__csv_write_header(FILE *out, khost__err *err)
{
  const khost__column *columns[KHOST__MAX_COLUMNS];
  int n = khost__columns_placed(KHOST__IN_CSV, columns);
  line l = {out, 0};
  for (int k = 0; k <= n; k++) {
    /* The run's and not a row's: the column list holds rows' values only. */
    if (k == n || columns[k]->csv.at > FINISHED_AT) {
      if (l.nfields == FINISHED_AT - 1) separate(&l), fputs(FINISHED_TITLE, out);
      if (k == n) break;
    }
    separate(&l);
    fputs(columns[k]->csv.title, out);
  }
  return finish_line(out, err);
}

/* One row's line; *finished_at gets the offset in out of its finished cell. */
static int write_line(FILE *out, const khost__row *r, int finished, long *finished_at, khost__err *err)
{
  const khost__column *columns[KHOST__MAX_COLUMNS];
  int n = khost__columns_placed(KHOST__IN_CSV, columns);
  line l = {out, 0};
  for (int k = 0; k <= n; k++) {
    if ((k == n || columns[k]->csv.at > FINISHED_AT) && l.nfields == FINISHED_AT - 1) {
      separate(&l);
      *finished_at = ftell(out);
      fputc(finished ? '1' : '0', out);
    }
    if (k < n) field(&l, columns[k], r);
  }
  return finish_line(out, err);
}

int khost__csv_write_row(FILE *out, const khost__row *r, int finished, khost__err *err)
{
  long finished_at;
  return write_line(out, r, finished, &finished_at, err);
}

struct khost__csv_writer {
  khost__report_file file;
  FILE *text; /* the report so far, in memory (open_memstream over lines and size) */
  char *lines;
  size_t size;
  size_t *flags; /* each row's finished cell: its offset in lines */
  int nrows, capacity;
};

int khost__csv_open(const char *path, mode_t mode, khost__csv_writer **out, khost__err *err)
{
  khost__csv_writer *w = calloc(1, sizeof *w);
  int rc = w ? KHOST__OK : KHOST__E_NOMEM;
  if (w) w->file.fd = -1;
  if (rc == KHOST__OK && !(w->text = open_memstream(&w->lines, &w->size))) rc = KHOST__E_NOMEM;
  if (rc != KHOST__OK) {
    rc = khost__errorf(err, KHOST__E_NOMEM, "CSV report %s: out of memory", path);
    goto fail;
  }
  rc = khost__report_file_open(&w->file, "CSV report", path, mode, err);
  if (rc == KHOST__OK) rc = khost__csv_write_header(w->text, err);
  if (rc == KHOST__OK && !w->file.stream)
    rc = khost__report_file_publish(&w->file, &(struct iovec){w->lines, w->size}, 1, err);
  if (rc != KHOST__OK) goto fail;
  *out = w;
  return KHOST__OK;
fail:
  khost__csv_free(w);
  return rc;
}

int khost__csv_append(khost__csv_writer *w, const khost__row *row, khost__err *err)
{
  if (w->nrows == w->capacity) {
    int capacity = w->capacity ? 2 * w->capacity : 64;
    size_t *grown = realloc(w->flags, (size_t)capacity * sizeof *grown);
    if (!grown) return khost__errorf(err, KHOST__E_NOMEM, "CSV report %s: out of memory", w->file.path);
    w->flags = grown;
    w->capacity = capacity;
  }
  size_t at = w->size;
  long finished_at = 0;
  int rc = write_line(w->text, row, 0, &finished_at, err);
  if (rc != KHOST__OK) return rc;
  w->flags[w->nrows++] = (size_t)finished_at;
  return w->file.stream ? KHOST__OK
                        : khost__report_file_write_at(&w->file, at, w->lines + at, w->size - at, err);
}

int khost__csv_end(khost__csv_writer *w, int finished, khost__err *err)
{
  if (!finished && !w->file.stream) return KHOST__OK; /* the file holds every row, finished 0 */
  if (fflush(w->text) != 0)
    return khost__errorf(err, KHOST__E_NOMEM, "CSV report %s: out of memory", w->file.path);
  for (int i = 0; finished && i < w->nrows; i++) w->lines[w->flags[i]] = '1';
  return khost__report_file_publish(&w->file, &(struct iovec){w->lines, w->size}, 1, err);
}

void khost__csv_free(khost__csv_writer *w)
{
  if (!w) return;
  khost__report_file_close(&w->file);
  if (w->text) fclose(w->text);
  free(w->lines);
  free(w->flags);
  free(w);
}
