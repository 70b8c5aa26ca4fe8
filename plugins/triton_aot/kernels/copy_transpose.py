"""copy_transpose: out[j][i] = in[i][j] for an [m, n] row-major input, bit-exact.

Only the element size matters to a bit copy, so fp16 and bf16 share the 16-bit
kernels. Loads are coalesced along n and stores along m; Triton moves the tile
between the two layouts through shared memory. Tile origins are 64-bit, offsets inside
a tile 32-bit (the launcher keeps BLOCK * max(m, n) below 2^31). Every byte is read
once and written once, so loads and stores are evict_first: they replace each other in
L2 instead of evicting other (possibly dirty) lines.
"""
import triton
import triton.language as tl


@triton.jit
def copy_transpose(x, y, m, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """x [m, n] -> y [n, m]. A 1-D grid of tiles, n-tiles fastest."""
    tiles_n = tl.cdiv(n, BLOCK_N)
    row0 = tl.program_id(0) // tiles_n * BLOCK_M
    col0 = tl.program_id(0) % tiles_n * BLOCK_N
    r = tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    inside = ((row0 + r) < m)[:, None] & ((col0 + c) < n)[None, :]
    tile = tl.load(x + row0.to(tl.int64) * n + col0 + r[:, None] * n + c[None, :], mask=inside,
                   eviction_policy="evict_first")
    tl.store(y + col0.to(tl.int64) * m + row0 + c[None, :] * m + r[:, None], tile, mask=inside,
             eviction_policy="evict_first")
