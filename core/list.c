#include "list.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The next item of *csv, blanks trimmed, as its start and length, advancing
 * *csv past it; empty items are skipped. False when none is left. */
static bool next_span(const char **csv, const char **start, size_t *len)
{
  while (**csv) {
    *start = *csv + strspn(*csv, " \t");
    *len = strcspn(*start, ",");
    *csv = *start + *len + ((*start)[*len] == ',');
    while (*len > 0 && ((*start)[*len - 1] == ' ' || (*start)[*len - 1] == '\t')) --*len;
    if (*len > 0) return true;
  }
  return false;
}

int khost__list_check_name(const char *flag, const char *name, size_t len, khost__err *err)
{
  if (len <= KHOST__LIST_ITEM_MAX) return KHOST__OK;
  return khost__errorf(err, KHOST__E_CONFIG, "--%s: '%.40s...' is longer than %d characters", flag, name,
                       KHOST__LIST_ITEM_MAX);
}

int khost__list_check(const char *flag, const char *csv, khost__err *err)
{
  const char *start;
  size_t len;
  int rc = KHOST__OK;
  while (rc == KHOST__OK && next_span(&csv, &start, &len)) rc = khost__list_check_name(flag, start, len, err);
  return rc;
}

bool khost__list_next(const char **csv, char *item, size_t n)
{
  const char *start;
  size_t len;
  if (!next_span(csv, &start, &len)) return false;
  assert(len < n && "a list item longer than KHOST__LIST_ITEM_MAX: the list was not checked");
  snprintf(item, n, "%.*s", (int)len, start);
  return true;
}

bool khost__list_has(const char *csv, const char *name)
{
  char item[KHOST__LIST_ITEM_MAX + 1];
  while (csv && khost__list_next(&csv, item, sizeof item))
    if (!strcmp(item, name)) return true;
  return false;
}
