/* Tests for core/nvtx.c: the range names ncu --nvtx-include and nsys select by. */
#include <criterion/criterion.h>

#include "nvtx.h"

Test(nvtx, a_path_is_khost_case_backend_phase)
{
  char path[256];
  khost__nvtx_path(path, sizeof path, "perf_large", "cute", "timing");
  cr_expect_str_eq(path, "khost/perf_large/cute/timing");
  khost__nvtx_path(path, sizeof path, "tiny_single", KHOST__NVTX_SELF, "inputs");
  cr_expect_str_eq(path, "khost/tiny_single/khost/inputs");
}

/* ncu reads '/' as the step from one nested range to the next: a part keeps none. */
Test(nvtx, a_slash_inside_a_part_becomes_a_bar)
{
  char path[256];
  khost__nvtx_path(path, sizeof path, "c", "triton_aot", "fresh check 1/2");
  cr_expect_str_eq(path, "khost/c/triton_aot/fresh check 1|2");
  khost__nvtx_path(path, sizeof path, "c", "a/b", "reference, trial 3/3");
  cr_expect_str_eq(path, "khost/c/a|b/reference, trial 3|3");
}

Test(nvtx, a_short_buffer_gets_a_terminated_prefix)
{
  char path[12];
  khost__nvtx_path(path, sizeof path, "perf_large", "cute", "timing");
  cr_expect_str_eq(path, "khost/perf_");
}

/* Without a tool attached the ranges cost nothing and change nothing; opening
 * and closing them in any order must not crash (a phase with no call, a call
 * before any phase, an end with none open). */
Test(nvtx, ranges_open_and_close_without_a_tool)
{
  khost__nvtx_call_begin();
  khost__nvtx_call_end();
  khost__nvtx_phase_end();
  khost__nvtx_phase("perf_large", "cute", "timing");
  khost__nvtx_call_begin();
  khost__nvtx_call_end();
  khost__nvtx_phase("perf_large", "cute", "timed check");
  khost__nvtx_phase_end();
  khost__nvtx_phase_end();
  char path[64];
  khost__nvtx_path(path, sizeof path, "perf_large", "cute", "timed check");
  cr_expect_str_eq(path, "khost/perf_large/cute/timed check");
}
