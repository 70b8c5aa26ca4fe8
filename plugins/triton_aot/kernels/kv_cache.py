"""The four KV-cache layout conversions (khost/ops/kv_cache.h), one kernel for all: a
program per block-stack chunk (b, l, o), reaching the chunk and its block through the
u64 pointer tables, moving the chunk's elements as bits (fp8 as uint8, fp16 and bf16
as int16, fp32 as int32: the arenas' pointer type, which the launcher picks by element
size) in tiles of BLOCK_R runs of hd elements by BLOCK_D. A run of hd elements is
contiguous in every layout, so only a run's start moves between them: the chunk's
runs are in chunk order (NHD: run t*nh + h; HND: run h*nt + t), the block's at the
universal index of (h, l, o, t, 0), or flat after the chunk's first element in an
operational block. Offsets inside a chunk or block are 32-bit (the launcher declines
larger blocks); addresses come whole from the tables.

VEC is the elements of a 16-byte vector for the aligned variants (1 for the others).
There the launcher promises hd % VEC == 0, and a chunk whose two addresses are both
16-byte aligned (as khost places every chunk on a 256-byte boundary) is copied in
16-byte vectors; a chunk that is not takes the element-wise path of the same tile, so a
table that breaks the promise is still copied right, only slower.
"""
import triton
import triton.language as tl


# The tile of the element-wise path, also where a vector variant meets a chunk off the
# 16-byte boundary.
ELEMENT_R = tl.constexpr(32)
ELEMENT_D = tl.constexpr(32)


@triton.jit
def _vector_pointer(address, element):
    """address, 16-byte aligned, as a pointer Triton knows to be: a pointer of its own
    (tl.multiple_of marks the operation that made its value, so marking the one the
    element-wise path uses would promise alignment there too); the shifts change no
    aligned address."""
    return tl.multiple_of(((address >> 4) << 4).to(tl.pointer_type(element)), 16)


@triton.jit
def _copy_chunk(src_at, dst_at, nh, nl, no, nt, hd, l, o, layout, from_blocks, permute, TILE_R: tl.constexpr,
                TILE_D: tl.constexpr):
    """Chunk (l, o)'s nt * nh runs of hd elements, TILE_R runs by TILE_D elements at a
    time, from src_at to dst_at (one of them the chunk, the other its block)."""
    rows = nt * nh
    for r0 in range(0, rows, TILE_R):
        r = r0 + tl.arange(0, TILE_R)
        t = tl.where(layout != 0, r % nt, r // nh)
        h = tl.where(layout != 0, r // nt, r % nh)
        chunk_row = r * hd
        universal_row = (((h * nl + l) * no + o) * nt + t) * hd
        operational_row = ((l * no + o) * rows + r) * hd
        block_row = tl.where(permute != 0, universal_row, operational_row)
        src_row = tl.where(from_blocks != 0, chunk_row, block_row)
        dst_row = tl.where(from_blocks != 0, block_row, chunk_row)
        for d0 in range(0, hd, TILE_D):
            d = d0 + tl.arange(0, TILE_D)
            inside = (r < rows)[:, None] & (d < hd)[None, :]
            bits = tl.load(src_at + src_row[:, None] + d[None, :], mask=inside)
            tl.store(dst_at + dst_row[:, None] + d[None, :], bits, mask=inside)


@triton.jit
def kv_copy(src, src_table, dst_table, dst, nh, nl, no, nt, hd_vecs, layout, from_blocks, permute,
            BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr, VEC: tl.constexpr):
    """src and dst are the arenas, read only for their element type. hd_vecs is hd / VEC:
    hd rebuilt as a multiple of the constant VEC is known to be one, which makes every
    run's start a whole vector (tl.multiple_of on a scalar argument does not). layout: 0
    NHD, 1 HND; from_blocks: 1 when src is the block stack; permute: 1 for the universal
    layout, 0 for the operational one."""
    c = tl.program_id(0)  # chunk (b, l, o), entry b*nl*no + l*no + o of the block stack's table
    o = c % no
    l = c // no % nl
    b = c // (no * nl)
    hd = hd_vecs * VEC
    element = src.dtype.element_ty
    src_address = tl.load(src_table + tl.where(from_blocks != 0, c, b))
    dst_address = tl.load(dst_table + tl.where(from_blocks != 0, b, c))
    src_at = src_address.to(tl.pointer_type(element))
    dst_at = dst_address.to(tl.pointer_type(element))
    if VEC == 1:
        _copy_chunk(src_at, dst_at, nh, nl, no, nt, hd, l, o, layout, from_blocks, permute, BLOCK_R, BLOCK_D)
    elif (src_address | dst_address) % 16 == 0:
        _copy_chunk(_vector_pointer(src_address, element), _vector_pointer(dst_address, element), nh, nl, no, nt,
                    hd, l, o, layout, from_blocks, permute, BLOCK_R, BLOCK_D)
    else:
        _copy_chunk(src_at, dst_at, nh, nl, no, nt, hd, l, o, layout, from_blocks, permute, ELEMENT_R, ELEMENT_D)
