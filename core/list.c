#include "list.h"

#include <stdio.h>
#include <string.h>

bool khost__list_next(const char **csv, char *item, size_t n)
{
  while (**csv) {
    const char *start = *csv + strspn(*csv, " \t");
    size_t len = strcspn(start, ",");
    *csv = start + len + (start[len] == ',');
    while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t')) len--;
    if (len == 0) continue;
    snprintf(item, n, "%.*s", (int)len, start);
    return true;
  }
  return false;
}

bool khost__list_has(const char *csv, const char *name)
{
  char item[256];
  while (csv && khost__list_next(&csv, item, sizeof item))
    if (!strcmp(item, name)) return true;
  return false;
}
