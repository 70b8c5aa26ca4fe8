/* The row: status names, and settling a measurement (status and message). */
#include <criterion/criterion.h>
#include <string.h>

#include "result.h"

Test(result, settling_sets_the_status_and_formats_the_message)
{
  khost__measurement m;
  memset(&m, 0, sizeof m);
  khost__measurement_settle(&m, KHOST__ROW_FAIL, "%d of %s", 3, "six");
  cr_expect_eq(m.status, KHOST__ROW_FAIL);
  cr_expect_str_eq(m.message, "3 of six");
  khost__measurement_settle(&m, KHOST__ROW_PASS, "%s", "");
  cr_expect_eq(m.status, KHOST__ROW_PASS);
  cr_expect_str_eq(m.message, "", "a new settle replaces the message");
}

Test(result, a_long_message_is_cut_to_the_row_and_ends_there)
{
  khost__measurement m;
  memset(&m, 'x', sizeof m);
  char longer[2 * sizeof m.message];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  khost__measurement_settle(&m, KHOST__ROW_ERROR, "%s", longer);
  cr_expect_eq(strlen(m.message), sizeof m.message - 1);
  cr_expect_eq(m.message[0], 'a');
}

Test(result, status_names_and_an_out_of_range_status)
{
  cr_expect_str_eq(khost__row_status_name(KHOST__ROW_TIMEOUT), "TIMEOUT");
  cr_expect_str_eq(khost__row_status_name(KHOST__ROW_STATUS_COUNT), "?");
}
