#include "sol.h"

void khost__sol_bytes(const khost__case *c, double *read, double *written)
{
  khost__tensor_set set;
  c->op->tensors(c, &set);
  *written = 0;
  for (int t = 0; t < set.noutputs; t++) *written += (double)set.outputs[t].nbytes;
  *read = c->op->bytes(c) - *written;
  /* An op counting fewer bytes than its outputs hold would be a bug in its count; reading nothing is the
   * least. */
  if (*read < 0) *read = 0;
}

double khost__sol_compute_s(const khost__case *c, const double *peak_tflops, khost__peak_type *type)
{
  if (!c->op->matrix_peak) return 0;
  *type = (khost__peak_type)c->op->matrix_peak(c);
  double peak = peak_tflops[*type], flops = c->op->flops(c);
  return peak > 0 && flops > 0 ? flops / (peak * 1e12) : 0;
}

/* The streaming kernels a case's speed of light is the best of: each moves at
 * least the case's bytes, so the fastest is still a time some kernel takes to
 * move them. Grids of 1 to 8 blocks per SM (fewer, larger blocks keep more
 * loads in flight per block; more, smaller ones hide a block's tail), both
 * shapes of core/cuda_kernels.cu, and the runtime's own device copy of the
 * larger of the two sides (it reads and writes that many bytes: as many as the
 * case or more, never fewer). */
static const khost__sol_kernel kernels[KHOST__SOL_KERNELS] = {
    {"copy_1x1024", KHOST__SOL_COPY, 1, 1024},
    {"copy_2x512", KHOST__SOL_COPY, 2, 512},
    {"copy_4x256", KHOST__SOL_COPY, 4, 256},
    {"copy_8x256", KHOST__SOL_COPY, 8, 256},
    {"read_first_1x1024", KHOST__SOL_READ_FIRST, 1, 1024},
    {"read_first_2x512", KHOST__SOL_READ_FIRST, 2, 512},
    {"read_first_4x256", KHOST__SOL_READ_FIRST, 4, 256},
    {"memcpy", KHOST__SOL_MEMCPY, 0, 0},
};

const khost__sol_kernel *khost__sol_kernels(int *n)
{
  *n = KHOST__SOL_KERNELS;
  return kernels;
}
