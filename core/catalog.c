#include "catalog.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

/* all_ops: every op, each defined in its own core/ops/<name>.c, in the order of the
 * op list (core/ops/meson.build), NULL-terminated. */
#include "ops/op_table.h"

const khost__op *const *khost__catalog_ops(void)
{
  return all_ops;
}

const khost__op *khost__catalog_find(const char *name)
{
  for (int i = 0; all_ops[i]; i++) {
    if (strcmp(all_ops[i]->name, name) == 0) return all_ops[i];
  }
  return NULL;
}

/* Appends to buf (n bytes, NUL-terminated) at *used; stops quietly when full. */
static void appendf(char *buf, size_t n, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void appendf(char *buf, size_t n, size_t *used, const char *fmt, ...)
{
  va_list ap;
  int w;
  if (*used >= n) return;
  va_start(ap, fmt);
  w = vsnprintf(buf + *used, n - *used, fmt, ap);
  va_end(ap);
  *used = w < 0 ? n : *used + (size_t)w;
}

static char op_names[256];
static pthread_once_t op_names_once = PTHREAD_ONCE_INIT;

static void build_op_names(void)
{
  size_t used = 0;
  op_names[0] = '\0';
  for (int i = 0; all_ops[i]; i++) {
    appendf(op_names, sizeof op_names, &used, "%s%s", i ? ", " : "", all_ops[i]->name);
  }
}

const char *khost__catalog_names(void)
{
  pthread_once(&op_names_once, build_op_names);
  return op_names;
}

int khost__op_param_index(const khost__op *op, const char *name)
{
  for (int i = 0; i < op->nparams; i++) {
    if (strcmp(op->params[i].name, name) == 0) return i;
  }
  return -1;
}

int64_t khost__case_param(const khost__case *c, const char *name)
{
  int i = khost__op_param_index(c->op, name);
  assert(i >= 0 && "an op asked for a parameter it does not declare");
  return c->params[i];
}

/* "fp16, bf16, fp32" for a mask, in dtype order. */
static void dtype_mask_names(unsigned mask, char *buf, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < KHOST__DT_COUNT; i++) {
    if (mask & (1u << i))
      appendf(buf, n, &used, "%s%s", used ? ", " : "", khost__dtype_name((khost__dtype_id)i));
  }
}

/* ---- sizes ---- */

int khost__size_mul(size_t a, size_t b, size_t *out)
{
  if (b != 0 && a > SIZE_MAX / b) return KHOST__E_CONFIG;
  *out = a * b;
  return 0;
}

/* Storage bytes of `count` elements of `bits` each, packed; SIZE_MAX on overflow. */
static size_t packed_bytes(size_t count, size_t bits)
{
  size_t total_bits;
  if (khost__size_mul(count, bits, &total_bits) || total_bits > SIZE_MAX - 7) return SIZE_MAX;
  return (total_bits + 7) / 8;
}

void khost__tensor_spec_fill(khost__tensor_spec *t, const char *name, khost__dtype_id dtype, int ndim,
                             const int64_t *shape, const char *const *dim_names)
{
  size_t count = 1;
  memset(t, 0, sizeof *t);
  t->name = name;
  t->dtype = dtype;
  t->ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    t->shape[d] = shape[d];
    t->dim_names[d] = dim_names[d];
    /* A negative extent would wrap to a huge one and be refused the same way. */
    if (khost__size_mul(count, (size_t)shape[d], &count)) count = SIZE_MAX;
  }
  t->nbytes = count == SIZE_MAX ? SIZE_MAX : packed_bytes(count, khost__dtype_bits(dtype));
  t->table_of = -1;
}

void khost__tensor_spec_arena(khost__tensor_spec *t, int chunk_dims)
{
  t->chunk_dims = chunk_dims;
}

void khost__tensor_spec_table(khost__tensor_spec *t, const char *name, const khost__tensor_spec *arena,
                              int arena_number)
{
  static const char *const dims[] = {"chunk"};
  int64_t chunks = 1;
  for (int d = 0; d < arena->chunk_dims; d++)
    /* An overflowing count is refused by validate through the table's bytes. */
    chunks =
        arena->shape[d] > 0 && chunks > INT64_MAX / arena->shape[d] ? INT64_MAX : chunks * arena->shape[d];
  khost__tensor_spec_fill(t, name, KHOST__DT_U64, 1, &chunks, dims);
  t->table_of = arena_number;
}

size_t khost__tensor_storage_bytes(const khost__tensor_spec *t)
{
  if (!t->chunk_dims || t->nbytes == SIZE_MAX) return t->nbytes;
  return khost__arena_bytes(t);
}

size_t khost__tensor_elements(const khost__tensor_spec *t)
{
  size_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
  return n;
}

/* ---- cases ---- */

void khost__case_init(khost__case *c, const khost__op *op, const char *name)
{
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->op = op;
  for (int i = 0; i < KHOST__MAX_PARAMS; i++) c->params[i] = KHOST__PARAM_UNSET;
  c->atol = NAN;
  c->rtol = NAN;
}

static void param_names(const khost__op *op, char *buf, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < op->nparams; i++) appendf(buf, n, &used, "%s%s", i ? ", " : "", op->params[i].name);
}

/* Suite text of an INT parameter: a whole decimal int64, nothing else. */
static int parse_int_param(const khost__case *c, const khost__param_spec *p, const char *text, int64_t *out,
                           khost__err *err)
{
  char *end = NULL;
  long long v;
  errno = 0;
  v = strtoll(text, &end, 10);
  /* INT64_MIN is refused too: it marks a parameter the suite did not give. */
  if (errno || end == text || *end != '\0' || v == KHOST__PARAM_UNSET) {
    return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s = '%s' is not an integer in -(2^63-1)..2^63-1",
                         c->name, p->name, text);
  }
  *out = v;
  return 0;
}

/* Suite text of a DTYPE parameter: any dtype name; the op's mask is validate's rule. */
static int parse_dtype_param(const khost__case *c, const khost__param_spec *p, const char *text, int64_t *out,
                             khost__err *err)
{
  khost__dtype_id dt;
  if (khost__dtype_parse(text, &dt) != 0) {
    char allowed[128];
    dtype_mask_names(p->dtypes, allowed, sizeof allowed);
    return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s = '%s' is not a dtype (%s takes %s)", c->name,
                         p->name, text, c->op->name, allowed);
  }
  *out = dt;
  return 0;
}

static void enum_names(const khost__param_spec *p, char *buf, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; p->names[i]; i++) appendf(buf, n, &used, "%s%s", i ? ", " : "", p->names[i]);
}

/* Suite text of an ENUM parameter: one of its names, exactly. */
static int parse_enum_param(const khost__case *c, const khost__param_spec *p, const char *text, int64_t *out,
                            khost__err *err)
{
  for (int i = 0; p->names[i]; i++)
    if (strcmp(p->names[i], text) == 0) return *out = i, 0;
  char allowed[128];
  enum_names(p, allowed, sizeof allowed);
  return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs %s to be one of %s, got '%s'", c->name,
                       c->op->name, p->name, allowed, text);
}

int khost__case_set_param(khost__case *c, const char *key, const char *text, khost__err *err)
{
  int i = khost__op_param_index(c->op, key);
  if (i < 0) {
    char names[128];
    param_names(c->op, names, sizeof names);
    return khost__errorf(err, KHOST__E_CONFIG, "case %s: op %s has no parameter '%s' (parameters: %s)",
                         c->name, c->op->name, key, names);
  }
  if (c->op->params[i].kind == KHOST__PARAM_INT) {
    return parse_int_param(c, &c->op->params[i], text, &c->params[i], err);
  }
  if (c->op->params[i].kind == KHOST__PARAM_ENUM)
    return parse_enum_param(c, &c->op->params[i], text, &c->params[i], err);
  return parse_dtype_param(c, &c->op->params[i], text, &c->params[i], err);
}

static int check_int_param(const khost__case *c, const khost__param_spec *p, int64_t v, khost__err *err)
{
  const char *fmt = NULL;
  int64_t bound = 0;
  /* The multiple first: for m = 100 the rule to state is "a multiple of 128";
   * a multiple that is too small (m = 0) then hears "at least 128". */
  if (p->multiple_of > 1 && v % p->multiple_of != 0) {
    fmt = "a multiple of";
    bound = p->multiple_of;
  } else if (v < p->min) {
    fmt = "at least";
    bound = p->min;
  } else if (v > p->max) {
    fmt = "at most";
    bound = p->max;
  }
  if (!fmt) return 0;
  return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs %s to be %s %" PRId64 ", got %" PRId64,
                       c->name, c->op->name, p->name, fmt, bound, v);
}

static int check_dtype_param(const khost__case *c, const khost__param_spec *p, int64_t v, khost__err *err)
{
  char allowed[128];
  bool known = v >= 0 && v < KHOST__DT_COUNT;
  if (known && (p->dtypes & (1u << v))) return 0;
  dtype_mask_names(p->dtypes, allowed, sizeof allowed);
  return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs %s to be one of %s, got %s", c->name,
                       c->op->name, p->name, allowed,
                       known ? khost__dtype_name((khost__dtype_id)v) : "an unknown dtype");
}

/* A value set by name is always one; a default or a value set otherwise is checked too. */
static int check_enum_param(const khost__case *c, const khost__param_spec *p, int64_t v, khost__err *err)
{
  int64_t count = 0;
  while (p->names[count]) count++;
  if (v >= 0 && v < count) return 0;
  char allowed[128];
  enum_names(p, allowed, sizeof allowed);
  return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs %s to be one of %s, got value %" PRId64,
                       c->name, c->op->name, p->name, allowed, v);
}

static int check_param(khost__case *c, int i, khost__err *err)
{
  const khost__param_spec *p = &c->op->params[i];
  if (c->params[i] == KHOST__PARAM_UNSET) {
    if (!p->has_default) {
      return khost__errorf(err, KHOST__E_CONFIG, "case %s: missing parameter '%s' for op %s", c->name,
                           p->name, c->op->name);
    }
    c->params[i] = p->default_value;
  }
  if (p->kind == KHOST__PARAM_INT) return check_int_param(c, p, c->params[i], err);
  if (p->kind == KHOST__PARAM_ENUM) return check_enum_param(c, p, c->params[i], err);
  return check_dtype_param(c, p, c->params[i], err);
}

/* An arena's storage, its chunks with their gaps, must fit as well as its elements. */
static int check_tensor(const khost__case *c, const khost__tensor_spec *t, khost__err *err)
{
  size_t bytes = khost__tensor_storage_bytes(t);
  if (bytes <= KHOST__MAX_TENSOR_BYTES) return 0;
  if (bytes == SIZE_MAX) {
    return khost__errorf(err, KHOST__E_CONFIG,
                         "case %s: %s needs tensor %s to take at most %zu bytes, but "
                         "its size overflows",
                         c->name, c->op->name, t->name, KHOST__MAX_TENSOR_BYTES);
  }
  return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs tensor %s to take at most %zu bytes, got %zu",
                       c->name, c->op->name, t->name, KHOST__MAX_TENSOR_BYTES, bytes);
}

/* Every tensor of the case must fit before anything is allocated. */
static int check_tensors(const khost__case *c, khost__err *err)
{
  khost__tensor_set set;
  int rc = 0;
  c->op->tensors(c, &set);
  for (int i = 0; i < set.ninputs && !rc; i++) rc = check_tensor(c, &set.inputs[i], err);
  for (int i = 0; i < set.noutputs && !rc; i++) rc = check_tensor(c, &set.outputs[i], err);
  return rc;
}

/* A suite's tolerance must be a finite number >= 0; unset (NaN) takes the op's. */
static int check_tolerances(khost__case *c, khost__err *err)
{
  double atol, rtol;
  const struct {
    const char *name;
    double value;
  } given[2] = {{"atol", c->atol}, {"rtol", c->rtol}};
  for (int i = 0; i < 2; i++) {
    if (!isnan(given[i].value) && !(given[i].value >= 0 && isfinite(given[i].value))) {
      return khost__errorf(err, KHOST__E_CONFIG, "case %s: %s needs %s to be a finite number >= 0, got %g",
                           c->name, c->op->name, given[i].name, given[i].value);
    }
  }
  c->op->tolerance(c, &atol, &rtol);
  if (isnan(c->atol)) c->atol = atol;
  if (isnan(c->rtol)) c->rtol = rtol;
  return 0;
}

int khost__case_validate(khost__case *c, khost__err *err)
{
  int rc = 0;
  for (int i = 0; i < c->op->nparams && !rc; i++) rc = check_param(c, i, err);
  if (!rc && c->op->validate) rc = c->op->validate(c, err);
  if (!rc) rc = check_tensors(c, err);
  if (!rc) rc = check_tolerances(c, err);
  return rc;
}

void khost__case_format_params(const khost__case *c, char *buf, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < c->op->nparams; i++) {
    const khost__param_spec *p = &c->op->params[i];
    const char *sep = i ? " " : "";
    if (p->kind == KHOST__PARAM_DTYPE) {
      appendf(buf, n, &used, "%s%s=%s", sep, p->name, khost__dtype_name((khost__dtype_id)c->params[i]));
    } else if (p->kind == KHOST__PARAM_ENUM) {
      appendf(buf, n, &used, "%s%s=%s", sep, p->name, p->names[c->params[i]]);
    } else {
      appendf(buf, n, &used, "%s%s=%" PRId64, sep, p->name, c->params[i]);
    }
  }
}
