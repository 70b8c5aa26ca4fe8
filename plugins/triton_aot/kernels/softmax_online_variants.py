"""The variants of softmax_online compiled into the plugin, in preference order (manifest.py
collects them; softmax_online.py holds the kernels)."""
from variant import FLOAT_TYPES, rowwise_signature, variant


def _cluster_variants(dt):
    # (programs per row = the cluster size, BLOCK_N, warps), longest rows first. 16-bit
    # rows of 16385 to 65536 take 4 programs of 16384 elements, 128 a thread (161
    # registers, 3 programs an SM); fp32 rows, and shorter 16-bit ones, 8 of 8192, 64 a
    # thread (89-96 registers), the shapes that measured fastest on an H200. A cluster
    # holds up to 8 programs on every Hopper part, the portable size.
    shapes = ((8, 8192, 4), ) if dt == "fp32" else ((4, 16384, 4), (8, 8192, 4))
    signature = dict(rowwise_signature(dt, True), part="*fp32:16")
    return [variant(f"softmax_{dt}_cluster_c{c}_n{bn}_w{w}", "softmax_online", "softmax_online.py",
                    "softmax_cluster", signature, {"BLOCK_N": bn, "THREADS": 32 * w}, w, dt, True, cluster=c)
            for c, bn, w in shapes]


def _variants():
    out = []
    for dt in FLOAT_TYPES:
        # (BLOCK_M, BLOCK_N, warps, aligned); BLOCK_M 0 is the streaming kernel, whose
        # launch shape sets how many rows share L2 (softmax_online.py).
        stream = (0, 16384, 32, True) if dt == "fp32" else (0, 8192, 16, True)
        for bm, bn, w, aligned in ((16, 64, 4, True), (4, 1024, 4, True), (1, 8192, 8, True), stream,
                                   (4, 1024, 4, False), (0, 2048, 8, False)):
            suffix = "" if aligned else "_any"
            if bm:
                out.append(variant(f"softmax_{dt}_tile_m{bm}_n{bn}_w{w}{suffix}", "softmax_online",
                                   "softmax_online.py", "softmax_tile", rowwise_signature(dt, aligned),
                                   {"BLOCK_M": bm, "BLOCK_N": bn}, w, dt, aligned))
            else:
                if aligned:
                    out += _cluster_variants(dt)
                out.append(variant(f"softmax_{dt}_stream_n{bn}_w{w}{suffix}", "softmax_online",
                                   "softmax_online.py", "softmax_stream", rowwise_signature(dt, aligned),
                                   {"BLOCK_N": bn}, w, dt, aligned))
    return out


VARIANTS = _variants()
