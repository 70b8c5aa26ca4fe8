#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"

#define ERASE_LINE        "\r\033[K" /* to the line's start, then erase to its end (ECMA-48 EL) */
#define REDRAW_INTERVAL_S 0.1
#define DEFAULT_WIDTH     80 /* a terminal that does not say its width */

static struct {
  int fd; /* -1: no line */
  int shown;
  double drawn_at;
  khost__progress_state state;
} line = {.fd = -1};

int khost__progress_wanted(int fd, int quiet)
{
  const char *term = getenv("TERM");
  return !quiet && isatty(fd) && term && *term && strcmp(term, "dumb") != 0;
}

/* "0:07", "12:34", "1:02:03". */
static void format_duration(double seconds, char *buf, size_t size)
{
  long s = seconds > 0 ? (long)(seconds + 0.5) : 0;
  if (s >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    snprintf(buf, size, "%ld:%02ld", s / 60, s % 60);
}

static void format_estimate(const khost__progress_state *st, double now, char *buf, size_t size)
{
  if (st->done == 0) {
    snprintf(buf, size, "? left");
    return;
  }
  double mean = st->finished_s / st->done;
  int after_current = st->ncases - st->done - 1;
  double rest = mean * (after_current > 0 ? after_current : 0);
  if (st->done < st->ncases && mean > now - st->case_started) rest += mean - (now - st->case_started);
  char left[32];
  format_duration(rest, left, sizeof left);
  snprintf(buf, size, "about %s left", left);
}

void khost__progress_format(const khost__progress_state *st, double now, int width, char *buf, size_t size)
{
  char elapsed[32], estimate[48], doing[160] = "";
  format_duration(now - st->started, elapsed, sizeof elapsed);
  format_estimate(st, now, estimate, sizeof estimate);
  if (st->backend[0] || st->phase[0])
    snprintf(doing, sizeof doing, ":%s%s%s%s%s %s", st->backend[0] ? " " : "", st->backend,
             st->device[0] ? " (" : "", st->device, st->device[0] ? ")" : "", st->phase);
  /* The counts and times first: on a narrow terminal the names are what is cut. */
  int n = snprintf(buf, size, "%d/%d cases done, %s elapsed, %s | %s%s", st->done, st->ncases, elapsed,
                   estimate, st->case_name, doing);
  if (width > 1 && n >= width && (size_t)(width - 1) < size) buf[width - 1] = '\0';
}

static int terminal_width(int fd)
{
  struct winsize ws;
  return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : DEFAULT_WIDTH;
}

/* A terminal that cannot be written is no reason to stop the run: the line is left as it is. */
static void put(const char *text, size_t n)
{
  ssize_t written = write(line.fd, text, n);
  (void)written;
}

static void draw(void)
{
  char text[512];
  double now = khost__now_s();
  memcpy(text, ERASE_LINE, strlen(ERASE_LINE));
  khost__progress_format(&line.state, now, terminal_width(line.fd), text + strlen(ERASE_LINE),
                         sizeof text - strlen(ERASE_LINE));
  put(text, strlen(text));
  line.shown = 1;
  line.drawn_at = now;
}

/* Printable ASCII only, cut to size: what came from a worker could hold anything. */
static void copy_printable(char *dst, size_t size, const char *src)
{
  size_t i = 0;
  for (; src && src[i] && i + 1 < size; i++) dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? src[i] : '?';
  dst[i] = '\0';
}

void khost__progress_start(int fd, int ncases)
{
  memset(&line.state, 0, sizeof line.state);
  line.fd = fd;
  line.shown = 0;
  line.state.ncases = ncases;
  line.state.started = khost__now_s();
}

void khost__progress_case(const char *name)
{
  if (line.fd < 0) return;
  copy_printable(line.state.case_name, sizeof line.state.case_name, name);
  line.state.backend[0] = line.state.phase[0] = '\0';
  line.state.case_started = khost__now_s();
  draw();
}

void khost__progress_backend(const char *backend, const char *device, const char *phase)
{
  if (line.fd < 0) return;
  copy_printable(line.state.backend, sizeof line.state.backend, backend);
  copy_printable(line.state.device, sizeof line.state.device, device);
  copy_printable(line.state.phase, sizeof line.state.phase, phase);
  if (!line.shown || khost__now_s() - line.drawn_at >= REDRAW_INTERVAL_S) draw();
}

void khost__progress_case_done(void)
{
  if (line.fd < 0) return;
  line.state.done++;
  line.state.finished_s += khost__now_s() - line.state.case_started;
}

void khost__progress_clear(void)
{
  if (line.fd < 0 || !line.shown) return;
  put(ERASE_LINE, strlen(ERASE_LINE));
  line.shown = 0;
}

void khost__progress_say(const char *fmt, ...)
{
  va_list ap;
  char *message = NULL;
  khost__progress_clear();
  va_start(ap, fmt);
  int n = vasprintf(&message, fmt, ap);
  va_end(ap);
  /* One write for the whole line, so that a worker's message cannot land inside it. */
  fprintf(stderr, "khost: %s\n", n >= 0 ? message : fmt);
  if (n >= 0) free(message);
}

void khost__progress_end(void)
{
  khost__progress_clear();
  line.fd = -1;
}
