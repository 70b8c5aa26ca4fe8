#!/usr/bin/env python3
"""Checks every variant of manifest.py on the CPU, no GPU needed: each kernel runs in
Triton's interpreter (TRITON_INTERPRET=1) on numpy data and is compared with a float64
reference (a bit copy's: the exact bits) by the check(variant, rng) of its kernel file's
kernels/<stem>_check.py, which returns None or what is wrong; a check module's SELF_TESTS
show that check failing wrong kernels. check_support.py runs the kernels: it executes the
inline PTX they carry with a small emulator, bit for bit, and fails every load and
store of an active lane outside the launch's arrays. Prints TAP (one line per variant and
per test of a check);
exit status 0 when every variant passes.

Usage: check_kernels.py [--only SUBSTRING] [--seed N]
"""
import argparse
import importlib.util
import os
import runpy
import sys
import warnings

sys.dont_write_bytecode = True

import check_support  # noqa: E402  (first: it puts Triton in interpreter mode)
import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def source_check(source):
    """The check module of the kernel file `source`: kernels/<source's stem>_check.py, so
    that ops sharing one kernel file (the KV-cache ops' kv_cache.py) share its check."""
    stem = os.path.splitext(source)[0]
    if os.path.join(HERE, "kernels") not in sys.path:  # a check may import its variants file
        sys.path.insert(0, os.path.join(HERE, "kernels"))
    spec = importlib.util.spec_from_file_location(f"khost_triton_check_{stem}",
                                                  os.path.join(HERE, "kernels", stem + "_check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@triton.jit
def _copy_one_too_many(x, y, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i <= n), mask=i <= n)


def _out_of_bounds_cause(error):
    while error is not None and not isinstance(error, check_support.OutOfBounds):
        error = error.__cause__
    return error


def check_bounds_check():
    """The bounds check itself must fail a kernel that reads and writes one element past n."""
    x, y = np.arange(7, dtype=np.float32), np.zeros(7, dtype=np.float32)
    args = (check_support.Pointer(x, "float32"), check_support.Pointer(y, "float32"), 7)
    try:
        check_support.run_bounded(_copy_one_too_many, (1, ), args, {"BLOCK": 8})
    except triton.runtime.errors.InterpreterError as e:
        if _out_of_bounds_cause(e) is not None:
            return None
        raise
    return "a read and a write one element past the arrays went unnoticed"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="check only variants whose name contains this")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    check_support.install_interpreter_hooks()
    # Padding lanes and rows past m compute with -inf and NaN; their results are never stored.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    variants = [v for v in runpy.run_path(os.path.join(HERE, "manifest.py"))["VARIANTS"]
                if args.only in v["name"]]
    modules = {s: source_check(s) for s in dict.fromkeys(v["source"] for v in variants)}
    checks = [(v["name"], lambda v=v: modules[v["source"]].check(v, np.random.default_rng(args.seed)))
              for v in variants]
    # Tests of the checks themselves: each must fail a wrong kernel.
    checks += [("bounds check", check_bounds_check)]
    checks += [test for module in modules.values() for test in getattr(module, "SELF_TESTS", [])]
    print(f"1..{len(checks)}", flush=True)  # TAP, for meson test
    failures = 0
    for number, (name, check) in enumerate(checks, 1):
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
