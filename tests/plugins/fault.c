/* Misbehaving CPU plugins, one per fault, picked by -DFAULT_<KIND> (see
 * tests/meson.build, which builds fault_<kind>.so from this file). Each is a
 * correct copy_transpose (and, for wrong_block, nvfp4_gemv) with exactly one
 * defect, so a test can assert that khost reports that defect and nothing else. */
#include <signal.h>
#include <stdint.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../support/die_of_signal.h"
#include "formats.h"
#include "fixture_plugin.h"
#include "khost/ops.h"

#ifndef FAULT_NAME
#define FAULT_NAME "fault_free"
#endif

static void transpose(const khost_input *in, unsigned char *to)
{
  fixture_transpose(khost_tensor_at(in->inputs, 0), to);
}

#ifdef FAULT_HANG
/* Tells a test which process hung (the worker), when it asks through the environment:
 * the pid is written to a temporary name and renamed, so a reader never sees half of it. */
static void say_who_hangs(void)
{
  const char *path = getenv("KHOST_TEST_HANG_PID_FILE");
  char tmp[4096];
  if (!path || snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return;
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  int ok = fprintf(f, "%d\n", (int)getpid()) > 0;
  if (fclose(f) == 0 && ok) rename(tmp, path);
}
#endif

#if defined(FAULT_CHDIR_LOAD) || defined(FAULT_CHDIR)
/* Moves the process to the folder a test names in KHOST_TEST_CHDIR, and leaves
 * a file there that proves it did. Every path the user gave must still lead
 * where it led before. */
static void change_folder(void)
{
  const char *dir = getenv("KHOST_TEST_CHDIR");
  if (dir && chdir(dir) == 0) close(open("moved_here", O_WRONLY | O_CREAT, 0644));
}
#endif

#if defined(FAULT_CLOSE_FD_LOAD) || defined(FAULT_CLOSE_FD)
/* Closes the fd a test names in KHOST_TEST_CLOSE_FD (1 or 2), as a plugin that
 * tidies up what is not its own would. khost's table and messages must not
 * follow the number into the next file opened. */
static void close_named_fd(void)
{
  const char *fd = getenv("KHOST_TEST_CLOSE_FD");
  if (fd) close(atoi(fd));
}
#endif

#ifdef FAULT_CHDIR_LOAD
/* As it is loaded, before any call: it need not even be selected. */
__attribute__((constructor)) static void at_load(void)
{
  change_folder();
}
#elif defined(FAULT_CLOSE_FD_LOAD)
__attribute__((constructor)) static void at_load(void)
{
  close_named_fd();
}
#endif

#ifdef FAULT_CACHED_ADDRESS
/* Remembers its answer by input address and, called on the same address again,
 * copies it out instead of working: right on the inputs it computed, and it would
 * time a copy. Caught only if fresh inputs come at the same address. */
static const void *cached_from;
static unsigned char *cached_out;
static size_t cached_out_bytes;
#endif

#ifdef FAULT_CACHED
/* Remembers the first answer and returns it forever: right once, wrong on new inputs. */
static unsigned char *cached;
static size_t cached_bytes;
#endif

#ifdef FAULT_UMASK
/* Loaded into khost's own process (its constructor runs at dlopen, selected or
 * not), it sets a umask that would create every later file with no permission. */
__attribute__((constructor)) static void deny_every_permission(void)
{
  umask(0777);
}
#endif

#ifdef FAULT_SLOW
/* Seconds on the monotonic clock. */
static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#endif

#if defined(FAULT_FINI_HANG) || defined(FAULT_FINI_CRASH)
/* Set by run(): the fini() below misbehaves only in a worker, where kernels ran,
 * not in the start-up probe. */
static int ran;

/* Hangs or crashes, after appending a line to the file a test names, so that the
 * test can count the calls. */
static void fini_fn(void)
{
  const char *path = getenv("KHOST_TEST_FINI_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (f) fputs("fini\n", f), fclose(f);
  if (!ran) return;
#ifdef FAULT_FINI_HANG
  for (;;) pause();
#else
  die_of_signal(SIGSEGV);
#endif
}
#else
#define fini_fn NULL
#endif

#ifdef FAULT_FORK_EXEC
/* Runs a helper program as a plugin may: fork, exec, wait. Not a fault. */
static int run_helper(const khost_input *in)
{
  int status = 0;
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(127);
  }
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return KHOST_STATUS_OK;
  snprintf(in->error, in->error_size, "the helper did not run (status 0x%x)", status);
  return KHOST_STATUS_INTERNAL;
}
#endif

/* Writes through the const pointers of what it was handed: as run() (or, for
 * strides, as supports()) of a plugin that uses them as scratch would. */
static void write_read_only(const khost_input *in)
{
  (void)in;
#ifdef FAULT_CONST_SHAPE
  ((int64_t *)khost_tensor_at(in->inputs, 0)->shape)[0] ^= 1;
#elif defined(FAULT_CONST_PARAMS)
  ((khost_param *)in->params)[0].value ^= 1;
#elif defined(FAULT_CONST_NAME)
  ((char *)khost_tensor_at(in->inputs, 0)->name)[0] = 'X';
#endif
}

static int run_copy(const khost_input *in)
{
  const khost_tensor *dst = khost_tensor_at(in->outputs, 0);
  unsigned char *out = dst->data;
#if defined(FAULT_FINI_HANG) || defined(FAULT_FINI_CRASH)
  ran = 1;
#endif
#ifdef FAULT_FORK
  /* Forks on its first call and lets both processes return, as a plugin that
   * forgot to exec or _exit in the child would. */
  static int forked;
  if (!forked++) fork();
#endif
#ifdef FAULT_FORK_EXEC
  int helped = run_helper(in);
  if (helped != KHOST_STATUS_OK) return helped;
#endif
#ifdef FAULT_SLOW
  /* Right, and 2 ms long however fast the transpose: a duration the host's timing must report. */
  double start = now_s();
  transpose(in, out);
  while (now_s() - start < 2e-3) {
  }
  return KHOST_STATUS_OK;
#endif
#ifdef FAULT_SLEEP
  /* Right, after 0.4 s asleep on the first call of each worker (a worker runs one
   * case): a case this slow on any machine, whose time parallel workers overlap
   * whatever else loads the CPU. */
  static int slept;
  if (!slept++) nanosleep(&(struct timespec){.tv_nsec = 400000000}, NULL);
#endif
#if defined(FAULT_SEGV)
  die_of_signal(SIGSEGV);
#elif defined(FAULT_SIGKILL)
  /* As the kernel's out-of-memory killer ends a process: SIGKILL, unannounced. */
  raise(SIGKILL);
#elif defined(FAULT_ABORT)
  abort();
#elif defined(FAULT_EXIT0)
  exit(0);
#elif defined(FAULT_HANG)
  say_who_hangs();
  for (;;) pause();
#elif defined(FAULT_HOSTILE_TEXT)
  /* Bytes no report may print as they are: one that is not UTF-8, a terminal's
   * escape sequences, a tab, a carriage return; and a line feed, which a message keeps. */
  strncpy(in->error, "bad \xff byte, \x1b[31mred\x1b[0m,\ttab,\rreturn\nsecond line", in->error_size - 1);
  return KHOST_STATUS_INTERNAL;
#elif defined(FAULT_STATUS) || defined(FAULT_MUTATE_STATUS)
#ifdef FAULT_MUTATE_STATUS
  /* Damages its input, then fails: the damage is its own, not the next backend's. */
  ((unsigned char *)khost_tensor_at(in->inputs, 0)->data)[0] ^= 1;
#endif
  strncpy(in->error, "fault plugin reports failure on purpose", in->error_size - 1);
  return KHOST_STATUS_INTERNAL;
#endif
#ifdef FAULT_SEGV_FRESH
  /* Right on the first input set it sees, a crash on any other: as an oracle, it dies
   * on the fresh trial's inputs, after every backend's first check and timing. */
  static unsigned char first[64];
  static size_t seen;
  const khost_tensor *src = khost_tensor_at(in->inputs, 0);
  size_t n = src->nbytes < sizeof first ? src->nbytes : sizeof first;
  if (!seen) memcpy(first, src->data, n), seen = n;
  if (memcmp(first, src->data, n)) die_of_signal(SIGSEGV);
#endif
#ifdef FAULT_CACHED
  if (cached && cached_bytes == dst->nbytes) return memcpy(out, cached, cached_bytes), KHOST_STATUS_OK;
#endif
#ifdef FAULT_CACHED_ADDRESS
  const void *from = khost_tensor_at(in->inputs, 0)->data;
  if (cached_out && from == cached_from && cached_out_bytes == dst->nbytes)
    return memcpy(out, cached_out, cached_out_bytes), KHOST_STATUS_OK;
#endif
#ifdef FAULT_NO_WRITE
  return KHOST_STATUS_OK;
#endif
#ifdef FAULT_REMOVES_REPORT
  /* A correct kernel that, asked to by a test, removes the file at a path (a report,
   * as another program might while khost runs): the case's report write then fails. */
  const char *victim = getenv("KHOST_TEST_REMOVE_PATH");
  if (victim) unlink(victim);
#endif
#ifdef FAULT_SKIP_LAST
  /* Right everywhere but the last element, which it never writes. */
  unsigned char *all = malloc(dst->nbytes);
  if (!all) return KHOST_STATUS_INTERNAL;
  transpose(in, all);
  memcpy(out, all, dst->nbytes - khost_tensor_at(in->inputs, 0)->dtype.bits / 8);
  free(all);
  return KHOST_STATUS_OK;
#endif
#ifdef FAULT_LAZY
  /* Skips the work when called again on the same input, as timing does. */
  static const void *last_input;
  if (khost_tensor_at(in->inputs, 0)->data == last_input) return KHOST_STATUS_OK;
  last_input = khost_tensor_at(in->inputs, 0)->data;
#endif
#ifdef FAULT_CHDIR
  change_folder();
#endif
#ifdef FAULT_CLOSE_FD
  close_named_fd();
#endif
  transpose(in, out);
  write_read_only(in);
#ifdef FAULT_CACHED
  free(cached);
  cached = malloc(dst->nbytes);
  if (cached) memcpy(cached, out, dst->nbytes), cached_bytes = dst->nbytes;
#endif
#ifdef FAULT_CACHED_ADDRESS
  free(cached_out);
  cached_out = malloc(dst->nbytes);
  if (cached_out) memcpy(cached_out, out, dst->nbytes), cached_out_bytes = dst->nbytes, cached_from = from;
#endif
#ifdef FAULT_WRITE_PAST_END
  out[dst->nbytes + 3] = 0x42;
#endif
#ifdef FAULT_MUTATE_INPUT
  ((unsigned char *)khost_tensor_at(in->inputs, 0)->data)[0] ^= 1;
#endif
#ifdef FAULT_MUTATE_LATE
  /* Clean on its checked first call, then damages its input on every later one (while
   * it is timed, among the other backends' samples): it is to blame, not they. The
   * damage is the same each time, so that an even number of calls does not undo it. */
  static int calls;
  static unsigned char first;
  unsigned char *input = khost_tensor_at(in->inputs, 0)->data;
  if (++calls == 1)
    first = input[0];
  else
    input[0] = (unsigned char)(first ^ 1);
#endif
#ifdef FAULT_WORKSPACE_OVERRUN
  ((unsigned char *)in->workspace)[in->workspace_bytes] = 0x42;
#endif
#ifdef FAULT_UNLUCKY
  /* Wrong on about one input set in four (those whose first byte is below 64): its
   * first element gets another sign. Right on the case's seed and the first fresh
   * one; only more trials find it (tests/e2e/faults.c). */
  if (((const unsigned char *)khost_tensor_at(in->inputs, 0)->data)[0] < 64)
    out[dst->dtype.bits / 8 - 1] ^= 0x80;
#endif
#ifdef FAULT_ONCE
  /* Right on every call of its process but the 6th, where the first element is
   * one bit off: one timed call of many (tests/e2e/fresh.c). */
  static int calls;
  if (++calls == 6) out[0] ^= 1;
#endif
  return KHOST_STATUS_OK;
}

#if defined(FAULT_WORKSPACE_OVERRUN) || defined(FAULT_WORKSPACE_HUGE)
/* OVERRUN asks for a small workspace and writes one byte past it; HUGE asks for
 * SIZE_MAX bytes, as a plugin that returns (size_t)-1 for "error" would. */
static int workspace_fn(const khost_input *in, size_t *bytes)
{
  (void)in;
#ifdef FAULT_WORKSPACE_HUGE
  *bytes = SIZE_MAX;
#else
  *bytes = 64;
#endif
  return KHOST_STATUS_OK;
}
#else
#define workspace_fn NULL
#endif

#if defined(FAULT_SUPPORTS_FAILS) || defined(FAULT_DESCRIBE_FAILS) || defined(FAULT_OVERHEAD_FAILS)
/* Fills the whole error buffer, with no NUL: the host must cut the message, not read past it. */
static void fill_error(const khost_input *in, const char *text)
{
  size_t n = strlen(text);
  memset(in->error, '.', in->error_size);
  memcpy(in->error, text, n < in->error_size ? n : in->error_size);
}
#endif

#if defined(FAULT_DECLINE) || defined(FAULT_SUPPORTS_FAILS) || defined(FAULT_CONST_STRIDES)
/* A decline is a SKIP; any other failing status from supports() is an error. */
static int supports_fn(const khost_input *in)
{
#ifdef FAULT_DECLINE
  strncpy(in->error, "fault plugin declines every shape", in->error_size - 1);
  return KHOST_STATUS_UNSUPPORTED;
#elif defined(FAULT_CONST_STRIDES)
  /* Accepts the shape, after scribbling on the output's strides. */
  ((int64_t *)khost_tensor_at(in->outputs, 0)->strides)[0] = 7;
  return KHOST_STATUS_OK;
#else
  fill_error(in, "fault plugin cannot judge a shape on purpose");
  return KHOST_STATUS_INTERNAL;
#endif
}
#else
#define supports_fn NULL
#endif

/* The copy kernel names itself, as a plugin with several code paths would; one
 * fault fails to. */
static int describe_copy(const khost_input *in, char *buf, size_t size)
{
#ifdef FAULT_DESCRIBE_FAILS
  (void)buf;
  (void)size;
  fill_error(in, "fault plugin cannot name its kernel on purpose");
  return KHOST_STATUS_INTERNAL;
#elif defined(FAULT_HOSTILE_TEXT)
  (void)in;
  strncpy(buf, "bytewise\x1b]0;title\x07_transpose\n", size - 1);
  return KHOST_STATUS_OK;
#else
  (void)in;
  strncpy(buf, "bytewise_transpose", size - 1);
  return KHOST_STATUS_OK;
#endif
}

#if defined(FAULT_OVERHEAD_FAILS) || defined(FAULT_OVERHEAD_NAN)
/* A call_overhead() that fails, or that gives no time at all: both ERROR rows. */
static int overhead_fn(const khost_input *in, double *seconds)
{
#ifdef FAULT_OVERHEAD_FAILS
  (void)seconds;
  fill_error(in, "fault plugin cannot time its calls on purpose");
  return KHOST_STATUS_INTERNAL;
#else
  (void)in;
  *seconds = NAN;
  return KHOST_STATUS_OK;
#endif
}
#else
#define overhead_fn NULL
#endif

static double block_value(const uint8_t *codes, const uint8_t *scales, int64_t j)
{
  uint8_t byte = codes[j / 2];
  return khost__e2m1_decode(j % 2 ? byte >> 4 : byte & 15) * (double)khost__e4m3_decode(scales[j / 16]);
}

/* nvfp4_gemv computed plainly, except (FAULT_WRONG_BLOCK) that row 1 of batch 0
 * skips its second 16-element scale block. */
static int run_gemv(const khost_input *in)
{
  int64_t m = khost_param_get(in, "m", 0), k = khost_param_get(in, "k", 0), l = khost_param_get(in, "l", 0);
  const uint8_t *a = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_A)->data,
                *v = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_V)->data;
  const uint8_t *sfa = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFA)->data,
                *sfv = khost_tensor_at(in->inputs, KHOST_NVFP4_GEMV_SFV)->data;
  uint16_t *c = khost_tensor_at(in->outputs, KHOST_NVFP4_GEMV_C)->data;
  for (int64_t b = 0; b < l; b++)
    for (int64_t i = 0; i < m; i++) {
      const uint8_t *row = a + (b * m + i) * (k / 2), *row_scales = sfa + (b * m + i) * (k / 16);
      double sum = 0;
      for (int64_t j = 0; j < k; j++) {
#ifdef FAULT_WRONG_BLOCK
        if (b == 0 && i == 1 && j / 16 == 1) continue;
#endif
        sum += block_value(row, row_scales, j) * block_value(v + b * (k / 2), sfv + b * (k / 16), j);
      }
      c[b * m + i] = khost__fp16_encode(sum);
    }
  return KHOST_STATUS_OK;
}

static const khost_kernel copy_kernel = {.struct_size = sizeof(khost_kernel),
                                         .op = "copy_transpose",
                                         .device_type = KHOST_DEVICE_CPU,
                                         .run = run_copy,
                                         .supports = supports_fn,
                                         .workspace_size = workspace_fn,
                                         .describe = describe_copy,
                                         .call_overhead = overhead_fn};
static const khost_kernel gemv_kernel = {.struct_size = sizeof(khost_kernel),
                                         .op = "nvfp4_gemv",
                                         .device_type = KHOST_DEVICE_CPU,
                                         .run = run_gemv};
static const khost_kernel *const kernels[] = {&copy_kernel, &gemv_kernel};

KHOST_FIXTURE_PLUGIN(FAULT_NAME, "c", "a plugin with exactly one defect, for khost's own tests", kernels,
                     fini_fn)
