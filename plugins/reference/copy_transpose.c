/* copy_transpose on the CPU: out[j][i] = in[i][j]. Element bits are copied, never
 * decoded, so -0, NaN payloads and subnormals come through bit-exact. */
#include <string.h>

#include "khost/ops/copy_transpose.h"
#include "parallel.h"
#include "reference.h"

/* Square tiles, staged through a local buffer: each source row segment is read
 * and each destination row segment written in one burst, so the power-of-two
 * strides of typical shapes cannot make the lines of one tile evict each other. */
enum { TILE = 32 };

static int64_t min64(int64_t a, int64_t b)
{
  return a < b ? a : b;
}

/* Called with a constant element_bytes so each call site becomes plain loads and stores. */
static inline void transpose_tile(const khost__reference_rows *rows, int64_t i0, int64_t i1, int64_t j0,
                                  int64_t j1, size_t element_bytes)
{
  unsigned char tile[TILE * TILE * sizeof(float)];
  const unsigned char *src = rows->call.in;
  unsigned char *dst = rows->call.out;
  for (int64_t i = i0; i < i1; i++)
    memcpy(tile + (size_t)(i - i0) * TILE * element_bytes,
           src + (size_t)(i * rows->call.n + j0) * element_bytes, (size_t)(j1 - j0) * element_bytes);
  for (int64_t j = j0; j < j1; j++)
    for (int64_t i = i0; i < i1; i++)
      memcpy(dst + (size_t)(j * rows->call.m + i) * element_bytes,
             tile + ((size_t)(i - i0) * TILE + (size_t)(j - j0)) * element_bytes, element_bytes);
}

static void transpose_rows(void *arg, int worker, int64_t begin, int64_t end)
{
  const khost__reference_rows *rows = arg;
  for (int64_t i0 = begin; i0 < end; i0 += TILE) {
    int64_t i1 = min64(i0 + TILE, end);
    for (int64_t j0 = 0; j0 < rows->call.n; j0 += TILE) {
      int64_t j1 = min64(j0 + TILE, rows->call.n);
      if (rows->call.element_bytes == 2)
        transpose_tile(rows, i0, i1, j0, j1, 2);
      else
        transpose_tile(rows, i0, i1, j0, j1, 4);
    }
  }
}

static int run(const khost_input *in)
{
  khost__reference_rows rows;
  int status = khost__reference_rows_open(in, KHOST__ROWS_OUT_TRANSPOSED, &rows);
  if (status != KHOST_STATUS_OK) return status;
  khost__parallel_rows(rows.call.m, khost__reference_threads(in), transpose_rows, &rows);
  return KHOST_STATUS_OK;
}

const khost_kernel khost__reference_copy_transpose = {
    .struct_size = sizeof(khost_kernel),
    .op = "copy_transpose",
    .device_type = KHOST_DEVICE_CPU,
    .run = run,
};
