/* The timing summary: each active slot's samples summarised into its row, the
 * timers freed, and the rows final by now sent. It also runs after the CUDA
 * context broke, so that rows already settled in sampling are not lost. */
#include "phases.h"

/* The row's timing, or an error when every sample ran throttled: such times
 * would compare a slowed GPU with a fast one. */
static void summarize(khost__worker *w, int s)
{
  const khost__samples *samples = &w->timers[s].samples;
  if (khost__samples_summarize(samples, &w->rows[s].time) != KHOST__OK)
    khost__worker_settle(w, s, KHOST__ROW_ERROR, "out of memory summarizing %d samples", samples->n);
  else if (samples->n == 0 && samples->throttled > 0)
    khost__worker_settle(w, s, KHOST__ROW_ERROR,
                         "all %d samples ran with the SM clock under %g%% of its rated %d MHz, so none was "
                         "kept (--throttle sets the floor; 0 keeps every sample)",
                         samples->throttled, w->job->o->throttle_pct, w->device.sm_clock_mhz);
}

static int run(khost__worker *w)
{
  for (int s = 0; s < w->job->nslots && w->timers; s++)
    if (w->active[s]) summarize(w, s);
  khost__worker_free_timers(w);
  khost__worker_send_rows(w);
  return KHOST__OK;
}

const khost__phase khost__phase_timing_summary = {.whole = run, .after_break = 1};
