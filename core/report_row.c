#include "report_row.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "report_read.h"

/* The first mismatches of a row as an array of {index, where, got, expected}. */
static void read_mismatches(const json_t *array, khost__check_stats *into)
{
  size_t i;
  json_t *m;
  json_array_foreach((json_t *)array, i, m)
  {
    if (i >= KHOST__MAX_MISMATCHES) break;
    khost__mismatch *to = &into->shown[into->nshown++];
    double index = 0;
    khost__report_number(m, "index", &index);
    to->index = (uint64_t)index;
    snprintf(to->where, sizeof to->where, "%s", khost__report_text(m, "where"));
    if (!khost__report_number(m, "got", &to->got)) to->got = NAN;
    if (!khost__report_number(m, "expected", &to->expected)) to->expected = NAN;
  }
}

/* The JSON value x of column c as a khost__value; stats holds the mismatches. */
static void to_value(const khost__column *c, const json_t *x, khost__value *v, khost__check_stats *stats)
{
  memset(v, 0, sizeof *v);
  switch (c->format) {
  case KHOST__FORMAT_TEXT:
    v->text = json_string_value(x);
    v->size = json_string_length(x);
    break;
  case KHOST__FORMAT_COUNT: v->count = (uint64_t)json_integer_value(x); break;
  case KHOST__FORMAT_FLAG: v->count = json_is_true(x); break;
  case KHOST__FORMAT_MISMATCHES:
    read_mismatches(x, stats);
    v->check = stats;
    break;
  default: v->number = json_number_value(x); break;
  }
}

void khost__report_row_read(const json_t *row, khost__row *out)
{
  memset(out, 0, sizeof *out);
  for (int i = 0; i < khost__ncolumns; i++) {
    const khost__column *c = &khost__columns[i];
    if (!c->json) continue;
    json_t *x = khost__report_value(row, c->json);
    khost__value v;
    khost__check_stats stats = {0};
    if (x) to_value(c, x, &v, &stats);
    c->store(out, x ? &v : NULL);
  }
}
