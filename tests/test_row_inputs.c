/* plugins/common/row_inputs.c: the row-wise call every plugin validates alike. */
#include <criterion/criterion.h>
#include <string.h>

#include "row_inputs.h"
#include "support/hand_call.h"

Test(row_inputs, each_op_shape_and_dtype_opens)
{
  static const struct {
    const char *op;
    khost__rows_out out;
  } ops[] = {{"copy_transpose", KHOST__ROWS_OUT_TRANSPOSED},
             {"reduce_sum", KHOST__ROWS_OUT_REDUCED},
             {"softmax_online", KHOST__ROWS_OUT_SAME}};
  const khost_dtype dtypes[] = {FP16, BF16, FP32};
  const khost__rows_type types[] = {KHOST__ROWS_FP16, KHOST__ROWS_BF16, KHOST__ROWS_FP32};
  for (int o = 0; o < 3; o++)
    for (int d = 0; d < 3; d++) {
      hand_call c;
      hand_rows_call(&c, ops[o].op, KHOST_DEVICE_CPU, dtypes[d], 3, 5);
      khost__rows rows;
      cr_assert_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, ops[o].out, INT64_MAX, &rows), KHOST_STATUS_OK,
                   "%s: %s", ops[o].op, c.error);
      cr_expect_eq(rows.m, 3);
      cr_expect_eq(rows.n, 5);
      cr_expect_eq(rows.type, types[d]);
      cr_expect_eq(rows.element_bytes, dtypes[d].bits / 8);
      cr_expect_eq(rows.in, c.inputs[0].data);
      cr_expect_eq(rows.out, c.outputs[0].data);
    }
}

Test(row_inputs, the_output_shape_follows_the_op)
{
  hand_call c;
  hand_rows_call(&c, "softmax_online", KHOST_DEVICE_CPU, FP32, 3, 5);
  khost__rows rows;
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, KHOST__ROWS_OUT_TRANSPOSED, INT64_MAX, &rows),
               KHOST_STATUS_INVALID_ARGUMENT, "a [m, n] output is not a transpose's");
  cr_expect(strstr(c.error, "softmax_online: output out: dimension 0 is 3, the parameters imply 5"), "%s",
            c.error);
}

Test(row_inputs, declines_other_dtypes_and_wide_shapes)
{
  hand_call c;
  hand_rows_call(&c, "reduce_sum", KHOST_DEVICE_CPU, FP64, 3, 5);
  khost__rows rows;
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, KHOST__ROWS_OUT_REDUCED, INT64_MAX, &rows),
               KHOST_STATUS_UNSUPPORTED);
  cr_expect(strstr(c.error, "(fp16, bf16 and fp32 are)"), "%s", c.error);
  hand_rows_call(&c, "reduce_sum", KHOST_DEVICE_CPU, FP32, 3, 5);
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, KHOST__ROWS_OUT_REDUCED, 4, &rows),
               KHOST_STATUS_UNSUPPORTED, "n = 5 above a kernel's limit of 4");
  cr_expect(strstr(c.error, "each must be <= 4"), "%s", c.error);
}

Test(row_inputs, refuses_mixed_dtypes_and_the_wrong_device)
{
  hand_call c;
  hand_rows_call(&c, "copy_transpose", KHOST_DEVICE_CPU, FP16, 3, 5);
  c.outputs[0].dtype = BF16;
  khost__rows rows;
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, KHOST__ROWS_OUT_TRANSPOSED, INT64_MAX, &rows),
               KHOST_STATUS_INVALID_ARGUMENT);
  hand_rows_call(&c, "copy_transpose", KHOST_DEVICE_CPU, FP16, 3, 5);
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CUDA, KHOST__ROWS_OUT_TRANSPOSED, INT64_MAX, &rows),
               KHOST_STATUS_INVALID_ARGUMENT);
  c.in.nparams = 1;
  cr_expect_eq(khost__rows_open(&c.in, KHOST_DEVICE_CPU, KHOST__ROWS_OUT_TRANSPOSED, INT64_MAX, &rows),
               KHOST_STATUS_INVALID_ARGUMENT);
  cr_expect(strstr(c.error, "parameter n is missing"), "%s", c.error);
}
