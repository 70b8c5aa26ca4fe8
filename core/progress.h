/* The progress line: while a run goes on, one line at the bottom of a terminal
 * (stderr) saying how far it is: cases done of the total, the case and backend
 * running now, the time elapsed and an estimate of the rest, redrawn in place
 * (a carriage return, the text, an erase to the end of the line). khost's own
 * messages during a run go through khost__progress_say, which erases the line
 * first, so that no message is ever written into it; the line comes back at the
 * next redraw and is erased for good when the run ends. Process-wide, as stderr
 * itself is: a message from any part of khost (a worker's too: it shares the
 * terminal) must be able to erase it. Until khost__progress_start is given a
 * file descriptor, and after khost__progress_end, no line is drawn and
 * khost__progress_say only prints. */
#ifndef KHOST_PROGRESS_H
#define KHOST_PROGRESS_H

#include <stddef.h>

/* What the line says, kept between redraws. Plain value. */
typedef struct khost__progress_state {
  int ncases, done;            /* cases in the run; cases finished */
  double started;              /* when the run started (khost__now_s) */
  double case_started;         /* when the current case started */
  double finished_s;           /* the time the finished cases took, together */
  char case_name[64];          /* the current case; "" before the first */
  char backend[64], device[8]; /* whose code the worker runs now; "" for khost's own work */
  char phase[32];              /* what it does ("timing") */
} khost__progress_state;

/* 1 when the line belongs on fd: a terminal (isatty) whose TERM is set and not
 * "dumb" (one that can erase a line), and not quiet. */
int khost__progress_wanted(int fd, int quiet);

/* Starts the line for a run of ncases cases on fd; -1 keeps it off. */
void khost__progress_start(int fd, int ncases);

/* The next case, name (borrowed), begins: drawn at once. */
void khost__progress_case(const char *name);

/* The worker began running backend's code on device ("cpu", "cuda") in phase
 * (each borrowed; backend NULL: khost's own work). Text that crossed a pipe
 * from a worker is taken as printable ASCII only. Drawn at most ten times a
 * second: the timing phase announces every sample. */
void khost__progress_backend(const char *backend, const char *device, const char *phase);

/* The current case is done. */
void khost__progress_case_done(void);

/* Prints "khost: ", the message and a line end on stderr, the line erased first. */
void khost__progress_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Erases the line if it is shown. Calls write() only: for code that must not
 * use stdio (a hung thread may hold stderr's lock, a forked copy its buffers). */
void khost__progress_clear(void);

/* Erases the line for good: the run is over. */
void khost__progress_end(void);

/* The line's text for state at time now (khost__now_s), cut to width - 1
 * characters (a full line would wrap on some terminals), into buf (caller's,
 * size bytes):
 * "2/5 cases done, 0:12 elapsed, about 0:30 left | CASE: BACKEND (DEVICE) PHASE".
 * The estimate is the mean time of the finished cases times the cases after the
 * current one, plus what the mean leaves of the current case (never below 0);
 * "? left" until a case has finished. */
void khost__progress_format(const khost__progress_state *state, double now, int width, char *buf,
                            size_t size);

#endif
