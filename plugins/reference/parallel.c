#include "parallel.h"

#include <stddef.h>

/* The host filled num_threads when struct_size covers it. */
#define INPUT_THREADS_END (offsetof(khost_input, num_threads) + sizeof(int32_t))

int khost__reference_threads(const khost_input *in)
{
  if (in->struct_size < INPUT_THREADS_END || in->num_threads < 1) return 1;
  return in->num_threads;
}
