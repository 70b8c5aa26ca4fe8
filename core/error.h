/* Error reporting inside khost: every fallible function returns a status (0 is
 * OK) and writes a one-line message into a caller-owned khost__err. */
#ifndef KHOST_ERROR_H
#define KHOST_ERROR_H

#include <stddef.h>

/* Every internal outcome, the one space of codes khost's functions return. Not
 * an exit status: a process converts to its own (exit_status.h, worker.h) where
 * it ends. Not the plugin ABI's khost_status either. */
typedef enum khost__status {
  KHOST__OK = 0,
  KHOST__E_FAIL,        /* a result failed or a run-time operation failed */
  KHOST__E_CONFIG,      /* usage, suite or configuration error */
  KHOST__E_NOMEM,       /* out of memory */
  KHOST__E_IO,          /* a file, pipe or process operation failed */
  KHOST__E_CUDA,        /* a CUDA runtime call failed: never a kernel's result, so never a FAIL */
  KHOST__E_DISCARDED,   /* a timed sample is invalid but the device is fine: take it again */
  KHOST__E_DECLINED,    /* a kernel's supports() said no to the case */
  KHOST__E_GUARD,       /* a guard band was overwritten */
  KHOST__E_MUTATED,     /* an input changed */
  KHOST__E_CUDA_BROKEN, /* the CUDA context is broken (a sticky error): the worker must restart */
  KHOST__E_WRONG,       /* a timed call's outputs failed their check */
  KHOST__STATUS_COUNT   /* not a status: how many there are */
} khost__status;

/* A message buffer, owned by the caller, usually on its stack. */
typedef struct khost__err {
  char msg[1024];
} khost__err;

/* Formats a message into err (if not NULL) and returns code. */
int khost__errorf(khost__err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What status means, in a few words; "unknown status" for a value outside khost__status. */
const char *khost__strerror(int status);

#endif
