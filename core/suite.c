#include "suite.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffers.h"
#include "list.h"
#include "start_folder.h"

#ifndef KHOST_SUITE_SOURCE_DIR
#error "meson must define KHOST_SUITE_SOURCE_DIR (the source tree's suites/ folder)"
#endif
#ifndef KHOST_SUITE_INSTALL_DIR
#error "meson must define KHOST_SUITE_INSTALL_DIR (the installed suites folder)"
#endif

/* Which keys a case has set: bit i for op->params[i], then these. */
enum {
  KEY_OP = 1u << KHOST__MAX_PARAMS,
  KEY_SEED = KEY_OP << 1,
  KEY_ATOL = KEY_OP << 2,
  KEY_RTOL = KEY_OP << 3
};

typedef struct parser {
  const char *path;
  FILE *file;
  int lineno;      /* of the line last handed to inih */
  int header_line; /* of a [section] header not yet followed by a key, else 0 */
  khost__case *cases;
  unsigned *keys; /* per case, the KEY_* and parameter bits it has set */
  int ncases, capacity;
  int error_line; /* of the earliest error recorded, else 0 */
  int read_errno; /* why reading failed before the end of the file, else 0 */
  int status;
  khost__err *err;
} parser;

/* Appends to the string in buf, truncating at n bytes: messages may be cut, never overrun. */
static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...)
{
  size_t used = strlen(buf);
  if (used + 1 >= n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, n - used, fmt, ap);
  va_end(ap);
}

/* Keeps the earliest error in the file: inih reports its syntax errors only after
 * the handler has seen later lines. Returns code. */
static int fail(parser *p, int line, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(parser *p, int line, int code, const char *fmt, ...)
{
  if (p->error_line && p->error_line <= line) return code;
  char reason[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  p->error_line = line;
  p->status = code;
  return khost__errorf(p->err, code, "%s:%d: %s", p->path, line, reason);
}

static void key_list(const khost__op *op, char *buf, size_t n)
{
  buf[0] = '\0';
  for (int i = 0; i < op->nparams; i++) append(buf, n, "%s, ", op->params[i].name);
  append(buf, n, "seed, atol, rtol");
}

/* The ']' of a [section] header by inih's rule (one that comes before any inline
 * comment, a ';' after a blank), so that khost and inih agree on which lines start
 * cases; NULL when s is no header. */
static const char *header_end(const char *s)
{
  if (s[0] != '[') return NULL;
  for (const char *c = s + 1; *c; c++) {
    if (*c == ']') return c;
    if (*c == ';' && isspace((unsigned char)c[-1])) return NULL;
  }
  return NULL;
}

/* inih ignores what follows a header's ']'; a suite may put only a comment there. */
static bool header_tail_ok(const char *after)
{
  after += strspn(after, " \t\r\n");
  return *after == '\0' || *after == ';' || *after == '#';
}

/* The first '=' or ':' of a line by inih's rule (before any inline comment, a ';'
 * after a blank), else '\0'. inih takes either as a key's separator. */
static char key_separator(const char *s)
{
  for (const char *c = s; *c && *c != '\n'; c++) {
    if (*c == '=' || *c == ':') return *c;
    if (*c == ';' && c > s && isspace((unsigned char)c[-1])) return '\0';
  }
  return '\0';
}

/* Why a line that is no [case] header cannot be one of a suite, else NULL: it
 * must be blank, a comment or key = value. inih's own syntax errors come only at
 * its end, so an endless stream of them (khost --suite /dev/urandom) is caught
 * here, line by line. A ':' separator works in inih but is no suite syntax. */
static const char *line_error(const char *start)
{
  if (*start == '\n' || *start == '\0' || *start == ';' || *start == '#' || *start == '[') return NULL;
  char sep = key_separator(start);
  if (sep == ':') return "'key: value' is not suite syntax: write key = value";
  return sep ? NULL : "syntax error: expected a [case] header, key = value, or a comment";
}

/* How reading one physical line ended. */
typedef enum { LINE_READ, LINE_NONE, LINE_TOO_LONG, LINE_HAS_NUL } line_fate;

/* The next byte of the suite, or EOF at its end or on a read error (kept for parse()). */
static int next_byte(parser *p)
{
  errno = 0;
  int c = getc(p->file);
  if (c == EOF && ferror(p->file)) p->read_errno = errno ? errno : EIO;
  return c;
}

/* inih skips a UTF-8 byte-order mark that opens the file. c is the file's first
 * byte; returns the byte after the mark, or, when the file does not open with
 * one, the first byte that differs, with the bytes of the mark it did open with
 * put in str (*len of them). */
static int skip_bom(parser *p, int c, char *str, size_t *len)
{
  static const char bom[] = "\xEF\xBB\xBF";
  size_t matched = 0;
  while (matched < 3 && c == (unsigned char)bom[matched]) c = next_byte(p), matched++;
  if (matched < 3) memcpy(str, bom, matched), *len = matched;
  return c;
}

/* Leading white space as inih skips it (form feeds too), from c on: it counts
 * against no limit and is never stored, so a line of blanks of any length is
 * read in constant memory. Returns the first other byte. */
static int skip_blanks(parser *p, int c)
{
  while (c != '\n' && c != EOF && isspace(c)) c = next_byte(p);
  return c;
}

/* The rest of the line from c into str after its first *len bytes, as inih
 * would see it with LF endings: the '\r' of a CRLF end is dropped, so it counts
 * against no limit and reaches no value. Reading stops at the first byte that
 * breaks a rule: the rest of a line too long, or of an endless one
 * (/dev/zero), is never read. */
static line_fate read_rest(parser *p, int c, char *str, size_t max, size_t *len)
{
  while (c != '\n' && c != EOF) {
    /* The string functions after this would stop at a NUL and take the rest of the line for gone. */
    if (c == '\0') return LINE_HAS_NUL;
    int next = next_byte(p);
    if (c == '\r' && next == '\n') {
      c = next;
      break;
    }
    if (*len == max) return LINE_TOO_LONG;
    str[(*len)++] = (char)c;
    c = next;
  }
  if (c == '\n') str[(*len)++] = '\n';
  str[*len] = '\0';
  return LINE_READ;
}

/* One physical line into str (num bytes: at most num - 2 characters, its
 * newline and the NUL; the limit is the same for a last line without a
 * newline), leading white space and line 1's byte-order mark skipped.
 * LINE_NONE at the end of the file. */
static line_fate read_physical_line(parser *p, char *str, int num)
{
  size_t len = 0;
  int c = next_byte(p);
  if (c == EOF) return LINE_NONE;
  if (p->lineno == 0) c = skip_bom(p, c, str, &len);
  if (len == 0) c = skip_blanks(p, c);
  return read_rest(p, c, str, (size_t)num - 2, &len);
}

/* inih's reader. It hands over exactly one physical line per call, so inih's line
 * numbers and ours agree, and strips leading white space as inih does: this
 * inih build would join an indented line to the previous value (multi-line
 * values), which a suite never means. It also notes [section] headers, which
 * inih does not pass to handlers. After the first error it ends the file: every
 * earlier error has been seen by then. */
static char *read_line(char *str, int num, void *stream)
{
  parser *p = stream;
  if (p->error_line) return NULL;
  line_fate fate = read_physical_line(p, str, num);
  if (fate == LINE_NONE) return NULL;
  p->lineno++;
  const char *end = fate == LINE_READ ? header_end(str) : NULL;
  const char *bad = fate == LINE_READ && !end ? line_error(str) : NULL;
  if (fate == LINE_HAS_NUL) {
    fail(p, p->lineno, KHOST__E_CONFIG, "line holds a NUL byte (a suite is a text file)");
  } else if (fate == LINE_TOO_LONG) {
    fail(p, p->lineno, KHOST__E_CONFIG, "line is longer than %d characters", num - 2);
  } else if (end && !header_tail_ok(end + 1)) {
    const char *tail = end + 1 + strspn(end + 1, " \t");
    size_t shown = strcspn(tail, "\n");
    fail(p, p->lineno, KHOST__E_CONFIG, "text after the [case] header: '%.*s' (only a comment may follow)",
         (int)(shown < 60 ? shown : 60), tail);
  } else if (end) {
    if (p->header_line) fail(p, p->header_line, KHOST__E_CONFIG, "case has no keys (it needs op = OP)");
    p->header_line = p->lineno;
    return str;
  } else if (bad) {
    fail(p, p->lineno, KHOST__E_CONFIG, "%s", bad);
  } else {
    return str;
  }
  /* inih sees a blank line where the error was. */
  strcpy(str, "\n");
  return str;
}

static int check_case_name(parser *p, int line, const char *name)
{
  size_t len = strlen(name);
  if (len == 0) return fail(p, line, KHOST__E_CONFIG, "empty case name");
  if (len > KHOST__CASE_NAME_MAX)
    return fail(p, line, KHOST__E_CONFIG, "case name '%s...' is longer than %d characters", name,
                KHOST__CASE_NAME_MAX);
  if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != len)
    return fail(p, line, KHOST__E_CONFIG, "case name '%s' may hold only letters, digits, '_', '.' and '-'",
                name);
  /* It names a folder under --dump: '.', '..' or a hidden name must not be one. */
  if (name[0] == '.' || name[0] == '-')
    return fail(p, line, KHOST__E_CONFIG, "case name '%s' must start with a letter, a digit or '_'", name);
  for (int i = 0; i < p->ncases; i++)
    if (strcmp(p->cases[i].name, name) == 0)
      return fail(p, line, KHOST__E_CONFIG, "duplicate case name '%s' (first at line %d)", name,
                  p->cases[i].line);
  return KHOST__OK;
}

static int grow(parser *p)
{
  if (p->ncases < p->capacity) return KHOST__OK;
  int capacity = p->capacity ? 2 * p->capacity : 16;
  khost__case *cases = realloc(p->cases, (size_t)capacity * sizeof *cases);
  if (!cases) return fail(p, p->lineno, KHOST__E_NOMEM, "out of memory");
  p->cases = cases;
  unsigned *keys = realloc(p->keys, (size_t)capacity * sizeof *keys);
  if (!keys) return fail(p, p->lineno, KHOST__E_NOMEM, "out of memory");
  p->keys = keys;
  p->capacity = capacity;
  return KHOST__OK;
}

/* A case starts at its first key, which must name the op: the other keys mean
 * nothing without it. */
static int begin_case(parser *p, const char *name, const char *key, const char *value)
{
  int line = p->header_line;
  p->header_line = 0; /* taken, even by a case refused below */
  int rc = check_case_name(p, line, name);
  if (rc != KHOST__OK) return rc;
  if (strcmp(key, "op") != 0)
    return fail(p, p->lineno, KHOST__E_CONFIG, "case %s: the first key must be op (known ops: %s)", name,
                khost__catalog_names());
  const khost__op *op = khost__catalog_find(value);
  if (!op)
    return fail(p, p->lineno, KHOST__E_CONFIG, "case %s: unknown op '%s' (known ops: %s)", name, value,
                khost__catalog_names());
  rc = grow(p);
  if (rc != KHOST__OK) return rc;
  khost__case *c = &p->cases[p->ncases];
  khost__case_init(c, op, name);
  snprintf(c->file, sizeof c->file, "%s", p->path);
  c->line = line;
  c->index = p->ncases;
  c->seed = khost__hash_bytes(name, strlen(name)); /* a fixed function of the name */
  p->keys[p->ncases] = KEY_OP;
  p->ncases++;
  return KHOST__OK;
}

/* The bit of key in a case of op, or 0 when op has no such key. */
static unsigned key_bit(const khost__op *op, const char *key)
{
  if (strcmp(key, "op") == 0) return KEY_OP;
  if (strcmp(key, "seed") == 0) return KEY_SEED;
  if (strcmp(key, "atol") == 0) return KEY_ATOL;
  if (strcmp(key, "rtol") == 0) return KEY_RTOL;
  int index = khost__op_param_index(op, key);
  return index < 0 ? 0 : 1u << index;
}

/* strto* with the whole value consumed; inih has already stripped the blanks. */
static bool parse_seed(const char *s, uint64_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  *out = v;
  return s[0] != '-' && end != s && *end == '\0' && errno == 0;
}

/* errno catches a value that underflows to 0 or a subnormal: a tolerance the
 * suite wrote would silently not be the one checked. */
static bool parse_tolerance(const char *s, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  *out = v;
  return end != s && *end == '\0' && errno == 0 && isfinite(v) && v >= 0;
}

static int set_param(parser *p, khost__case *c, const char *key, const char *value)
{
  khost__err why;
  int rc = khost__case_set_param(c, key, value, &why);
  return rc == KHOST__OK ? rc : fail(p, p->lineno, rc, "%s", why.msg);
}

static int set_value(parser *p, khost__case *c, unsigned bit, const char *key, const char *value)
{
  bool ok = true;
  if (bit == KEY_SEED)
    ok = parse_seed(value, &c->seed);
  else if (bit == KEY_ATOL)
    ok = parse_tolerance(value, &c->atol);
  else if (bit == KEY_RTOL)
    ok = parse_tolerance(value, &c->rtol);
  else
    return set_param(p, c, key, value);
  if (ok) return KHOST__OK;
  return fail(p, p->lineno, KHOST__E_CONFIG, "case %s: %s = '%s' is not %s", c->name, key, value,
              bit == KEY_SEED ? "an integer in 0..2^64-1" : "a finite number >= 0 (in double range)");
}

static int set_key(parser *p, const char *key, const char *value)
{
  khost__case *c = &p->cases[p->ncases - 1];
  unsigned *seen = &p->keys[p->ncases - 1];
  unsigned bit = key_bit(c->op, key);
  if (!bit) {
    char known[256];
    key_list(c->op, known, sizeof known);
    return fail(p, p->lineno, KHOST__E_CONFIG, "case %s: unknown key '%s' for op %s (keys: %s)", c->name, key,
                c->op->name, known);
  }
  if (*seen & bit) return fail(p, p->lineno, KHOST__E_CONFIG, "case %s: duplicate key '%s'", c->name, key);
  *seen |= bit;
  return set_value(p, c, bit, key, value);
}

/* inih's handler: nonzero to go on. After the first error it only lets inih
 * finish scanning, so that an earlier syntax error can still be found. */
static int on_key(void *user, const char *section, const char *key, const char *value)
{
  parser *p = user;
  if (p->error_line) return 0;
  int rc;
  if (p->header_line)
    rc = begin_case(p, section, key, value);
  else if (p->ncases == 0)
    rc = fail(p, p->lineno, KHOST__E_CONFIG, "key '%s' comes before any [case] section", key);
  else
    rc = set_key(p, key, value);
  return rc == KHOST__OK;
}

static int parse(parser *p)
{
  int line = ini_parse_stream(read_line, p, on_key, p);
  /* A suite that cannot be read (a folder, say) is the user's input: exit 2. */
  if (ferror(p->file) || p->read_errno)
    return khost__errorf(p->err, KHOST__E_CONFIG, "%s:%d: cannot read: %s", p->path, p->lineno + 1,
                         strerror(p->read_errno ? p->read_errno : errno));
  if (line < 0) return khost__errorf(p->err, KHOST__E_NOMEM, "%s: out of memory while parsing", p->path);
  if (line > 0)
    fail(p, line, KHOST__E_CONFIG, "syntax error: expected a [case] header, key = value, or a comment");
  /* A case cut short by an error on its next lines is not a case without keys. */
  if (p->header_line && !p->error_line)
    fail(p, p->header_line, KHOST__E_CONFIG, "case has no keys (it needs op = OP)");
  if (p->error_line) return p->status;
  if (p->ncases == 0)
    return khost__errorf(p->err, KHOST__E_CONFIG, "%s: no cases (a case is a [name] section with op = OP)",
                         p->path);
  return KHOST__OK;
}

/* The checks that need a whole case (required parameters, the op's rules) are
 * the catalog's; it also puts in the op's tolerances where the suite gave none. */
static int finish_case(parser *p, khost__case *c)
{
  khost__err why;
  int rc = khost__case_validate(c, &why);
  return rc == KHOST__OK ? rc : fail(p, c->line, rc, "%s", why.msg);
}

int khost__suite_load(const char *path, khost__suite *out, khost__err *err)
{
  memset(out, 0, sizeof *out);
  if (strlen(path) >= sizeof out->path)
    return khost__errorf(err, KHOST__E_CONFIG, "%.64s...: suite path too long", path);
  parser p = {.path = path, .err = err};
  char at[PATH_MAX];
  p.file = fopen(khost__start_folder_path(path, at, sizeof at), "r");
  if (!p.file) return khost__errorf(err, KHOST__E_CONFIG, "%s: cannot open: %s", path, strerror(errno));
  int rc = parse(&p);
  for (int i = 0; rc == KHOST__OK && i < p.ncases; i++) rc = finish_case(&p, &p.cases[i]);
  if (rc == KHOST__OK) {
    strcpy(out->path, path);
    out->ncases = p.ncases;
    out->cases = p.cases;
  } else {
    free(p.cases);
  }
  free(p.keys);
  fclose(p.file);
  return rc;
}

void khost__suite_free(khost__suite *s)
{
  free(s->cases);
  s->cases = NULL;
  s->ncases = 0;
}

/* Calls visit on each suite folder in search order until it returns true. */
static bool each_suite_dir(bool (*visit)(const char *dir, void *ctx), void *ctx)
{
  if (visit(KHOST_SUITE_SOURCE_DIR, ctx) || visit(KHOST_SUITE_INSTALL_DIR, ctx)) return true;
  const char *list = getenv("KHOST_SUITE_PATH");
  while (list && *list) {
    size_t len = strcspn(list, ":");
    char dir[4096];
    if (len > 0 && len < sizeof dir) {
      memcpy(dir, list, len);
      dir[len] = '\0';
      if (visit(dir, ctx)) return true;
    }
    list += len + (list[len] == ':');
  }
  return false;
}

typedef struct search {
  const char *name;
  char *path;
  size_t n;
  bool too_long;
} search;

static bool try_dir(const char *dir, void *ctx)
{
  search *s = ctx;
  char path[4096 + 256], at[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s.ini", dir, s->name);
  if (access(khost__start_folder_path(path, at, sizeof at), R_OK) != 0) return false;
  s->too_long = strlen(path) >= s->n;
  if (!s->too_long) strcpy(s->path, path);
  return true;
}

static int is_ini(const struct dirent *entry)
{
  size_t len = strlen(entry->d_name);
  return len > 4 && strcmp(entry->d_name + len - 4, ".ini") == 0;
}

/* Adds "DIR (a, b)" to the message being built in ctx (a char[1024]). */
static bool list_dir(const char *dir, void *ctx)
{
  char *msg = ctx, at[PATH_MAX];
  struct dirent **entries;
  int count = scandir(khost__start_folder_path(dir, at, sizeof at), &entries, is_ini, alphasort);
  append(msg, 1024, "%s %s (", msg[0] ? ";" : "", dir);
  if (count < 0) append(msg, 1024, "%s", strerror(errno));
  if (count == 0) append(msg, 1024, "no suites");
  for (int i = 0; i < count; i++) {
    append(msg, 1024, "%s%.*s", i ? ", " : "", (int)strlen(entries[i]->d_name) - 4, entries[i]->d_name);
    free(entries[i]);
  }
  if (count >= 0) free(entries);
  append(msg, 1024, ")");
  return false;
}

static bool is_path(const char *arg)
{
  size_t len = strlen(arg);
  return strchr(arg, '/') || (len >= 4 && strcmp(arg + len - 4, ".ini") == 0);
}

int khost__suite_find(const char *name_or_path, char *path_out, size_t n, khost__err *err)
{
  if (is_path(name_or_path)) {
    char at[PATH_MAX];
    if (access(khost__start_folder_path(name_or_path, at, sizeof at), R_OK) != 0)
      return khost__errorf(err, KHOST__E_CONFIG, "%s: cannot read suite: %s", name_or_path, strerror(errno));
    if (strlen(name_or_path) >= n)
      return khost__errorf(err, KHOST__E_CONFIG, "%.64s...: suite path too long", name_or_path);
    strcpy(path_out, name_or_path);
    return KHOST__OK;
  }
  search s = {.name = name_or_path, .path = path_out, .n = n};
  if (each_suite_dir(try_dir, &s)) {
    if (!s.too_long) return KHOST__OK;
    return khost__errorf(err, KHOST__E_CONFIG, "suite '%s': its path is too long", name_or_path);
  }
  char msg[1024] = "";
  each_suite_dir(list_dir, msg);
  return khost__errorf(err, KHOST__E_CONFIG, "no suite '%s'; searched:%s", name_or_path, msg);
}

/* Whether name matches a pattern (fnmatch) of the list csv. */
static bool matches_any(const char *csv, const char *name)
{
  char item[KHOST__LIST_ITEM_MAX + 1];
  while (khost__list_next(&csv, item, sizeof item))
    if (fnmatch(item, name, 0) == 0) return true;
  return false;
}

static bool keeps(const khost__case *c, const char *ops_csv, const char *cases_csv)
{
  return (!ops_csv || matches_any(ops_csv, c->op->name)) && (!cases_csv || matches_any(cases_csv, c->name));
}

static int check_op_patterns(const char *ops_csv, khost__err *err)
{
  char item[KHOST__LIST_ITEM_MAX + 1];
  while (ops_csv && khost__list_next(&ops_csv, item, sizeof item)) {
    const khost__op *const *op = khost__catalog_ops();
    while (*op && fnmatch(item, (*op)->name, 0) != 0) op++;
    if (!*op)
      return khost__errorf(err, KHOST__E_CONFIG, "unknown op '%s' (known ops: %s)", item,
                           khost__catalog_names());
  }
  return KHOST__OK;
}

static int check_case_patterns(const khost__suite *s, const char *cases_csv, khost__err *err)
{
  char item[KHOST__LIST_ITEM_MAX + 1];
  while (cases_csv && khost__list_next(&cases_csv, item, sizeof item)) {
    int i = 0;
    while (i < s->ncases && fnmatch(item, s->cases[i].name, 0) != 0) i++;
    if (i < s->ncases) continue;
    char names[768] = "";
    for (i = 0; i < s->ncases; i++) append(names, sizeof names, "%s%s", i ? ", " : "", s->cases[i].name);
    return khost__errorf(err, KHOST__E_CONFIG, "no case of %s matches '%s' (cases: %s)", s->path, item,
                         names);
  }
  return KHOST__OK;
}

int khost__suite_filter(khost__suite *s, const char *ops_csv, const char *cases_csv, khost__err *err)
{
  int rc = check_op_patterns(ops_csv, err);
  if (rc == KHOST__OK) rc = check_case_patterns(s, cases_csv, err);
  if (rc != KHOST__OK) return rc;
  int kept = 0;
  for (int i = 0; i < s->ncases; i++) kept += keeps(&s->cases[i], ops_csv, cases_csv);
  if (kept == 0)
    return khost__errorf(err, KHOST__E_CONFIG, "no case of %s has an op in '%s' and a name in '%s'", s->path,
                         ops_csv ? ops_csv : "*", cases_csv ? cases_csv : "*");
  kept = 0;
  for (int i = 0; i < s->ncases; i++)
    if (keeps(&s->cases[i], ops_csv, cases_csv)) s->cases[kept++] = s->cases[i];
  s->ncases = kept;
  return KHOST__OK;
}
