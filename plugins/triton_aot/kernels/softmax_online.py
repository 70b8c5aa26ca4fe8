"""softmax_online: out[i][j] = exp(in[i][j] - max_i) / sum_j exp(in[i][j] - max_i).

Two kernels. softmax_tile holds BLOCK_M whole rows (n <= BLOCK_N) in registers: one
read, one write. softmax_loop is the online form for rows of any length, one row per
program: a first sweep keeps a running maximum and a sum rescaled whenever the
maximum grows (one exponential per element), a second sweep writes exp(x - max) / sum.
The second sweep re-reads the row, usually from L2, since the row was just read.
"""
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
# MUFU.EX2 alone. Triton's own exp also rescales arguments so that results below 2^-126
# come out subnormal, three more instructions per element; a softmax term that small
# is zero in every output dtype, or below any fp32 tolerance.
_EX2_FTZ = tl.constexpr("ex2.approx.ftz.f32 $0, $1;")


@triton.jit
def _exp_minus(t, shift):
    """exp(t - shift). The difference is formed first, exactly up to one rounding of a
    small number; folding shift * log2(e) into an FMA instead would round a product as
    large as the row's maximum (|x| about 100 in khost's data) and cost 5e-6 relative."""
    return tl.inline_asm_elementwise(_EX2_FTZ, "=f,f", [(t - shift) * LOG2E], dtype=tl.float32, is_pure=True,
                                     pack=1)


@triton.jit
def softmax_tile(x, y, m, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """x, y [m, n] with n <= BLOCK_N (the launcher's job). Grid cdiv(m, BLOCK_M)."""
    row0 = tl.program_id(0) * BLOCK_M
    r = tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    ok = ((row0 + r) < m)[:, None] & (c < n)[None, :]
    offs = row0.to(tl.int64) * n + r[:, None] * n + c[None, :]
    t = tl.load(x + offs, mask=ok, other=-float("inf")).to(tl.float32)
    e = _exp_minus(t, tl.max(t, axis=1)[:, None])
    out = e * (1.0 / tl.sum(e, axis=1))[:, None]
    tl.store(y + offs, out.to(y.dtype.element_ty), mask=ok)


@triton.jit
def _chunk(row_ptr, c0, n, MASK: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = c0 + tl.arange(0, BLOCK_N)
    if MASK:
        return tl.load(row_ptr + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
    return tl.load(row_ptr + cols).to(tl.float32)


@triton.jit
def _absorb(run_max, run_sum, t):
    new_max = tl.maximum(run_max, tl.max(t, axis=0))
    return new_max, run_sum * _exp_minus(run_max, new_max) + tl.sum(_exp_minus(t, new_max), axis=0)


@triton.jit
def _emit(row_out, c0, n, t, run_max, inv_sum, MASK: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = c0 + tl.arange(0, BLOCK_N)
    out = (_exp_minus(t, run_max) * inv_sum).to(row_out.dtype.element_ty)
    if MASK:
        tl.store(row_out + cols, out, mask=cols < n)
    else:
        tl.store(row_out + cols, out)


@triton.jit
def softmax_loop(x, y, m, n, BLOCK_N: tl.constexpr):
    """x, y [m, n], any n >= 1. Grid m."""
    base = tl.program_id(0).to(tl.int64) * n
    row_in = x + base
    row_out = y + base
    full = n - n % BLOCK_N
    run_max = -float("inf")
    run_sum = 0.0
    for c0 in range(0, full, BLOCK_N):
        run_max, run_sum = _absorb(run_max, run_sum, _chunk(row_in, c0, n, False, BLOCK_N))
    if full < n:
        run_max, run_sum = _absorb(run_max, run_sum, _chunk(row_in, full, n, True, BLOCK_N))
    inv_sum = 1.0 / run_sum
    for c0 in range(0, full, BLOCK_N):
        _emit(row_out, c0, n, _chunk(row_in, c0, n, False, BLOCK_N), run_max, inv_sum, False, BLOCK_N)
    if full < n:
        _emit(row_out, full, n, _chunk(row_in, full, n, True, BLOCK_N), run_max, inv_sum, True, BLOCK_N)


@triton.jit
def _lane_absorb(run_max, run_sum, t):
    """Per lane: one exponential of -|t - max| either rescales the sum (t is a new maximum)
    or is the term added to it."""
    d = t - run_max
    e = tl.inline_asm_elementwise(_EX2_FTZ, "=f,f", [-tl.abs(d) * LOG2E], dtype=tl.float32, is_pure=True, pack=1)
    grows = d > 0
    return tl.maximum(run_max, t), tl.where(grows, run_sum * e + 1.0, run_sum + e)


@triton.jit
def softmax_stream(x, y, m, n, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    """x, y [m, n], any n >= 1. Grid m. As softmax_loop, but the first sweep keeps a
    running maximum and sum per lane (no reduction inside the loop) and the second sweep
    walks the row backwards, so it starts with the chunks most recently read, the ones
    most likely still in L2."""
    base = tl.program_id(0).to(tl.int64) * n
    row_in = x + base
    row_out = y + base
    chunks = n // BLOCK_N
    full = chunks * BLOCK_N  # written so that Triton sees BLOCK_N divide it: 16-byte accesses
    # A finite start: t - start is never NaN, also for masked lanes (t = -inf).
    run_max = tl.full((BLOCK_N, ), -3.0e38, tl.float32)
    run_sum = tl.zeros((BLOCK_N, ), tl.float32)
    for c0 in tl.range(0, full, BLOCK_N, num_stages=STAGES):
        run_max, run_sum = _lane_absorb(run_max, run_sum, _chunk(row_in, c0, n, False, BLOCK_N))
    if full < n:
        run_max, run_sum = _lane_absorb(run_max, run_sum, _chunk(row_in, full, n, True, BLOCK_N))
    row_max = tl.max(run_max, axis=0)
    inv_sum = 1.0 / tl.sum(run_sum * _exp_minus(run_max, row_max), axis=0)
    if full < n:
        _emit(row_out, full, n, _chunk(row_in, full, n, True, BLOCK_N), row_max, inv_sum, True, BLOCK_N)
    for i in tl.range(0, chunks, num_stages=STAGES):
        c0 = (chunks - 1 - i) * BLOCK_N
        _emit(row_out, c0, n, _chunk(row_in, c0, n, False, BLOCK_N), row_max, inv_sum, False, BLOCK_N)
