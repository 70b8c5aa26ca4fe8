"""The interpreter check of the KV-cache variants (check_kernels.py): each variant runs
its op on arenas placed as khost places them (every chunk or block on a 256-byte
boundary, in a shuffled order, with poisoned gaps of 1 to 4 units between), for both
layouts where the op has one, and the whole destination arena must come out as the
expected image: every chunk's bits where the layouts put them, every gap's poison. The
expected layouts are numpy transposes of one logical tensor [nb, nl, no, nt, nh, hd],
independent of the kernel's index arithmetic. The source arena must be left as it was.

SELF_TESTS (run by check_kernels.py) show the check failing kernels that ignore layout
or follow a wrong table entry."""
import numpy as np

from check_support import Pointer, launch
from kv_cache_variants import variants

ALIGN = 256
GAP_UNITS = 4  # khost's KHOST__ARENA_GAP_UNITS
# The gaps' bytes, one per side: a kernel that copies a source gap into a destination gap
# must leave a trace.
SOURCE_POISON, POISON = 0x5A, 0xA5
NHD, HND = 0, 1
ELEMENT = {8: (np.uint8, "uint8"), 16: (np.int16, "int16"), 32: (np.int32, "int32")}
# (nh, nl, no, nt, hd, nb): kv_correctness's shapes, its odd head dim and its nb = 0.
ANY_SHAPES = ((3, 2, 2, 4, 5, 3), (2, 3, 2, 4, 3, 2), (2, 1, 2, 3, 4, 1), (3, 2, 1, 5, 129, 4), (3, 2, 2, 4, 5, 0))


def aligned_shapes(vec):
    """Shapes an aligned variant can run: hd a multiple of its vector's elements."""
    return ((3, 2, 2, 4, 2 * vec, 3), (2, 1, 2, 3, vec, 2), (1, 2, 2, 16, 128, 2), (3, 2, 1, 4, vec, 0))


def arena(rng, parts, skew, poison):
    """A 256-byte aligned byte buffer holding `parts` (byte arrays) in a shuffled order,
    each `skew` bytes past a 256-byte boundary, poison bytes around them; and each part's
    offset."""
    offsets, at = [0] * len(parts), 0
    for i in rng.permutation(len(parts)):
        at += ALIGN * int(rng.integers(1, GAP_UNITS + 1))
        offsets[i] = at + skew
        at += -(-(skew + parts[i].nbytes) // ALIGN) * ALIGN
    raw = np.full(at + 2 * ALIGN, poison, np.uint8)
    image = raw[-raw.ctypes.data % ALIGN:][:at + ALIGN]
    for part, offset in zip(parts, offsets):
        image[offset:offset + part.nbytes] = part.view(np.uint8).reshape(-1)
    return image, offsets


def layouts(rng, dims, bits, layout):
    """The block-stack chunks (in `layout`), universal blocks and operational blocks of one
    random logical tensor, as lists of flat arrays in table order."""
    nh, nl, no, nt, hd, nb = dims
    store = ELEMENT[bits][0]
    info = np.iinfo(store)
    logical = rng.integers(info.min, info.max, size=(nb, nl, no, nt, nh, hd), endpoint=True).astype(store)
    chunk_axes = (1, 0, 2) if layout == HND else (0, 1, 2)
    chunks = [logical[b, l, o].transpose(chunk_axes).reshape(-1)
              for b in range(nb) for l in range(nl) for o in range(no)]
    universal = [logical[b].transpose(3, 0, 1, 2, 4).reshape(-1) for b in range(nb)]
    operational = [logical[b].reshape(-1) for b in range(nb)]
    return chunks, universal, operational


def run_case(variant, rng, dims, layout, skew, tamper=None):
    """One call of the variant's op: None or what differs. tamper(kernel args, tables) may
    change what the kernel is given, to show the check failing a wrong kernel."""
    nh, nl, no, nt, hd, nb = dims
    op, c, bits = variant["op"], variant["constexprs"], int(variant["dtype"][1:])
    from_blocks, permute = op.startswith("kv_block_to"), op.endswith("universal") or op.startswith("kv_universal")
    chunks, universal, operational = layouts(rng, dims, bits, layout if permute else NHD)
    blocks = universal if permute else operational
    src_parts, dst_parts = (chunks, blocks) if from_blocks else (blocks, chunks)
    src, src_at = arena(rng, src_parts, skew, SOURCE_POISON)
    dst, dst_at = arena(rng, dst_parts, skew, POISON)
    want = dst.copy()  # the expected image; the kernel starts from poison
    dst[:] = POISON
    src_before = src.copy()
    store, name = ELEMENT[bits]
    src_table = np.array([src.ctypes.data + o for o in src_at], np.int64)
    dst_table = np.array([dst.ctypes.data + o for o in dst_at], np.int64)
    args = [nh, nl, no, nt, hd // c["VEC"], layout if permute else NHD, int(from_blocks), int(permute)]
    if tamper:
        tamper(args, src_table)
    if nb:
        launch(variant, (nb * nl * no, ), Pointer(src.view(store), name), Pointer(src_table, "int64"),
               Pointer(dst_table, "int64"), Pointer(dst.view(store), name), *args)
    where = f"nh,nl,no,nt,hd,nb = {dims}" + (f" {('NHD', 'HND')[layout]}" if permute else "") + \
        (f", chunks {skew} bytes off 16" if skew else "")
    if not np.array_equal(src, src_before):
        return f"{where}: the source arena was written"
    if not np.array_equal(dst, want):
        first = int(np.argmax(dst != want))
        return f"{where}: destination byte {first} is {dst[first]:#x}, not {want[first]:#x}"
    return None


def cases(variant):
    """(dims, layout, skew) of every call the check makes of variant."""
    c, bits = variant["constexprs"], int(variant["dtype"][1:])
    permuting = "universal" in variant["op"]
    shapes = aligned_shapes(c["VEC"]) if variant["aligned"] else ANY_SHAPES
    # An aligned variant also meets chunks off the 16-byte boundary: its element-wise path.
    skews = (0, bits // 8) if variant["aligned"] else (0, )
    return [(dims, layout, skew) for dims in shapes for layout in ((NHD, HND) if permuting else (NHD, ))
            for skew in skews]


def check(variant, rng, tamper=None):
    for dims, layout, skew in cases(variant):
        problem = run_case(variant, rng, dims, layout, skew, tamper)
        if problem:
            return problem
    return None


def _test_variant(op):
    return next(v for v in variants(op) if not v["aligned"])


def _layout_ignored(args, src_table):
    args[5] = NHD


def _entries_swapped(args, src_table):
    if len(src_table) > 1:
        src_table[[0, 1]] = src_table[[1, 0]]


def _must_fail(op, tamper):
    def test():
        if check(_test_variant(op), np.random.default_rng(1), tamper) is None:
            return f"{op} passed with {tamper.__name__.strip('_').replace('_', ' ')}"
        return None
    return test


SELF_TESTS = [
    ("kv check fails a kernel that ignores layout", _must_fail("kv_universal_to_block", _layout_ignored)),
    ("kv check fails a kernel that follows a wrong table entry",
     _must_fail("kv_block_to_operational", _entries_swapped)),
]
