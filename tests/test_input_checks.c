/* plugins/common/input_checks.c: the rules every plugin applies to a call
 * before touching its memory, and the "<op>: <reason>" messages. */
#include <criterion/criterion.h>
#include <string.h>

#include "input_checks.h"
#include "support/hand_call.h"

/* A call of op "probe" with one [4, 8] fp32 input and params n = 8, tiny = -5. */
static void probe_call(hand_call *c)
{
  hand_call_init(c, "probe", 1);
  hand_param(c, "n", 8);
  hand_param(c, "tiny", -5);
  hand_tensor(c, false, "x", KHOST_DEVICE_CUDA, FP32, NULL, 2, (int64_t[]){4, 8});
}

static int check_x(hand_call *c)
{
  return khost__input_tensor(&c->in, &c->inputs[0], "input x", KHOST_DEVICE_CUDA, FP32, 2, (int64_t[]){4, 8});
}

Test(input_checks, fail_prefixes_the_op_and_keeps_the_status)
{
  hand_call c;
  probe_call(&c);
  cr_expect_eq(khost__input_fail(&c.in, KHOST_STATUS_UNSUPPORTED, "no %s", "way"), KHOST_STATUS_UNSUPPORTED);
  cr_expect_str_eq(c.error, "probe: no way");
  c.in.op = NULL;
  khost__input_fail(&c.in, KHOST_STATUS_INTERNAL, "x");
  cr_expect_str_eq(c.error, "(unnamed op): x");
  c.in.error_size = 0;
  cr_expect_eq(khost__input_fail(&c.in, KHOST_STATUS_INTERNAL, "not written"), KHOST_STATUS_INTERNAL);
  cr_expect_str_eq(c.error, "(unnamed op): x", "a zero-size error buffer must not be written");
}

Test(input_checks, params_must_be_present_and_in_range)
{
  hand_call c;
  probe_call(&c);
  int64_t v = 0;
  cr_expect_eq(khost__input_param(&c.in, "n", 1, 8, &v), KHOST_STATUS_OK);
  cr_expect_eq(v, 8);
  cr_expect_eq(khost__input_param(&c.in, "n", 1, 7, &v), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "parameter n = 8 outside [1, 7]"), "%s", c.error);
  cr_expect_eq(khost__input_param(&c.in, "tiny", 1, 100, &v), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect_eq(khost__input_param(&c.in, "absent", 1, 100, &v), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect_str_eq(c.error, "probe: parameter absent is missing");
}

Test(input_checks, counts_and_struct_sizes)
{
  hand_call c;
  probe_call(&c);
  cr_expect_eq(khost__input_counts(&c.in, 1, 0), KHOST_STATUS_OK, "%s", c.error);
  cr_expect_eq(khost__input_counts(&c.in, 1, 1), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "expected 1 inputs and 1 outputs, got 1 and 0"), "%s", c.error);
  c.inputs[0].struct_size = 8;
  cr_expect_eq(khost__input_counts(&c.in, 1, 0), KHOST_STATUS_INVALID_ARGUMENT, "a tensor array too old");
  c.inputs[0].struct_size = sizeof(khost_tensor);
  c.in.struct_size = 16;
  cr_expect_eq(khost__input_counts(&c.in, 1, 0), KHOST_STATUS_INVALID_ARGUMENT, "a khost_input too old");
}

Test(input_checks, a_tensor_is_checked_field_by_field)
{
  hand_call c;
  probe_call(&c);
  cr_expect_eq(check_x(&c), KHOST_STATUS_OK, "%s", c.error);
  khost_tensor *x = &c.inputs[0];
  x->device_type = KHOST_DEVICE_CPU;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "probe: input x: device type"), "%s", c.error);
  x->device_type = KHOST_DEVICE_CUDA;
  x->dtype.lanes = 2;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT, "two lanes");
  x->dtype.lanes = 1;
  x->ndim = 1;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT, "ndim");
  x->ndim = 2;
  c.shapes[0][1] = 9;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "dimension 1 is 9, the parameters imply 8"), "%s", c.error);
  c.shapes[0][1] = 8;
  c.strides[0][0] = 16;
  cr_expect_eq(check_x(&c), KHOST_STATUS_UNSUPPORTED, "a padded row is declined, not refused");
  c.strides[0][0] = 8;
  x->nbytes -= 1;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "storage of 127 bytes, the shape needs 128"), "%s", c.error);
  x->nbytes += 1;
  x->data = NULL;
  cr_expect_eq(check_x(&c), KHOST_STATUS_INVALID_ARGUMENT, "no data");
  x->data = (void *)HAND_FAKE_BASE;
  x->strides = NULL;
  cr_expect_eq(check_x(&c), KHOST_STATUS_OK, "strides absent mean contiguous: %s", c.error);
}

Test(input_checks, packed_rows_must_end_on_a_byte)
{
  const khost_dtype e2m1 = {KHOST_DTYPE_FLOAT4_E2M1FN, 4, 1};
  hand_call c;
  hand_call_init(&c, "probe", 1);
  hand_tensor(&c, false, "a", KHOST_DEVICE_CUDA, e2m1, NULL, 2, (int64_t[]){2, 3});
  cr_expect_eq(khost__input_tensor(&c.in, &c.inputs[0], "a", KHOST_DEVICE_CUDA, e2m1, 2, (int64_t[]){2, 3}),
               KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "splits a byte"), "%s", c.error);
}

Test(input_checks, alignment_of_every_pointer)
{
  const void *aligned[2] = {(void *)0x1000, (void *)0x2010};
  cr_expect(khost__input_aligned(aligned, 2, 16));
  const void *off[2] = {(void *)0x1000, (void *)0x2008};
  cr_expect_not(khost__input_aligned(off, 2, 16));
  cr_expect(khost__input_aligned(off, 2, 8));
}
