#!/usr/bin/env python3
"""Checks every variant of manifest.py on the CPU, no GPU needed: each kernel runs in
Triton's interpreter (TRITON_INTERPRET=1) on numpy data and is compared with a float64
reference. The inline PTX the kernels carry (the GEMV's fp4 decode, the softmax's
ex2) cannot run in the interpreter, so this script executes that PTX text itself with
a small emulator of the few instructions it uses, bit for bit. Every load and store of
an active lane must fall inside one of the launch's arrays. Prints TAP (one line per
variant); exit status 0 when every variant passes.

Usage: check_kernels.py [--only SUBSTRING] [--seed N]
"""
import argparse
import importlib.util
import os
import re
import runpy
import sys
import warnings

os.environ["TRITON_INTERPRET"] = "1"
sys.dont_write_bytecode = True

import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import interpreter  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the PTX emulator ----

MASK32 = np.uint64(0xFFFFFFFF)


def _f32(bits):
    return (bits & MASK32).astype(np.uint32).view(np.float32)


def _f32_bits(values):
    return values.astype(np.float32).view(np.uint32).astype(np.uint64)


def _prmt(a, b, c):
    """prmt.b32 in its default mode: each selector nibble of c picks one of the 8 bytes of
    {b, a}; with the nibble's top bit set, the byte becomes its own sign, 0x00 or 0xff."""
    a, b, c = np.broadcast_arrays(a, b, c)
    source = (a & MASK32) | ((b & MASK32) << np.uint64(32))
    out = np.zeros_like(source)
    for i in range(4):
        sel = (c >> np.uint64(4 * i)) & np.uint64(15)
        byte = (source >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
        sign = np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0))
        byte = np.where(sel & np.uint64(8), sign, byte)
        out |= byte << np.uint64(8 * i)
    return out


def _dp4a_u32_s32(a, b, c):
    """c + the four products of a's unsigned and b's signed bytes, as 32-bit two's complement."""
    total = (c & MASK32).astype(np.uint32).view(np.int32).astype(np.int64)
    for i in range(4):
        shift = np.uint64(8 * i)
        ua = ((a >> shift) & np.uint64(0xFF)).astype(np.int64)
        sb = ((b >> shift) & np.uint64(0xFF)).astype(np.uint8).view(np.int8).astype(np.int64)
        total = total + ua * sb
    return total.astype(np.int32).view(np.uint32).astype(np.uint64)


def _f16(bits):
    return (bits & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16)


def _f16_bits(values):
    return values.astype(np.float16).view(np.uint16).astype(np.uint64)


def _e4m3x2_to_f16x2(codes):
    """cvt.rn.f16x2.e4m3x2: the low byte to the low half; every e4m3 value is an fp16 value."""
    halves = [_f16_bits(e4m3_value((codes >> np.uint64(8 * i)) & np.uint64(0xFF))) for i in range(2)]
    return halves[0] | (halves[1] << np.uint64(16))


def _mul_f16x2(a, b):
    """mul.rn.f16x2: each product of two fp16 values is exact in float64, so one rounding."""
    out = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(b)), np.uint64)
    for i in range(2):
        shift = np.uint64(16 * i)
        x, y = _f16(a >> shift).astype(np.float64), _f16(b >> shift).astype(np.float64)
        out |= _f16_bits(x * y) << shift
    return out


def _ex2_ftz(x):
    x = np.where(np.abs(x) < np.float32(2.0**-126), np.float32(0), x)
    r = np.exp2(x.astype(np.float64)).astype(np.float32)
    return np.where(np.abs(r) < np.float32(2.0**-126), np.float32(0), r)


# The interpreter runs programs one after another, so a barrier has nothing to wait for
# (launch_cluster runs a cluster kernel twice instead).
BARRIERS = ("barrier.cluster.arrive.release", "barrier.cluster.wait.acquire")


class Ptx:
    """Runs the straight-line PTX of an inline_asm_elementwise on numpy arrays of raw bits."""

    def __init__(self, text, operands):
        self.regs = {f"${i}": v for i, v in enumerate(operands)}
        # Scope braces stand on lines of their own; braces inside a line are vector operands.
        body = re.sub(r"^\s*[{}]\s*$", "", re.sub(r"//[^\n]*", "", text), flags=re.M)
        self.lines = [s.strip() for s in body.split(";") if s.strip() and not s.strip().startswith(".reg")]

    def value(self, token):
        token = token.strip()
        if token in self.regs:
            return self.regs[token]
        return np.uint64(int(token, 0))

    def run(self):
        for line in self.lines:
            op, _, rest = line.partition(" ")
            if op in BARRIERS:
                continue
            self.step(op, rest)
        return self.regs

    def step(self, op, rest):
        split = re.match(r"\{\s*(\w+),\s*(\w+)\s*\},\s*(\S+)", rest.strip())
        if op in ("mov.b64", "mov.b32") and split:  # a register into its low and high halves
            x, bits = self.value(split.group(3)), np.uint64(32 if op == "mov.b64" else 16)
            low = x & ((np.uint64(1) << bits) - np.uint64(1))
            self.regs[split.group(1)], self.regs[split.group(2)] = low, (x >> bits) & MASK32
            return
        dst, *src = [t.strip() for t in rest.split(",")]
        v = [self.value(s) for s in src]
        if op == "mov.b32":
            r = v[0] & MASK32
        elif op == "shr.b32":
            r = (v[0] & MASK32) >> v[1]
        elif op == "and.b32":
            r = v[0] & v[1] & MASK32
        elif op == "or.b32":
            r = (v[0] | v[1]) & MASK32
        elif op == "xor.b32":
            r = (v[0] ^ v[1]) & MASK32
        elif op == "add.u32":
            r = (v[0] + v[1]) & MASK32
        elif op in ("sub.u32", "sub.s32"):  # the same bits in two's complement
            r = (v[0] - v[1]) & MASK32
        elif op == "prmt.b32":
            r = _prmt(v[0], v[1], v[2])
        elif op == "dp4a.u32.s32":
            r = _dp4a_u32_s32(v[0], v[1], v[2])
        elif op == "cvt.rn.f16x2.e4m3x2":
            r = _e4m3x2_to_f16x2(v[0])
        elif op == "mul.rn.f16x2":
            r = _mul_f16x2(v[0], v[1])
        elif op == "cvt.f32.f16":
            r = _f32_bits(_f16(v[0]))
        elif op == "cvt.rn.f32.s32":
            r = _f32_bits((v[0] & MASK32).astype(np.uint32).view(np.int32))
        elif op == "ex2.approx.ftz.f32":
            r = _f32_bits(_ex2_ftz(_f32(v[0])))
        else:
            raise NotImplementedError(f"PTX emulator: {op}")
        self.regs[dst] = np.asarray(r, dtype=np.uint64)


_NP_OF_TL = {tl.int32: np.int32, tl.float32: np.float32, tl.int64: np.int64}


def _from_bits(bits, ty):
    np_type = np.dtype(_NP_OF_TL[ty])
    if np_type.itemsize == 8:
        return bits.astype(np.uint64).view(np_type)
    return bits.astype(np.uint32).view(np_type)


class _AsmCall:

    def __init__(self, handles):
        self.handles = handles

    def get_result(self, i):
        return self.handles[i]


def _packed_operands(bits, itemsize, pack):
    """An input's operands for pack elements at a time (element j of each pack in column j):
    one register of pack elements when they are narrower than 4 bytes, else one each."""
    if itemsize >= 4:
        return [bits[:, j] for j in range(pack)]
    word = np.zeros(bits.shape[0], np.uint64)
    for j in range(pack):
        word |= bits[:, j] << np.uint64(8 * itemsize * j)
    return [word]


def _create_inline_asm(asm, constraints, values, types, is_pure, pack):
    """Runs the asm on every pack of consecutive elements (in row-major order, which is one
    choice of the pairing Triton leaves unspecified); outputs come pack registers a tensor."""
    n_out = sum(1 for c in constraints.split(",") if c.startswith("="))
    shape = np.broadcast_shapes(*[h.data.shape for h in values])
    inputs = []
    for h in values:
        data = np.ascontiguousarray(np.broadcast_to(h.data, shape)).reshape(-1, pack)
        bits = data.view(np.uint64) if data.dtype.itemsize == 8 else data.view(
            {1: np.uint8, 2: np.uint16, 4: np.uint32}[data.dtype.itemsize]).astype(np.uint64)
        inputs += _packed_operands(bits, data.dtype.itemsize, pack)
    count = int(np.prod(shape)) // pack
    regs = Ptx(asm, [np.zeros(count, np.uint64)] * n_out + inputs).run()
    scalars = [getattr(ty, "element_ty", ty) for ty in types]
    outs = []
    for i, ty in enumerate(scalars):
        bits = np.stack([np.broadcast_to(regs[f"${i * pack + j}"], count) for j in range(pack)], axis=1)
        outs.append(interpreter.TensorHandle(_from_bits(bits.reshape(shape), ty), ty))
    return _AsmCall(outs)


class OutOfBounds(Exception):
    pass


# [start, end) of each array the running launch was given: on the GPU a read outside them
# would be a fault or a silent wrong value, which the interpreter's numpy reads hide.
_BOUNDS = []


def _checked(access, kind, mask_at):
    """access (the interpreter builder's masked load or store, kind, whose mask is argument
    mask_at after the pointers), failing on any active lane whose element lies outside every
    array of the launch."""
    def run(self, ptrs, *rest):
        mask = rest[mask_at]
        size = np.dtype(interpreter._get_np_dtype(ptrs.get_element_ty())).itemsize
        addrs = ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape)].astype(np.uint64)
        inside = np.zeros(addrs.shape, dtype=bool)
        for start, end in _BOUNDS:
            inside |= (addrs >= start) & (addrs + np.uint64(size) <= end)
        if not inside.all():
            raise OutOfBounds(f"{kind} of {int((~inside).sum())} "
                              f"{size}-byte element(s) outside the launch's arrays, "
                              f"first at {int(addrs[~inside][0]):#x}")
        return access(self, ptrs, *rest)
    return run


def _install_interpreter_hooks():
    interpreter.interpreter_builder.create_inline_asm = _create_inline_asm
    builder = type(interpreter.interpreter_builder)
    builder.create_masked_load = _checked(builder.create_masked_load, "load", 0)
    builder.create_masked_store = _checked(builder.create_masked_store, "store", 1)
    # The data is host memory already: no copies to and from a device.
    interpreter.GridExecutor._init_args_hst = lambda self, args, kwargs: (args, kwargs)
    interpreter.GridExecutor._restore_args_dev = lambda self, *a: None


# ---- running a variant ----


class Pointer:
    """What the interpreter takes for a tensor argument: an address and a torch-like dtype name."""

    def __init__(self, array, dtype):
        self.array = array
        self.dtype = f"torch.{dtype}"

    def data_ptr(self):
        return self.array.ctypes.data


STORAGE = {"fp16": (np.float16, "float16"), "bf16": (np.uint16, "bfloat16"), "fp32": (np.float32, "float32"),
           "b16": (np.int16, "int16"), "b32": (np.int32, "int32")}
ULP = {"fp16": 2.0**-10, "bf16": 2.0**-7, "fp32": 2.0**-23}  # twice the unit roundoff
SUBNORMAL = {"fp16": 2.0**-24, "bf16": 2.0**-133, "fp32": 2.0**-149}


def bf16_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f64_to_bf16(x):
    f = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16)


def encode(values, dtype):
    return f64_to_bf16(values) if dtype == "bf16" else values.astype(STORAGE[dtype][0])


def decode(array, dtype):
    return bf16_to_f64(array) if dtype == "bf16" else array.astype(np.float64)


def launch_cluster(variant, grid, args, part_floats):
    """Runs a kernel whose programs exchange values through `part` across a cluster
    barrier. Programs run one after another here, so a program reads the slots of the
    peers after it before they are written: the first run leaves every slot filled
    (poisoned before), the second reads them as the barrier would have let it. Both runs
    write the same slots."""
    part = np.full(part_floats, np.nan, np.float32)
    for _ in range(2):
        launch(variant, grid, *args, Pointer(part, "float32"))


def aot_compiler():
    """tools/triton_aot.py, for how it loads each kernel and the constants it gives it."""
    if "khost_triton_aot" not in sys.modules:
        spec = importlib.util.spec_from_file_location("khost_triton_aot",
                                                      os.path.join(HERE, "..", "..", "tools", "triton_aot.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["khost_triton_aot"] = module
    return sys.modules["khost_triton_aot"]


def _run_bounded(fn, grid, args, constexprs):
    """fn[grid](*args) with its loads and stores checked against the arrays among args."""
    _BOUNDS[:] = [(np.uint64(a.data_ptr()), np.uint64(a.data_ptr() + a.array.nbytes))
                  for a in args if isinstance(a, Pointer)]
    fn[grid](*args, **constexprs)


def launch(variant, grid, *args):
    aot = aot_compiler()
    fn = aot.kernel_function(os.path.join(HERE, "kernels"), variant["source"], variant["function"])
    _run_bounded(fn, grid, args, aot.constexprs_of(fn, variant))


def rows_shapes(variant):
    """Shapes a row-wise variant can run, small enough for the interpreter: rows
    shorter than a tile, whole tiles, whole tiles and a partial one, partial programs."""
    c = variant["constexprs"]
    bm, bn = c.get("BLOCK_M", 1), c["BLOCK_N"]
    if variant["aligned"]:
        shapes = [(bm + 16, 48), (3, bn), (2, 2 * bn), (16, bn + 32)]
    else:
        shapes = [(7, 3), (bm + 3, bn + 5), (1, 1), (2, 2 * bn)]
    if variant["function"] == "softmax_tile":
        shapes = [(m, min(n, bn)) for m, n in shapes]
    return shapes


def check_copy(variant, rng):
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


SIGMA, SOFTMAX_OFFSET_MAX = 2.0, 100.0  # as khost's softmax inputs (core/ops/softmax_online.c)


def row_values(rng, m, n, offset_max=0.0):
    return rng.standard_normal((m, n)) * SIGMA + rng.uniform(-offset_max, offset_max, size=(m, 1))


def check_reduce(variant, rng):
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


def softmax_shapes(variant):
    c = variant["constexprs"]
    if variant["function"] == "softmax_cluster":
        # The longest row; one that leaves the last program empty; one just past one program.
        full = variant["cluster"] * c["BLOCK_N"]
        return [(2, full), (3, full - c["BLOCK_N"] - 16), (2, c["BLOCK_N"] + 16)]
    return rows_shapes(variant)


def run_softmax(variant, m, n, x, y):
    c = variant["constexprs"]
    args = (Pointer(x, STORAGE[variant["dtype"]][1]), Pointer(y, STORAGE[variant["dtype"]][1]), m, n)
    if variant["function"] != "softmax_cluster":
        rows = c["BLOCK_M"] if variant["function"] == "softmax_tile" else 1
        launch(variant, (-(-m // rows), ), *args)
        return
    launch_cluster(variant, (m * variant["cluster"], ), args, m * variant["cluster"] * 2)


def check_softmax(variant, rng):
    dt = variant["dtype"]
    for m, n in softmax_shapes(variant):
        x = encode(row_values(rng, m, n, SOFTMAX_OFFSET_MAX), dt)
        y = np.zeros_like(x)
        run_softmax(variant, m, n, x, y)
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


E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def e4m3_value(code):
    code = code.astype(np.int64)
    sign = np.where(code & 0x80, -1.0, 1.0)
    exp = (code >> 3) & 15
    mant = code & 7
    value = np.where(exp == 0, mant / 8 * 2.0**-6, (1 + mant / 8) * 2.0**(exp - 7))
    return sign * value


def unpack_e2m1(packed):
    lo, hi = E2M1[packed & 15], E2M1[packed >> 4]
    return np.stack([lo, hi], axis=-1).reshape(*packed.shape[:-1], packed.shape[-1] * 2)


def gemv_shapes(variant):
    """Full tiles and a partial one; a partial tile alone; exactly one full tile."""
    bm, bk = variant["constexprs"]["BLOCK_M"], variant["constexprs"]["BLOCK_K"]
    return ((bm * 2, 2 * bk + 64 * 3, 2), (bm, 64, 1), (bm, bk, 3))


def run_gemv(variant, m, k, l, *tensors):
    args = [Pointer(t, ty) for t, ty in zip(tensors, ("int64", "uint8", "int64", "uint8", "float16"))]
    launch(variant, (m // variant["constexprs"]["BLOCK_M"], l), *args, m, k // 16)


def check_gemv(variant, rng):
    for m, k, l in gemv_shapes(variant):
        a = rng.integers(0, 256, size=(l, m, k // 2), dtype=np.uint8)
        v = rng.integers(0, 256, size=(l, k // 2), dtype=np.uint8)
        # Both signs, subnormals, and exponents up to 2^3, so that most sums stay finite in fp16.
        codes = np.concatenate([np.arange(0x50), np.arange(0x80, 0xD0)])
        sfa = rng.choice(codes, size=(l, m, k // 16)).astype(np.uint8)
        sfv = rng.choice(codes, size=(l, k // 16)).astype(np.uint8)
        out = np.zeros((l, m), dtype=np.float16)
        run_gemv(variant, m, k, l, a, sfa, v, sfv, out)
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


@triton.jit
def _copy_one_too_many(x, y, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i <= n), mask=i <= n)


def _out_of_bounds_cause(error):
    while error is not None and not isinstance(error, OutOfBounds):
        error = error.__cause__
    return error


def check_bounds_check():
    """The bounds check itself must fail a kernel that reads and writes one element past n."""
    x, y = np.arange(7, dtype=np.float32), np.zeros(7, dtype=np.float32)
    try:
        _run_bounded(_copy_one_too_many, (1, ), (Pointer(x, "float32"), Pointer(y, "float32"), 7), {"BLOCK": 8})
    except triton.runtime.errors.InterpreterError as e:
        if _out_of_bounds_cause(e) is not None:
            return None
        raise
    return "a read and a write one element past the arrays went unnoticed"


CHECKS = {"copy_transpose": check_copy, "reduce_sum": check_reduce, "softmax_online": check_softmax,
          "nvfp4_gemv": check_gemv}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="check only variants whose name contains this")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    _install_interpreter_hooks()
    # Padding lanes and rows past m compute with -inf and NaN; their results are never stored.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    variants = [v for v in runpy.run_path(os.path.join(HERE, "manifest.py"))["VARIANTS"]
                if args.only in v["name"]]
    print(f"1..{len(variants) + 1}", flush=True)  # TAP, for meson test
    failures = 0
    checks = [(v["name"], lambda v=v: CHECKS[v["op"]](v, np.random.default_rng(args.seed))) for v in variants]
    for number, (name, check) in enumerate(checks + [("bounds check", check_bounds_check)], 1):
        try:
            problem = check()
        except triton.runtime.errors.InterpreterError as e:
            cause = _out_of_bounds_cause(e)
            if cause is None:
                raise
            problem = str(cause)
        verdict = f"not ok {number}" if problem else f"ok {number}"
        print(f"{verdict} - {name}" + (f": {problem}" if problem else ""), flush=True)
        failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
