/* The descriptor check: each string read up to its bound and no further (the
 * strings here are heap buffers of exactly that size, so that the sanitizer build
 * sees any read past them), clashes found in kernel order, and a descriptor that
 * cannot be read refused in a child process, with what it was reading. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptor.h"

static int run_stub(const khost_input *in)
{
  (void)in;
  return KHOST_STATUS_OK;
}

/* A good descriptor of up to 4 kernels, all copy_transpose on the CPU until a test changes them. */
typedef struct fixture {
  khost_kernel kernels[4];
  const khost_kernel *list[4];
  khost_plugin d;
  char why[1024];
} fixture;

static void make_good(fixture *f, int nkernels)
{
  memset(f, 0, sizeof *f);
  for (int i = 0; i < 4; i++) {
    f->kernels[i] = (khost_kernel){.struct_size = sizeof(khost_kernel),
                                   .op = "copy_transpose",
                                   .device_type = KHOST_DEVICE_CPU,
                                   .run = run_stub};
    f->list[i] = &f->kernels[i];
  }
  f->d = (khost_plugin){.magic = KHOST_PLUGIN_MAGIC,
                        .abi_major = KHOST_ABI_MAJOR,
                        .abi_minor = KHOST_ABI_MINOR,
                        .struct_size = sizeof(khost_plugin),
                        .name = "unit",
                        .version = "1.0",
                        .language = "c",
                        .description = "descriptor test",
                        .nkernels = nkernels,
                        .kernels = f->list};
}

static khost__load_stage check(fixture *f)
{
  khost__descriptor_progress at;
  return khost__descriptor_check(&f->d, &at, f->why, sizeof f->why);
}

/* size bytes of c, with a NUL at the end only when terminated: a buffer of
 * exactly the bytes a string has. Caller frees. */
static char *text_of(size_t size, char c, int terminated)
{
  char *s = malloc(size);
  cr_assert_not_null(s);
  memset(s, c, size);
  if (terminated) s[size - 1] = '\0';
  return s;
}

Test(descriptor, a_good_descriptor_passes)
{
  fixture f;
  make_good(&f, 1);
  cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "%s", f.why);
}

Test(descriptor, a_name_without_its_nul_is_read_up_to_one_past_the_longest_name_only)
{
  fixture f;
  make_good(&f, 1);
  char *name = text_of(KHOST_PLUGIN_NAME_MAX + 1, 'a', 0);
  f.d.name = name;
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  char want[128];
  snprintf(want, sizeof want, "plugin name '%.*s' is longer than 63 characters", KHOST_PLUGIN_NAME_MAX + 1,
           name);
  cr_expect_str_eq(f.why, want);
  free(name);
  name = text_of(KHOST_PLUGIN_NAME_MAX + 1, 'a', 1);
  f.d.name = name;
  cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "63 characters is a good name: %s", f.why);
  free(name);
}

Test(descriptor, an_op_without_its_nul_is_refused_after_the_longest_op_name)
{
  fixture f;
  make_good(&f, 2);
  char *op = text_of(KHOST__OP_NAME_MAX + 1, 'o', 0);
  f.kernels[1].op = op;
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(f.why, "kernel 1 has an op name longer than 63 characters");
  free(op);
  op = text_of(KHOST__OP_NAME_MAX + 1, 'o', 1);
  f.kernels[1].op = op;
  cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "a 63-character op loads: %s", f.why);
  free(op);
}

Test(descriptor, version_language_and_description_are_bounded_too)
{
  static const char *const names[] = {"version", "language", "description"};
  for (int t = 0; t < 3; t++) {
    fixture f;
    make_good(&f, 1);
    char *text = text_of(KHOST__PLUGIN_TEXT_MAX + 1, 'v', 0);
    const char **field[] = {&f.d.version, &f.d.language, &f.d.description};
    *field[t] = text;
    cr_expect_eq(check(&f), KHOST__STAGE_DESCRIPTOR, "%s", names[t]);
    char want[128];
    snprintf(want, sizeof want, "plugin 'unit' has a %s longer than 255 characters", names[t]);
    cr_expect_str_eq(f.why, want);
    free(text);
    text = text_of(KHOST__PLUGIN_TEXT_MAX + 1, 'v', 1);
    *field[t] = text;
    cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "a %s of 255 characters is good: %s", names[t], f.why);
    *field[t] = NULL;
    cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "no %s is good: %s", names[t], f.why);
    free(text);
  }
}

/* The kernels are taken in order: the first kernel that repeats an earlier one's
 * (op, device) is the one refused, whichever clash sorts first. */
Test(descriptor, the_first_repeated_kernel_in_order_is_the_duplicate)
{
  fixture f;
  make_good(&f, 4);
  f.kernels[1].op = "softmax_online";
  f.kernels[2].op = "softmax_online";
  f.kernels[3].op = "copy_transpose";
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(f.why, "duplicate op 'softmax_online' for one device in plugin 'unit'");
  f.kernels[2].device_type = KHOST_DEVICE_CUDA;
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(f.why, "duplicate op 'copy_transpose' for one device in plugin 'unit'");
  f.kernels[3].device_type = KHOST_DEVICE_CUDA;
  cr_expect_eq(check(&f), KHOST__STAGE_COUNT, "one op on two devices is two kernels: %s", f.why);
}

Test(descriptor, a_bad_kernel_before_a_clash_is_the_problem_and_a_clash_before_it_too)
{
  fixture f;
  make_good(&f, 4);
  f.kernels[1].op = "reduce_sum";
  f.list[2] = NULL; /* kernel 3 repeats kernel 0, after the NULL */
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(f.why, "kernel 2 is NULL");
  f.kernels[1].op = "copy_transpose";
  cr_assert_eq(check(&f), KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(f.why, "duplicate op 'copy_transpose' for one device in plugin 'unit'");
}

/* What a check that cannot read part of a descriptor reports, from a child. */
typedef struct unreadable_case {
  const char *what;
  khost__load_stage stage;
  const char *reason; /* the start of the reason */
  int hint;           /* whether it asks about nkernels */
} unreadable_case;

/* An address that is never mapped: the zero page. */
#define NOWHERE ((void *)16)

static void expect_unreadable(const khost_plugin *d, const unreadable_case *c)
{
  khost__load_stage stage = KHOST__STAGE_COUNT;
  char why[1024] = "";
  khost__err err;
  cr_assert_eq(khost__descriptor_check_isolated(d, &stage, why, sizeof why, &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(stage, c->stage, "%s: stage %s", c->what, khost__load_stage_name(stage));
  cr_expect_eq(strncmp(why, c->reason, strlen(c->reason)), 0, "%s: reason '%s' does not start with '%s'",
               c->what, why, c->reason);
  cr_expect(strstr(why, "(checking it in a child process: "), "%s: %s", c->what, why);
  cr_expect_eq(strstr(why, "is nkernels larger than the kernels array?") != NULL, c->hint, "%s: %s", c->what,
               why);
}

Test(descriptor, a_descriptor_that_cannot_be_read_is_refused_with_what_was_being_read)
{
  fixture f;
  make_good(&f, 2);
  expect_unreadable(NOWHERE,
                    &(unreadable_case){"header", KHOST__STAGE_MAGIC, "the descriptor cannot be read", 0});
  f.d.name = NOWHERE;
  expect_unreadable(&f.d,
                    &(unreadable_case){"name", KHOST__STAGE_DESCRIPTOR, "the plugin name cannot be read", 0});
  make_good(&f, 2);
  f.d.description = NOWHERE;
  expect_unreadable(
      &f.d, &(unreadable_case){"description", KHOST__STAGE_DESCRIPTOR, "its description cannot be read", 0});
  make_good(&f, 2);
  f.d.kernels = NOWHERE;
  expect_unreadable(&f.d, &(unreadable_case){"array", KHOST__STAGE_DESCRIPTOR,
                                             "entry 0 of the kernels array (nkernels 2) cannot be read", 0});
  make_good(&f, 2);
  f.list[1] = NOWHERE;
  expect_unreadable(&f.d,
                    &(unreadable_case){"kernel", KHOST__STAGE_DESCRIPTOR, "kernel 1 of 2 cannot be read", 1});
}

Test(descriptor, a_check_in_a_child_returns_the_childs_verdict)
{
  fixture f;
  make_good(&f, 2);
  khost__load_stage stage = KHOST__STAGE_DUPLICATE;
  char why[1024] = "";
  khost__err err;
  cr_assert_eq(khost__descriptor_check_isolated(&f.d, &stage, why, sizeof why, &err), KHOST__OK, "%s",
               err.msg);
  cr_expect_eq(stage, KHOST__STAGE_DESCRIPTOR);
  cr_expect_str_eq(why, "duplicate op 'copy_transpose' for one device in plugin 'unit'");
  f.kernels[1].device_type = KHOST_DEVICE_CUDA;
  cr_assert_eq(khost__descriptor_check_isolated(&f.d, &stage, why, sizeof why, &err), KHOST__OK, "%s",
               err.msg);
  cr_expect_eq(stage, KHOST__STAGE_COUNT, "%s", why);
}
