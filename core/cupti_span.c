#include "cupti_span.h"

/* The stamps' indices, in time order; 0, or an error when there are not two. */
static int find_stamps(const khost__cupti_interval *v, int n, int *first, int *second, khost__err *err)
{
  int found = 0;
  for (int i = 0; i < n; i++) {
    if (!v[i].is_stamp) continue;
    if (found < 2) (found == 0 ? first : second)[0] = i;
    found++;
  }
  if (found != 2)
    return khost__errorf(err, KHOST__E_FAIL,
                         "CUPTI recorded %d clock stamps for one sample, not the 2 around its timed calls",
                         found);
  if (v[*second].start < v[*first].start) {
    int swap = *first;
    *first = *second;
    *second = swap;
  }
  return KHOST__OK;
}

int khost__cupti_span(const khost__cupti_interval *v, int n, double *seconds, khost__err *err)
{
  int first = -1, second = -1;
  *seconds = 0;
  int rc = find_stamps(v, n, &first, &second, err);
  if (rc != KHOST__OK) return rc;
  uint64_t lo = v[first].end, hi = v[second].start, start = UINT64_MAX, end = 0;
  for (int i = 0; i < n; i++) {
    /* Both 0: CUPTI could not time this one, which may be a timed call's, and a
     * span without it would be too short. */
    if (v[i].start == 0 || v[i].end < v[i].start)
      return khost__errorf(err, KHOST__E_FAIL, "CUPTI gave an activity record of the sample no timestamps");
    if (v[i].is_stamp || v[i].start < lo || v[i].end > hi) continue;
    if (v[i].start < start) start = v[i].start;
    if (v[i].end > end) end = v[i].end;
  }
  if (end == 0)
    return khost__errorf(
        err, KHOST__E_FAIL,
        "CUPTI recorded no kernel, copy or memset between the clock stamps around the timed calls");
  *seconds = (double)(end - start) * 1e-9;
  return KHOST__OK;
}
