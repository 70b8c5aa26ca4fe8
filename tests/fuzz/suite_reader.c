/* libFuzzer target: the suite reader through its entry point, khost__suite_load,
 * on any bytes. Each input is the content of an anonymous in-memory file
 * (memfd), read through its /proc/self/fd path: the target writes no file to any
 * file system, and runs at memory speed rather than at the disk's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "suite.h"

static int input_fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  input_fd = memfd_create("suite.ini", MFD_CLOEXEC);
  if (input_fd < 0) {
    perror("fuzz_suite_reader: memfd_create");
    exit(EXIT_FAILURE);
  }
  snprintf(path, sizeof path, "/proc/self/fd/%d", input_fd);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* An input that cannot be stored is the machine's failure, not the reader's: stop. */
  if (ftruncate(input_fd, 0) != 0 || pwrite(input_fd, data, size, 0) != (ssize_t)size) {
    perror("fuzz_suite_reader: storing the input");
    abort();
  }
  khost__suite suite = {0};
  khost__err err;
  khost__suite_load(path, &suite, &err);
  khost__suite_free(&suite);
  return 0;
}
