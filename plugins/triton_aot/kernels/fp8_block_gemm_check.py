"""The interpreter check of fp8_block_gemm's variants (check_kernels.py): each output
against the float64 product of the dequantized inputs, rounded once to bf16, within the
op's error model (core/ops/fp8_block_gemm.c), for every block shape the variant can run,
at edge sizes: one row, partial tiles and partial scale blocks, k of one scale block,
more tile rows than a group. Inputs are quantized as the op's generator does it (block
absmax / 448, nearest even, saturating) with outlier blocks, so that a misplaced scale
fails. Outputs start as NaN; the split variants run with the reduction, at a split
count whose last split is short where k has 7 steps, their partial sums NaN until
written.

SELF_TESTS (run by check_kernels.py) show the check failing a kernel that reads sa in
place of sa_t, one that reads b's scales of the neighbouring k block, and a reduction
that drops a split."""
import numpy as np

from check_support import Pointer, bf16_to_f64, e4m3_value, f64_to_bf16, launch
from fp8_block_gemm_variants import VARIANTS

# (qm, qn, qk): DeepSeek-V3's, the square ones of the seed scripts, per-token on both sides.
BLOCK_SHAPES = ((1, 128, 128), (128, 128, 128), (256, 256, 256), (512, 512, 512), (1, 1, 128))
STEP = 128  # every GEMM variant's BLOCK_K
SPLITS_WANTED = 3  # 7, 6 and 12 steps of k split 3, 3, 1; 2, 2, 2; 4, 4, 4
OUTLIER_ODDS = 8
BF16_NAN = 0x7FC1
# The op's error model (core/ops/fp8_block_gemm.c, tolerance and error_bound).
ACCUMULATOR_UNIT, FP32_UNIT, BF16_UNIT, MODEL_LAMBDA = 2.0**-13, 2.0**-24, 2.0**-8, 2.0

_E4M3_FINITE = e4m3_value(np.arange(0x7F))  # the non-negative finite values, increasing


def e4m3_encode(x):
    """The e4m3fn code nearest to x, ties to the even code, saturating at 448."""
    magnitude = np.minimum(np.abs(x), _E4M3_FINITE[-1])
    above = np.searchsorted(_E4M3_FINITE, magnitude)
    below = np.maximum(above - 1, 0)
    up = _E4M3_FINITE[above] - magnitude
    down = magnitude - _E4M3_FINITE[below]
    code = np.where((up < down) | ((up == down) & (above % 2 == 0)), above, below)
    return (code | np.where(x < 0, 0x80, 0)).astype(np.uint8)


def _expand(scales, q, qk, rows):
    return np.repeat(np.repeat(scales.astype(np.float64), q, axis=0)[:rows], qk, axis=1)


def quantized(rng, rows, k, q, qk, sigma):
    """(codes [rows, k], fp32 scales [ceil(rows / q), k / qk]) of N(0, sigma^2) values,
    one block in OUTLIER_ODDS scaled by 10 to 1000."""
    blocks = (-(-rows // q), k // qk)
    factor = np.where(rng.integers(0, OUTLIER_ODDS, blocks) == 0, 10.0**rng.uniform(1, 3, blocks), 1.0)
    x = rng.standard_normal((rows, k)) * sigma * _expand(factor, q, qk, rows)
    padded = np.full((blocks[0] * q, k), 0.0)
    padded[:rows] = np.abs(x)
    absmax = padded.reshape(blocks[0], q, blocks[1], qk).max(axis=(1, 3))
    scales = (absmax / 448).astype(np.float32)
    return e4m3_encode(x / _expand(scales, q, qk, rows)), scales


def dequantized(codes, scales, q, qk):
    return e4m3_value(codes) * _expand(scales, q, qk, codes.shape[0])


def model_bound(a, b, qk):
    """The op's per-element bound E for a [m, k] and b [n, k], dequantized."""
    blocks = a.shape[1] // qk
    a_norms = (a.reshape(a.shape[0], blocks, qk)**2).sum(axis=2)
    b_norms = (b.reshape(b.shape[0], blocks, qk)**2).sum(axis=2)
    unit = ACCUMULATOR_UNIT + np.sqrt(blocks) * FP32_UNIT
    return MODEL_LAMBDA * unit * (1 + BF16_UNIT) * np.sqrt(a_norms @ b_norms.T)


def split_of(steps, wanted):
    """(steps a split, splits): as the launcher splits k, no split empty."""
    per_split = -(-steps // max(1, min(wanted, steps)))
    return per_split, -(-steps // per_split)


def cdiv(x, y):
    return -(-x // y)


def runs(variant, qn):
    """Whether the launcher runs variant for b's scale blocks of qn rows."""
    return variant["function"] == "fp8_block_gemm_column_scales" or qn % variant["constexprs"]["BLOCK_N"] == 0


def shapes(variant, qk):
    """(m, n, k): one row and a partial tile of columns over one scale block of k; a row
    past whole tiles over 7 scale blocks of 128, or 3 of 256 or 512; more tile rows than a
    group (two groups) over two scale blocks."""
    c = variant["constexprs"]
    bm, bn = c["BLOCK_M"], c["BLOCK_N"]
    k_long = qk * (7 if qk == STEP else 3)  # 7, 6 and 12 steps of k
    return ((1, bn + 72, qk), (bm + 1, 2 * bn + 5, k_long), ((c["GROUP_M"] + 1) * bm + 3, 3, 2 * qk))


def run_gemm(variant, m, n, k, qm, qn, qk, tensors, out, tamper=None):
    """Launches variant as the launcher does; a split one with the reduction after it.
    tamper (a self-test's) may change the launch's arguments first: a dict of the four
    input arrays (a, b, sa_t, sb_t) and the reduction's split count (splits)."""
    c = variant["constexprs"]
    per_split, splits = split_of(k // STEP, SPLITS_WANTED)
    given = dict(zip(("a", "b", "sa_t", "sb_t"), tensors), splits=splits)
    if tamper:
        tamper(given)
    a, b, sa_t, sb_t = (Pointer(given[name], ty) for name, ty in (("a", "float8_e4m3fn"), ("b", "float8_e4m3fn"),
                                                                 ("sa_t", "float32"), ("sb_t", "float32")))
    tiles = cdiv(m, c["BLOCK_M"]) * cdiv(n, c["BLOCK_N"])
    if variant["function"] != "fp8_block_gemm_split":
        launch(variant, (tiles, 1), a, b, sa_t, sb_t, Pointer(out, "bfloat16"), m, n, k, qm, qn, qk)
        return
    rows, cols = cdiv(m, c["BLOCK_M"]) * c["BLOCK_M"], cdiv(n, c["BLOCK_N"]) * c["BLOCK_N"]
    part = Pointer(np.full(splits * rows * cols, np.nan, np.float32), "float32")
    launch(variant, (tiles, splits), a, b, sa_t, sb_t, part, m, n, k, qm, qn, qk, per_split, rows, cols)
    reduce = next(v for v in VARIANTS if v["function"] == "fp8_block_gemm_reduce")
    r = reduce["constexprs"]
    launch(reduce, (cdiv(m, r["BLOCK_M"]) * cdiv(n, r["BLOCK_N"]), 1), part, Pointer(out, "bfloat16"), m, n,
           given["splits"], rows, cols)


def check_gemm(variant, rng, m, n, k, qm, qn, qk, tamper=None):
    a, sa = quantized(rng, m, k, qm, qk, 1.0)
    b, sb = quantized(rng, n, k, qn, qk, 0.5)
    out = np.full((m, n), BF16_NAN, np.uint16)
    tensors = (a, b, np.ascontiguousarray(sa.T), np.ascontiguousarray(sb.T))
    run_gemm(variant, m, n, k, qm, qn, qk, tensors, out, tamper)
    a_values, b_values = dequantized(a, sa, qm, qk), dequantized(b, sb, qn, qk)
    ref = bf16_to_f64(f64_to_bf16(a_values @ b_values.T))
    got = bf16_to_f64(out)
    allowed = 2 * BF16_UNIT / (1 - BF16_UNIT) * np.abs(ref) + model_bound(a_values, b_values, qk)
    bad = ~(np.abs(got - ref) <= allowed)  # NaN fails
    if bad.any():
        i, j = np.argwhere(bad)[0]
        return (f"{m}x{n}x{k} blocks {qm}x{qn}x{qk}: {int(bad.sum())} of {m * n} wrong, "
                f"out[{i}][{j}] = {got[i, j]} vs {ref[i, j]} (allowed {allowed[i, j]:.3g})")
    return None


def check_reduce(variant, rng):
    """Partial sums in padded tiles, the padding NaN: it must not be read."""
    m, n, splits = 13, 300, 3
    rows, cols = 64, 384
    part = np.full((splits, rows, cols), np.nan, np.float32)
    part[:, :m, :n] = rng.standard_normal((splits, m, n)) * 10
    out = np.full((m, n), BF16_NAN, np.uint16)
    r = variant["constexprs"]
    launch(variant, (cdiv(m, r["BLOCK_M"]) * cdiv(n, r["BLOCK_N"]), 1), Pointer(part.reshape(-1), "float32"),
           Pointer(out, "bfloat16"), m, n, splits, rows, cols)
    ref = part[:, :m, :n].astype(np.float64).sum(axis=0)
    err = np.abs(bf16_to_f64(out) - ref)
    bound = 2 * BF16_UNIT * np.abs(ref) + splits * FP32_UNIT * np.abs(part[:, :m, :n]).sum(axis=0)
    if not np.all(err <= bound):
        i, j = np.unravel_index(int(np.argmax(np.where(np.isnan(err), np.inf, err - bound))), err.shape)
        return f"reduction of {splits} splits: out[{i}][{j}] = {bf16_to_f64(out)[i, j]} vs {ref[i, j]}"
    return None


def check(variant, rng, tamper=None):
    if variant["function"] == "fp8_block_gemm_reduce":
        return check_reduce(variant, rng)
    for qm, qn, qk in BLOCK_SHAPES:
        if not runs(variant, qn):
            continue
        for m, n, k in shapes(variant, qk):
            problem = check_gemm(variant, rng, m, n, k, qm, qn, qk, tamper)
            if problem:
                return problem
    return None


def _sa_in_place_of_sa_t(given):
    given["sa_t"] = np.ascontiguousarray(given["sa_t"].T).reshape(given["sa_t"].shape)


def _neighbouring_k_block_of_sb(given):
    given["sb_t"] = np.ascontiguousarray(np.roll(given["sb_t"], 1, axis=0))


def _a_split_dropped(given):
    given["splits"] -= 1


def _must_fail(name, tamper):
    def test():
        variant = next(v for v in VARIANTS if v["name"] == name)
        if check(variant, np.random.default_rng(1), tamper) is None:
            return f"{name} passed with {tamper.__name__.strip('_').replace('_', ' ')}"
        return None
    return test


SELF_TESTS = [
    ("fp8 check fails a kernel that reads sa in place of sa_t",
     _must_fail("fp8_m64_n128_k128_w4_s4", _sa_in_place_of_sa_t)),
    ("fp8 check fails a kernel that reads b's scales of the neighbouring k block",
     _must_fail("fp8_m128_n128_k128_w8_s4", _neighbouring_k_block_of_sb)),
    ("fp8 check fails a reduction that drops a split", _must_fail("fp8_m64_n128_k128_w4_s4_split", _a_split_dropped)),
]
