/* Text into an HTML page. Every text the HTML report takes from a JSON report
 * (a plugin's message, names, the command line) goes through here: such text is
 * hostile, and must reach the reader as text, never as markup. */
#ifndef KHOST_HTML_H
#define KHOST_HTML_H

#include <stdio.h>

/* Writes s with &, <, >, " and ' as character references: safe in element
 * content and in a quoted attribute value alike. */
void khost__html_text(FILE *out, const char *s);

/* khost__html_text of the formatted text. */
void khost__html_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
