/* The float element types of the row-wise ops on the device: widening to fp32
 * (exact) and narrowing from fp32 with round-to-nearest-even, and a host-side
 * dispatch from the validated dtype to the C++ type. */
#ifndef KHOST_REFERENCE_FLOAT_ELEMENTS_CUH
#define KHOST_REFERENCE_FLOAT_ELEMENTS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "reference.h"

namespace khost_reference {

__device__ inline float widen(float x)
{
  return x;
}
__device__ inline float widen(__half x)
{
  return __half2float(x);
}
__device__ inline float widen(__nv_bfloat16 x)
{
  return __bfloat162float(x);
}

template <typename T> __device__ T narrow(float x);
template <> __device__ inline float narrow<float>(float x)
{
  return x;
}
template <> __device__ inline __half narrow<__half>(float x)
{
  return __float2half_rn(x);
}
template <> __device__ inline __nv_bfloat16 narrow<__nv_bfloat16>(float x)
{
  return __float2bfloat16_rn(x);
}

/* Calls launch(T()) with T the C++ type of `type`, so one generic lambda
 * launches the kernel instantiated for the call's dtype. */
template <typename Launch> void with_float_type(khost__rows_type type, Launch launch)
{
  switch (type) {
  case KHOST__ROWS_FP16: launch(__half()); break;
  case KHOST__ROWS_BF16: launch(__nv_bfloat16()); break;
  case KHOST__ROWS_FP32: launch(float()); break;
  }
}

} // namespace khost_reference

#endif
