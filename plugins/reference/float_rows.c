/* What the float row ops share: validation of the [m, n] input and its output,
 * and exact element access. */
#include <pthread.h>
#include <stdbool.h>

#include "formats.h"
#include "reference.h"

/* 16-bit pattern -> value, for fp16 and bf16 (every such value is exact in
 * float). Filled once per process; read-only afterwards. */
static float widen_fp16[1 << 16];
static float widen_bf16[1 << 16];
static pthread_once_t widen_once = PTHREAD_ONCE_INIT;

static void fill_widen_tables(void)
{
  for (uint32_t bits = 0; bits < (1u << 16); bits++) {
    widen_fp16[bits] = (float)khost__fp16_decode((uint16_t)bits);
    widen_bf16[bits] = (float)khost__bf16_decode((uint16_t)bits);
  }
}

int khost__reference_rows_open(const khost_input *in, khost__rows_out out_shape, khost__reference_rows *rows)
{
  *rows = (khost__reference_rows){0};
  int status = khost__rows_open(in, KHOST_DEVICE_CPU, out_shape, INT64_MAX, &rows->call);
  if (status != KHOST_STATUS_OK) return status;
  if (rows->call.type != KHOST__ROWS_FP32) {
    pthread_once(&widen_once, fill_widen_tables);
    rows->widen = rows->call.type == KHOST__ROWS_FP16 ? widen_fp16 : widen_bf16;
  }
  return KHOST_STATUS_OK;
}

void khost__reference_rows_store(const khost__reference_rows *rows, size_t index, double value)
{
  switch (rows->call.type) {
  case KHOST__ROWS_FP16: ((uint16_t *)rows->call.out)[index] = khost__fp16_encode(value); break;
  case KHOST__ROWS_BF16: ((uint16_t *)rows->call.out)[index] = khost__bf16_encode(value); break;
  case KHOST__ROWS_FP32: ((float *)rows->call.out)[index] = khost__fp32_encode(value); break;
  }
}
