/* fp8_block_gemm: out[i][j] = bf16(sum_k (a[i][k] sa[i/qm][k/qk]) (b[j][k] sb[j/qn][k/qk]))
 * through CUTLASS's sm90 warp-specialized FP8 GEMM with block-scaled
 * accumulation (fp8_block_gemm_kernel.cuh; docs/CUTE.md).
 *
 * This file validates the call, declines what no variant can do, picks the
 * variant by the rule in pick(), and launches it; the variants themselves are
 * compiled one per file (fp8_block_gemm_<variant>.cu). The collective reads the
 * transposed scales (sa_t, sb_t) as they are, except sa_t of the DeepSeek
 * variants when m % 4 != 0: TMA loads those scales, whose rows must be 16-byte
 * multiples, so run() first copies sa_t into the workspace with its rows padded
 * to 4 floats (one cudaMemcpy2DAsync of k/128 x m floats, inside the timed call;
 * only the edge shapes m = 1, 7 of the suites take it). */
#include "khost/ops/fp8_block_gemm.h"

#include "cute.h"
#include "fp8_block_gemm.h" /* plugins/common: the validation every plugin shares */
#include "fp8_block_gemm_variants.h"

namespace {

/* A variant's entry points and what describe() calls it. */
struct variant {
  const char *name;
  size_t (*workspace)(const khost__cute_fp8_call &);
  khost__cute_fp8_result (*check)(const khost__cute_fp8_call &);
  khost__cute_fp8_result (*launch)(const khost__cute_fp8_call &);
};

template <class V> constexpr variant variant_of(const char *name)
{
  return {name, khost__cute_fp8_gemm_workspace<V>, khost__cute_fp8_gemm_check<V>,
          khost__cute_fp8_gemm_launch<V>};
}

const variant deepseek = variant_of<khost__cute_fp8_deepseek>(
    "sm90_fp8_blockscaled<tile=128x128x128,cluster=1x1,cooperative,scales=1x128_128x128>");
const variant deepseek_cluster2 = variant_of<khost__cute_fp8_deepseek_cluster2>(
    "sm90_fp8_blockscaled<tile=128x128x128,cluster=2x1,cooperative,scales=1x128_128x128>");
const variant deepseek_m64 = variant_of<khost__cute_fp8_deepseek_m64>(
    "sm90_fp8_blockscaled<tile=64x128x128,cluster=1x1,pingpong,scales=1x128_128x128>");
const variant rows = variant_of<khost__cute_fp8_rows>(
    "sm90_fp8_blockscaled<tile=128x128x128,cluster=1x1,cooperative,scales=rows>");
const variant blocks = variant_of<khost__cute_fp8_blocks>(
    "sm90_fp8_blockscaled<tile=128x128x128,cluster=1x1,cooperative,scales=128x128_blocks>");

/* The collective's step of k: one promotion each, and its tile's k. */
constexpr int64_t STEP_K = 128;
/* The tile's n, and m but for the 64-row variant: the block of the variants
 * that scale a whole tile at once. */
constexpr int64_t TILE_ROWS = 128;
/* TMA: rows of a, b and out, and the base addresses, in 16-byte units. */
constexpr size_t TMA_ALIGN = 16;

/* The block shapes the variants take (their scale mappings). */
enum class family { deepseek, per_row, blocks, none };

family family_of(const khost__fp8_gemm &g)
{
  if (g.qm == 1 && g.qn == TILE_ROWS && g.qk == STEP_K) return family::deepseek;
  if (g.qm == 1 && g.qn == 1) return family::per_row;
  if (g.qm % TILE_ROWS == 0 && g.qn % TILE_ROWS == 0) return family::blocks;
  return family::none;
}

/* The rule (docs/CUTE.md), for a family other than none. DeepSeek-V3's scales
 * have three variants: m <= 64 fills half a 128-row tile, so 64-row tiles (two
 * warpgroups on two tiles, pingpong); m >= 1024 makes at least 8 tile rows, so
 * clusters of 2 CTAs along m share each tile of b by TMA multicast, halving b's
 * loads from L2; 128 x 128 cooperative tiles between. Blocks of 128 multiples in
 * m and n scale a whole tile by one product; qm = qn = 1 scales each row and
 * column. */
const variant &pick(const khost__fp8_gemm &g)
{
  switch (family_of(g)) {
  case family::deepseek:
    if (g.m <= 64) return deepseek_m64;
    return g.m >= 1024 ? deepseek_cluster2 : deepseek;
  case family::blocks: return blocks;
  default: return rows;
  }
}

bool is_deepseek(const variant &v)
{
  return &v == &deepseek || &v == &deepseek_cluster2 || &v == &deepseek_m64;
}

/* sa_t's leading dimension as the variant reads it: padded to 4 floats for TMA. */
int64_t sa_t_ld(const khost__fp8_gemm &g, const variant &v)
{
  return is_deepseek(v) ? (g.m + 3) / 4 * 4 : khost_fp8_block_gemm_scale_rows(g.m, g.qm);
}

/* Workspace bytes for the padded copy of sa_t (0 when it is read in place),
 * rounded to 256 so that the kernel's part starts aligned. */
size_t padded_bytes(const khost__fp8_gemm &g, const variant &v)
{
  if (sa_t_ld(g, v) == g.m || !is_deepseek(v)) return 0;
  return size_t((g.k / STEP_K) * sa_t_ld(g, v) * int64_t(sizeof(float)) + 255) / 256 * 256;
}

/* The call as the variant sees it, scales read in place (run() repoints sa_t). */
khost__cute_fp8_call call_of(const khost__fp8_gemm &g, const variant &v)
{
  khost__cute_fp8_call c = {};
  c.m = int(g.m), c.n = int(g.n), c.k = int(g.k);
  c.qm = int(g.qm), c.qn = int(g.qn), c.qk = int(g.qk);
  c.a = g.a, c.b = g.b, c.sa_t = g.sa_t, c.sb_t = g.sb_t, c.out = g.out;
  c.sa_t_ld = int(sa_t_ld(g, v));
  return c;
}

/* UNSUPPORTED, with the reason, for what no variant does. */
int decline(const khost_input *in, const khost__fp8_gemm &g)
{
  if (g.qk % STEP_K != 0)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "qk = %lld: CUTLASS's block-scaled collective promotes once per 128 of k (its "
                             "tile's k), so qk must be a multiple of 128",
                             (long long)g.qk);
  if (family_of(g) == family::none)
    return khost__input_fail(
        in, KHOST_STATUS_UNSUPPORTED,
        "qm = %lld, qn = %lld, qk = %lld: the variants take 1 x 128 (a) with 128 x 128 (b) "
        "blocks at qk = 128, 1 x qk on both sides, or multiples of 128 on both sides",
        (long long)g.qm, (long long)g.qn, (long long)g.qk);
  if (g.n % 8 != 0)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED,
                             "n = %lld: the TMA store needs out's rows in 16-byte units (n %% 8 == 0)",
                             (long long)g.n);
  const void *tma[] = {g.a, g.b, g.out};
  if (!khost__input_aligned(tma, 3, TMA_ALIGN))
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "a, b and out must be 16-byte aligned (TMA)");
  return KHOST_STATUS_OK;
}

/* Validates in and picks its variant; UNSUPPORTED where CUTLASS's own
 * can_implement (host-side shape and alignment checks) refuses. */
int open_call(const khost_input *in, khost__fp8_gemm *g, const variant **v)
{
  int status = khost__fp8_gemm_open(in, KHOST_DEVICE_CUDA, g);
  if (status == KHOST_STATUS_OK) status = decline(in, *g);
  if (status != KHOST_STATUS_OK) return status;
  *v = &pick(*g);
  const void *scales[] = {g->sa_t};
  if (is_deepseek(**v) && !padded_bytes(*g, **v) && !khost__input_aligned(scales, 1, TMA_ALIGN))
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "sa_t must be 16-byte aligned (TMA)");
  khost__cute_fp8_result r = (*v)->check(call_of(*g, **v));
  if (!r.ok)
    return khost__input_fail(in, KHOST_STATUS_UNSUPPORTED, "CUTLASS's can_implement declines %s: %s",
                             (*v)->name, r.what);
  return KHOST_STATUS_OK;
}

int supports(const khost_input *in)
{
  khost__fp8_gemm g;
  const variant *v;
  return open_call(in, &g, &v);
}

int workspace_size(const khost_input *in, size_t *bytes)
{
  khost__fp8_gemm g;
  const variant *v;
  int status = open_call(in, &g, &v);
  if (status == KHOST_STATUS_OK) *bytes = padded_bytes(g, *v) + v->workspace(call_of(g, *v));
  return status;
}

/* The padded copy of sa_t at the start of the workspace (padded_bytes). */
int pad_scales(const khost_input *in, const khost__fp8_gemm &g, khost__cute_fp8_call *c)
{
  size_t row = size_t(g.m) * sizeof(float), ld = size_t(c->sa_t_ld) * sizeof(float);
  KHOST__CUTE_CHECK(in, cudaMemcpy2DAsync(in->workspace, ld, g.sa_t, row, row, size_t(g.k / STEP_K),
                                          cudaMemcpyDeviceToDevice, (cudaStream_t)in->stream));
  c->sa_t = static_cast<const float *>(in->workspace);
  return KHOST_STATUS_OK;
}

int launch(const khost_input *in, const khost__fp8_gemm &g, const variant &v)
{
  khost__cute_fp8_call c = call_of(g, v);
  size_t padded = padded_bytes(g, v), needed = padded + v.workspace(c);
  if (in->workspace_bytes < needed || (needed && !in->workspace))
    return khost__input_fail(in, KHOST_STATUS_INVALID_ARGUMENT, "workspace of %zu bytes, %zu asked for",
                             in->workspace_bytes, needed);
  KHOST__CUTE_CHECK(in, cudaGetDevice(&c.device));
  KHOST__CUTE_CHECK(in, cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, c.device));
  c.stream = (cudaStream_t)in->stream;
  c.workspace = needed > padded ? static_cast<char *>(in->workspace) + padded : nullptr;
  c.workspace_bytes = needed - padded;
  if (padded) {
    int status = pad_scales(in, g, &c);
    if (status != KHOST_STATUS_OK) return status;
  }
  khost__cute_fp8_result r = v.launch(c);
  /* CUTLASS reports a failed launch as a status; the CUDA error says which. */
  KHOST__CUTE_CHECK(in, cudaGetLastError());
  if (!r.ok)
    return khost__input_fail(in, KHOST_STATUS_DEVICE_ERROR, "CUTLASS's %s failed for %s", r.what, v.name);
  return KHOST_STATUS_OK;
}

/* khost__cute_run launches, khost__cute_describe names. */
int dispatch(const khost_input *in, khost__cute_name *name)
{
  khost__fp8_gemm g;
  const variant *v;
  int status = open_call(in, &g, &v);
  if (status != KHOST_STATUS_OK) return status;
  if (name) return khost__cute_named(name, "%s%s", v->name, padded_bytes(g, *v) ? " pad_sa" : "");
  return launch(in, g, *v);
}

} // namespace

extern const khost_kernel khost__cute_fp8_block_gemm = {
    sizeof(khost_kernel),           "fp8_block_gemm", KHOST_DEVICE_CUDA,
    khost__cute_run<dispatch>,      supports,         workspace_size,
    khost__cute_describe<dispatch>, nullptr, /* call_overhead: none */
    0, /* flags: none */
};
