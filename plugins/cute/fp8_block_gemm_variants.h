/* fp8_block_gemm's kernels in the cute plugin: CUTLASS's sm90 warp-specialized
 * FP8 GEMM with block-scaled accumulation (docs/CUTE.md), one instantiation per
 * variant. The op's file (fp8_block_gemm.cu) picks a variant and calls
 * khost__cute_fp8_gemm_launch<V>; each variant is compiled in a file of its own
 * (fp8_block_gemm_<variant>.cu), so that the build compiles them in parallel and
 * the op's file instantiates no CUTLASS kernel. Host-side declarations only: this
 * header includes no CUTLASS. */
#ifndef KHOST_CUTE_FP8_BLOCK_GEMM_VARIANTS_H
#define KHOST_CUTE_FP8_BLOCK_GEMM_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/* How a variant reads the scales: which granularity of m, n and k the CUTLASS
 * collective is built for, and which of khost's scale tensors it reads. */
enum class khost__cute_fp8_scales {
  /* qm = 1, qn = qk = 128 (DeepSeek-V3): sa_t as the collective's M-major SFA, by
   * TMA (its rows padded to 4 floats when m % 4 != 0); sb_t as its N-major SFB. */
  rows_a_blocks_b,
  /* qm = qn = 1, qk a multiple of 128: sa_t and sb_t read per row of a and b
   * (granularity 1) through nested layouts that repeat each scale over qk/128
   * steps of k. */
  rows_both,
  /* qm, qn, qk multiples of 128: the same at granularity 128 in m and n. */
  blocks_both,
};

/* A variant: the scale mapping, the CTA tile's m, the cluster's m (CTAs that
 * share b's tile through TMA multicast) and the kernel schedule: PINGPONG runs
 * its two consumer warpgroups on two tiles, else both share one (cooperative). */
template <khost__cute_fp8_scales SCALES, int TILE_M, int CLUSTER_M, bool PINGPONG>
struct khost__cute_fp8_variant {
  static constexpr khost__cute_fp8_scales scales = SCALES;
  static constexpr int tile_m = TILE_M, tile_n = 128, tile_k = 128, cluster_m = CLUSTER_M;
  static constexpr bool pingpong = PINGPONG;
};

/* One call, validated (plugins/common) and accepted by the op's supports(). The
 * pointers are the host's device tensors; sa_t_ld is the leading dimension
 * (floats) the collective reads sa_t with, which the op may have padded into the
 * workspace first. */
struct khost__cute_fp8_call {
  int m, n, k, qm, qn, qk;
  const void *a, *b;
  const float *sa_t, *sb_t;
  int sa_t_ld;
  void *out;
  void *workspace; /* the kernel's own workspace (after the padded scales), or NULL */
  size_t workspace_bytes;
  int device, sm_count;
  cudaStream_t stream;
};

/* The outcome of a CUTLASS call: ok, or what failed (a static string). */
struct khost__cute_fp8_result {
  bool ok;
  const char *what;
};

/* The workspace bytes the kernel of V asks for, for call's shape. */
template <class V> size_t khost__cute_fp8_gemm_workspace(const khost__cute_fp8_call &call);

/* CUTLASS's can_implement for call (alignment, TMA strides). */
template <class V> khost__cute_fp8_result khost__cute_fp8_gemm_check(const khost__cute_fp8_call &call);

/* Initializes the kernel's parameters (TMA descriptors) and launches it on call.stream. */
template <class V> khost__cute_fp8_result khost__cute_fp8_gemm_launch(const khost__cute_fp8_call &call);

/* The variants compiled, one file each. */
using khost__cute_fp8_deepseek =
    khost__cute_fp8_variant<khost__cute_fp8_scales::rows_a_blocks_b, 128, 1, false>;
using khost__cute_fp8_deepseek_cluster2 =
    khost__cute_fp8_variant<khost__cute_fp8_scales::rows_a_blocks_b, 128, 2, false>;
using khost__cute_fp8_deepseek_m64 =
    khost__cute_fp8_variant<khost__cute_fp8_scales::rows_a_blocks_b, 64, 1, true>;
using khost__cute_fp8_rows = khost__cute_fp8_variant<khost__cute_fp8_scales::rows_both, 128, 1, false>;
using khost__cute_fp8_blocks = khost__cute_fp8_variant<khost__cute_fp8_scales::blocks_both, 128, 1, false>;

#define KHOST__CUTE_FP8_DECLARE(V)                                                                           \
  extern template size_t khost__cute_fp8_gemm_workspace<V>(const khost__cute_fp8_call &);                    \
  extern template khost__cute_fp8_result khost__cute_fp8_gemm_check<V>(const khost__cute_fp8_call &);        \
  extern template khost__cute_fp8_result khost__cute_fp8_gemm_launch<V>(const khost__cute_fp8_call &)

KHOST__CUTE_FP8_DECLARE(khost__cute_fp8_deepseek);
KHOST__CUTE_FP8_DECLARE(khost__cute_fp8_deepseek_cluster2);
KHOST__CUTE_FP8_DECLARE(khost__cute_fp8_deepseek_m64);
KHOST__CUTE_FP8_DECLARE(khost__cute_fp8_rows);
KHOST__CUTE_FP8_DECLARE(khost__cute_fp8_blocks);

#endif
