#include "html_charts.h"

#include <math.h>
#include <string.h>

#include "html.h"

/* Sizes in pixels. */
#define PLOT_HEIGHT   220
#define LEFT          64 /* the y axis and its labels */
#define TOP           24
#define NAME_ROOM     12  /* under the axis, before a case name */
#define CHAR_WIDTH    6.5 /* of a case name's character, turned upright under its bars */
#define RIGHT         24
#define BAR_WIDTH     16
#define GROUP_PADDING 22
#define RATIO_ROW     20
#define RATIO_NAMES   380
#define RATIO_WIDTH   420
#define ROOF_WIDTH    640
#define ROOF_HEIGHT   360
#define STATUS_HEIGHT 14 /* a row that did not pass: a short marker, never a value */

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                      "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79"};

const char *khost__chart_colour(int series)
{
  return palette[series % (int)(sizeof palette / sizeof *palette)];
}

/* A round step for about four ticks up to top: 1, 2 or 5 times a power of ten. */
static double tick_step(double top)
{
  double raw = top / 4, power = pow(10, floor(log10(raw)));
  double f = raw / power;
  return power * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

static void legend(FILE *out, const char *const *series, int n)
{
  fputs("<ul class=\"legend\">", out);
  for (int i = 0; i < n; i++) {
    fprintf(out, "<li><span class=\"swatch\" style=\"background:%s\"></span>", khost__chart_colour(i));
    khost__html_text(out, series[i]);
    fputs("</li>", out);
  }
  fputs("</ul>\n", out);
}

static double bars_top(const khost__bar_chart *c)
{
  double top = c->scale == 100 ? 1.0 : 0; /* a fraction's axis shows 100% at least */
  for (int g = 0; g < c->ngroups; g++)
    for (int b = 0; b < c->groups[g].nbars; b++)
      if (c->groups[g].bars[b].has_value) top = fmax(top, c->groups[g].bars[b].value);
  if (top <= 0) top = 1;
  double step = tick_step(top * 1.15);
  return ceil(top * 1.15 / step) * step;
}

static void y_axis(FILE *out, double top, double scale, const char *unit, int width)
{
  double step = tick_step(top);
  for (double v = 0; v <= top * 1.0001; v += step) {
    double y = TOP + PLOT_HEIGHT - PLOT_HEIGHT * v / top;
    fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", LEFT, width - RIGHT, y,
            y);
    fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>", LEFT - 6, y + 4,
            v * scale);
  }
  fprintf(out,
          "<text class=\"axis-title\" transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">",
          TOP + PLOT_HEIGHT / 2);
  khost__html_text(out, unit);
  fputs("</text>\n", out);
}

/* A turned text whose start is at (x, y). */
static void turned(FILE *out, const char *cls, double x, double y, const char *text)
{
  fprintf(out, "<text class=\"%s\" transform=\"translate(%.1f,%.1f) rotate(-90)\">", cls, x, y);
  khost__html_text(out, text);
  fputs("</text>", out);
}

static void bar(FILE *out, const khost__bar_chart *c, const khost__bar_group *g, const khost__bar *b,
                double x, double top)
{
  double base = TOP + PLOT_HEIGHT;
  fputs("<g class=\"cell\" data-case=\"", out);
  khost__html_text(out, g->name);
  fputs("\" data-backend=\"", out);
  khost__html_text(out, c->series[b->series]);
  fprintf(out, "\" data-status=\"%s\">", b->status);
  if (strcmp(b->status, "PASS") != 0) {
    fprintf(out, "<rect class=\"status-mark status-%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>",
            b->status, x, base - STATUS_HEIGHT, BAR_WIDTH, STATUS_HEIGHT);
    turned(out, "bar-label status-text", x + BAR_WIDTH * 0.7, base - STATUS_HEIGHT - 3, b->status);
  } else if (b->has_value) {
    double h = PLOT_HEIGHT * b->value / top;
    fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>",
            x, base - h, BAR_WIDTH, h, khost__chart_colour(b->series));
    khost__html_printf(out, "%s, %s: %s %s", g->name, c->series[b->series], b->label, b->note);
    fputs("</title></rect>", out);
    char text[2 * KHOST__CHART_LABEL + 2];
    snprintf(text, sizeof text, "%s%s%s", b->label, b->note[0] ? " " : "", b->note);
    turned(out, "bar-label", x + BAR_WIDTH * 0.7, base - h - 3, text);
  } else {
    turned(out, "bar-label none", x + BAR_WIDTH * 0.7, base - 3, "no value");
  }
  fputs("</g>", out);
}

/* Room under the axis for the longest case name. */
static int bottom(const khost__bar_chart *c)
{
  size_t longest = 0;
  for (int g = 0; g < c->ngroups; g++)
    longest = strlen(c->groups[g].name) > longest ? strlen(c->groups[g].name) : longest;
  return NAME_ROOM + (int)(CHAR_WIDTH * (double)longest) + 8;
}

void khost__chart_bars(FILE *out, const khost__bar_chart *c)
{
  int width = LEFT + RIGHT, height = TOP + PLOT_HEIGHT + bottom(c);
  for (int g = 0; g < c->ngroups; g++) width += c->groups[g].nbars * (BAR_WIDTH + 2) + GROUP_PADDING;
  double top = bars_top(c);
  legend(out, c->series, c->nseries);
  fputs("<svg class=\"chart bars\" data-op=\"", out);
  khost__html_text(out, c->op);
  fprintf(out, "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", width, height, width,
          height);
  y_axis(out, top, c->scale, c->unit, width);
  double x = LEFT + GROUP_PADDING / 2.0;
  for (int g = 0; g < c->ngroups; g++) {
    const khost__bar_group *grp = &c->groups[g];
    double start = x;
    for (int b = 0; b < grp->nbars; b++, x += BAR_WIDTH + 2) bar(out, c, grp, &grp->bars[b], x, top);
    /* The case's name, upright, reading down from under the middle of its bars. */
    fprintf(out,
            "<text class=\"case-name\" text-anchor=\"end\" transform=\"translate(%.1f,%d) rotate(-90)\">",
            (start + x) / 2 + 4, TOP + PLOT_HEIGHT + NAME_ROOM);
    khost__html_text(out, grp->name);
    fputs("</text>\n", out);
    x += GROUP_PADDING;
  }
  fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/></svg>\n", LEFT, width - RIGHT,
          TOP + PLOT_HEIGHT, TOP + PLOT_HEIGHT);
}

static double ratios_extent(const khost__ratio *r, int n)
{
  double top = 1;
  for (int i = 0; i < n; i++) top = fmax(top, fmax(fabs(r[i].diff_pct), r[i].limit_pct));
  double step = tick_step(top * 1.1);
  return ceil(top * 1.1 / step) * step;
}

static void ratio_row(FILE *out, const khost__ratio *r, int i, double extent)
{
  double mid = RATIO_NAMES + RATIO_WIDTH / 2.0, half = RATIO_WIDTH / 2.0, y = TOP + i * RATIO_ROW;
  double band = half * r->limit_pct / extent, end = mid + half * r->diff_pct / extent;
  fprintf(out,
          "<g class=\"ratio\" data-verdict=\"%s\"><text class=\"row-name\" x=\"%d\" y=\"%.1f\" "
          "text-anchor=\"end\">",
          r->verdict, RATIO_NAMES - 8, y + 14);
  khost__html_text(out, r->name);
  fprintf(out, "</text><rect class=\"noise\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>",
          mid - band, y + 2, 2 * band, RATIO_ROW - 4);
  fprintf(out, "<rect class=\"diff verdict-%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>",
          r->verdict, fmin(mid, end), y + 5, fabs(end - mid), RATIO_ROW - 10);
  khost__html_printf(out, "%s: %+.2f%% (same within %.2f%%): %s", r->name, r->diff_pct, r->limit_pct,
                     r->verdict);
  fprintf(out,
          "</title></rect><text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%+.2f%% "
          "%s</text></g>\n",
          end + (r->diff_pct < 0 ? -4 : 4), y + 14, r->diff_pct < 0 ? "end" : "start", r->diff_pct,
          r->verdict);
}

void khost__chart_ratios(FILE *out, const khost__ratio *r, int n)
{
  double extent = ratios_extent(r, n);
  int width = RATIO_NAMES + RATIO_WIDTH + 2 * RIGHT + 60, height = TOP + n * RATIO_ROW + 40;
  double mid = RATIO_NAMES + RATIO_WIDTH / 2.0;
  fprintf(out, "<svg class=\"chart ratios\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
          width, height, width, height);
  for (int k = -2; k <= 2; k++) {
    double x = mid + RATIO_WIDTH / 2.0 * k / 2;
    fprintf(out, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", k ? "grid" : "axis", x,
            x, TOP, TOP + n * RATIO_ROW);
    fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%+g%%</text>", x,
            TOP + n * RATIO_ROW + 16, extent * k / 2);
  }
  fprintf(out,
          "<text class=\"axis-title\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">run against base: "
          "difference of the medians (grey: within the noise limit)</text>\n",
          mid, TOP + n * RATIO_ROW + 34);
  for (int i = 0; i < n; i++) ratio_row(out, &r[i], i, extent);
  fputs("</svg>\n", out);
}

/* Logarithmic axes: decades from lo to hi. */
typedef struct log_axis {
  double lo, hi; /* log10 of the ends */
  double from, span;
} log_axis;

static double at(const log_axis *a, double v)
{
  return a->from + a->span * (log10(v) - a->lo) / (a->hi - a->lo);
}

static void extent(log_axis *a, double lo, double hi)
{
  a->lo = floor(log10(lo));
  a->hi = ceil(log10(hi));
  if (a->hi <= a->lo) a->hi = a->lo + 1;
}

/* The axes take in every point, the memory roof's corner with every compute roof, and the roofs. */
static void roofline_axes(const khost__roofline *r, log_axis *x, log_axis *y)
{
  double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
  for (int i = 0; i < r->npoints; i++) {
    xlo = fmin(xlo, r->points[i].intensity), xhi = fmax(xhi, r->points[i].intensity);
    ylo = fmin(ylo, r->points[i].tflops), yhi = fmax(yhi, r->points[i].tflops);
  }
  for (int i = 0; i < r->npeaks; i++) {
    yhi = fmax(yhi, r->peaks[i]);
    if (r->peak_gbps > 0) {
      double ridge = r->peaks[i] * 1000 / r->peak_gbps;
      xlo = fmin(xlo, ridge), xhi = fmax(xhi, ridge);
    }
  }
  extent(x, xlo / 2, xhi * 2);
  extent(y, ylo / 2, yhi * 2);
  *x = (log_axis){x->lo, x->hi, LEFT, ROOF_WIDTH - LEFT - RIGHT};
  *y = (log_axis){y->lo, y->hi, TOP + ROOF_HEIGHT, -ROOF_HEIGHT};
}

static void log_ticks(FILE *out, const log_axis *x, const log_axis *y)
{
  for (double d = x->lo; d <= x->hi; d++) {
    double px = at(x, pow(10, d));
    fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", px, px, TOP,
            TOP + ROOF_HEIGHT);
    fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>", px,
            TOP + ROOF_HEIGHT + 16, pow(10, d));
  }
  for (double d = y->lo; d <= y->hi; d++) {
    double py = at(y, pow(10, d));
    fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", LEFT,
            ROOF_WIDTH - RIGHT, py, py);
    fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>", LEFT - 6, py + 4,
            pow(10, d));
  }
}

/* The roofs: memory (TFLOP/s = GB/s * FLOP/byte / 1000) up to the highest
 * compute roof, each compute roof from where the memory roof meets it. */
static void roofs(FILE *out, const khost__roofline *r, const log_axis *x, const log_axis *y, int clip)
{
  double xmin = pow(10, x->lo), xmax = pow(10, x->hi), highest = 0;
  for (int i = 0; i < r->npeaks; i++) highest = fmax(highest, r->peaks[i]);
  fprintf(out, "<g clip-path=\"url(#roofclip%d)\">", clip);
  if (r->peak_gbps > 0) {
    double end = fmin(xmax, highest * 1000 / r->peak_gbps);
    fprintf(out, "<line class=\"roof memory\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", at(x, xmin),
            at(y, r->peak_gbps * xmin / 1000), at(x, end), at(y, r->peak_gbps * end / 1000));
  }
  for (int i = 0; i < r->npeaks; i++) {
    double start = r->peak_gbps > 0 ? fmax(xmin, r->peaks[i] * 1000 / r->peak_gbps) : xmin;
    fprintf(out, "<line class=\"roof compute\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
            at(x, start), at(y, r->peaks[i]), at(x, xmax), at(y, r->peaks[i]));
    fprintf(out, "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", at(x, xmax) - 4,
            at(y, r->peaks[i]) - 5);
    khost__html_printf(out, "%s %g TFLOP/s", r->peak_names[i], r->peaks[i]);
    fputs("</text>", out);
  }
  fputs("</g>\n", out);
}

void khost__chart_roofline(FILE *out, const khost__roofline *r)
{
  log_axis x, y;
  int id = r->id;
  roofline_axes(r, &x, &y);
  legend(out, r->series, r->nseries);
  fputs("<svg class=\"chart roofline\" data-op=\"", out);
  khost__html_text(out, r->op);
  fprintf(out, "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", ROOF_WIDTH,
          TOP + ROOF_HEIGHT + 50, ROOF_WIDTH, TOP + ROOF_HEIGHT + 50);
  fprintf(out,
          "<defs><clipPath id=\"roofclip%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
          "height=\"%d\"/></clipPath></defs>",
          id, LEFT, TOP, ROOF_WIDTH - LEFT - RIGHT, ROOF_HEIGHT);
  log_ticks(out, &x, &y);
  roofs(out, r, &x, &y, id);
  for (int i = 0; i < r->npoints; i++) {
    const khost__point *p = &r->points[i];
    fprintf(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"><title>",
            at(&x, p->intensity), at(&y, p->tflops), khost__chart_colour(p->series));
    khost__html_text(out, p->title);
    fputs("</title></circle>\n", out);
  }
  fprintf(out,
          "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity "
          "(FLOP/byte)</text>",
          ROOF_WIDTH / 2, TOP + ROOF_HEIGHT + 38);
  fprintf(out,
          "<text class=\"axis-title\" transform=\"translate(14,%d) rotate(-90)\" "
          "text-anchor=\"middle\">TFLOP/s</text></svg>\n",
          TOP + ROOF_HEIGHT / 2);
}
