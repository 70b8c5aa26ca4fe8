"""The interpreter check of nvfp4_gemv's variants (check_kernels.py): each output
against the float64 sum of the decoded products, within an fp32 accumulation's error."""
import numpy as np

from check_support import Pointer, e4m3_value, launch

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def unpack_e2m1(packed):
    lo, hi = E2M1[packed & 15], E2M1[packed >> 4]
    return np.stack([lo, hi], axis=-1).reshape(*packed.shape[:-1], packed.shape[-1] * 2)


def shapes(variant):
    """Full tiles and a partial one; a partial tile alone; exactly one full tile."""
    bm, bk = variant["constexprs"]["BLOCK_M"], variant["constexprs"]["BLOCK_K"]
    return ((bm * 2, 2 * bk + 64 * 3, 2), (bm, 64, 1), (bm, bk, 3))


def run(variant, m, k, l, *tensors):
    args = [Pointer(t, ty) for t, ty in zip(tensors, ("int64", "uint8", "int64", "uint8", "float16"))]
    launch(variant, (m // variant["constexprs"]["BLOCK_M"], l), *args, m, k // 16)


def check(variant, rng):
    for m, k, l in shapes(variant):
        a = rng.integers(0, 256, size=(l, m, k // 2), dtype=np.uint8)
        v = rng.integers(0, 256, size=(l, k // 2), dtype=np.uint8)
        # Both signs, subnormals, and exponents up to 2^3, so that most sums stay finite in fp16.
        codes = np.concatenate([np.arange(0x50), np.arange(0x80, 0xD0)])
        sfa = rng.choice(codes, size=(l, m, k // 16)).astype(np.uint8)
        sfv = rng.choice(codes, size=(l, k // 16)).astype(np.uint8)
        out = np.zeros((l, m), dtype=np.float16)
        run(variant, m, k, l, a, sfa, v, sfv, out)
        a_values = unpack_e2m1(a) * np.repeat(e4m3_value(sfa), 16, axis=-1)
        v_values = unpack_e2m1(v) * np.repeat(e4m3_value(sfv), 16, axis=-1)
        prod = a_values * v_values[:, None, :]
        ref = prod.sum(axis=-1)
        got = out.astype(np.float64)
        finite = np.abs(ref) < 65504
        if finite.mean() < 0.9:
            return f"m={m} k={k} l={l}: test data overflow fp16 too often"
        bound = 2.0**-11 * np.abs(ref) + 2.0**-22 * np.abs(prod).sum(axis=-1) + 2.0**-24
        err = np.abs(got - ref)
        if not np.all(err[finite] <= bound[finite]) or not np.all(np.abs(got[~finite]) >= 65504):
            i = np.unravel_index(int(np.argmax(np.where(finite, err - bound, 0))), err.shape)
            return f"m={m} k={k} l={l}: c{i} = {got[i]} vs {ref[i]}"
    return None
