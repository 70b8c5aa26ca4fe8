#include "phases.h"

static int may_run(const khost__phase *p, int rc)
{
  return rc == KHOST__OK || (rc == KHOST__E_CUDA_BROKEN && p->after_break);
}

/* The first failure stays the run's, whatever a unit run after it returns. */
static int first_failure(int rc, int next)
{
  return rc != KHOST__OK ? rc : next;
}

/* n consecutive guards, slot by slot, until one fails. */
static int run_guards(khost__worker *w, const khost__phase *const *guards, int n)
{
  int rc = KHOST__OK;
  for (int s = 0; s < w->job->nslots && rc == KHOST__OK; s++) {
    for (int g = 0; g < n && w->active[s] && rc == KHOST__OK; g++) rc = guards[g]->slot(w, s);
    khost__worker_send_rows(w);
  }
  return rc;
}

int khost__phases_run(khost__worker *w, const khost__phase *const *list, int n)
{
  int rc = KHOST__OK;
  for (int i = 0; i < n;) {
    int guards = 0;
    while (i + guards < n && list[i + guards]->slot) guards++;
    if (guards) {
      if (rc == KHOST__OK) rc = run_guards(w, list + i, guards);
      i += guards;
    } else {
      if (may_run(list[i], rc)) rc = first_failure(rc, list[i]->whole(w));
      i++;
    }
  }
  return rc;
}
