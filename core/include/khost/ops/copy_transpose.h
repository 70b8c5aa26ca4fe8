/* copy_transpose, a float row op (rowwise.h): out[j][i] = in[i][j], bit-exact.
 * in [m, n], out [n, m]. */
#ifndef KHOST_OPS_COPY_TRANSPOSE_H
#define KHOST_OPS_COPY_TRANSPOSE_H

#include "rowwise.h"

#endif /* KHOST_OPS_COPY_TRANSPOSE_H */
