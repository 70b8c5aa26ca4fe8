/* core/cupti_timer.h for a build without CUPTI's headers: --timer cupti is refused
 * with the reason. */
#include "cupti_timer.h"

#include <stdio.h>

#define WHY "khost was built without CUPTI (cupti.h was not found in the CUDA toolkit)"

int khost__cupti_loadable(char *why, size_t n)
{
  snprintf(why, n, WHY);
  return 0;
}

int khost__cupti_start(khost__err *err)
{
  return khost__errorf(err, KHOST__E_CUDA, WHY);
}

void khost__cupti_stop(void)
{
}

int khost__cupti_drop(khost__err *err)
{
  return khost__errorf(err, KHOST__E_CUDA, WHY);
}

int khost__cupti_sample_span(double *seconds, khost__err *err)
{
  *seconds = 0;
  return khost__errorf(err, KHOST__E_CUDA, WHY);
}
