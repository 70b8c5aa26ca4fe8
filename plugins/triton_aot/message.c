#include "message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int khost__triton_errorf(char *err, size_t err_size, int status, const char *fmt, ...)
{
  if (err && err_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return status;
}

const char *khost__triton_basename(const char *file)
{
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}
