#include "devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whole_number.h"

/* The item of len characters at s as an ordinal, by --device's rule (whole_number.h). */
static int ordinal(const char *s, size_t len, int *out)
{
  char buf[32];
  long v;
  if (len >= sizeof buf) return 0;
  memcpy(buf, s, len);
  buf[len] = '\0';
  if (!khost__whole_number(buf, 0, KHOST__DEVICE_ORDINAL_MAX, &v)) return 0;
  *out = (int)v;
  return 1;
}

static int listed(const khost__devices *d, int ordinal)
{
  for (int i = 0; i < d->count; i++)
    if (d->ordinals[i] == ordinal) return 1;
  return 0;
}

int khost__devices_parse(const char *spec, khost__devices *out, khost__err *err)
{
  memset(out, 0, sizeof *out);
  if (!strcmp(spec, "all")) return out->all = 1, KHOST__OK;
  for (const char *p = spec;; p++) {
    size_t len = strcspn(p, ",");
    int v;
    if (!ordinal(p, len, &v))
      return khost__errorf(err, KHOST__E_CONFIG,
                           "--devices '%.200s': '%.*s' is not a device ordinal from 0 to %d (give a list "
                           "such as 0,1,3, or all)",
                           spec, (int)(len > 40 ? 40 : len), p, KHOST__DEVICE_ORDINAL_MAX);
    if (listed(out, v))
      return khost__errorf(err, KHOST__E_CONFIG, "--devices '%.200s' names device %d twice", spec, v);
    if (out->count == KHOST__DEVICES_MAX)
      return khost__errorf(err, KHOST__E_CONFIG, "--devices '%.200s' names more than %d devices", spec,
                           KHOST__DEVICES_MAX);
    out->ordinals[out->count++] = v;
    p += len;
    if (!*p) return KHOST__OK;
  }
}

int khost__devices_resolve(khost__devices *d, int visible, const char *why, khost__err *err)
{
  if (d->all && visible <= 0)
    return khost__errorf(err, KHOST__E_CONFIG,
                         "--devices all: no CUDA device is visible (%.300s); to spread CPU cases over N "
                         "workers, list N ordinals (--devices 0,1)",
                         why);
  if (d->all) {
    d->count = visible < KHOST__DEVICES_MAX ? visible : KHOST__DEVICES_MAX;
    for (int i = 0; i < d->count; i++) d->ordinals[i] = i;
    return KHOST__OK;
  }
  for (int i = 0; i < d->count && visible > 0; i++)
    if (d->ordinals[i] >= visible)
      return khost__errorf(err, KHOST__E_CONFIG,
                           "--devices: there is no CUDA device %d: the visible devices are 0 to %d (%d of "
                           "them)",
                           d->ordinals[i], visible - 1, visible);
  return KHOST__OK;
}

int khost__devices_lane_of(int position, int nlanes)
{
  return position % nlanes;
}

int khost__devices_lane_threads(int threads, int nlanes)
{
  int each = threads / nlanes;
  return each > 0 ? each : 1;
}
