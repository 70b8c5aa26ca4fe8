#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "start_folder.h"

/* Data is written as it lies in memory and declared little-endian. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "khost__npy_write declares host-order data as little-endian"
#endif

#define PREAMBLE 10 /* magic (6 bytes), version (2), header length (2, little-endian) */
#define ALIGN    64 /* numpy pads headers so that the data starts 64-byte aligned, ready to map */
#define MAX_DIMS 32 /* numpy 1.x's limit, and what the header buffer is sized for */

int khost__npy_layout_of(khost__dtype_id dtype, int ndim, const int64_t *shape, khost__npy_layout *out,
                         khost__err *err)
{
  if ((unsigned)dtype >= KHOST__DT_COUNT || ndim < 0 || ndim > KHOST_MAX_DIMS)
    return khost__errorf(err, KHOST__E_CONFIG, "npy: no layout for dtype %d with %d dimensions", (int)dtype,
                         ndim);
  out->descr = khost__dtype_npy_descr(dtype);
  out->ndim = ndim;
  memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
  if (dtype == KHOST__DT_E2M1) {
    if (ndim == 0 || shape[ndim - 1] % 2 != 0)
      return khost__errorf(err, KHOST__E_CONFIG, "npy: packed e2m1 needs an even last dimension");
    out->shape[ndim - 1] /= 2;
  }
  return KHOST__OK;
}

/* The item size of a descr like "<f4": byte order, kind, then the size in bytes. */
static int item_size(const char *descr, size_t *out, khost__err *err)
{
  char *end = NULL;
  long size = 0;
  if (strlen(descr) >= 3 && strchr("<>|", descr[0]) && strchr("fiub", descr[1]))
    size = strtol(descr + 2, &end, 10);
  if (size <= 0 || !end || *end)
    return khost__errorf(err, KHOST__E_CONFIG, "npy: unsupported descr '%s'", descr);
  *out = (size_t)size;
  return KHOST__OK;
}

static int shape_bytes(int ndim, const int64_t *shape, size_t item, size_t *out, khost__err *err)
{
  size_t total = item;
  if (ndim < 0 || ndim > MAX_DIMS)
    return khost__errorf(err, KHOST__E_CONFIG, "npy: %d dimensions (at most %d)", ndim, MAX_DIMS);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0 || khost__size_mul(total, (size_t)shape[i], &total) != KHOST__OK)
      return khost__errorf(err, KHOST__E_CONFIG, "npy: bad extent %" PRId64 " in dimension %d", shape[i], i);
  }
  *out = total;
  return KHOST__OK;
}

/* The header dict, padded with blanks and ended by '\n' so that preamble plus
 * header fill a multiple of ALIGN bytes. Returns the header length. */
static size_t format_header(char *buf, size_t size, const char *descr, int ndim, const int64_t *shape)
{
  size_t n = (size_t)snprintf(buf, size, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < ndim; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%" PRId64, i ? ", " : "", shape[i]);
  /* A one-element Python tuple needs its trailing comma. */
  n += (size_t)snprintf(buf + n, size - n, "%s), }", ndim == 1 ? "," : "");
  size_t total = (PREAMBLE + n + 1 + ALIGN - 1) / ALIGN * ALIGN - PREAMBLE;
  memset(buf + n, ' ', total - 1 - n);
  buf[total - 1] = '\n';
  return total;
}

int khost__npy_write(const char *path, const char *descr, int ndim, const int64_t *shape, const void *data,
                     size_t nbytes, khost__err *err)
{
  /* Room for MAX_DIMS extents of 20 digits with separators, the dict's text and the padding. */
  char header[MAX_DIMS * 22 + 64 + ALIGN];
  size_t item = 0, expected = 0, hlen;
  int rc = item_size(descr, &item, err);
  if (rc == KHOST__OK) rc = shape_bytes(ndim, shape, item, &expected, err);
  if (rc != KHOST__OK) return rc;
  if (expected != nbytes)
    return khost__errorf(err, KHOST__E_CONFIG, "npy %s: the shape needs %zu bytes of %s, got %zu", path,
                         expected, descr, nbytes);
  hlen = format_header(header, sizeof header, descr, ndim, shape);
  unsigned char preamble[PREAMBLE] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, hlen & 0xff, hlen >> 8};
  char at[PATH_MAX];
  const char *opened = khost__start_folder_path(path, at, sizeof at);
  FILE *f = fopen(opened, "wb");
  if (!f) return khost__errorf(err, KHOST__E_IO, "npy: cannot create %s: %s", path, strerror(errno));
  int ok = fwrite(preamble, 1, PREAMBLE, f) == PREAMBLE && fwrite(header, 1, hlen, f) == hlen &&
           (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
  ok &= fclose(f) == 0;
  if (!ok) {
    remove(opened);
    return khost__errorf(err, KHOST__E_IO, "npy: cannot write %s: %s", path, strerror(errno));
  }
  return KHOST__OK;
}

int khost__npy_write_tensor(const char *path, const khost__tensor_spec *spec, const void *data,
                            khost__err *err)
{
  khost__npy_layout layout;
  int rc = khost__npy_layout_of(spec->dtype, spec->ndim, spec->shape, &layout, err);
  if (rc != KHOST__OK) return rc;
  return khost__npy_write(path, layout.descr, layout.ndim, layout.shape, data, spec->nbytes, err);
}
