/* The HTML report's charts, as inline SVG: a grouped bar chart (each backend's
 * value per case), a chart of run-to-run differences with their noise limits,
 * and a roofline. They draw what they are given: every value and label comes
 * from the caller, which takes them from the JSON report. Each chart's classes
 * and data- attributes name what it shows, for readers and for tests. */
#ifndef KHOST_HTML_CHARTS_H
#define KHOST_HTML_CHARTS_H

#include <stdio.h>

#define KHOST__CHART_LABEL 64

/* One backend's cell of one case. */
typedef struct khost__bar {
  int series;                     /* the backend: its colour and legend entry */
  int has_value;                  /* a value to draw */
  double value;                   /* in the chart's unit, at least 0 */
  char label[KHOST__CHART_LABEL]; /* the value as the table prints it */
  char note[KHOST__CHART_LABEL];  /* under the label: the speedup, or "" */
  const char *status;             /* the row's status: a row that did not pass is drawn as its status */
} khost__bar;

typedef struct khost__bar_group {
  const char *name; /* the case */
  khost__bar *bars;
  int nbars;
} khost__bar_group;

typedef struct khost__bar_chart {
  const char *op;   /* for data-op */
  const char *unit; /* the y axis: "% of roof" or "GB/s" */
  double scale;     /* tick labels are value * scale: 100 for a fraction shown in percent */
  const char *const *series;
  int nseries;
  const khost__bar_group *groups;
  int ngroups;
} khost__bar_chart;

void khost__chart_bars(FILE *out, const khost__bar_chart *c);

/* One compared row: its difference in percent, within +-limit_pct the same. */
typedef struct khost__ratio {
  char name[256]; /* "case backend device" */
  double diff_pct, limit_pct;
  const char *verdict; /* "SAME", "FAST", "SLOW" */
} khost__ratio;

void khost__chart_ratios(FILE *out, const khost__ratio *r, int n);

/* One row on the roofline: arithmetic intensity (FLOP per byte) and TFLOP/s. */
typedef struct khost__point {
  int series;
  double intensity, tflops;
  char title[256]; /* its tooltip */
} khost__point;

typedef struct khost__roofline {
  int id; /* unique within the page (its clip path's name) */
  const char *op;
  const char *const *series;
  int nseries;
  const khost__point *points;
  int npoints;
  double peak_gbps; /* the memory roof; 0 for none */
  const char *const *peak_names;
  const double *peaks; /* compute roofs, TFLOP/s */
  int npeaks;
} khost__roofline;

void khost__chart_roofline(FILE *out, const khost__roofline *r);

/* The colour of series i, "#1f77b4"; statuses have their own (the page's CSS). */
const char *khost__chart_colour(int series);

#endif
