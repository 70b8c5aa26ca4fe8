/* Tests for core/text.c: text from outside khost is made safe for every report
 * in place, by one rule. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "text.h"

struct clean_case {
  const char *in, *out;
  khost__text_kind kind;
};

Test(text, each_report_gets_printable_text)
{
  const struct clean_case cases[] = {
      {"plain words, 12.5 us", "plain words, 12.5 us", KHOST__TEXT_LINE},
      {"UTF-8 stays: \xc2\xb5s, \xe2\x80\x94, \xf0\x9f\x99\x82",
       "UTF-8 stays: \xc2\xb5s, \xe2\x80\x94, \xf0\x9f\x99\x82", KHOST__TEXT_LINE},
      /* Not UTF-8: the whole text becomes ASCII, as the JSON report has always written it. */
      {"bad \xff\xfe byte, \xc2\xb5s", "bad ?? byte, ??s", KHOST__TEXT_LINE},
      {"\xc0\xaf overlong, \xed\xa0\x80 surrogate", "?? overlong, ??? surrogate", KHOST__TEXT_LINE},
      {"cut \xe2\x80", "cut ??", KHOST__TEXT_LINE},
      /* Control characters: escape sequences, carriage return, tab, bell, DEL, C1. */
      {"\x1b[31mred\x1b[0m", "?[31mred?[0m", KHOST__TEXT_LINE},
      {"a\tb\rc\x07\x7f d\xc2\x9b"
       "e",
       "a?b?c?? d?e", KHOST__TEXT_LINE},
      {"line one\nline two", "line one?line two", KHOST__TEXT_LINE},
      {"line one\nline two\r\n", "line one\nline two?\n", KHOST__TEXT_LINES},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", cases[i].in);
    khost__text_clean(buf, sizeof buf, cases[i].kind);
    cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
  }
}

/* A field that crossed a pipe may fill its size without a NUL: it is cleaned up
 * to its size and left without one, no byte past it read or written. */
Test(text, a_field_without_its_nul_is_cleaned_to_its_size)
{
  enum { FIELD = 10 };
  char buf[FIELD + 1], after = 'Z';
  memcpy(buf,
         "abc\x1b"
         "defghi",
         FIELD);
  buf[FIELD] = after;
  khost__text_clean(buf, FIELD, KHOST__TEXT_LINE);
  cr_expect_eq(memcmp(buf, "abc?defghi", FIELD), 0, "%.10s", buf);
  cr_expect_eq(buf[FIELD], after);
}

/* A C1 control takes two bytes and leaves one '?': the text ends sooner. */
Test(text, a_shorter_text_ends_at_its_new_end)
{
  char buf[16] = "a\xc2\x9b"
                 "b";
  khost__text_clean(buf, sizeof buf, KHOST__TEXT_LINE);
  cr_expect_str_eq(buf, "a?b");
}

Test(text, a_row_s_message_keeps_its_lines_and_the_rest_is_one_line)
{
  khost__row r;
  memset(&r, 0, sizeof r);
  snprintf(r.measured.message, sizeof r.measured.message, "first\nsecond\x1b[2J");
  snprintf(r.measured.variant, sizeof r.measured.variant, "v1\nv2");
  snprintf(r.measured.check.shown[4].where, sizeof r.measured.check.shown[4].where, "c[\xff]");
  khost__text_clean_row(&r);
  cr_expect_str_eq(r.measured.message, "first\nsecond?[2J");
  cr_expect_str_eq(r.measured.variant, "v1?v2");
  cr_expect_str_eq(r.measured.check.shown[4].where, "c[?]");
}

Test(text, the_run_description_is_cleaned)
{
  khost__run_info info;
  memset(&info, 0, sizeof info);
  snprintf(info.suite, sizeof info.suite, "suites/\x1b[2Jsmoke.ini");
  snprintf(info.command, sizeof info.command, "khost --case \xff");
  khost__text_clean_run_info(&info);
  cr_expect_str_eq(info.suite, "suites/?[2Jsmoke.ini");
  cr_expect_str_eq(info.command, "khost --case ?");
}
