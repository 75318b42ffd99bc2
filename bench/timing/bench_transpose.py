"""Transpose benchmark through smemkit.bench (the one timing path): each layout against cudaMemcpy D2D
of the same bytes in the same run.  Correctness (bit-exact) is checked first.

    python bench/timing/bench_transpose.py [--size 8192] [--dtype float32] [--batch B] [--sweep-configs] [--md out.md]
"""
import argparse
import sys

import numpy as np

import smemkit
from _common import emit, header, md_table


def check(shape, dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, size=shape + (np.dtype(dtype).itemsize,), dtype=np.uint8).view(dtype)[..., 0]
    for layout in smemkit.LAYOUTS:
        got = smemkit.matrix_transpose(a, layout=layout)
        if not np.array_equal(got.view(np.uint8), np.ascontiguousarray(np.swapaxes(a, -1, -2)).view(np.uint8)):
            sys.exit(f"FAIL: {layout} transpose of {shape} {dtype} is not bit-exact")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=0, help="time a batch of BATCH matrices of size x size")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (default: a 100 ms budget)")
    ap.add_argument("--sweep-configs", action="store_true", help="also time the other tile shapes")
    ap.add_argument("--md", help="append the markdown table to this file")
    args = ap.parse_args()
    n = args.size
    shape = (args.batch, n, n) if args.batch else (n, n)
    check((3, 33, 31) if args.batch else (1023, 517), args.dtype)
    configs = smemkit.bench_configs("transpose") if args.sweep_configs else [None]
    results = [r for c in configs for r in smemkit.bench("transpose", shape, dtype=args.dtype, config=c,
                                                          reps=args.reps)]
    text = header(f"Transpose {'x'.join(map(str, shape))} {args.dtype}") + "\n\n" + md_table(results)
    emit(text, args.md)


if __name__ == "__main__":
    main()
