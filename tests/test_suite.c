/* Tests for core/suite.c: parsing good and bad suite files, the suite search
 * order, filtering, and that every shipped suite loads. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "khost/ops.h"
#include "suite.h"
#include "support/endless_line.h"
#include "support/start_elsewhere.h"

/* A path held by value, so that a call can be used inside an expression. */
typedef struct path_buf {
  char s[4096];
} path_buf;

/* The file at `relative` in the source tree, whose root tests/meson.build puts in $KHOST_SOURCE_ROOT. */
static path_buf source_file(const char *relative)
{
  const char *root = getenv("KHOST_SOURCE_ROOT");
  cr_assert_not_null(root, "KHOST_SOURCE_ROOT must name the source tree");
  path_buf p;
  snprintf(p.s, sizeof p.s, "%s/%s", root, relative);
  return p;
}

#define FIXTURE(name) (source_file("tests/fixtures/suites/" name).s)

static const khost__case *find_case(const khost__suite *s, const char *name)
{
  for (int i = 0; i < s->ncases; i++)
    if (strcmp(s->cases[i].name, name) == 0) return &s->cases[i];
  return NULL;
}

static khost__suite load_ok(const char *path)
{
  khost__suite s;
  khost__err err = {{0}};
  int rc = khost__suite_load(path, &s, &err);
  cr_assert_eq(rc, KHOST__OK, "loading %s: %s", path, err.msg);
  return s;
}

/* ---- good files ---- */

Test(suite_load, reads_values_comments_and_indentation)
{
  khost__suite s = load_ok(FIXTURE("good_basic.ini"));
  cr_assert_eq(s.ncases, 4);
  cr_expect_str_eq(s.path, FIXTURE("good_basic.ini"));
  const char *order[] = {"foobar", "reduce_bf16", "transpose_fp32", "softmax_fp16"};
  for (int i = 0; i < 4; i++) cr_expect_str_eq(s.cases[i].name, order[i]);

  const khost__case *gemv = find_case(&s, "foobar");
  cr_expect_str_eq(gemv->op->name, "nvfp4_gemv");
  cr_expect_eq(khost__case_param(gemv, "m"), 256, "inline ';' comment must be dropped");
  cr_expect_eq(khost__case_param(gemv, "k"), 512, "an indented key is a key, not a continuation");
  cr_expect_eq(khost__case_param(gemv, "l"), 3);
  cr_expect_eq(gemv->line, 4);
  cr_expect_str_eq(gemv->file, FIXTURE("good_basic.ini"));

  const khost__case *reduce = find_case(&s, "reduce_bf16");
  cr_expect_eq(khost__case_param(reduce, "dtype"), KHOST__DT_BF16);
  cr_expect_eq(khost__case_param(reduce, "m"), 7);
  cr_expect_eq(khost__case_param(reduce, "n"), 33);
  cr_expect_eq(reduce->seed, UINT64_MAX);

  const khost__case *transpose = find_case(&s, "transpose_fp32");
  cr_expect_eq(khost__case_param(transpose, "dtype"), KHOST__DT_FP32, "a tab-indented key is a key");
  cr_expect_eq(transpose->seed, 0);
  cr_expect_eq(find_case(&s, "softmax_fp16")->seed, 42);
  khost__suite_free(&s);
  cr_expect_eq(s.ncases, 0);
  cr_expect_null(s.cases);
}

Test(suite_load, default_seed_is_fnv1a_of_the_name)
{
  khost__suite s = load_ok(FIXTURE("good_basic.ini"));
  /* The published FNV-1a 64-bit test vector for "foobar". */
  cr_expect_eq(find_case(&s, "foobar")->seed, 0x85944171f73967e8ull);
  khost__suite_free(&s);
}

Test(suite_load, tolerances_default_to_the_op_and_are_overridden_per_key)
{
  khost__suite s = load_ok(FIXTURE("good_basic.ini"));
  struct {
    const char *name;
    int atol_overridden, rtol_overridden;
    double atol, rtol;
  } rows[] = {
      {"foobar", 0, 0, 0, 0},
      {"reduce_bf16", 1, 0, 0.25, 0},
      {"transpose_fp32", 1, 1, 1e-3, 0},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const khost__case *c = find_case(&s, rows[i].name);
    double atol, rtol;
    c->op->tolerance(c, &atol, &rtol);
    cr_expect_eq(c->atol, rows[i].atol_overridden ? rows[i].atol : atol, "%s atol", rows[i].name);
    cr_expect_eq(c->rtol, rows[i].rtol_overridden ? rows[i].rtol : rtol, "%s rtol", rows[i].name);
  }
  khost__suite_free(&s);
}

Test(suite_load, accepts_a_byte_order_mark_and_crlf_lines)
{
  khost__suite s = load_ok(FIXTURE("good_bom_crlf.ini"));
  cr_assert_eq(s.ncases, 1);
  cr_expect_str_eq(s.cases[0].name, "bom_crlf");
  cr_expect_eq(khost__case_param(&s.cases[0], "n"), 5);
  cr_expect_eq(s.cases[0].seed, 7);
  khost__suite_free(&s);
}

/* The line limit counts what inih keeps: a CRLF line of 198 characters fits as an LF one does. */
Test(suite_load, a_crlf_line_at_the_limit_and_a_comment_after_a_header_are_accepted)
{
  khost__suite s = load_ok(FIXTURE("good_crlf_long_line.ini"));
  cr_assert_eq(s.ncases, 1);
  cr_expect_str_eq(s.cases[0].name, "crlf_long");
  cr_expect_eq(khost__case_param(&s.cases[0], "n"), 5);
  khost__suite_free(&s);
}

Test(suite_load, a_missing_file_is_a_config_error)
{
  khost__suite s;
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_load(FIXTURE("no_such_file.ini"), &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "no_such_file.ini: cannot open"), "%s", err.msg);
  cr_expect_eq(s.ncases, 0);
}

/* ---- bad files: each refused whole, with FILE:LINE: reason ---- */

typedef struct bad_file {
  const char *file;
  int line;
  const char *reason; /* must appear in the message */
} bad_file;

static const bad_file bad_files[] = {
    {"bad_unknown_key.ini", 4, "case a: unknown key 'n' for op nvfp4_gemv (keys: m, k, l, seed, atol, rtol)"},
    {"bad_first_key_not_op.ini", 3, "case a: the first key must be op (known ops: "},
    {"bad_case_without_keys.ini", 1, "case has no keys (it needs op = OP)"},
    {"bad_last_case_without_keys.ini", 7, "case has no keys (it needs op = OP)"},
    {"bad_unknown_op.ini", 2, "case a: unknown op 'nvfp4_gemm' (known ops: "},
    {"bad_not_integer.ini", 3, "case a: m = '12x' is not an integer in -(2^63-1)..2^63-1"},
    {"bad_integer_overflow.ini", 4,
     "case a: k = '99999999999999999999' is not an integer in -(2^63-1)..2^63-1"},
    {"bad_empty_value.ini", 4, "case a: k = '' is not an integer in -(2^63-1)..2^63-1"},
    {"bad_unknown_dtype.ini", 3,
     "case a: dtype = 'fp64' is not a dtype (copy_transpose takes fp16, bf16, fp32)"},
    {"bad_negative_tolerance.ini", 6, "case a: atol = '-1e-3' is not a finite number >= 0 (in double range)"},
    {"bad_text_tolerance.ini", 6, "case a: rtol = 'tight' is not a finite number >= 0 (in double range)"},
    {"bad_nan_tolerance.ini", 6, "case a: rtol = 'nan' is not a finite number >= 0 (in double range)"},
    {"bad_negative_seed.ini", 6, "case a: seed = '-1' is not an integer in 0..2^64-1"},
    {"bad_seed_overflow.ini", 6, "case a: seed = '99999999999999999999999' is not an integer in 0..2^64-1"},
    {"bad_duplicate_case.ini", 13, "duplicate case name 'a' (first at line 1)"},
    {"bad_repeated_section.ini", 6, "duplicate case name 'a' (first at line 1)"},
    {"bad_duplicate_key.ini", 6, "case a: duplicate key 'm'"},
    {"bad_duplicate_op.ini", 3, "case a: duplicate key 'op'"},
    {"bad_key_before_section.ini", 2, "key 'op' comes before any [case] section"},
    {"bad_missing_parameter.ini", 7, "case no_k: missing parameter 'k' for op nvfp4_gemv"},
    {"bad_syntax.ini", 3, "syntax error"},
    {"bad_syntax_before_key_error.ini", 3, "syntax error"},
    {"bad_unclosed_header.ini", 6, "syntax error"},
    {"bad_comment_inside_header.ini", 6, "syntax error"},
    {"bad_validate_rule.ini", 7, "case m_not_128: nvfp4_gemv needs m to be a multiple of 128, got 200"},
    {"bad_dtype_not_allowed.ini", 1,
     "case a: copy_transpose needs dtype to be one of fp16, bf16, fp32, got e4m3"},
    {"bad_case_name_chars.ini", 1, "case name 'a b' may hold only letters, digits, '_', '.' and '-'"},
    {"bad_case_name_long.ini", 1, "is longer than 48 characters"},
    {"bad_long_line.ini", 3, "line is longer than"},
    {"bad_long_last_line.ini", 6, "line is longer than 198 characters"}, /* no newline: the same limit */
    {"bad_nul_byte.ini", 3, "line holds a NUL byte"},
    {"bad_header_tail.ini", 1, "text after the [case] header: 'junk here' (only a comment may follow)"},
    {"bad_case_name_dots.ini", 2, "case name '..' must start with a letter, a digit or '_'"},
    {"bad_case_name_dash.ini", 1, "case name '-a' must start with a letter, a digit or '_'"},
    {"bad_int64_min.ini", 4, "case a: m = '-9223372036854775808' is not an integer in -(2^63-1)..2^63-1"},
    {"bad_tolerance_underflow.ini", 6,
     "case a: atol = '1e-400' is not a finite number >= 0 (in double range)"},
    /* inih takes ':' too; a suite is key = value only. */
    {"bad_key_colon.ini", 2, "'key: value' is not suite syntax: write key = value"},
    /* Leading white space is skipped as inih skips it: [c] is a header, so [b] has no keys. */
    {"bad_form_feed_header.ini", 6, "case has no keys (it needs op = OP)"},
    /* ... and the key after a vertical tab is n, not a continuation of m's value. */
    {"bad_vertical_tab_key.ini", 4, "case a: n = 'x' is not an integer"},
    /* The KV-cache conversions: each dimension, outer, layout, and the sizes they make. */
    {"bad_kv_zero_dim.ini", 11, "case zero_heads: kv_block_to_universal needs nh to be at least 1, got 0"},
    {"bad_kv_negative_dim.ini", 1,
     "case negative_blocks: kv_operational_to_block needs nb to be at least 0, got -1"},
    {"bad_kv_outer_three.ini", 1, "case three_outer: kv_universal_to_block needs no to be at most 2, got 3"},
    {"bad_kv_unknown_layout.ini", 10,
     "case misspelt_layout: kv_block_to_universal needs layout to be one of NHD, HND, got 'NDH'"},
    {"bad_kv_layout_missing.ini", 1,
     "case no_layout: missing parameter 'layout' for op kv_universal_to_block"},
    {"bad_kv_layout_on_flat_op.ini", 10,
     "case flat_with_layout: unknown key 'layout' for op kv_block_to_operational"},
    {"bad_kv_dtype_not_allowed.ini", 1,
     "case fp4_cache: kv_block_to_operational needs dtype to be one of fp16, bf16, fp32, e4m3, got e2m1"},
    {"bad_kv_size_overflow.ini", 1,
     "case overflows: kv_block_to_operational needs tensor src to take at most 34359738368 bytes, but its "
     "size "
     "overflows"},
    {"bad_kv_too_large.ini", 1,
     "case too_large: kv_operational_to_block needs tensor src to take at most 34359738368 bytes, got "
     "1374456643584"},
};

Test(suite_load, refuses_bad_files_with_file_line_and_reason)
{
  for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
    const bad_file *bad = &bad_files[i];
    char path[4200], prefix[4300];
    snprintf(path, sizeof path, "%s%s", FIXTURE(""), bad->file);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, bad->line);
    khost__suite s;
    khost__err err = {{0}};
    cr_expect_eq(khost__suite_load(path, &s, &err), KHOST__E_CONFIG, "%s: %s", bad->file, err.msg);
    cr_expect_eq(strncmp(err.msg, prefix, strlen(prefix)), 0, "want prefix '%s', got '%s'", prefix, err.msg);
    cr_expect(strstr(err.msg, bad->reason), "want '%s' in '%s'", bad->reason, err.msg);
    cr_expect_eq(s.ncases, 0, "%s", bad->file);
    cr_expect_null(s.cases, "%s", bad->file);
  }
}

/* Reading stops at the first error: a stream of bad lines with no end is refused
 * at its first line rather than read for ever. */
Test(suite_load, an_endless_stream_of_bad_lines_is_refused_at_the_first, .timeout = 10)
{
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  pid_t writer = fork();
  cr_assert_geq(writer, 0);
  if (writer == 0) {
    close(fds[0]);
    while (write(fds[1], "y\n", 2) == 2) {
    }
    _exit(0);
  }
  close(fds[1]);
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  khost__suite s;
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_load(path, &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, ":1: syntax error"), "%s", err.msg);
  close(fds[0]);
  kill(writer, SIGKILL);
  waitpid(writer, NULL, 0);
}

/* A line is refused at the byte that breaks its rule: the rest of an endless
 * line is never read. No .timeout: the fed line ends, so the test does too, and
 * Criterion's runner leaks (LeakSanitizer fails the program) when two tests of
 * one program run under timeouts at once. */
Test(suite_load, an_endless_line_is_refused_without_reading_it_whole)
{
  static const struct {
    char byte;
    const char *reason;
  } lines[] = {
      {'x', ":1: line is longer than 198 characters"},
      {'\0', ":1: line holds a NUL byte"},
  };
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    endless_line line;
    endless_line_start(&line, lines[i].byte);
    khost__suite s;
    khost__err err = {{0}};
    cr_expect_eq(khost__suite_load(line.path, &s, &err), KHOST__E_CONFIG, "%s", err.msg);
    cr_expect(strstr(err.msg, lines[i].reason), "want '%s' in '%s'", lines[i].reason, err.msg);
    cr_assert(endless_line_stopped_early(&line), "a line of byte %d was read whole before it was refused",
              lines[i].byte);
  }
  /* Only now, with the reader shown to stop, the devices that never end. */
  static const char *const devices[] = {"/dev/zero", "/dev/full"};
  for (size_t i = 0; i < 2; i++) {
    khost__suite s;
    khost__err err = {{0}};
    char want[64];
    snprintf(want, sizeof want, "%s:1: line holds a NUL byte", devices[i]);
    cr_expect_eq(khost__suite_load(devices[i], &s, &err), KHOST__E_CONFIG, "%s", err.msg);
    cr_expect_eq(strncmp(err.msg, want, strlen(want)), 0, "want '%s', got '%s'", want, err.msg);
  }
}

/* text (n bytes) as a suite file of its own, loaded; the file is removed. */
static int load_text(const char *text, size_t n, khost__suite *s, khost__err *err)
{
  char path[] = "/tmp/khost-test-suite-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, text, n), (ssize_t)n);
  close(fd);
  int rc = khost__suite_load(path, s, err);
  unlink(path);
  return rc;
}

/* Blanks are skipped as they are read, so they count against no limit however
 * many there are; so is a byte-order mark, but only a whole one. */
Test(suite_load, leading_blanks_and_a_byte_order_mark_count_against_no_limit)
{
  static const char blanks[] = " \t\f\v\r";
  size_t n = 0, cap = 3 + 300 + 16 + 100000 + 64;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  n += (size_t)sprintf(text + n, "\xEF\xBB\xBF");
  for (int i = 0; i < 300; i++) text[n++] = ' ';
  n += (size_t)sprintf(text + n, "[a]\n");
  for (int i = 0; i < 100000; i++) text[n++] = blanks[i % 5];
  n += (size_t)sprintf(text + n, "op = reduce_sum\nm = 4\nn = 8\ndtype = fp32\n");
  khost__suite s;
  khost__err err = {{0}};
  cr_assert_eq(load_text(text, n, &s, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(s.ncases, 1);
  cr_expect_str_eq(s.cases[0].name, "a");
  cr_expect_eq(khost__case_param(&s.cases[0], "n"), 8);
  khost__suite_free(&s);
  free(text);
  static const char part_of_a_mark[] = "\xEF\xBB[a]\nop = reduce_sum\nm = 4\nn = 8\ndtype = fp32\n";
  cr_expect_eq(load_text(part_of_a_mark, sizeof part_of_a_mark - 1, &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, ":1: syntax error"), "%s", err.msg);
}

/* A case names its suite file for messages: a long path is kept whole, not cut. */
Test(suite_load, a_case_keeps_the_path_of_its_suite_whole)
{
  char dir[] = "/tmp/khost-test-suite-XXXXXX", sub[300], path[600];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(sub, sizeof sub, "%s/%0200d", dir, 0);
  cr_assert_eq(mkdir(sub, 0700), 0);
  snprintf(path, sizeof path, "%s/%0100d.ini", sub, 0);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("[a]\nop = reduce_sum\nm = 4\nn = 8\ndtype = fp32\n", f);
  fclose(f);
  khost__suite s = load_ok(path);
  cr_expect_gt(strlen(path), 300);
  cr_expect_str_eq(s.cases[0].file, path);
  khost__suite_free(&s);
  unlink(path);
  rmdir(sub);
  rmdir(dir);
}

Test(suite_load, a_file_without_cases_is_refused)
{
  khost__suite s;
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_load(FIXTURE("bad_no_cases.ini"), &s, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "bad_no_cases.ini: no cases"), "%s", err.msg);
}

/* ---- the shipped suites ---- */

typedef struct shipped_case {
  const char *suite, *name;
  const char *op;
  const char *p1, *p2, *p3; /* parameter names, NULL when unused */
  int64_t v1, v2, v3;
} shipped_case;

/* Spot checks: the NVFP4 GEMV seed shapes (docs/SUITES.md) and others, and one float case per suite. */
static const shipped_case shipped[] = {
    {"smoke", "tiny_single", "nvfp4_gemv", "m", "k", "l", 128, 256, 1},
    {"smoke", "small_batch", "nvfp4_gemv", "m", "k", "l", 256, 512, 2},
    {"smoke", "softmax_online_bf16_128x512", "softmax_online", "m", "n", "dtype", 128, 512, KHOST__DT_BF16},
    {"correctness", "min_size", "nvfp4_gemv", "m", "k", "l", 128, 256, 1},
    {"correctness", "medium", "nvfp4_gemv", "m", "k", "l", 256, 512, 4},
    {"correctness", "large", "nvfp4_gemv", "m", "k", "l", 512, 1024, 8},
    {"correctness", "xlarge", "nvfp4_gemv", "m", "k", "l", 1024, 2048, 16},
    {"correctness", "reduce_sum_fp16_257x8195", "reduce_sum", "m", "n", "dtype", 257, 8195, KHOST__DT_FP16},
    {"performance", "perf_medium", "nvfp4_gemv", "m", "k", "l", 512, 2048, 32},
    {"performance", "perf_large", "nvfp4_gemv", "m", "k", "l", 1024, 4096, 64},
    {"performance", "softmax_online_fp32_1024x65536", "softmax_online", "m", "n", "dtype", 1024, 65536,
     KHOST__DT_FP32},
    {"gpumode_nvfp4", "bench_m7168_k16384_l1", "nvfp4_gemv", "m", "k", "l", 7168, 16384, 1},
    {"gpumode_nvfp4", "bench_m4096_k7168_l8", "nvfp4_gemv", "m", "k", "l", 4096, 7168, 8},
    {"gpumode_nvfp4", "bench_m7168_k2048_l4", "nvfp4_gemv", "m", "k", "l", 7168, 2048, 4},
    {"gpumode_nvfp4", "test_m128_k1536_l1", "nvfp4_gemv", "m", "k", "l", 128, 1536, 1},
    {"gpumode_nvfp4", "test_m128_k3072_l1", "nvfp4_gemv", "m", "k", "l", 128, 3072, 1},
    {"gpumode_nvfp4", "test_m256_k7168_l1", "nvfp4_gemv", "m", "k", "l", 256, 7168, 1},
    {"gpumode_nvfp4", "test_m2432_k4608_l2", "nvfp4_gemv", "m", "k", "l", 2432, 4608, 2},
    {"gpumode_nvfp4", "test_m384_k7168_l2", "nvfp4_gemv", "m", "k", "l", 384, 7168, 2},
    {"gpumode_nvfp4", "test_m512_k4096_l2", "nvfp4_gemv", "m", "k", "l", 512, 4096, 2},
    {"gpumode_nvfp4", "test_m512_k1536_l2", "nvfp4_gemv", "m", "k", "l", 512, 1536, 2},
    {"read_floor", "read_66mb_fp32_2016x8192", "reduce_sum", "m", "n", "dtype", 2016, 8192, KHOST__DT_FP32},
    {"smoke", "kv_operational_to_block_e4m3", "kv_operational_to_block", "nb", "hd", "dtype", 3, 8,
     KHOST__DT_E4M3},
    {"kv_correctness", "b2u_s2_fp32_hnd", "kv_block_to_universal", "nh", "nl", "layout", 2, 3, KHOST_KV_HND},
    {"kv_performance", "o2b_70b_h1_t64_e4m3_b512", "kv_operational_to_block", "nl", "nt", "nb", 80, 64, 512},
};

static khost__suite load_shipped(const char *name)
{
  char relative[256];
  snprintf(relative, sizeof relative, "suites/%s.ini", name);
  return load_ok(source_file(relative).s);
}

Test(shipped_suites, load_with_the_expected_number_of_cases)
{
  struct {
    const char *name;
    int ncases;
  } suites[] = {{"smoke", 16},
                {"correctness", 73},
                {"performance", 14},
                {"gpumode_nvfp4", 10},
                {"read_floor", 3},
                {"fp8_gemm_correctness", 15},
                {"fp8_gemm_performance", 24},
                {"kv_correctness", 90},
                {"kv_performance", 180}};
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
    khost__suite s = load_shipped(suites[i].name);
    cr_expect_eq(s.ncases, suites[i].ncases, "%s", suites[i].name);
    khost__suite_free(&s);
  }
}

Test(shipped_suites, hold_the_published_shapes)
{
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
    const shipped_case *want = &shipped[i];
    khost__suite s = load_shipped(want->suite);
    const khost__case *c = find_case(&s, want->name);
    cr_assert_not_null(c, "%s has no case %s", want->suite, want->name);
    cr_expect_str_eq(c->op->name, want->op, "%s", want->name);
    cr_expect_eq(khost__case_param(c, want->p1), want->v1, "%s %s", want->name, want->p1);
    cr_expect_eq(khost__case_param(c, want->p2), want->v2, "%s %s", want->name, want->p2);
    cr_expect_eq(khost__case_param(c, want->p3), want->v3, "%s %s", want->name, want->p3);
    khost__suite_free(&s);
  }
}

/* ARCHITECTURE.md, "Adding an op", step 6: the smoke suite is where a new op
 * first runs on every backend, so an op without a smoke case would go unseen. */
Test(shipped_suites, smoke_has_a_case_of_every_op)
{
  khost__suite s = load_shipped("smoke");
  for (const khost__op *const *op = khost__catalog_ops(); *op; op++) {
    int found = 0;
    for (int i = 0; i < s.ncases; i++) found += s.cases[i].op == *op;
    cr_expect_gt(found, 0, "smoke.ini has no case of %s", (*op)->name);
  }
  khost__suite_free(&s);
}

/* ---- finding a suite by name ---- */

/* A temporary folder holding empty NAME.ini files; removed by rm_dir_with. */
static void make_dir_with(char *dir, const char *const *names)
{
  strcpy(dir, "/tmp/khost-test-suite-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  for (; *names; names++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.ini", dir, *names);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fclose(f);
  }
}

static void rm_dir_with(const char *dir, const char *const *names)
{
  for (; *names; names++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.ini", dir, *names);
    unlink(path);
  }
  rmdir(dir);
}

Test(suite_find, a_name_is_found_in_the_source_tree_before_khost_suite_path)
{
  const char *names[] = {"smoke", "only_here", NULL};
  char dir[64], env[200], path[4096];
  make_dir_with(dir, names);
  snprintf(env, sizeof env, "/nonexistent::%s", dir);
  setenv("KHOST_SUITE_PATH", env, 1);
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_find("smoke", path, sizeof path, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(path, source_file("suites/smoke.ini").s);
  cr_expect_eq(khost__suite_find("only_here", path, sizeof path, &err), KHOST__OK, "%s", err.msg);
  char want[200];
  snprintf(want, sizeof want, "%s/only_here.ini", dir);
  cr_expect_str_eq(path, want);
  rm_dir_with(dir, names);
}

Test(suite_find, khost_suite_path_entries_are_searched_in_order)
{
  const char *names[] = {"twice", NULL};
  char first[64], second[64], env[200], path[4096], want[200];
  make_dir_with(first, names);
  make_dir_with(second, names);
  snprintf(env, sizeof env, "%s:%s", first, second);
  setenv("KHOST_SUITE_PATH", env, 1);
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_find("twice", path, sizeof path, &err), KHOST__OK, "%s", err.msg);
  snprintf(want, sizeof want, "%s/twice.ini", first);
  cr_expect_str_eq(path, want);
  rm_dir_with(first, names);
  rm_dir_with(second, names);
}

Test(suite_find, an_unknown_name_lists_the_folders_and_their_suites)
{
  const char *names[] = {"extra_one", "extra_two", NULL};
  char dir[64], path[4096];
  make_dir_with(dir, names);
  setenv("KHOST_SUITE_PATH", dir, 1);
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_find("nope", path, sizeof path, &err), KHOST__E_CONFIG);
  /* The source tree's folder, then the installed one (whatever it holds), then $KHOST_SUITE_PATH. */
  char head[4300], tail[200];
  snprintf(head, sizeof head, "no suite 'nope'; searched: %s (%s); ", source_file("suites").s,
           "correctness, fp8_gemm_correctness, fp8_gemm_performance, gpumode_nvfp4, kv_correctness, "
           "kv_performance, performance, read_floor, "
           "smoke");
  snprintf(tail, sizeof tail, "; %s (extra_one, extra_two)", dir);
  size_t len = strlen(err.msg), nhead = strlen(head), ntail = strlen(tail);
  cr_assert_gt(len, nhead + ntail, "%s", err.msg);
  cr_expect_eq(strncmp(err.msg, head, nhead), 0, "want '%s' first in '%s'", head, err.msg);
  cr_expect_str_eq(err.msg + len - ntail, tail);
  char middle[1024];
  snprintf(middle, sizeof middle, "%.*s", (int)(len - nhead - ntail), err.msg + nhead);
  cr_expect_null(strchr(middle, ';'), "one folder between them, got '%s'", middle);
  cr_expect(strstr(middle, "/share/khost/suites ("), "the installed folder, got '%s'", middle);
  rm_dir_with(dir, names);
}

Test(suite_find, a_path_is_used_as_is_and_must_be_readable)
{
  unsetenv("KHOST_SUITE_PATH");
  char path[4096];
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_find(FIXTURE("good_basic.ini"), path, sizeof path, &err), KHOST__OK, "%s",
               err.msg);
  cr_expect_str_eq(path, FIXTURE("good_basic.ini"));
  cr_expect_eq(khost__suite_find("missing.ini", path, sizeof path, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "missing.ini: cannot read suite"), "%s", err.msg);
  cr_expect_eq(khost__suite_find("./smoke", path, sizeof path, &err), KHOST__E_CONFIG,
               "a name with a '/' is a path, not searched for");
  char small[8];
  cr_expect_eq(khost__suite_find(FIXTURE("good_basic.ini"), small, sizeof small, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "too long"), "%s", err.msg);
}

/* A plugin may move khost before the suite is read: a relative path or
 * KHOST_SUITE_PATH folder is found from the start folder, and named as given. */
Test(suite_find, relative_paths_and_folders_are_found_from_the_start_folder)
{
  const char *names[] = {"mine", NULL};
  char dir[64], path[4096], file[128];
  make_dir_with(dir, names);
  snprintf(file, sizeof file, "%s/mine.ini", dir);
  FILE *f = fopen(file, "w");
  cr_assert_not_null(f);
  fputs("[mine_copy]\nop = copy_transpose\ndtype = fp16\nm = 8\nn = 8\n", f);
  fclose(f);
  start_elsewhere(dir);
  setenv("KHOST_SUITE_PATH", ".", 1);
  khost__err err = {{0}};
  cr_expect_eq(khost__suite_find("mine", path, sizeof path, &err), KHOST__OK, "%s", err.msg);
  cr_expect_str_eq(path, "./mine.ini");
  cr_expect_eq(khost__suite_find("mine.ini", path, sizeof path, &err), KHOST__OK, "%s", err.msg);
  khost__suite s = load_ok(path);
  cr_expect_str_eq(s.path, "mine.ini");
  cr_expect_eq(s.ncases, 1);
  khost__suite_free(&s);
  cr_expect_eq(khost__suite_find("nope", path, sizeof path, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "; . (mine)"), "the folder as given, with its suite: %s", err.msg);
  rm_dir_with(dir, names);
}

/* ---- filtering ---- */

typedef struct filter_row {
  const char *ops, *cases;
  int rc;
  const char *kept; /* names left, space-separated, or the error text wanted */
} filter_row;

static const filter_row filter_rows[] = {
    {NULL, NULL, KHOST__OK, "foobar reduce_bf16 transpose_fp32 softmax_fp16"},
    {"reduce_sum", NULL, KHOST__OK, "reduce_bf16"},
    {" softmax_online , copy_transpose ", NULL, KHOST__OK, "transpose_fp32 softmax_fp16"},
    {"*_sum,nvfp4*", NULL, KHOST__OK, "foobar reduce_bf16"},
    {NULL, "softmax_fp16,foobar", KHOST__OK, "foobar softmax_fp16"},
    {NULL, "*_fp*", KHOST__OK, "transpose_fp32 softmax_fp16"},
    {"copy_transpose,reduce_sum", "*fp32,foo*", KHOST__OK, "transpose_fp32"},
    {"nvfp4_gemm", NULL, KHOST__E_CONFIG, "unknown op 'nvfp4_gemm' (known ops: "},
    {NULL, "foobar,nothing*", KHOST__E_CONFIG,
     "matches 'nothing*' (cases: foobar, reduce_bf16, transpose_fp32"},
    {"reduce_sum", "foobar", KHOST__E_CONFIG, "has an op in 'reduce_sum' and a name in 'foobar'"},
};

Test(suite_filter, keeps_matching_cases_in_order_or_refuses)
{
  for (size_t i = 0; i < sizeof filter_rows / sizeof filter_rows[0]; i++) {
    const filter_row *row = &filter_rows[i];
    khost__suite s = load_ok(FIXTURE("good_basic.ini"));
    khost__err err = {{0}};
    int rc = khost__suite_filter(&s, row->ops, row->cases, &err);
    cr_expect_eq(rc, row->rc, "row %zu: %s", i, err.msg);
    char kept[512] = "";
    for (int j = 0; j < s.ncases; j++) {
      if (j) strcat(kept, " ");
      strcat(kept, s.cases[j].name);
    }
    if (row->rc == KHOST__OK) {
      cr_expect_str_eq(kept, row->kept, "row %zu", i);
    } else {
      cr_expect(strstr(err.msg, row->kept), "row %zu: want '%s' in '%s'", i, row->kept, err.msg);
      cr_expect_eq(s.ncases, 4, "row %zu: a refused filter leaves the suite as it was", i);
    }
    khost__suite_free(&s);
  }
}
