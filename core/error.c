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
