#include "device_count.h"

#include <stdio.h>

#include "child.h"
#include "cuda.h"

enum { MSG_COUNT = 1 };

typedef struct count_answer {
  int32_t count;
  char why[512];
} count_answer;

static int count_child(int fd, void *arg)
{
  (void)arg;
  count_answer a = {0};
  a.count = khost__cuda_device_count(a.why, sizeof a.why);
  return khost__child_send(fd, MSG_COUNT, &a, sizeof a) == KHOST__OK ? 0 : 1;
}

int khost__device_count(double timeout_s, int *count, char *why, size_t n, khost__err *err)
{
  khost__child child;
  count_answer a = {0};
  uint32_t type, size;
  *count = 0;
  int rc = khost__child_start(&child, count_child, NULL, err);
  if (rc != KHOST__OK) return rc;
  int got = khost__child_recv(&child, &type, &a, sizeof a, &size, timeout_s);
  khost__child_end end;
  khost__child_finish(&child, got != 1, &end);
  if (got == 1 && type == MSG_COUNT && size == sizeof a) {
    *count = a.count > 0 ? a.count : 0;
    snprintf(why, n, "%.*s", (int)sizeof a.why - 1, a.why);
  } else {
    snprintf(why, n, "the device count probe %s", got < 0 ? "was silent past --timeout" : end.how);
  }
  return KHOST__OK;
}
