"""Transpose benchmark: each layout against cudaMemcpy D2D of the same bytes, in one run.

Device-resident data, CUDA events, warm-up, interleaved naive pad swizzle copy per rep, median.
GB/s counts bytes read + written (2 x the matrix).  Correctness (bit-exact) is checked first.

    python bench/bench_transpose.py [--size 8192] [--reps 100] [--sweep-variants] [--md out.md]
"""
import argparse
import datetime
import statistics
import subprocess
import sys

import numpy as np

import smemkit


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:
        return "unknown"


def check(rows, cols, dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2**32, size=(rows, cols), dtype=np.uint64 if np.dtype(dtype).itemsize == 8
                     else np.uint32).view(dtype)
    want = np.ascontiguousarray(a.T)
    for layout in smemkit.LAYOUTS:
        got = smemkit.transpose(a, layout=layout)
        if not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
            sys.exit(f"FAIL: {layout} transpose of {rows}x{cols} {dtype} is not bit-exact")


def run(rows, cols, itemsize, variant, warmup, reps):
    t = smemkit._C._bench("transpose", (rows, cols), smemkit.LAYOUTS, itemsize=itemsize, variant=variant,
                          warmup=warmup, reps=reps)["times"]
    nbytes = 2 * rows * cols * itemsize
    res = {}
    for name, times in t.items():
        med = statistics.median(times)
        res[name] = (med, nbytes / med / 1e6, min(times), max(times))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--itemsize", type=int, default=4, choices=(4, 8))
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--sweep-variants", action="store_true", help="also time the other tile shapes")
    ap.add_argument("--md", help="append the markdown table to this file")
    args = ap.parse_args()

    n = args.size
    dtype = "float32" if args.itemsize == 4 else "float64"
    check(n, n, dtype)
    check(1023, 517, dtype)
    dev = smemkit.device_name()
    date = datetime.date.today().isoformat()
    variants = smemkit._C._transpose_variants()
    which = range(len(variants)) if args.sweep_variants else [0]
    lines = [f"Transpose {n}x{n} {dtype}, {dev}, {date}, commit {commit()}, median of {args.reps} "
             f"(warm-up {args.warmup}), GB/s = (read + write) / time", "",
             "| tile | threads | layout | median ms | GB/s | % of D2D copy | min ms | max ms |",
             "|---|---|---|---|---|---|---|---|"]
    for v in which:
        tile, brows = variants[v]
        res = run(n, n, args.itemsize, v, args.warmup, args.reps)
        copy_gbs = res["copy"][1]
        for name in (*smemkit.LAYOUTS, "copy"):
            med, gbs, mn, mx = res[name]
            label = "cudaMemcpy D2D" if name == "copy" else name
            lines.append(f"| {tile}x{tile}{' (shipped)' if v == 0 else ''} | {tile}x{brows} | {label} | "
                         f"{med:.4f} | {gbs:.0f} | {100 * gbs / copy_gbs:.1f}% | {mn:.4f} | {mx:.4f} |")
    text = "\n".join(lines)
    print(text)
    if args.md:
        with open(args.md, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
