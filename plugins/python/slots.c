/* The kernel slots (slots.h): the functions of slots 0 to 99, from one macro. */
#include "slots.h"

khost__python_kernel khost__python_kernels[KHOST__PYTHON_SLOTS];

#define KHOST__SLOT(i)                                                                                       \
  static int run_##i(const khost_input *in)                                                                  \
  {                                                                                                          \
    return khost__python_run(&khost__python_kernels[i], in);                                                 \
  }                                                                                                          \
  static int supports_##i(const khost_input *in)                                                             \
  {                                                                                                          \
    return khost__python_supports(&khost__python_kernels[i], in);                                            \
  }                                                                                                          \
  static int describe_##i(const khost_input *in, char *buf, size_t size)                                     \
  {                                                                                                          \
    return khost__python_describe(&khost__python_kernels[i], in, buf, size);                                 \
  }                                                                                                          \
  static int call_overhead_##i(const khost_input *in, double *seconds)                                       \
  {                                                                                                          \
    return khost__python_call_overhead(in, seconds);                                                         \
  }
/* f(p0) ... f(p9): with p empty, 0 to 9; with p = 1, 10 to 19. */
#define KHOST__TEN(f, p) f(p##0) f(p##1) f(p##2) f(p##3) f(p##4) f(p##5) f(p##6) f(p##7) f(p##8) f(p##9)
#define KHOST__HUNDRED(f)                                                                                    \
  KHOST__TEN(f, )                                                                                            \
  KHOST__TEN(f, 1)                                                                                           \
  KHOST__TEN(f, 2)                                                                                           \
  KHOST__TEN(f, 3)                                                                                           \
  KHOST__TEN(f, 4) KHOST__TEN(f, 5) KHOST__TEN(f, 6) KHOST__TEN(f, 7) KHOST__TEN(f, 8) KHOST__TEN(f, 9)

KHOST__HUNDRED(KHOST__SLOT)

#define KHOST__SLOT_KERNEL(i)                                                                                \
  {.struct_size = sizeof(khost_kernel),                                                                      \
   .run = run_##i,                                                                                           \
   .supports = supports_##i,                                                                                 \
   .describe = describe_##i,                                                                                 \
   .call_overhead = call_overhead_##i},
static const khost_kernel slot_kernels[KHOST__PYTHON_SLOTS] = {KHOST__HUNDRED(KHOST__SLOT_KERNEL)};

khost_kernel khost__python_slot_kernel(int i)
{
  return slot_kernels[i];
}
