/* Internal statuses: their meanings, and the message every fallible function writes. */
#include <criterion/criterion.h>
#include <string.h>

#include "error.h"

Test(error, every_status_has_its_own_meaning)
{
  for (int s = 0; s < KHOST__STATUS_COUNT; s++) {
    const char *meaning = khost__strerror(s);
    cr_assert_not_null(meaning, "status %d", s);
    cr_expect(meaning[0], "status %d has an empty meaning", s);
    cr_expect_str_neq(meaning, "unknown status", "status %d has no meaning in khost__strerror", s);
    for (int t = 0; t < s; t++)
      cr_expect_str_neq(meaning, khost__strerror(t), "statuses %d and %d read the same", t, s);
  }
}

Test(error, a_few_meanings_read_as_documented)
{
  cr_expect_str_eq(khost__strerror(KHOST__OK), "success");
  cr_expect_str_eq(khost__strerror(KHOST__E_CONFIG), "usage or configuration error");
  cr_expect_str_eq(khost__strerror(KHOST__E_DECLINED), "declined by supports()");
  cr_expect_str_eq(khost__strerror(KHOST__E_CUDA_BROKEN), "CUDA context broken");
}

Test(error, a_value_outside_the_enum_is_unknown)
{
  const int outside[] = {-1, KHOST__STATUS_COUNT, 75, 1000};
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
    cr_expect_str_eq(khost__strerror(outside[i]), "unknown status", "status %d", outside[i]);
}

Test(error, errorf_formats_the_message_and_returns_the_status)
{
  khost__err err;
  cr_expect_eq(khost__errorf(&err, KHOST__E_IO, "%s: %d", "file", 7), KHOST__E_IO);
  cr_expect_str_eq(err.msg, "file: 7");
  cr_expect_eq(khost__errorf(NULL, KHOST__E_NOMEM, "nowhere"), KHOST__E_NOMEM, "no buffer, the status alone");
}

Test(error, errorf_truncates_a_long_message)
{
  khost__err err;
  char longer[2 * sizeof err.msg];
  memset(longer, 'x', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  khost__errorf(&err, KHOST__E_FAIL, "%s", longer);
  cr_expect_eq(strlen(err.msg), sizeof err.msg - 1);
}
