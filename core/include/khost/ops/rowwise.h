/* The tensors of the float row ops: params m, n; dtype fp16, bf16 or fp32 (the
 * tensors' dtype, not a parameter); one input in [m, n] and one output of the
 * same dtype, shaped by the op (its own header says how). */
#ifndef KHOST_OPS_ROWWISE_H
#define KHOST_OPS_ROWWISE_H

#ifdef __cplusplus
extern "C" {
#endif

enum khost_rowwise_tensors {
  KHOST_ROWWISE_IN = 0, /* the only input */
  KHOST_ROWWISE_OUT = 0 /* the only output */
};

#ifdef __cplusplus
}
#endif

#endif /* KHOST_OPS_ROWWISE_H */
