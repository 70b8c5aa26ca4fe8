"""softmax_online: out[i][j] = exp(in[i][j] - max_i) / sum_j exp(in[i][j] - max_i).

Three kernels. softmax_tile holds BLOCK_M whole rows (n <= BLOCK_N) in registers: one
read, one write. softmax_stream is the online form for rows of any length, one row per
program, in two sweeps. The first keeps a running maximum and sum per lane: one
exponential per element, exp(-|x - max|), either rescales the lane's sum (x is a new
maximum) or is the term added to it, and no reduction runs inside the loop; the lanes
are combined once at the end. The second sweep writes exp(x - max) / sum, re-reading
the row from L2: it walks the row backwards, so it starts with the chunks read last,
and its loads and the row's stores are evict_first, so that lines used for the last
time replace each other rather than the rest of the row. For the re-read to hit, the
rows in flight at once must fit in L2 with room to spare, which the launch shape sets:
two programs of 16 warps (16-bit types) or one of 32 (fp32) per multiprocessor.
softmax_cluster reads a long row once: a cluster of CLUSTER programs shares the row,
each holding one segment in registers. Each thread first takes the maximum and sum of its
own elements, with no communication, and one reduction of (maximum, sum) pairs gives the
segment's; the programs exchange those through global memory across one cluster barrier
(cluster.py).
"""
import triton
import triton.language as tl

from cluster import cluster_sync

LOG2E = tl.constexpr(1.4426950408889634)
# MUFU.EX2 alone. Triton's own exp also rescales arguments so that results below 2^-126
# come out subnormal, three more instructions per element; a softmax term that small
# is zero in every output dtype, or below any fp32 tolerance.
_EX2_FTZ = tl.constexpr("ex2.approx.ftz.f32 $0, $1;")
# L2 eviction priorities: the first sweep's lines are read again, the second sweep's are
# not (evict_first lets them replace each other instead of the rest of the row).
KEEP = tl.constexpr("")
LAST_USE = tl.constexpr("evict_first")


@triton.jit
def _ex2(t):
    return tl.inline_asm_elementwise(_EX2_FTZ, "=f,f", [t], dtype=tl.float32, is_pure=True, pack=1)


@triton.jit
def _exp_minus(t, shift):
    """exp(t - shift). The difference is formed first, exactly up to one rounding of a
    small number; folding shift * log2(e) into an FMA instead would round a product as
    large as the row's maximum (|x| about 100 in khost's data) and cost 5e-6 relative."""
    return _ex2((t - shift) * LOG2E)


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
def _chunk(row_ptr, c0, n, MASK: tl.constexpr, BLOCK_N: tl.constexpr, POLICY: tl.constexpr):
    cols = c0 + tl.arange(0, BLOCK_N)
    if MASK:
        t = tl.load(row_ptr + cols, mask=cols < n, other=-float("inf"), eviction_policy=POLICY)
        return t.to(tl.float32)
    return tl.load(row_ptr + cols, eviction_policy=POLICY).to(tl.float32)


@triton.jit
def _absorb(run_max, run_sum, t):
    d = t - run_max
    e = _ex2(-tl.abs(d) * LOG2E)
    return tl.maximum(run_max, t), tl.where(d > 0, run_sum * e + 1.0, run_sum + e)


@triton.jit
def _emit(row_out, c0, n, t, row_max, inv_sum, addend, MASK: tl.constexpr, BLOCK_N: tl.constexpr):
    """16-bit outputs take exp(t - max) / sum as 2^(t * log2(e) + addend), one FMA ahead of
    the MUFU: the addend's own rounding (about 1e-5 relative with khost's data) is under 5% of
    half an fp16 ulp, so the output is still within the one ulp that its rounding allows, and
    the subtraction and the multiply by 1 / sum leave the sweep. fp32 keeps _exp_minus."""
    cols = c0 + tl.arange(0, BLOCK_N)
    if row_out.dtype.element_ty == tl.float32:
        out = _exp_minus(t, row_max) * inv_sum
    else:
        out = _ex2(tl.fma(t, LOG2E, addend)).to(row_out.dtype.element_ty)
    if MASK:
        tl.store(row_out + cols, out, mask=cols < n, eviction_policy="evict_first")
    else:
        tl.store(row_out + cols, out, eviction_policy="evict_first")


@triton.jit
def softmax_stream(x, y, m, n, BLOCK_N: tl.constexpr):
    """x, y [m, n], any n >= 1. Grid m."""
    base = tl.program_id(0).to(tl.int64) * n
    row_in = x + base
    row_out = y + base
    chunks = n // BLOCK_N
    full = chunks * BLOCK_N  # so written, Triton sees BLOCK_N divide it: 16-byte accesses
    # A finite start: t - start is never NaN, also for masked lanes (t = -inf).
    run_max = tl.full((BLOCK_N, ), -3.0e38, tl.float32)
    run_sum = tl.zeros((BLOCK_N, ), tl.float32)
    for c0 in range(0, full, BLOCK_N):
        run_max, run_sum = _absorb(run_max, run_sum, _chunk(row_in, c0, n, False, BLOCK_N, KEEP))
    if full < n:
        run_max, run_sum = _absorb(run_max, run_sum, _chunk(row_in, full, n, True, BLOCK_N, KEEP))
    row_max = tl.max(run_max, axis=0)
    total = tl.sum(run_sum * _exp_minus(run_max, row_max), axis=0)
    inv_sum = 1.0 / total
    addend = -(row_max * LOG2E + tl.log2(total))
    if full < n:
        t = _chunk(row_in, full, n, True, BLOCK_N, LAST_USE)
        _emit(row_out, full, n, t, row_max, inv_sum, addend, True, BLOCK_N)
    for i in range(0, chunks):
        c0 = (chunks - 1 - i) * BLOCK_N
        t = _chunk(row_in, c0, n, False, BLOCK_N, LAST_USE)
        _emit(row_out, c0, n, t, row_max, inv_sum, addend, False, BLOCK_N)


@triton.jit
def _exchange(part, row64, seg, seg_max, seg_sum, CLUSTER: tl.constexpr):
    """The row's maximum and sum of exp(x - max) from its CLUSTER segments' (part [m,
    CLUSTER, 2] fp32: every slot is written before it is read, so it needs no clearing)."""
    slots = part + row64 * (2 * CLUSTER)
    tl.store(slots + 2 * seg, seg_max)
    tl.store(slots + 2 * seg + 1, seg_sum)
    peers = 2 * tl.arange(0, CLUSTER) + (cluster_sync(seg) - seg)
    # .cg: the peers' lines are read from L2, past this multiprocessor's L1.
    maxes = tl.load(slots + peers, cache_modifier=".cg")
    sums = tl.load(slots + peers + 1, cache_modifier=".cg")
    row_max = tl.max(maxes, axis=0)
    return row_max, tl.sum(sums * _exp_minus(maxes, row_max), axis=0)


@triton.jit
def _merge(max_a, sum_a, max_b, sum_b):
    """Two (maximum, sum of exp(x - maximum)) pairs as one."""
    top = tl.maximum(max_a, max_b)
    return top, sum_a * _exp_minus(max_a, top) + sum_b * _exp_minus(max_b, top)


@triton.jit
def softmax_cluster(x, y, m, n, part, BLOCK_N: tl.constexpr, THREADS: tl.constexpr, CLUSTER: tl.constexpr):
    """x, y [m, n] with n <= CLUSTER * BLOCK_N. Grid m * CLUSTER in clusters of CLUSTER
    programs (the launcher's; tools/triton_aot.py sets CLUSTER from the variant's
    cluster): program p holds segment p % CLUSTER (BLOCK_N elements) of row p // CLUSTER;
    part as _exchange's. THREADS is the program's thread count: the segment is held as
    [THREADS, words, 16 bytes], so that each thread's elements share the first index and
    its maximum and sum need no other thread (any value gives the same results)."""
    VEC: tl.constexpr = 128 // x.dtype.element_ty.primitive_bitwidth
    pid = tl.program_id(0)
    seg = pid % CLUSTER
    row = (pid // CLUSTER).to(tl.int64)
    cols = (seg * BLOCK_N + tl.arange(0, THREADS)[:, None, None] * VEC +
            tl.arange(0, BLOCK_N // (THREADS * VEC))[None, :, None] * (THREADS * VEC) +
            tl.arange(0, VEC)[None, None, :])
    ok = cols < n
    base = row * n
    # No L2 hints, though each element is touched once: measured faster than evict_first
    # (H200, 16-bit rows of 65536: 81.9-82.7% of copy against 79.7-80.4; why is not known).
    # evict_last loads measured as fast, but the lines they protect could outlive khost's
    # L2 flush and warm the next timed call.
    t = tl.load(x + base + cols, mask=ok, other=-float("inf")).to(tl.float32)
    # A floor for a thread whose elements all lie past n (t = -inf), finite also times
    # log2(e), so that the 16-bit path's FMA gives -inf there, not inf - inf.
    own_max = tl.maximum(tl.max(tl.max(t, axis=2), axis=1), -1.0e38)
    if y.dtype.element_ty == tl.float32:
        e = _exp_minus(t, own_max[:, None, None])
    else:
        # One FMA ahead of the MUFU: rounding own_max * log2(e) costs about 1e-5
        # relative (as in _emit), far below a 16-bit output's half ulp.
        e = _ex2(tl.fma(t, LOG2E, (-own_max * LOG2E)[:, None, None]))
    seg_max, seg_sum = tl.reduce((own_max, tl.sum(tl.sum(e, axis=2), axis=1)), 0, _merge)
    row_max, total = _exchange(part, row, seg, seg_max, seg_sum, CLUSTER)
    out = e * (_exp_minus(own_max, row_max) / total)[:, None, None]
    tl.store(y + base + cols, out.to(y.dtype.element_ty), mask=ok)
