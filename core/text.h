/* Text that came from outside khost (a plugin's message or implementation name,
 * the command line, the machine's names) made safe for every report at once: the
 * table on a terminal, the CSV and the JSON then print the same characters. */
#ifndef KHOST_TEXT_H
#define KHOST_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "result.h"

/* What a text may hold besides printable characters. */
typedef enum {
  KHOST__TEXT_LINE,  /* one line: no control character at all */
  KHOST__TEXT_LINES, /* line feeds kept, as in a message the table prints line by line */
} khost__text_kind;

/* Cleans the text in s in place. It ends at its first NUL or after size bytes
 * (a field that crossed a pipe may lack the NUL), and is never made longer.
 * A text that is not valid UTF-8 becomes ASCII, each byte of 0x80 or above a
 * '?'; then each control character (U+0000 to U+001F, U+007F to U+009F: escape
 * sequences, carriage returns, tabs) becomes one '?', but a line feed where kind
 * allows lines. */
void khost__text_clean(char *s, size_t size, khost__text_kind kind);

/* The length of the UTF-8 sequence at s (n bytes left, n > 0) and its code
 * point in *cp; 0 when it is not valid UTF-8: a stray continuation byte, a cut
 * sequence, an overlong form, a surrogate or a code point past U+10FFFF. */
size_t khost__text_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp);

/* Cleans every text of row: the message may keep its line feeds, the rest are one line. */
void khost__text_clean_row(khost__row *row);

/* Cleans every text of the run's description. */
void khost__text_clean_run_info(khost__run_info *info);

#endif
