#include "whole_number.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int khost__whole_number(const char *s, long lo, long hi, long *out)
{
  /* strtol alone would take leading blanks and a sign: each character is looked at first. */
  for (const char *p = s; *p; p++)
    if (!isdigit((unsigned char)*p)) return 0;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}
