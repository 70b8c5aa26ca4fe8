/* The choices of the triton_aot GEMV rule (plugins/triton_aot/nvfp4_gemv.c) over the
 * plugin's real variant table, for the device facts of the GPUs it was measured on
 * written in: the rule reads the SM count, which a machine without a GPU cannot
 * report. docs/TRITON_AOT.md gives the measurements behind each choice. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "nvfp4_gemv_rule.h"
#include "select.h"

/* H100 and H200 (SXM) have 132 SMs; 114, the PCIe H100's published count, has no run
 * of khost behind it. */
static const khost__triton_device HOPPER = {.sms = 132};
static const khost__triton_device H100_PCIE = {.sms = 114};

#define ONE_WARP   "gemv_m4_k1024_w1_top"
#define TWO_ROWS   "gemv_m2_k2048_w1_top"
#define FOUR_WARPS "gemv_m4_k4096_w4"
#define TWO_WARPS  "gemv_m4_k2048_w2"
#define TWO_PEELED "gemv_m4_k2048_w2_peel"

static void rule_alone(void)
{
  unsetenv("KHOST_TRITON_VARIANT");
}

TestSuite(gemv_rule, .init = rule_alone);

static const char *choice(int64_t m, int64_t k, int64_t l, khost__triton_device device)
{
  khost__triton_shape s = {.m = m, .k = k, .l = l, .aligned = 1, .device = device};
  const khost__triton_variant *v = NULL;
  char err[256] = "";
  cr_assert_eq(khost__triton_select(&khost__triton_gemv_rule, &s, &v, err, sizeof err), 0, "%s", err);
  return v->name;
}

/* The choices at the edge of one wave of the variant called name (the programs of it that fit
 * an SM by its registers, block_m rows each) for rows of k: inside up to it, beyond past it. */
static void wave_edge(const char *name, int64_t k, const char *inside, const char *beyond)
{
  const khost__triton_variant *v = khost__triton_find_variant(name);
  cr_assert_not_null(v);
  int64_t wave = khost__triton_programs_per_sm(v);
  cr_assert_gt(wave, 0);
  int64_t rows = v->block_m;
  cr_assert_str_eq(choice(wave * 132 * rows, k, 1, HOPPER), inside);
  cr_assert_str_eq(choice(wave * 132 * rows + 16, k, 1, HOPPER), beyond);
  cr_assert_str_eq(choice(wave * 66 * rows + 16, k, 2, HOPPER), beyond, "rows of all batches count");
  cr_assert_str_eq(choice(wave * 114 * rows + 16, k, 1, H100_PCIE), beyond, "fewer SMs fill sooner");
}

Test(gemv_rule, grids_beyond_one_two_warp_wave_take_a_one_warp_variant)
{
  /* GPU MODE's 4096x7168x8 (a partial 2048-element tile), perf_large (two whole ones). */
  cr_assert_str_eq(choice(4096, 7168, 8, HOPPER), ONE_WARP);
  cr_assert_str_eq(choice(1024, 4096, 64, HOPPER), TWO_ROWS);
}

Test(gemv_rule, rows_of_two_or_more_whole_2048_element_tiles_take_two_rows_a_program)
{
  /* Full grids of k = 6144 to 16384, where 2 rows a program took 1.6-3.6% (H200) and 2.8-4.1% (H100)
   * less time than 4 rows. */
  const int64_t shapes[][3] = {{4096, 6144, 8}, {2048, 8192, 16}, {1024, 12288, 16}, {4096, 16384, 4}};
  for (int i = 0; i < 4; i++)
    cr_assert_str_eq(choice(shapes[i][0], shapes[i][1], shapes[i][2], HOPPER), TWO_ROWS, "shape %d", i);
  /* One tile (slower on an H200), and a partial last tile. */
  cr_assert_str_eq(choice(8192, 2048, 4, HOPPER), ONE_WARP);
  cr_assert_str_eq(choice(4096, 5120, 8, HOPPER), ONE_WARP);
  cr_assert_str_eq(choice(4096, 4064, 8, HOPPER), ONE_WARP);
}

Test(gemv_rule, full_grids_of_short_rows_take_the_one_warp_variant)
{
  /* GPU MODE's 7168x2048x4 and perf_medium: rows of one 2-warp tile, which one warp in a plain loop
   * ran faster than 2 warps on both GPUs. */
  cr_assert_str_eq(choice(7168, 2048, 4, HOPPER), ONE_WARP);
  cr_assert_str_eq(choice(512, 2048, 32, HOPPER), ONE_WARP);
  cr_assert_str_eq(choice(16384, 1024, 4, HOPPER), ONE_WARP);
}

Test(gemv_rule, the_threshold_is_one_wave_of_the_two_warp_variant)
{
  /* 18 programs an SM at its 56 registers: 72 rows. */
  wave_edge(TWO_WARPS, 16384, TWO_WARPS, TWO_ROWS);
  wave_edge(TWO_WARPS, 7168, TWO_WARPS, ONE_WARP);
}

Test(gemv_rule, a_grid_within_its_wave_takes_the_peeled_two_warp_variant)
{
  /* 14 programs an SM at its 72 registers: 56 rows; beyond, the 2-warp variant that reloads. */
  wave_edge(TWO_PEELED, 15360, TWO_PEELED, TWO_WARPS);
  /* GPU MODE's 2432x4608x2 (37 rows an SM). */
  cr_assert_str_eq(choice(2432, 4608, 2, HOPPER), TWO_PEELED);
}

Test(gemv_rule, whole_tiles_within_a_two_row_wave_take_two_rows_a_program)
{
  /* 32 programs an SM at its 63 registers: 64 rows; beyond, the 2-warp variant that reloads, up to its 72. */
  wave_edge(TWO_ROWS, 16384, TWO_ROWS, TWO_WARPS);
  wave_edge(TWO_ROWS, 4096, TWO_ROWS, TWO_WARPS);
  /* GPU MODE's 7168x16384x1 (54 rows an SM); within the 4-warp wave the 4-warp variant keeps its grids. */
  cr_assert_str_eq(choice(7168, 16384, 1, HOPPER), TWO_ROWS);
  cr_assert_str_eq(choice(512, 4096, 2, HOPPER), FOUR_WARPS);
  wave_edge(FOUR_WARPS, 8192, FOUR_WARPS, TWO_ROWS);
  /* Rows with a partial tile keep the 2-warp variants. */
  cr_assert_str_eq(choice(7168, 15360, 1, HOPPER), TWO_PEELED);
}

Test(gemv_rule, a_grid_of_one_four_warp_wave_or_less_takes_four_warps)
{
  /* GPU MODE's test shapes of k >= 3072: 32 to 256 programs of 4 rows. */
  const int64_t shapes[][3] = {{128, 3072, 1}, {256, 7168, 1}, {384, 7168, 2}, {512, 4096, 2}};
  for (int i = 0; i < 4; i++)
    cr_assert_str_eq(choice(shapes[i][0], shapes[i][1], shapes[i][2], HOPPER), FOUR_WARPS, "shape %d", i);
  wave_edge(FOUR_WARPS, 7168, FOUR_WARPS, TWO_PEELED);
  /* GPU MODE's 2432 x 4608 x 2 (1216 programs). */
  cr_assert_str_eq(choice(2432, 4608, 2, HOPPER), TWO_PEELED);
}

Test(gemv_rule, only_rows_of_3072_elements_or_more_take_four_warps)
{
  cr_assert_str_eq(choice(128, 3072, 1, HOPPER), FOUR_WARPS);
  cr_assert_str_eq(choice(128, 3040, 1, HOPPER), TWO_PEELED);
  cr_assert_str_eq(choice(512, 1536, 2, HOPPER), TWO_PEELED);
}

Test(gemv_rule, without_device_facts_a_variant_is_still_found)
{
  /* supports() asks no device: any variant that can run the input will do. */
  khost__triton_device none = {0};
  cr_assert_str_eq(choice(7168, 16384, 1, none), TWO_WARPS);
  cr_assert_str_eq(choice(4096, 7168, 8, none), TWO_WARPS);
  cr_assert_str_eq(choice(256, 7168, 1, none), TWO_WARPS);
}

/* The wave the rule above sizes, from a variant's registers: sm_90's 64K registers,
 * given to a warp 256 at a time, and its caps of 32 programs and 64 warps an SM. */
static int programs_at(int registers, int num_warps)
{
  khost__triton_variant v = {.name = "synthetic", .num_warps = num_warps, .registers = registers};
  return khost__triton_programs_per_sm(&v);
}

Test(programs_per_sm, the_register_file_sets_the_wave)
{
  cr_assert_eq(programs_at(56, 4), 9, "the 4-warp GEMV as measured: 7168 registers a program");
  cr_assert_eq(programs_at(64, 4), 8);
  cr_assert_eq(programs_at(57, 4), 8, "a warp's 1824 registers are allocated as 2048");
  cr_assert_eq(programs_at(255, 1), 8);
}

Test(programs_per_sm, the_program_and_warp_caps_hold)
{
  cr_assert_eq(programs_at(16, 1), 32, "at most 32 programs an SM");
  cr_assert_eq(programs_at(16, 4), 16, "at most 64 warps an SM");
}

Test(programs_per_sm, an_unknown_register_count_fits_none)
{
  cr_assert_eq(programs_at(0, 4), 0);
}

Test(programs_per_sm, every_compiled_variant_has_its_register_count)
{
  for (int i = 0; i < khost__triton_nvariants; i++) {
    const khost__triton_variant *v = &khost__triton_variants[i];
    cr_assert(v->registers > 0 && v->registers <= 255, "%s: %d registers", v->name, v->registers);
  }
}
