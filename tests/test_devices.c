/* Tests for core/devices.c: --devices LIST|all and its refusals, a list
 * checked against the visible devices (and standing where none is), the round
 * robin of cases over lanes (deterministic, balanced, whole) and each lane's
 * share of --threads. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "devices.h"

/* spec, which must be read. */
static khost__devices parsed(const char *spec)
{
  khost__devices d;
  khost__err err = {{0}};
  cr_assert_eq(khost__devices_parse(spec, &d, &err), KHOST__OK, "'%s': %s", spec, err.msg);
  return d;
}

Test(devices, a_list_keeps_its_order)
{
  khost__devices d = parsed("3,0,2");
  cr_expect_eq(d.all, 0);
  cr_assert_eq(d.count, 3);
  cr_expect_eq(d.ordinals[0], 3);
  cr_expect_eq(d.ordinals[1], 0);
  cr_expect_eq(d.ordinals[2], 2);
  d = parsed("1023");
  cr_expect_eq(d.count, 1);
  cr_expect_eq(d.ordinals[0], 1023);
  d = parsed("08,1"); /* decimal, as --device reads it (whole_number.h) */
  cr_expect_eq(d.ordinals[0], 8);
}

Test(devices, all_waits_for_the_count)
{
  khost__devices d = parsed("all");
  khost__err err;
  cr_expect_eq(d.all, 1);
  cr_expect_eq(d.count, 0);
  cr_assert_eq(khost__devices_resolve(&d, 4, "", &err), KHOST__OK, "%s", err.msg);
  cr_assert_eq(d.count, 4);
  for (int i = 0; i < 4; i++) cr_expect_eq(d.ordinals[i], i);
}

Test(devices, a_bad_item_is_refused_by_name)
{
  const char *bad[] = {"",     ",",    "0,", ",1",   "0,,1", "x",   "1x",    "-1",
                       "+1",   " 1",   "1 ", "1024", "0.5",  "ALL", "all,0", "99999999999999999999",
                       "0,+1", "0,-1", "0,"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    khost__devices d;
    khost__err err = {{0}};
    cr_expect_eq(khost__devices_parse(bad[i], &d, &err), KHOST__E_CONFIG, "'%s' is refused", bad[i]);
    cr_expect(strstr(err.msg, "is not a device ordinal from 0 to 1023"), "'%s': %s", bad[i], err.msg);
  }
}

Test(devices, a_repeated_ordinal_or_too_many_is_refused)
{
  khost__devices d;
  khost__err err = {{0}};
  cr_expect_eq(khost__devices_parse("0,1,0", &d, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg, "--devices '0,1,0' names device 0 twice");
  char list[1024] = "";
  size_t used = 0;
  for (int i = 0; i <= KHOST__DEVICES_MAX; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", i ? "," : "", i);
  cr_expect_eq(khost__devices_parse(list, &d, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "names more than 64 devices"), "%s", err.msg);
}

Test(devices, a_missing_ordinal_is_refused_listing_those_that_exist)
{
  khost__devices d = parsed("0,3");
  khost__err err = {{0}};
  cr_expect_eq(khost__devices_resolve(&d, 2, "", &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg,
                   "--devices: there is no CUDA device 3: the visible devices are 0 to 1 (2 of them)");
  d = parsed("0,1");
  cr_expect_eq(khost__devices_resolve(&d, 2, "", &err), KHOST__OK, "%s", err.msg);
}

/* Without a GPU a list names the workers that share the CPU; all has nothing to name. */
Test(devices, without_a_device_a_list_stands_and_all_is_refused)
{
  khost__devices d = parsed("0,1,2");
  khost__err err = {{0}};
  cr_expect_eq(khost__devices_resolve(&d, 0, "no CUDA device", &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(d.count, 3);
  d = parsed("all");
  cr_expect_eq(khost__devices_resolve(&d, 0, "built without CUDA support", &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "--devices all: no CUDA device is visible (built without CUDA support)"), "%s",
            err.msg);
  cr_expect(strstr(err.msg, "list N ordinals"), "%s", err.msg);
}

/* Every case goes to exactly one lane, the same one every time, and no lane
 * has more than one case more than another. */
Test(devices, cases_go_round_robin_whole_and_balanced)
{
  for (int nlanes = 1; nlanes <= 8; nlanes++)
    for (int ncases = 0; ncases <= 50; ncases++) {
      int per_lane[8] = {0};
      for (int p = 0; p < ncases; p++) {
        int lane = khost__devices_lane_of(p, nlanes);
        cr_assert(lane >= 0 && lane < nlanes);
        cr_expect_eq(lane, khost__devices_lane_of(p, nlanes), "deterministic");
        cr_expect_eq(lane, p % nlanes, "round robin in suite order");
        per_lane[lane]++;
      }
      int lo = ncases, hi = 0, total = 0;
      for (int k = 0; k < nlanes; k++) {
        lo = per_lane[k] < lo ? per_lane[k] : lo;
        hi = per_lane[k] > hi ? per_lane[k] : hi;
        total += per_lane[k];
      }
      cr_expect_eq(total, ncases);
      cr_expect(hi - lo <= 1, "%d cases over %d lanes: %d to %d each", ncases, nlanes, lo, hi);
    }
}

Test(devices, each_lane_gets_its_share_of_the_threads)
{
  cr_expect_eq(khost__devices_lane_threads(16, 4), 4);
  cr_expect_eq(khost__devices_lane_threads(7, 2), 3, "rounded down: never more than the run's threads");
  cr_expect_eq(khost__devices_lane_threads(2, 8), 1, "at least one");
  cr_expect_eq(khost__devices_lane_threads(8, 1), 8);
}
