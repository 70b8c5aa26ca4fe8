/* The command line's comma-separated name lists. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "list.h"

Test(list, names_are_trimmed_and_empty_items_skipped)
{
  const char *csv = " cute,, triton_aot\t, ,reference ", *want[] = {"cute", "triton_aot", "reference"};
  char item[32];
  for (size_t i = 0; i < 3; i++) {
    cr_assert(khost__list_next(&csv, item, sizeof item), "item %zu missing", i);
    cr_expect_str_eq(item, want[i]);
  }
  cr_expect_not(khost__list_next(&csv, item, sizeof item), "no fourth name");
  const char *blank = " , \t,";
  cr_expect_not(khost__list_next(&blank, item, sizeof item), "a list of blanks names nothing");
}

Test(list, has_matches_whole_names_only)
{
  cr_expect(khost__list_has("cute, triton_aot", "triton_aot"));
  cr_expect_not(khost__list_has("cute, triton_aot", "triton"), "a prefix is not the name");
  cr_expect_not(khost__list_has("cute_x", "cute"));
  cr_expect_not(khost__list_has(NULL, "cute"), "no list holds nothing");
}

Test(list, an_item_longer_than_the_limit_is_refused_naming_the_flag)
{
  char csv[2 * KHOST__LIST_ITEM_MAX], item[KHOST__LIST_ITEM_MAX + 1];
  khost__err err = {{0}};
  /* The limit is on the name, blanks trimmed. */
  snprintf(csv, sizeof csv, "a,  %0*d\t,b", KHOST__LIST_ITEM_MAX, 7);
  cr_expect_eq(khost__list_check("case", csv, &err), KHOST__OK, "%s", err.msg);
  const char *p = csv;
  cr_expect(khost__list_next(&p, item, sizeof item) && khost__list_next(&p, item, sizeof item));
  cr_expect_eq(strlen(item), KHOST__LIST_ITEM_MAX, "an item at the limit is held whole");
  snprintf(csv, sizeof csv, "a,%0*d,b", KHOST__LIST_ITEM_MAX + 1, 7);
  cr_expect_eq(khost__list_check("op", csv, &err), KHOST__E_CONFIG);
  cr_expect_str_eq(err.msg,
                   "--op: '0000000000000000000000000000000000000000...' is longer than 255 characters");
  cr_expect_eq(khost__list_check_name("baseline", "cute", 4, &err), KHOST__OK);
  cr_expect_eq(khost__list_check_name("baseline", csv + 2, KHOST__LIST_ITEM_MAX + 1, &err), KHOST__E_CONFIG);
  cr_expect(strstr(err.msg, "--baseline: '0000"), "%s", err.msg);
}
