#include "junit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_file.h"
#include "text.h"

/* The test case a run that did not finish adds, so that CI never reads it as green. */
#define UNFINISHED_CLASS "khost"
#define UNFINISHED_NAME  "run"
#define UNFINISHED_TYPE  "UNFINISHED"
#define UNFINISHED_MESSAGE                                                                                   \
  "the run did not finish: the cases after the rows above did not run (khost was "                           \
  "stopped, or could not go on: see its messages)"

typedef enum { IN_TEXT, IN_ATTRIBUTE } place;

/* What XML 1.0 allows (its Char production), of the code points valid UTF-8 can hold. */
static int xml_char(uint32_t cp)
{
  return cp >= 0x20 ? cp != 0xFFFE && cp != 0xFFFF : cp == '\t' || cp == '\n' || cp == '\r';
}

/* One character, escaped for where it goes: in an attribute a line break or tab
 * is written as a character reference, which the reader's attribute-value
 * normalisation keeps (a literal one would become a space). */
static void xml_char_out(FILE *f, uint32_t cp, const char *bytes, size_t len, place where)
{
  switch (cp) {
  case '&': fputs("&amp;", f); return;
  case '<': fputs("&lt;", f); return;
  case '>': fputs("&gt;", f); return;
  case '"': fputs("&quot;", f); return;
  }
  if ((where == IN_ATTRIBUTE && cp < 0x20) || cp == '\r') /* a literal CR is read as a line feed */
    fprintf(f, "&#%u;", (unsigned)cp);
  else
    fwrite(bytes, 1, len, f);
}

/* Text of at most size bytes (a field that crossed a pipe may lack its NUL),
 * up to the first line end when one_line: each byte that is not valid UTF-8,
 * and each character XML does not allow even escaped, becomes '?'. */
static void xml_text(FILE *f, const char *s, size_t size, place where, int one_line)
{
  size_t n = strnlen(s, size);
  for (size_t i = 0, len; i < n; i += len) {
    uint32_t cp = 0;
    len = khost__text_utf8_sequence((const unsigned char *)s + i, n - i, &cp);
    if (one_line && len == 1 && cp == '\n') break;
    if (len > 0 && xml_char(cp))
      xml_char_out(f, cp, s + i, len, where);
    else
      fputc('?', f);
    if (len == 0) len = 1; /* a byte that is not UTF-8 */
  }
}
#define ATTRIBUTE(f, field) xml_text((f), (field), sizeof(field), IN_ATTRIBUTE, 0)

typedef struct counts {
  int tests, failures, errors, skipped;
} counts;

static counts count_rows(const khost__row *rows, int nrows, int finished)
{
  counts c = {.tests = nrows + !finished, .errors = !finished};
  for (int i = 0; i < nrows; i++) {
    khost__row_status s = rows[i].measured.status;
    c.failures += s == KHOST__ROW_FAIL;
    c.skipped += s == KHOST__ROW_SKIP;
    c.errors += s == KHOST__ROW_ERROR || s == KHOST__ROW_CRASH || s == KHOST__ROW_TIMEOUT;
  }
  return c;
}

static void counts_out(FILE *f, counts c)
{
  fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\"", c.tests, c.failures, c.errors,
          c.skipped);
}

/* The suite's name: its file's, less the folder and ".ini". */
static void suite_name_out(FILE *f, const char *path, size_t size)
{
  size_t n = strnlen(path, size);
  const char *slash = memrchr(path, '/', n);
  const char *name = slash ? slash + 1 : path;
  n -= (size_t)(name - path);
  if (n > 4 && memcmp(name + n - 4, ".ini", 4) == 0) n -= 4;
  xml_text(f, name, n, IN_ATTRIBUTE, 0);
}

static void property_out(FILE *f, const char *name, const char *value, size_t size)
{
  fprintf(f, "      <property name=\"%s\" value=\"", name);
  xml_text(f, value, size, IN_ATTRIBUTE, 0);
  fputs("\"/>\n", f);
}
#define PROPERTY(f, name, field) property_out((f), (name), (field), sizeof(field))

static void suite_open_out(FILE *f, const khost__run_info *info, counts c)
{
  fputs("  <testsuite name=\"", f);
  suite_name_out(f, info->suite, sizeof info->suite);
  fputc('"', f);
  counts_out(f, c);
  /* The JUnit schema's timestamp has no zone: the date is UTC, less its "Z". */
  size_t date = strnlen(info->date, sizeof info->date);
  if (date > 0 && info->date[date - 1] == 'Z') date--;
  fputs(" timestamp=\"", f);
  xml_text(f, info->date, date, IN_ATTRIBUTE, 0);
  fputs("\" hostname=\"", f);
  ATTRIBUTE(f, info->host);
  fputs("\">\n    <properties>\n", f);
  PROPERTY(f, "suite", info->suite);
  PROPERTY(f, "khost_version", info->khost_version);
  PROPERTY(f, "device", info->device);
  PROPERTY(f, "command", info->command);
  PROPERTY(f, "date", info->date);
  fputs("    </properties>\n", f);
}

/* <failure>, <error> or <skipped>, with the message as its summary (the first
 * line) and, but for <skipped>, its text (every line). */
static void outcome_out(FILE *f, const char *element, const char *type, const char *message, size_t size)
{
  fprintf(f, "      <%s", element);
  if (type) fprintf(f, " type=\"%s\"", type);
  fputs(" message=\"", f);
  xml_text(f, message, size, IN_ATTRIBUTE, 1);
  if (!type) {
    fputs("\"/>\n", f);
    return;
  }
  fputs("\">", f);
  xml_text(f, message, size, IN_TEXT, 0);
  fprintf(f, "</%s>\n", element);
}

static void row_out(FILE *f, const khost__row *r)
{
  const khost__measurement *m = &r->measured;
  fputs("    <testcase classname=\"", f);
  ATTRIBUTE(f, r->id.op);
  fputc('/', f);
  ATTRIBUTE(f, r->id.case_name);
  fputs("\" name=\"", f);
  ATTRIBUTE(f, r->id.backend);
  fputc(':', f);
  ATTRIBUTE(f, r->id.device);
  if (m->status == KHOST__ROW_PASS) {
    fputs("\"/>\n", f);
    return;
  }
  fputs("\">\n", f);
  const char *status = khost__row_status_name(m->status);
  if (m->status == KHOST__ROW_SKIP)
    outcome_out(f, "skipped", NULL, m->message, sizeof m->message);
  else
    outcome_out(f, m->status == KHOST__ROW_FAIL ? "failure" : "error", status, m->message, sizeof m->message);
  fputs("    </testcase>\n", f);
}

static void unfinished_out(FILE *f)
{
  fputs("    <testcase classname=\"" UNFINISHED_CLASS "\" name=\"" UNFINISHED_NAME "\">\n", f);
  outcome_out(f, "error", UNFINISHED_TYPE, UNFINISHED_MESSAGE, sizeof UNFINISHED_MESSAGE);
  fputs("    </testcase>\n", f);
}

int khost__junit_write(FILE *out, const khost__run_info *info, const khost__row *rows, int nrows,
                       int finished, khost__err *err)
{
  counts c = count_rows(rows, nrows, finished);
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"khost\"", out);
  counts_out(out, c);
  fputs(">\n", out);
  suite_open_out(out, info, c);
  for (int i = 0; i < nrows; i++) row_out(out, &rows[i]);
  if (!finished) unfinished_out(out);
  fputs("  </testsuite>\n</testsuites>\n", out);
  if (fflush(out) != 0 || ferror(out))
    return khost__errorf(err, KHOST__E_IO, "JUnit report: write failed: %s", strerror(errno));
  return KHOST__OK;
}

struct khost__junit_writer {
  khost__report_file file;
};

/* What khost__junit_write takes, for khost__report_file_publish_written. */
typedef struct junit_document {
  const khost__run_info *info;
  const khost__row *rows;
  int nrows, finished;
} junit_document;

static int write_document(FILE *out, const void *ctx, khost__err *err)
{
  const junit_document *d = ctx;
  return khost__junit_write(out, d->info, d->rows, d->nrows, d->finished, err);
}

/* The document to the file as one whole. */
static int publish(khost__junit_writer *w, const khost__run_info *info, const khost__row *rows, int nrows,
                   int finished, khost__err *err)
{
  junit_document d = {info, rows, nrows, finished};
  return khost__report_file_publish_written(&w->file, write_document, &d, err);
}

int khost__junit_open(const char *path, const khost__run_info *info, mode_t mode, khost__junit_writer **out,
                      khost__err *err)
{
  khost__junit_writer *w = calloc(1, sizeof *w);
  int rc = w ? khost__report_file_open(&w->file, "JUnit report", path, mode, err)
             : khost__errorf(err, KHOST__E_NOMEM, "JUnit report %s: out of memory", path);
  /* A pipe or device gets its one document at the end. */
  if (rc == KHOST__OK && !w->file.stream) rc = publish(w, info, NULL, 0, 0, err);
  if (rc == KHOST__OK)
    *out = w;
  else
    khost__junit_free(w);
  return rc;
}

int khost__junit_end(khost__junit_writer *w, const khost__run_info *info, const khost__row *rows, int nrows,
                     int finished, khost__err *err)
{
  return publish(w, info, rows, nrows, finished, err);
}

void khost__junit_free(khost__junit_writer *w)
{
  if (!w) return;
  khost__report_file_close(&w->file);
  free(w);
}
