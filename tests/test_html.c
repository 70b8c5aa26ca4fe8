/* Tests for core/html.c: every character that could open markup or end an
 * attribute is written as a reference, the rest as it is. */
#include <criterion/criterion.h>

#include <stdlib.h>

#include "html.h"

static char *written(void (*write)(FILE *, const char *), const char *s)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  write(f, s);
  fclose(f);
  return buf;
}

static void printf_of(FILE *f, const char *s)
{
  khost__html_printf(f, "[%s]", s);
}

Test(html, markup_becomes_text)
{
  char *s = written(khost__html_text, "<script>a && b</script> \"x\" 'y' ü");
  cr_expect_str_eq(s, "&lt;script&gt;a &amp;&amp; b&lt;/script&gt; &quot;x&quot; &#39;y&#39; ü");
  free(s);
}

Test(html, formatted_text_is_escaped_too)
{
  char *s = written(printf_of, "<b>");
  cr_expect_str_eq(s, "[&lt;b&gt;]");
  free(s);
}
