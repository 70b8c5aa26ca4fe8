"""The interpreter check of copy_transpose's variants (check_kernels.py): every
element moved bit for bit."""
import numpy as np

from check_support import STORAGE, Pointer, launch, rows_shapes


def check(variant, rng):
    c = variant["constexprs"]
    dt = variant["dtype"]
    store, _ = STORAGE[dt]
    for m, n in rows_shapes(variant):
        x = rng.integers(-30000, 30000, size=(m, n)).astype(store)
        y = np.full((n, m), -1, dtype=store)
        tiles = -(-m // c["BLOCK_M"]) * -(-n // c["BLOCK_N"])
        launch(variant, (tiles, ), Pointer(x, STORAGE[dt][1]), Pointer(y, STORAGE[dt][1]), m, n)
        if not np.array_equal(y, x.T):
            return f"{m}x{n}: transpose differs"
    return None
