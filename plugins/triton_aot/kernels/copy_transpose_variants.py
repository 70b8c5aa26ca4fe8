"""The variants of copy_transpose compiled into the plugin, in preference order (manifest.py
collects them; copy_transpose.py holds the kernels)."""
from variant import rowwise_signature, variant


def _variants():
    # The large tile per element size, then a smaller aligned one and the masked scalar
    # one for small or unaligned matrices.
    out = []
    large = {16: (128, 128, 8), 32: (64, 128, 4)}
    for bits in (16, 32):
        elem = f"i{bits}"
        for bm, bn, w, aligned in (large[bits] + (True, ), (64, 64, 4, True), (64, 64, 4, False)):
            suffix = "" if aligned else "_any"
            out.append(variant(f"copy_b{bits}_t{bm}x{bn}_w{w}{suffix}", "copy_transpose",
                               "copy_transpose.py", "copy_transpose", rowwise_signature(elem, aligned, m_aligned=True),
                               {"BLOCK_M": bm, "BLOCK_N": bn}, w, f"b{bits}", aligned))
    return out


VARIANTS = _variants()
