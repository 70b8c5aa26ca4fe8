#include "csv.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "columns.h"
#include "start_folder.h"

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
  for (int k = 0; k < n; k++) fprintf(out, "%s%s", k ? "," : "", columns[k]->csv.title);
  return finish_line(out, err);
}

int khost__csv_write_row(FILE *out, const khost__row *r, khost__err *err)
{
  const khost__column *columns[KHOST__MAX_COLUMNS];
  int n = khost__columns_placed(KHOST__IN_CSV, columns);
  line l = {out, 0};
  for (int k = 0; k < n; k++) field(&l, columns[k], r);
  return finish_line(out, err);
}

int khost__csv_open(const char *path, FILE **out, khost__err *err)
{
  int rc;
  char at[PATH_MAX];
  FILE *f = fopen(khost__start_folder_path(path, at, sizeof at), "w");
  if (!f) return khost__errorf(err, KHOST__E_IO, "CSV report: cannot create %s: %s", path, strerror(errno));
  rc = khost__csv_write_header(f, err);
  if (rc != KHOST__OK) {
    fclose(f);
    return rc;
  }
  *out = f;
  return KHOST__OK;
}

int khost__csv_close(FILE *f, khost__err *err)
{
  if (f && fclose(f) != 0)
    return khost__errorf(err, KHOST__E_IO, "CSV report: closing failed: %s", strerror(errno));
  return KHOST__OK;
}
