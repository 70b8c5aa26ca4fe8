/* Error messages of the triton_aot plugin: every failure is a status plus one line
 * in a caller-owned buffer (khost_input.error), never a print or an exit. */
#ifndef KHOST_TRITON_MESSAGE_H
#define KHOST_TRITON_MESSAGE_H

#include <stddef.h>

/* Formats a message into err (when err is not NULL and err_size > 0) and returns status. */
int khost__triton_errorf(char *err, size_t err_size, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The last path component of file (a static string such as __FILE__). */
const char *khost__triton_basename(const char *file);

#endif
