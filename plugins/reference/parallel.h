/* How many threads a reference kernel uses; the rows are split by khost's own
 * loop (core/parallel_rows.h, linked into the plugin). */
#ifndef KHOST_REFERENCE_PARALLEL_H
#define KHOST_REFERENCE_PARALLEL_H

#include "khost/plugin.h"
#include "parallel_rows.h"

/* The threads a CPU kernel may use: in->num_threads when present and >= 1, else 1. */
int khost__reference_threads(const khost_input *in);

#endif
