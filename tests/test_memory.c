/* The host memory a worker may still take (core/memory.c): what is read, the
 * limits that count, and the message of a shortage. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "memory.h"

#define GIB ((size_t)1 << 30)

/* MemAvailable from /proc/meminfo, in bytes. */
static size_t mem_available(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  uint64_t kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1) break;
  if (f) fclose(f);
  cr_assert_gt(kb, 0, "no MemAvailable in /proc/meminfo");
  return (size_t)kb * 1024;
}

Test(memory, what_is_available_is_known_and_no_more_than_mem_available)
{
  size_t available = khost__memory_available();
  cr_expect_gt(available, 0);
  /* The machine may free some memory between the two reads, never much. */
  cr_expect_leq(available, mem_available() + 64 * ((size_t)1 << 20), "%zu", available);
}

Test(memory, a_need_that_fits_passes_and_one_that_does_not_names_both_amounts)
{
  khost__err err = {""};
  cr_expect_eq(khost__memory_fits(GIB, GIB, "host", "in", &err), KHOST__OK);
  cr_expect_eq(khost__memory_fits(12 * GIB, 7 * GIB + GIB / 2, "host", "in", &err), KHOST__E_NOMEM);
  cr_expect_str_eq(err.msg, "not enough host memory for in: 12.0 GiB needed, 7.5 GiB available");
  cr_expect_eq(khost__memory_fits(3 << 20, 100, "CUDA device", "out", &err), KHOST__E_NOMEM);
  cr_expect_str_eq(err.msg, "not enough CUDA device memory for out: 3.0 MiB needed, 100 bytes available");
}

Test(memory, the_check_refuses_more_than_is_available)
{
  khost__err err = {""};
  cr_expect_eq(khost__memory_check(4096, "a page", &err), KHOST__OK, "%s", err.msg);
  cr_expect_eq(khost__memory_check(SIZE_MAX / 2, "everything", &err), KHOST__E_NOMEM);
  cr_expect_not_null(strstr(err.msg, "not enough host memory for everything: "), "%s", err.msg);
}

/* The process's address-space limit binds as much as the machine's memory. */
Test(memory, the_address_space_limit_counts)
{
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("AddressSanitizer reserves more address space than any RLIMIT_AS this test could set");
#else
  FILE *f = fopen("/proc/self/statm", "r");
  uint64_t pages = 0;
  cr_assert(f && fscanf(f, "%" SCNu64, &pages) == 1);
  fclose(f);
  size_t used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE), spare = 256 * ((size_t)1 << 20);
  struct rlimit limit = {used + spare, used + spare};
  cr_assert_eq(setrlimit(RLIMIT_AS, &limit), 0);
  cr_expect_leq(khost__memory_available(), spare);
  khost__err err = {""};
  cr_expect_eq(khost__memory_check(2 * spare, "in", &err), KHOST__E_NOMEM);
#endif
}
