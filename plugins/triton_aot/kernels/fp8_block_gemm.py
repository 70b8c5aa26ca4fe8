"""fp8_block_gemm: out[i][j] = bf16(sum_k (a[i][k] sa[i/qm][k/qk]) (b[j][k] sb[j/qn][k/qk])).

a is e4m3 [m, k] and b e4m3 [n, k], both K-contiguous; the scales are read in their
transposed layouts, sa_t [k/qk, ceil(m/qm)] and sb_t [k/qk, ceil(n/qn)], where the
scales of one k block for neighbouring rows are neighbours, so a tile's scale loads of a
step are one contiguous run.

A program owns a BLOCK_M x BLOCK_N tile of out and walks its share of k in steps of
BLOCK_K. Each step's product of the two e4m3 tiles is a tl.dot (wgmma on e4m3, fp32
accumulator) into the tensor cores' sum of the current scale block; at the block's last
step (or the split's) that sum is promoted into the program's fp32 sum, times the
block's two scales, on the CUDA cores, and starts again from zero: once per qk step of k,
as DeepGEMM promotes (Hopper's tensor cores keep about 14 bits of an fp8 accumulation,
DeepSeek-V3's report, so no tensor-core sum spans more than a scale block). The launcher
runs a variant only where BLOCK_K divides qk, so that a step lies in one scale block. On
the steps that do not promote (qk = 256 and 512) the wgmma of one step stays in flight
while the next step's loads issue.

The kernel families (the launcher tells them apart by name):
- fp8_block_gemm: a tile's columns lie in one scale block of b (the launcher's condition:
  qn % BLOCK_N == 0; DeepSeek-V3's 128 x 128 blocks and the square ones), so a block's
  scales are one per row, sa * sb, and the promotion is one FMA an element. out bf16.
- fp8_block_gemm_split: the same over a share of k, the grid's y splitting k; it writes
  fp32 partial sums [splits, m, n] (m and n padded to whole tiles) to the workspace, which
  fp8_block_gemm_reduce adds in split order and rounds to bf16. For grids of few tiles (small m), which would leave
  most SMs idle.
- fp8_block_gemm_column_scales: any qn (per-token scales on both sides): each element's
  scale is its row's times its column's, one multiply more an element. out bf16.

The tiles are visited in groups of GROUP_M tile rows, column by column, so that the
programs running together share b's tiles in L2. Rows past m and columns past n read
row m - 1 and column n - 1 again, so that no load needs a mask; they are never stored.
Row bases and scale offsets are 64-bit: a tensor may hold more than 2^31 elements.
"""
import triton
import triton.language as tl


@triton.jit
def _tile_of(program, m, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """(tile row, tile column) of a program, GROUP_M tile rows a group, column-major within."""
    per_group = GROUP_M * tl.cdiv(n, BLOCK_N)
    first_row = program // per_group * GROUP_M
    rows_here = tl.minimum(tl.cdiv(m, BLOCK_M) - first_row, GROUP_M)
    within = program % per_group
    return first_row + within % rows_here, within // rows_here


@triton.jit
def _scales(sa_step, sb_step, sa_row, sb_row, k0, qk):
    """A step's scales: sa_t's and sb_t's entries of k0's scale block."""
    block = (k0 // qk).to(tl.int64)
    return tl.load(sa_step + block * sa_row), tl.load(sb_step + block * sb_row)


@triton.jit
def _gemm(a, b, sa_t, sb_t, out, m, n, k, qm, qn, qk, split_steps, part_rows, part_cols, BLOCK_M: tl.constexpr,
          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, B_SCALE_PER_TILE: tl.constexpr,
          SPLIT: tl.constexpr):
    """A program's tile of out, or with SPLIT of the partial sums of split program_id(1)."""
    tile_m, tile_n = _tile_of(tl.program_id(0), m, n, BLOCK_M, BLOCK_N, GROUP_M)
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_read = tl.minimum(rows, m - 1)
    cols_read = tl.minimum(cols, n - 1)
    k_first = tl.program_id(1) * split_steps * BLOCK_K if SPLIT else 0
    k_end = tl.minimum(k, k_first + split_steps * BLOCK_K) if SPLIT else k
    along_k = k_first + tl.arange(0, BLOCK_K)
    a_tile = a + rows_read.to(tl.int64)[:, None] * k + along_k[None, :]
    b_tile = b + cols_read.to(tl.int64)[None, :] * k + along_k[:, None]  # [BLOCK_K, BLOCK_N], K-major
    sa_row = tl.cdiv(m, qm).to(tl.int64)  # elements of one k block's row of sa_t
    sb_row = tl.cdiv(n, qn).to(tl.int64)
    sa_step = sa_t + rows_read // qm
    if B_SCALE_PER_TILE:
        sb_step = sb_t + tile_n * BLOCK_N // qn
    else:
        sb_step = sb_t + cols_read // qn
    scale_a, scale_b = _scales(sa_step, sb_step, sa_row, sb_row, k_first, qk)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    block_sum = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)  # the tensor cores' sum of this scale block
    for k0 in range(k_first, k_end, BLOCK_K):
        # The next step's scales load while this step's product runs, so that the
        # promotion does not wait on them (the last step loads its own again); carried
        # to the next pass, they are loaded on every pass, not sunk into the branch.
        next_a, next_b = _scales(sa_step, sb_step, sa_row, sb_row, tl.minimum(k0 + BLOCK_K, k_end - BLOCK_K), qk)
        block_sum = tl.dot(tl.load(a_tile), tl.load(b_tile), block_sum)
        if (k0 + BLOCK_K) % qk == 0 or k0 + BLOCK_K == k_end:  # the block's last step, or the split's
            if B_SCALE_PER_TILE:
                acc += block_sum * (scale_a * scale_b)[:, None]
            else:
                acc += block_sum * (scale_a[:, None] * scale_b[None, :])
            block_sum = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        scale_a, scale_b = next_a, next_b
        a_tile += BLOCK_K
        b_tile += BLOCK_K
    if SPLIT:
        # Whole tiles of the padded partials: no mask, and rows of a multiple of 16 elements.
        at = (tl.program_id(1).to(tl.int64) * part_rows + rows)[:, None] * part_cols + cols[None, :]
        tl.store(out + at, acc)
    else:
        stored = (rows < m)[:, None] & (cols < n)[None, :]
        tl.store(out + rows.to(tl.int64)[:, None] * n + cols[None, :], acc.to(tl.bfloat16), mask=stored)


@triton.jit
def fp8_block_gemm(a, b, sa_t, sb_t, out, m, n, k, qm, qn, qk, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """out bf16 [m, n], b's scale one per tile (qn % BLOCK_N == 0). Grid (tiles, 1)."""
    _gemm(a, b, sa_t, sb_t, out, m, n, k, qm, qn, qk, 0, 0, 0, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, True, False)


@triton.jit
def fp8_block_gemm_split(a, b, sa_t, sb_t, part, m, n, k, qm, qn, qk, split_steps, part_rows, part_cols,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    """fp32 partial sums part [splits, part_rows, part_cols] (m and n padded to whole
    tiles) of split_steps steps of k each, b's scale one per tile. Grid (tiles, splits)."""
    _gemm(a, b, sa_t, sb_t, part, m, n, k, qm, qn, qk, split_steps, part_rows, part_cols, BLOCK_M, BLOCK_N, BLOCK_K,
          GROUP_M, True, True)


@triton.jit
def fp8_block_gemm_column_scales(a, b, sa_t, sb_t, out, m, n, k, qm, qn, qk, BLOCK_M: tl.constexpr,
                                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """out bf16 [m, n], b's scales one per column (any qn). Grid (tiles, 1)."""
    _gemm(a, b, sa_t, sb_t, out, m, n, k, qm, qn, qk, 0, 0, 0, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, False, False)


@triton.jit
def fp8_block_gemm_reduce(part, out, m, n, splits, part_rows, part_cols, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr):
    """out [m, n] = bf16(sum over s of part[s]), in split order; part fp32 [splits,
    part_rows, part_cols]. Grid cdiv(m, BLOCK_M) * cdiv(n, BLOCK_N)."""
    tiles_n = tl.cdiv(n, BLOCK_N)
    rows = tl.program_id(0) // tiles_n * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(0) % tiles_n * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows < m)[:, None] & (cols < n)[None, :]
    at = rows.to(tl.int64)[:, None] * part_cols + cols[None, :]
    split_size = part_rows.to(tl.int64) * part_cols
    total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for s in range(0, splits):
        total += tl.load(part + s * split_size + at, mask=inside, other=0.0)
    tl.store(out + rows.to(tl.int64)[:, None] * n + cols[None, :], total.to(tl.bfloat16), mask=inside)
