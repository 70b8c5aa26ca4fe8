"""The variants of reduce_sum compiled into the plugin, in preference order (manifest.py
collects them; reduce_sum.py holds the kernels)."""
from variant import FLOAT_TYPES, rowwise_signature, variant


def _variants():
    out = []
    for dt in FLOAT_TYPES:
        # 8 warps for the 8192-wide tile: 32 elements a thread, so twice the bytes in flight
        # per thread of 16 warps.
        for bm, bn, w, aligned in ((32, 64, 4, True), (4, 1024, 4, True), (1, 8192, 8, True),
                                   (4, 512, 4, False)):
            suffix = "" if aligned else "_any"
            out.append(variant(f"reduce_{dt}_m{bm}_n{bn}_w{w}{suffix}", "reduce_sum", "reduce_sum.py",
                               "reduce_sum", rowwise_signature(dt, aligned), {"BLOCK_M": bm, "BLOCK_N": bn},
                               w, dt, aligned))
    return out


VARIANTS = _variants()
