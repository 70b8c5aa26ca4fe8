/* Test support: an .npy file of format 1.0 read back (header and data), with
 * Criterion assertions on what every such file starts with. */
#ifndef KHOST_TEST_NPY_READ_H
#define KHOST_TEST_NPY_READ_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header dict, NUL-terminated in header (header_size bytes), and the data,
 * *nbytes of it, malloc'd: the caller frees it. */
static inline unsigned char *npy_read(const char *path, char *header, size_t header_size, size_t *nbytes)
{
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  unsigned char pre[10];
  cr_assert_eq(fread(pre, 1, sizeof pre, f), sizeof pre, "%s: shorter than the preamble", path);
  cr_assert_eq(memcmp(pre, "\x93NUMPY\x01\x00", 8), 0, "%s: magic and version 1.0", path);
  size_t hlen = pre[8] | (size_t)pre[9] << 8;
  cr_assert_lt(hlen, header_size, "%s: a header of %zu bytes", path, hlen);
  cr_assert_eq(fread(header, 1, hlen, f), hlen);
  header[hlen] = '\0';
  long start = ftell(f);
  cr_assert_eq(fseek(f, 0, SEEK_END), 0);
  *nbytes = (size_t)(ftell(f) - start);
  unsigned char *data = malloc(*nbytes ? *nbytes : 1);
  cr_assert_not_null(data);
  cr_assert_eq(fseek(f, start, SEEK_SET), 0);
  cr_assert_eq(fread(data, 1, *nbytes, f), *nbytes);
  fclose(f);
  return data;
}

#endif
