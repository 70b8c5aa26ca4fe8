/* The columns of the reports: one list of every value a row reports, each entry
 * saying how to read it from a row, what kind of value it is, and where it
 * appears (its JSON path, its CSV header and place, its table title and place).
 * The table, JSON and CSV writers walk this list instead of naming fields, so a
 * new metric is one entry in it (nvbench's summaries are the model). The JSON
 * object of a row has the list's order; the CSV and the table have orders of
 * their own, given as places. */
#ifndef KHOST_COLUMNS_H
#define KHOST_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct khost__run_info;

/* What kind of value a column holds, which decides how each report writes it. */
typedef enum {
  KHOST__FORMAT_TEXT,       /* text (the table aligns it left) */
  KHOST__FORMAT_COUNT,      /* an integer */
  KHOST__FORMAT_FLAG,       /* 0 or 1: a JSON boolean */
  KHOST__FORMAT_NUMBER,     /* a real number, in JSON and CSV only */
  KHOST__FORMAT_ERROR,      /* an error statistic: the table's "0.00015" (three significant digits) */
  KHOST__FORMAT_SECONDS,    /* a duration: the table picks a unit; 0, none measured, is JSON null (CSV 0) */
  KHOST__FORMAT_PERCENT,    /* a number already in percent: the table's "0.8%" */
  KHOST__FORMAT_FRACTION,   /* a fraction the table shows in percent: 0.617 is "61.7%" */
  KHOST__FORMAT_MHZ,        /* a clock: the table's "1975" */
  KHOST__FORMAT_RATE,       /* a throughput: the table's "1234" or "0.0456" */
  KHOST__FORMAT_RATIO,      /* the table's "3.25x" */
  KHOST__FORMAT_MISMATCHES, /* the first mismatching elements: a JSON array, in no other report */
} khost__format;

/* The part of the measurement a column's value needs: a row without it (never
 * checked, never timed) has no such value, but for counts (khost__column_read). */
typedef enum {
  KHOST__NEEDS_NOTHING,
  KHOST__NEEDS_CHECK,
  KHOST__NEEDS_TIMING,
} khost__needs;

/* When the table shows a column. */
typedef enum {
  KHOST__SHOW_ALWAYS,
  KHOST__SHOW_IF_ANY,     /* when a row has a value */
  KHOST__SHOW_IF_PEAK,    /* when the run measured the copy peak, or a row has a value */
  KHOST__SHOW_IF_DEVICES, /* when the run spread its cases over more than one device (--devices) */
} khost__show;

/* A column's value in one row. Which member holds it follows the column's format. */
typedef struct khost__value {
  const char *text; /* TEXT: at most size bytes; a row that crossed a pipe may lack a NUL */
  size_t size;
  double number;                   /* the real formats */
  uint64_t count;                  /* COUNT and FLAG */
  const khost__check_stats *check; /* MISMATCHES */
} khost__value;

/* Where a column appears in the CSV or the table. */
typedef struct khost__place {
  const char *title; /* the CSV header or table title; NULL: not in that report */
  int at;            /* from the left, from 1 */
} khost__place;

/* One value of a row and where the reports put it. A field left out means: text,
 * needs nothing, not in that report, always shown. */
typedef struct khost__column {
  const char *name; /* unique */
  khost__format format;
  khost__needs needs;
  int (*read)(const khost__row *row, khost__value *v); /* 0 when the row has no value */
  /* Puts v (borrowed; NULL: no value) into row: read's inverse, for a report read back (report_row.h). */
  void (*store)(khost__row *row, const khost__value *v);
  const char *json;   /* path in a row's object, "time.median_s"; NULL: not in the JSON */
  khost__place csv;   /* CSV places only grow: a reader that counts fields keeps working */
  khost__place table; /* the terminal table, which shows a few columns */
  khost__show show;   /* for the table */
} khost__column;

#define KHOST__MAX_COLUMNS 64

/* Every column, in the order of a row's JSON object. */
extern const khost__column khost__columns[];
extern const int khost__ncolumns;

/* Reads column c of row into v: 1 when the row has a value. A count always has
 * one, 0 when nothing was counted; another value needs its part of the
 * measurement (c->needs). */
int khost__column_read(const khost__column *c, const khost__row *row, khost__value *v);

/* 1 when row has the part of the measurement c needs (it was checked, or timed). */
int khost__column_measured(const khost__column *c, const khost__row *row);

/* Column c of row as the table shows it, into cell (size bytes): the value as
 * khost__column_format writes it, or "-" when the row has none; a column of a
 * part of the measurement the row lacks (never checked, never timed) has none,
 * counts included. 1 when the cell holds a value. The table fills its cells with
 * it, and so does the HTML report, from each row read back (report_row.h). */
int khost__column_cell(const khost__column *c, const khost__row *row, char *cell, size_t size);

/* Whether the table shows column c whatever its rows hold: always, where the run
 * measured the copy peak (KHOST__SHOW_IF_PEAK) or spread its cases over devices
 * (KHOST__SHOW_IF_DEVICES). info may be NULL (no run facts: only the first). */
int khost__column_shown_for_run(const khost__column *c, const struct khost__run_info *info);

/* khost__column_cell, and whether that cell shows column c in the table: it holds
 * a value, and c is not the device's ordinal, which every row has and which is
 * shown only where it tells rows apart (khost__column_shown_for_run). */
int khost__column_shown_by_row(const khost__column *c, const khost__row *row, char *cell, size_t size);

/* Writes v as the table shows a value of format into cell (size bytes): "61.7%",
 * "3.25x", "12.3 us". The HTML report formats the JSON's numbers with it too, so
 * that both show the same digits. */
void khost__column_format(khost__format format, const khost__value *v, char *cell, size_t size);

/* The reports whose columns have places. */
typedef enum { KHOST__IN_CSV, KHOST__IN_TABLE } khost__placement;

/* Fills out (KHOST__MAX_COLUMNS entries) with the columns of one report in their
 * order and returns how many there are. */
int khost__columns_placed(khost__placement in, const khost__column **out);

#endif
