"""The interpreter check of reduce_sum's variants (check_kernels.py): each row's sum
against float64, within an fp32 accumulation's error."""
import numpy as np

from check_support import STORAGE, ULP, Pointer, decode, encode, launch, row_values, rows_shapes


def check(variant, rng):
    c = variant["constexprs"]
    dt = variant["dtype"]
    for m, n in rows_shapes(variant):
        x = encode(row_values(rng, m, n), dt)
        y = np.zeros(m, dtype=x.dtype)
        grid = (-(-m // c["BLOCK_M"]), )
        launch(variant, grid, Pointer(x, STORAGE[dt][1]), Pointer(y, STORAGE[dt][1]), m, n)
        xs = decode(x, dt)
        ref = xs.sum(axis=1)
        bound = ULP[dt] * np.abs(ref) + 2.0**-22 * n * np.abs(xs).sum(axis=1) + 1e-30
        err = np.abs(decode(y, dt) - ref)
        if not np.all(err <= bound):
            i = int(np.argmax(err - bound))
            return f"{m}x{n}: row {i} sum {decode(y, dt)[i]} vs {ref[i]}"
    return None
