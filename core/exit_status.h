/* The khost program's exit statuses, its contract with the user (README "Exit
 * status"). Internal statuses (error.h) become one of these only where the
 * program ends: main's return, and runner.c's guard against a plugin's exit()
 * under --no-isolate. */
#ifndef KHOST_EXIT_STATUS_H
#define KHOST_EXIT_STATUS_H

enum {
  KHOST__EXIT_PASS = 0,   /* everything selected passed or was skipped for a stated reason */
  KHOST__EXIT_FAILED = 1, /* a result failed, errored, crashed or timed out, or the run could not go on */
  KHOST__EXIT_USAGE = 2   /* usage or configuration error */
};

#endif
