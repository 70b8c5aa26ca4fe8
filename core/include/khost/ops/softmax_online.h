/* softmax_online, a float row op (rowwise.h):
 *   out[i][j] = exp(in[i][j] - max_i) / sum_j exp(in[i][j] - max_i). in [m, n], out [m, n]. */
#ifndef KHOST_OPS_SOFTMAX_ONLINE_H
#define KHOST_OPS_SOFTMAX_ONLINE_H

#include "rowwise.h"

#endif /* KHOST_OPS_SOFTMAX_ONLINE_H */
