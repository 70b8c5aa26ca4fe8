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
