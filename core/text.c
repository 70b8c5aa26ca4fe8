#include "text.h"

#include <stdint.h>
#include <string.h>

/* The same sequences jansson refuses, so that a clean text is always a JSON string. */
size_t khost__text_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
  size_t len = s[0] < 0x80                    ? 1
               : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                              : 0;
  static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (len == 0 || len > n) return 0;
  uint32_t v = len == 1 ? s[0] : s[0] & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = v << 6 | (s[i] & 0x3F);
  }
  if (v < smallest[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

static int is_utf8(const char *s, size_t n)
{
  uint32_t cp;
  for (size_t i = 0, len; i < n; i += len)
    if ((len = khost__text_utf8_sequence((const unsigned char *)s + i, n - i, &cp)) == 0) return 0;
  return 1;
}

static int is_control(uint32_t cp)
{
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

void khost__text_clean(char *s, size_t size, khost__text_kind kind)
{
  size_t n = strnlen(s, size), out = 0;
  if (!is_utf8(s, n))
    for (size_t i = 0; i < n; i++)
      if ((unsigned char)s[i] >= 0x80) s[i] = '?';
  /* Now valid UTF-8: each sequence is copied, or one '?' stands for it. */
  for (size_t i = 0, len; i < n; i += len) {
    uint32_t cp = 0;
    len = khost__text_utf8_sequence((const unsigned char *)s + i, n - i, &cp);
    if (is_control(cp) && !(cp == '\n' && kind == KHOST__TEXT_LINES)) {
      s[out++] = '?';
      continue;
    }
    memmove(s + out, s + i, len);
    out += len;
  }
  if (out < n) s[out] = '\0';
}

#define CLEAN_LINE(field) khost__text_clean((field), sizeof(field), KHOST__TEXT_LINE)

void khost__text_clean_row(khost__row *row)
{
  CLEAN_LINE(row->id.case_name);
  CLEAN_LINE(row->id.op);
  CLEAN_LINE(row->id.params);
  CLEAN_LINE(row->id.backend);
  CLEAN_LINE(row->id.device);
  CLEAN_LINE(row->id.device_name);
  CLEAN_LINE(row->id.device_uuid);
  CLEAN_LINE(row->measured.variant);
  khost__text_clean(row->measured.message, sizeof row->measured.message, KHOST__TEXT_LINES);
  for (int i = 0; i < KHOST__MAX_MISMATCHES; i++) CLEAN_LINE(row->measured.check.shown[i].where);
}

void khost__text_clean_run_info(khost__run_info *info)
{
  CLEAN_LINE(info->khost_version);
  CLEAN_LINE(info->host);
  CLEAN_LINE(info->cpu);
  CLEAN_LINE(info->device);
  CLEAN_LINE(info->suite);
  CLEAN_LINE(info->command);
  CLEAN_LINE(info->date);
  CLEAN_LINE(info->baseline);
  for (int i = 0; i < info->ndevices && i < KHOST__DEVICES_MAX; i++) {
    CLEAN_LINE(info->devices[i].name);
    CLEAN_LINE(info->devices[i].gpu.uuid);
  }
}
