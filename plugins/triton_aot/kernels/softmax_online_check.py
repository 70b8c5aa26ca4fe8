"""The interpreter check of softmax_online's variants (check_kernels.py): each
element against float64, within the op's error model."""
import numpy as np

from check_support import (STORAGE, SUBNORMAL, ULP, Pointer, decode, encode, launch, launch_cluster, row_values,
                           rows_shapes)

OFFSET_MAX = 100.0  # a row's offset, as in khost's inputs of this op (core/ops/softmax_online.c)


def shapes(variant):
    c = variant["constexprs"]
    if variant["function"] == "softmax_cluster":
        # The longest row; one that leaves the last program empty; one just past one program.
        full = variant["cluster"] * c["BLOCK_N"]
        return [(2, full), (3, full - c["BLOCK_N"] - 16), (2, c["BLOCK_N"] + 16)]
    if variant["function"] == "softmax_tile":  # whole rows of at most one tile
        return [(m, min(n, c["BLOCK_N"])) for m, n in rows_shapes(variant)]
    return rows_shapes(variant)


def run(variant, m, n, x, y):
    c = variant["constexprs"]
    args = (Pointer(x, STORAGE[variant["dtype"]][1]), Pointer(y, STORAGE[variant["dtype"]][1]), m, n)
    if variant["function"] != "softmax_cluster":
        rows = c["BLOCK_M"] if variant["function"] == "softmax_tile" else 1
        launch(variant, (-(-m // rows), ), *args)
        return
    launch_cluster(variant, (m * variant["cluster"], ), args, m * variant["cluster"] * 2)


def check(variant, rng):
    dt = variant["dtype"]
    for m, n in shapes(variant):
        x = encode(row_values(rng, m, n, OFFSET_MAX), dt)
        y = np.zeros_like(x)
        run(variant, m, n, x, y)
        xs = decode(x, dt)
        e = np.exp(xs - xs.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        err = np.abs(decode(y, dt) - ref)
        # The error model of core/ops/softmax_online.c, with the spread these rows have.
        spread = np.abs(xs - xs.max(axis=1, keepdims=True)).max()
        fp32_units = spread + 2 * (2 + 1.2 * spread) + np.sqrt(n) + 8
        bound = (ULP[dt] + fp32_units * 2.0**-24) * np.abs(ref) + SUBNORMAL[dt]
        if not np.all(err <= bound):
            i = np.unravel_index(int(np.argmax(err - bound)), err.shape)
            return f"{m}x{n}: element {i}: {decode(y, dt)[i]} vs {ref[i]}"
    return None
