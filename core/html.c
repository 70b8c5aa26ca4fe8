#include "html.h"

#include <stdarg.h>
#include <stdlib.h>

void khost__html_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&#39;", out); break;
    default: fputc(*s, out);
    }
  }
}

void khost__html_printf(FILE *out, const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  /* Out of memory: the page lacks this text, and says so in its place. */
  khost__html_text(out, n >= 0 ? s : "(out of memory)");
  if (n >= 0) free(s);
}
