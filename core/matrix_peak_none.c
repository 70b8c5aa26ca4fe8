/* core/matrix_peak.h for a build without the host's CUDA or cublasLt.h: no peak
 * is measured, so no case's speed of light has a compute side. */
#include "matrix_peak.h"

int khost__matrix_peak_measure(khost__peak_type t, double *tflops, khost__err *err)
{
  (void)t;
  *tflops = 0;
  return khost__errorf(err, KHOST__E_FAIL, "matrix peak: khost was built without cublasLt.h");
}
