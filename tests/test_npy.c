/* Tests for core/npy.c: files are read back here (magic, version, aligned header,
 * dict, data) and, when python3 with numpy is at hand, by numpy.load itself
 * through tests/npy_check.py. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"
#include "support/npy_read.h"
#include "support/start_elsewhere.h"

#ifndef KHOST_SOURCE_ROOT
#error "tests/meson.build must define KHOST_SOURCE_ROOT (the source tree's root)"
#endif

static char dir[64];

static void make_dir(void)
{
  snprintf(dir, sizeof dir, "/tmp/khost-npy-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
}

TestSuite(npy, .init = make_dir, .fini = remove_dir);

static const char *in_dir(const char *name)
{
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

/* What a file holds, as parsed here. */
typedef struct npy_file {
  char descr[8];
  char shape[64];  /* the tuple's inside: "2, 3", "4,", "" */
  char fortran[8]; /* "False" */
  unsigned char data[256];
  size_t nbytes;
} npy_file;

static npy_file read_npy(const char *path)
{
  npy_file out;
  char header[1024];
  memset(&out, 0, sizeof out);
  size_t nbytes;
  unsigned char *data = npy_read(path, header, sizeof header, &nbytes);
  size_t hlen = strlen(header);
  cr_assert_eq((10 + hlen) % 64, 0, "header of %zu bytes leaves the data unaligned", hlen);
  cr_expect_eq(header[hlen - 1], '\n');
  cr_assert_eq(sscanf(header, "{'descr': '%7[^']', 'fortran_order': %7[^,], 'shape': (%63[^)]), }", out.descr,
                      out.fortran, out.shape) >= 2,
               1, "header: %s", header);
  cr_expect_eq(strspn(strchr(header, '}') + 1, " "), hlen - 1 - (size_t)(strchr(header, '}') + 1 - header),
               "only blanks pad the header");
  cr_assert_leq(nbytes, sizeof out.data, "%s: %zu bytes of data", path, nbytes);
  memcpy(out.data, data, nbytes);
  out.nbytes = nbytes;
  free(data);
  return out;
}

static void write_ok(const char *path, const char *descr, int ndim, const int64_t *shape, const void *data,
                     size_t nbytes)
{
  khost__err err = {{0}};
  cr_assert_eq(khost__npy_write(path, descr, ndim, shape, data, nbytes, &err), KHOST__OK, "%s", err.msg);
}

Test(npy, f4_matrix_round_trips)
{
  const float values[6] = {1.5f, -2.25f, 0.003f, 1e6f, -0.125f, 7};
  const int64_t shape[2] = {2, 3};
  write_ok(in_dir("a.npy"), "<f4", 2, shape, values, sizeof values);
  npy_file f = read_npy(in_dir("a.npy"));
  cr_expect_str_eq(f.descr, "<f4");
  cr_expect_str_eq(f.fortran, "False");
  cr_expect_str_eq(f.shape, "2, 3");
  cr_assert_eq(f.nbytes, sizeof values);
  cr_expect_eq(memcmp(f.data, values, sizeof values), 0);
}

Test(npy, f2_vector_has_a_one_element_tuple)
{
  const uint16_t codes[4] = {0x3c00, 0xc000, 0x3800, 0x0001}; /* 1, -2, 0.5, smallest subnormal */
  const int64_t shape[1] = {4};
  write_ok(in_dir("h.npy"), "<f2", 1, shape, codes, sizeof codes);
  npy_file f = read_npy(in_dir("h.npy"));
  cr_expect_str_eq(f.descr, "<f2");
  cr_expect_str_eq(f.shape, "4,");
  cr_assert_eq(f.nbytes, sizeof codes);
  cr_expect_eq(memcmp(f.data, codes, sizeof codes), 0);
}

Test(npy, u1_scalar_has_an_empty_shape)
{
  const uint8_t byte = 0xa7;
  write_ok(in_dir("s.npy"), "|u1", 0, NULL, &byte, 1);
  npy_file f = read_npy(in_dir("s.npy"));
  cr_expect_str_eq(f.descr, "|u1");
  cr_expect_str_eq(f.shape, "");
  cr_assert_eq(f.nbytes, 1);
  cr_expect_eq(f.data[0], 0xa7);
}

struct layout_case {
  khost__dtype_id dtype;
  const char *descr;
  int64_t last; /* storage extent of the last dimension for a logical [3, 8] */
};

Test(npy, layouts_of_every_dtype)
{
  const struct layout_case cases[] = {
      {KHOST__DT_FP16, "<f2", 8}, {KHOST__DT_BF16, "<u2", 8}, {KHOST__DT_FP32, "<f4", 8},
      {KHOST__DT_E4M3, "|u1", 8}, {KHOST__DT_E2M1, "|u1", 4}, {KHOST__DT_U8, "|u1", 8},
  };
  const int64_t shape[2] = {3, 8};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    khost__npy_layout layout;
    khost__err err = {{0}};
    cr_assert_eq(khost__npy_layout_of(cases[i].dtype, 2, shape, &layout, &err), KHOST__OK, "%s", err.msg);
    cr_expect_str_eq(layout.descr, cases[i].descr, "dtype %d", (int)cases[i].dtype);
    cr_expect_eq(layout.ndim, 2);
    cr_expect_eq(layout.shape[0], 3);
    cr_expect_eq(layout.shape[1], cases[i].last, "dtype %d", (int)cases[i].dtype);
  }
}

Test(npy, layout_refusals)
{
  const int64_t odd[2] = {2, 7};
  khost__npy_layout layout;
  khost__err err = {{0}};
  cr_expect_eq(khost__npy_layout_of(KHOST__DT_E2M1, 2, odd, &layout, &err), KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "even"), "%s", err.msg);
  cr_expect_eq(khost__npy_layout_of(KHOST__DT_E2M1, 0, odd, &layout, &err), KHOST__E_CONFIG);
  cr_expect_eq(khost__npy_layout_of(KHOST__DT_COUNT, 2, odd, &layout, &err), KHOST__E_CONFIG);
  cr_expect_eq(khost__npy_layout_of(KHOST__DT_FP32, KHOST_MAX_DIMS + 1, odd, &layout, &err), KHOST__E_CONFIG);
}

Test(npy, packed_e2m1_tensor_is_dumped_as_bytes)
{
  khost__tensor_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.name = "a";
  spec.dtype = KHOST__DT_E2M1;
  spec.ndim = 2;
  spec.shape[0] = 2;
  spec.shape[1] = 8;
  spec.nbytes = 8;
  const uint8_t packed[8] = {0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f};
  khost__err err = {{0}};
  cr_assert_eq(khost__npy_write_tensor(in_dir("a.npy"), &spec, packed, &err), KHOST__OK, "%s", err.msg);
  npy_file f = read_npy(in_dir("a.npy"));
  cr_expect_str_eq(f.descr, "|u1");
  cr_expect_str_eq(f.shape, "2, 4");
  cr_assert_eq(f.nbytes, 8);
  cr_expect_eq(memcmp(f.data, packed, 8), 0);
}

Test(npy, size_mismatch_writes_nothing)
{
  const float values[3] = {1, 2, 3};
  const int64_t shape[2] = {2, 2};
  khost__err err = {{0}};
  cr_expect_eq(khost__npy_write(in_dir("bad.npy"), "<f4", 2, shape, values, sizeof values, &err),
               KHOST__E_CONFIG);
  cr_expect_not_null(strstr(err.msg, "16 bytes"), "%s", err.msg);
  cr_expect_neq(access(in_dir("bad.npy"), F_OK), 0);
  const int64_t negative[1] = {-3};
  cr_expect_eq(khost__npy_write(in_dir("bad.npy"), "<f4", 1, negative, values, sizeof values, &err),
               KHOST__E_CONFIG);
}

Test(npy, bad_descr_is_refused)
{
  const char *bad[] = {"<f", "f4", "<x4", "<f4'", "<f0", ""};
  const uint8_t byte = 1;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    khost__err err = {{0}};
    cr_expect_eq(khost__npy_write(in_dir("d.npy"), bad[i], 0, NULL, &byte, 1, &err), KHOST__E_CONFIG,
                 "\"%s\"", bad[i]);
  }
}

Test(npy, unwritable_path_is_an_error)
{
  const uint8_t byte = 1;
  khost__err err = {{0}};
  cr_expect_eq(khost__npy_write("/nonexistent-dir/x.npy", "|u1", 0, NULL, &byte, 1, &err), KHOST__E_IO);
  cr_expect_not_null(strstr(err.msg, "/nonexistent-dir/x.npy"), "%s", err.msg);
}

Test(npy, a_relative_path_is_written_in_the_start_folder_and_named_as_given)
{
  const uint8_t byte = 1;
  khost__err err = {{0}};
  start_elsewhere(dir);
  write_ok("x.npy", "|u1", 0, NULL, &byte, 1);
  cr_expect_eq(read_npy(in_dir("x.npy")).nbytes, 1);
  cr_expect_eq(khost__npy_write("gone/x.npy", "|u1", 0, NULL, &byte, 1, &err), KHOST__E_IO);
  cr_expect_str_eq(err.msg, "npy: cannot create gone/x.npy: No such file or directory");
}

/* Runs tests/npy_check.py on path; its exit status (77: numpy missing, 127: no python). */
static int numpy_check(const char *path, const char *descr, const char *shape, const char *values)
{
  const char *python = getenv("KHOST_TEST_PYTHON") ? getenv("KHOST_TEST_PYTHON") : "python3";
  int status = 0;
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    execlp(python, python, KHOST_SOURCE_ROOT "/tests/npy_check.py", path, descr, shape, values, (char *)NULL);
    _exit(127);
  }
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

struct numpy_case {
  const char *name, *descr, *shape, *values;
  int ndim;
  int64_t dims[2];
  const void *data;
  size_t nbytes;
};

Test(npy, numpy_loads_what_is_written)
{
  static const float f4[6] = {1.5f, -2.25f, 0.375f, 1e6f, -0.125f, 7};
  static const uint16_t f2[4] = {0x3c00, 0xc000, 0x3800, 0x0001};
  static const uint16_t bf16[3] = {0x3f80, 0xc0a0, 0x0000}; /* 1, -5, 0: raw bits, numpy has no bf16 */
  static const uint8_t u1[4] = {0x21, 0x43, 0xfe, 0x0f};
  const struct numpy_case cases[] = {
      {"f4.npy", "<f4", "2,3", "1.5,-2.25,0.375,1000000,-0.125,7", 2, {2, 3}, f4, sizeof f4},
      {"f2.npy", "<f2", "4", "1,-2,0.5,5.9604644775390625e-08", 1, {4, 0}, f2, sizeof f2},
      {"bf16.npy", "<u2", "3", "16256,49312,0", 1, {3, 0}, bf16, sizeof bf16},
      {"u1.npy", "|u1", "2,2", "33,67,254,15", 2, {2, 2}, u1, sizeof u1},
      {"scalar.npy", "|u1", "", "33", 0, {0, 0}, u1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const struct numpy_case *c = &cases[i];
    write_ok(in_dir(c->name), c->descr, c->ndim, c->dims, c->data, c->nbytes);
    int rc = numpy_check(in_dir(c->name), c->descr, c->shape, c->values);
    if (rc == 77 || rc == 127) {
      remove_dir(); /* a skip does not run the suite's .fini */
      cr_skip_test("python3 with numpy is not available (set KHOST_TEST_PYTHON)");
    }
    cr_expect_eq(rc, 0, "numpy disagrees about %s (see stderr)", c->name);
  }
}
