/* core/whole_number.c: the one rule every whole-number flag and Slurm variable is read by. */
#include <criterion/criterion.h>
#include <limits.h>

#include "whole_number.h"

Test(whole_number, decimal_digits_in_range_are_read)
{
  long v = -7;
  cr_expect(khost__whole_number("0", 0, 10, &v) && v == 0);
  cr_expect(khost__whole_number("10", 0, 10, &v) && v == 10, "hi itself is in range");
  cr_expect(khost__whole_number("08", 0, 10, &v) && v == 8, "a leading zero is decimal, not octal");
  cr_expect(khost__whole_number("0000000000000000000000000005", 0, 10, &v) && v == 5);
}

Test(whole_number, a_sign_blank_other_base_or_empty_text_is_refused)
{
  const char *bad[] = {"", "+1", "-1", "-0", " 1", "1 ", "\t1", "1\n", "0x1", "1e2", "1.0", "1,2", "1_0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    long v = -7;
    cr_expect_not(khost__whole_number(bad[i], 0, 100, &v), "'%s' is refused", bad[i]);
    cr_expect_eq(v, -7, "'%s' leaves *out as it was", bad[i]);
  }
}

Test(whole_number, out_of_range_or_of_a_long_is_refused)
{
  long v = -7;
  cr_expect_not(khost__whole_number("11", 0, 10, &v));
  cr_expect_not(khost__whole_number("0", 1, 10, &v), "below lo");
  cr_expect_not(khost__whole_number("9223372036854775808", 0, LONG_MAX, &v), "one past LONG_MAX");
  cr_expect_not(khost__whole_number("99999999999999999999", 0, LONG_MAX, &v));
  cr_expect_eq(v, -7);
  cr_expect(khost__whole_number("9223372036854775807", 0, LONG_MAX, &v) && v == LONG_MAX);
}
