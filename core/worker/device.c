/* The device phase: CUDA brought up when a slot needs it, with the copy
 * bandwidth and the empty call's time measured and sent to the parent; the
 * CUDA slots are skipped, with the reason, when it cannot be brought up. */
#include <stdio.h>
#include <string.h>

#include "child.h"
#include "phases.h"

/* The copy bandwidth and the empty call's time, unless an earlier worker sent
 * them. The empty call is timed as the run times (cold unless --hot); under
 * --graph a call's time holds no launch gap, so it is not measured. A failed
 * measurement leaves 0: no % of peak, no note on short times. */
static void measure_device(khost__worker *w)
{
  const khost__options *o = w->job->o;
  khost__err err;
  w->device.peak_gbps = w->job->known->peak_gbps;
  if (w->device.peak_gbps <= 0 && khost__cuda_measure_copy(&w->device.peak_gbps, &err) != KHOST__OK)
    w->device.peak_gbps = 0;
  w->device.empty_call_s = w->job->known->empty_call_s;
  if (w->device.empty_call_s <= 0 && o->graph_calls == 0 &&
      khost__cuda_measure_empty_call(!o->hot, &w->device.empty_call_s, &err) != KHOST__OK)
    w->device.empty_call_s = 0;
}

/* The matrix peaks, unless an earlier worker measured them (or found it could
 * not: without cuBLASLt every case would try again). A failure costs the
 * compute side of the speed of light, with a line on stderr, not the rows. */
static void measure_peaks(khost__worker *w)
{
  const khost__device_info *known = w->job->known;
  khost__err err;
  memcpy(w->device.peak_tflops, known->peak_tflops, sizeof w->device.peak_tflops);
  w->device.peaks_tried = known->peaks_tried;
  for (int t = 0; t < KHOST__PEAKS && !w->device.peaks_tried; t++)
    if (khost__matrix_peak_measure((khost__peak_type)t, &w->device.peak_tflops[t], &err) != KHOST__OK)
      fprintf(stderr, "khost: %s matrix peak not measured: %s\n", khost__peak_name((khost__peak_type)t),
              err.msg);
  w->device.peaks_tried = 1;
}

/* --timer cupti before anything is timed, so that the copy, the empty call and
 * the speed of light are timed as the rows are. Unusable, it fails the CUDA rows:
 * times from another timer than asked would pass for its. */
static void start_timer(khost__worker *w)
{
  khost__err err;
  if (khost__cuda_set_timer(w->job->o->timer == KHOST__TIMER_CUPTI, &err) == KHOST__OK) return;
  for (int s = 0; s < w->job->nslots; s++)
    if (w->active[s] && w->job->slots[s].device_type == KHOST_DEVICE_CUDA)
      khost__worker_settle(w, s, KHOST__ROW_ERROR, "--timer cupti: %s", err.msg);
}

static int wants_cuda(const khost__worker *w)
{
  int wants = 0;
  for (int s = 0; s < w->job->nslots; s++)
    wants |= w->active[s] && w->job->slots[s].device_type == KHOST_DEVICE_CUDA;
  return wants;
}

static int run(khost__worker *w)
{
  const khost__worker_job *job = w->job;
  if (!wants_cuda(w)) return KHOST__OK;
  khost__err err;
  int usable = khost__cuda_available(job->o->device, w->cuda_why, sizeof w->cuda_why);
  if (usable && khost__cuda_init(job->o->device, &w->device, &err) != KHOST__OK) {
    snprintf(w->cuda_why, sizeof w->cuda_why, "CUDA init failed: %.480s", err.msg);
  } else if (usable) {
    w->cuda_ready = 1;
    khost__cuda_set_blocking(!job->o->no_blocking_kernel);
    start_timer(w);
    measure_device(w);
    measure_peaks(w);
    khost__child_send(w->fd, KHOST__MSG_DEVICE, &w->device, sizeof w->device);
  }
  for (int s = 0; s < job->nslots; s++)
    if (w->active[s] && job->slots[s].device_type == KHOST_DEVICE_CUDA && !w->cuda_ready)
      khost__worker_settle(w, s, KHOST__ROW_SKIP, "%s", w->cuda_why);
  return KHOST__OK;
}

const khost__phase khost__phase_device = {.whole = run};
