/* The name sink of describe(): the kernel a call would launch, as text. */
#include "cute.h"

#include <stdarg.h>
#include <stdio.h>

int khost__cute_named(khost__cute_name *name, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name->buf, name->size, fmt, ap);
  va_end(ap);
  return KHOST_STATUS_OK;
}
