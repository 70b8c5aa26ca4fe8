/* Tests for core/compare_text.c: khost compare's lines are laid out in UTF-8
 * characters, not bytes: a name is padded by its characters, and a lost row's
 * message is cut after 80 characters, never inside one; a compared row's notes
 * come in docs/REPORTS.md's order. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_text.h"

/* What khost__compare_print writes for c; the caller frees it. */
static char *printed(const khost__comparison *c)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  cr_assert_not_null(out);
  khost__err err = {{0}};
  cr_assert_eq(khost__compare_print(out, c, 5, &err), KHOST__OK, "%s", err.msg);
  fclose(out);
  return text;
}

Test(compare_text, a_name_is_padded_by_its_characters)
{
  khost__compared row = {.key = {"αβγ", "b", "cpu"}, .base_s = 1e-6, .run_s = 1e-6, .verdict = KHOST__SAME};
  khost__comparison c = {.rows = &row, .nrows = 1};
  char *text = printed(&c);
  /* The case column is 36 characters and a blank: 33 blanks after 3 characters (6 bytes). */
  char want[64];
  snprintf(want, sizeof want, "\nαβγ%33s b ", "");
  cr_expect_not_null(strstr(text, want), "%s", text);
  free(text);
}

Test(compare_text, a_lost_message_is_cut_after_80_characters)
{
  char message[2 * 100 + 1] = "";
  for (int i = 0; i < 100; i++) strcat(message, "é"); /* two bytes each */
  khost__lost lost = {.key = {"case", "b", "cpu"}, .status = "FAIL", .message = message};
  khost__comparison c = {.lost = &lost, .nlost = 1};
  char *text = printed(&c);
  const char *shown = strstr(text, "LOST: PASS -> FAIL ");
  cr_assert_not_null(shown, "%s", text);
  shown += strlen("LOST: PASS -> FAIL ");
  cr_expect_eq(strcspn(shown, "\n"), 160, "80 characters of 2 bytes: %s", text);
  cr_expect_eq(strncmp(shown, message, 160), 0, "%s", text);
  free(text);
}

/* A lost row without a message (one missing from RUN) ends at its status: no trailing blank. */
Test(compare_text, a_missing_row_s_line_ends_at_its_status)
{
  khost__lost lost = {.key = {"case", "b", "cpu"}, .status = "missing", .message = ""};
  khost__comparison c = {.lost = &lost, .nlost = 1};
  char *text = printed(&c);
  cr_expect_not_null(strstr(text, "LOST: PASS -> missing\n"), "%s", text);
  free(text);
}

/* The notes in REPORTS.md's order: variant, SM clock, timer, and %sol last, each
 * report's as the table writes it ("-" for none). */
Test(compare_text, the_sol_note_comes_last)
{
  khost__compared row = {.key = {"case", "b", "0"},
                         .base_s = 2e-6,
                         .run_s = 1e-6,
                         .verdict = KHOST__FAST,
                         .base_variant = "v1",
                         .run_variant = "v2",
                         .base_mhz = 1980,
                         .run_mhz = 1755,
                         .base_timer = "events",
                         .run_timer = "cupti",
                         .base_sol = 0,
                         .run_sol = 0.947};
  khost__comparison c = {.rows = &row, .nrows = 1};
  char *text = printed(&c);
  cr_expect_not_null(strstr(text,
                            "FAST (variant v1 -> v2) (SM clock 1980 -> 1755 MHz) (timer events -> cupti) "
                            "(%sol - -> 94.7%)\n"),
                     "%s", text);
  free(text);
}
