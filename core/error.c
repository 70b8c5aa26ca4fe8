#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int khost__errorf(khost__err *err, int code, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

const char *khost__strerror(int status)
{
  static const char *const meanings[KHOST__STATUS_COUNT] = {
      [KHOST__OK] = "success",
      [KHOST__E_FAIL] = "failed",
      [KHOST__E_CONFIG] = "usage or configuration error",
      [KHOST__E_NOMEM] = "out of memory",
      [KHOST__E_IO] = "input/output error",
      [KHOST__E_CUDA] = "CUDA runtime error",
      [KHOST__E_DISCARDED] = "sample discarded",
      [KHOST__E_DECLINED] = "declined by supports()",
      [KHOST__E_GUARD] = "guard band overwritten",
      [KHOST__E_MUTATED] = "input mutated",
      [KHOST__E_WRONG] = "wrong result of a timed call",
      [KHOST__E_CUDA_BROKEN] = "CUDA context broken",
  };
  /* A status added to the enum without a meaning here reads as unknown, which its test refuses. */
  if (status < 0 || status >= KHOST__STATUS_COUNT || !meanings[status]) return "unknown status";
  return meanings[status];
}
