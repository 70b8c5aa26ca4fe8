#!/usr/bin/env python3
"""Loads an .npy file with numpy and compares it with what the writer meant.

usage: npy_check.py FILE DESCR SHAPE VALUES
  SHAPE and VALUES are comma-separated ("" for a 0-d shape). Exit 0 when the
  file matches, 1 when it does not, 77 when numpy is not installed.
"""
import sys

try:
    import numpy
except ImportError:
    sys.exit(77)


def main(path, descr, shape, values):
    array = numpy.load(path, allow_pickle=False)
    want_shape = tuple(int(x) for x in shape.split(",") if x)
    want_values = [float(x) for x in values.split(",") if x]
    problems = []
    if array.dtype.str != descr:
        problems.append(f"dtype {array.dtype.str}, expected {descr}")
    if array.shape != want_shape:
        problems.append(f"shape {array.shape}, expected {want_shape}")
    if not array.flags.c_contiguous:
        problems.append("not in C order")
    got = [float(x) for x in array.reshape(-1)]
    if got != want_values:
        problems.append(f"values {got}, expected {want_values}")
    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
