/* reduce_sum, a float row op (rowwise.h): out[i] = sum_j in[i][j]. in [m, n], out [m]. */
#ifndef KHOST_OPS_REDUCE_SUM_H
#define KHOST_OPS_REDUCE_SUM_H

#include "rowwise.h"

#endif /* KHOST_OPS_REDUCE_SUM_H */
