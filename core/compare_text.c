#include "compare_text.h"

#include <stdio.h>

/* The columns of a line: identity, then numbers. */
#define CASE_WIDTH    36
#define BACKEND_WIDTH 12
#define DEVICE_WIDTH  4
#define MESSAGE_CHARS 80 /* of a lost row's message */

/* Whether byte c begins a UTF-8 character: it is not a continuation byte (10xxxxxx). */
static int starts_character(char c)
{
  return ((unsigned char)c & 0xC0) != 0x80;
}

/* UTF-8 characters, not bytes: a name's width on the screen. */
static int characters(const char *s)
{
  int count = 0;
  for (; *s; s++) count += starts_character(*s);
  return count;
}

/* s left-aligned in width characters, then a blank; a longer s is not cut. */
static void padded(FILE *out, const char *s, int width)
{
  int n = characters(s);
  fprintf(out, "%s%*s ", s, n < width ? width - n : 0, "");
}

static void print_key(FILE *out, const khost__row_key *k)
{
  padded(out, k->case_name, CASE_WIDTH);
  padded(out, k->backend, BACKEND_WIDTH);
  padded(out, k->device, DEVICE_WIDTH);
}

/* A %sol as the table writes it, "-" for none. */
static void sol_text(char *buf, size_t n, double fraction)
{
  if (fraction > 0)
    snprintf(buf, n, "%.1f%%", 100 * fraction);
  else
    snprintf(buf, n, "-");
}

static void print_compared(FILE *out, const khost__compared *c)
{
  char was[16], now[16];
  sol_text(was, sizeof was, c->base_sol);
  sol_text(now, sizeof now, c->run_sol);
  print_key(out, &c->key);
  fprintf(out, "%9.2fu %9.2fu %+8.2f  %s", c->base_s * 1e6, c->run_s * 1e6, c->diff_pct,
          khost__verdict_name(c->verdict));
  if (c->base_variant) fprintf(out, " (variant %s -> %s)", c->base_variant, c->run_variant);
  if (c->base_mhz != 0) fprintf(out, " (SM clock %.0f -> %.0f MHz)", c->base_mhz, c->run_mhz);
  if (c->base_timer) fprintf(out, " (timer %s -> %s)", c->base_timer, c->run_timer);
  /* Last, after the notes older reports already had: readers of those keep their places. */
  if (c->base_sol > 0 || c->run_sol > 0) fprintf(out, " (%%sol %s -> %s)", was, now);
  fputc('\n', out);
}

/* The message's first characters on the one line: a line feed in it is a blank. */
static void print_lost(FILE *out, const khost__lost *l)
{
  print_key(out, &l->key);
  /* The blank only before a message: a missing row has none, and its line ends at its status. */
  fprintf(out, "LOST: PASS -> %s%s", l->status, *l->message ? " " : "");
  int shown = 0;
  for (const char *m = l->message; *m; m++) {
    if (starts_character(*m) && shown++ == MESSAGE_CHARS) break;
    fputc(*m == '\n' ? ' ' : *m, out);
  }
  fputc('\n', out);
}

int khost__compare_print(FILE *out, const khost__comparison *c, double tolerance_pct, khost__err *err)
{
  fprintf(out, "%-*s %-*s %-*s %10s %10s %8s  label\n", CASE_WIDTH, "case", BACKEND_WIDTH, "backend",
          DEVICE_WIDTH, "dev", "before", "after", "diff %");
  for (int i = 0; i < c->nrows; i++) print_compared(out, &c->rows[i]);
  for (int i = 0; i < c->nlost; i++) print_lost(out, &c->lost[i]);
  fprintf(out, "rows compared: %d, largest difference %.2f%%, beyond %g%%: %d, lost: %d\n", c->nrows,
          c->worst_pct, tolerance_pct, c->beyond, c->nlost);
  if (fflush(out) != 0 || ferror(out))
    return khost__errorf(err, KHOST__E_IO, "could not write the comparison");
  return KHOST__OK;
}
