/* Error reporting inside khost: every fallible function returns a status (0 is
 * OK) and writes a one-line message into a caller-owned khost__err. */
#ifndef KHOST_ERROR_H
#define KHOST_ERROR_H

#include <stddef.h>

/* Status codes, also used as the program's exit status where they apply. */
enum {
  KHOST__OK = 0,
  KHOST__E_FAIL = 1,   /* a result failed or a run-time operation failed */
  KHOST__E_CONFIG = 2, /* usage, suite or configuration error */
  KHOST__E_NOMEM = 3,
  KHOST__E_IO = 4,
  KHOST__E_CUDA = 5 /* a CUDA runtime call failed: never a kernel's result, so never a FAIL */
};

/* A message buffer, owned by the caller, usually on its stack. */
typedef struct khost__err {
  char msg[1024];
} khost__err;

/* Formats a message into err (if not NULL) and returns code. */
int khost__errorf(khost__err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
