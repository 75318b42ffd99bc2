"""Tensor-core GEMM benchmark through smemkit.bench (the one timing path): naive / pad / swizzle and the
article's Swizzle(2, 3, 2), against cuBLAS GemmEx of the same precision (fp32 accumulation) in the same
run.  Correctness against a float64 reference is checked first (small shape, every layout).

    python bench/timing/bench_gemm.py [--dtypes float16 bfloat16] [--shapes 4096,4096,4096 ...] [--ktiles]
                               [--configs 0 1 7] [--layouts swizzle] [--md out.md]
    python bench/timing/bench_gemm.py --random 200 --seed 1 [--out rows.jsonl] [--md out.md]

--ktiles also times the 64-wide (128-byte rows: naive 8-way) and 32-wide (64-byte rows: naive 4-way)
K tiles explicitly, so both conflict degrees are visible.  --configs times the given variants
(smemkit.bench_configs("gemm")) instead; --layouts restricts the layouts (swizzle232 = Swizzle(2, 3, 2)).
On shapes whose rows are not 16-byte aligned (4097x4095x4093), config 0 is what a call runs (the padded
copies included) and configs 1..8 read the rows in place through registers.

--random N --seed S (issue #28): N shapes from the issue's law (bench/timing/draws.py: half float16, half
bfloat16), each timed by smemkit.bench in every layout (--layouts restricts them) with config 0, what a
call runs, beside cuBLAS GemmEx of the same precision in the same run; ratio = cuBLAS time / smemkit's,
every kernel of both calls counted (the padded copies of unaligned shapes included).  Repetitions sized
per shape (draws.reps_for; --reps fixes them).  One JSON line per draw to --out; the summary (geomean,
p10, median, min by class and layout) to stdout and --md.
"""
import argparse
import sys

import numpy as np

import draws as D
import smemkit
from _common import emit, header, md_table, random_run, require_gpu, reps_arg

LAYOUTS = ["naive", "pad", "swizzle", smemkit.Swizzle(2, 3, 2)]


def check(dtype):
    import ml_dtypes  # noqa: F401 - bfloat16 on the host
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (300, 200)).astype(dtype)
    b = rng.uniform(-1, 1, (200, 170)).astype(dtype)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = 200 * 2.0**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 2.0**-7 * np.abs(ref)
    for layout in LAYOUTS:
        d = smemkit.gemm(a, b, layout=layout).astype(np.float64)
        if not np.all(np.abs(d - ref) <= bound + 1e-6):
            sys.exit(f"FAIL: gemm {dtype} {layout} outside the bound")


def time_random(d, layouts, reps=None):
    """One draw of #28: every layout beside cuBLAS of the same precision, one smemkit.bench run."""
    reps = reps or D.reps_for(d, len(layouts) + 1)
    res = smemkit.bench("gemm", d.shape, dtype=d.dtype, layout=layouts, reps=reps)
    ceil = res[0].ceiling
    return {"reps": reps, "ratio": {r.layout: r.ratio for r in res},
            "median_ms": {**{r.layout: r.median_ms for r in res},
                          "cublas": None if ceil is None else d.flops / 1e6 / ceil},
            "bench": [r.to_dict() for r in res]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtypes", nargs="+", default=["float16", "bfloat16"])
    ap.add_argument("--shapes", nargs="+", default=["1024,1024,1024", "2048,2048,2048", "4096,4096,4096",
                                                    "8192,8192,8192", "4097,4095,4093"])
    ap.add_argument("--ktiles", action="store_true", help="also time K-tile 64 and 32 explicitly")
    ap.add_argument("--configs", nargs="+", type=int, default=None, help="variants to time (default: 0)")
    ap.add_argument("--layouts", nargs="+", default=None, help="naive pad swizzle swizzle232 (default: all)")
    ap.add_argument("--random", type=reps_arg, metavar="N", help="time N shapes drawn from #28's law")
    ap.add_argument("--seed", type=int, default=1, help="the draws' seed (--random)")
    ap.add_argument("--out", help="--random: write one JSON line per draw here")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--md")
    args = ap.parse_args()
    require_gpu("bench_gemm.py")
    import ml_dtypes
    names = smemkit.bench_configs("gemm")
    configs = args.configs if args.configs is not None else [0] + ([1, 2] if args.ktiles else [])
    named = dict(zip(["naive", "pad", "swizzle", "swizzle232"], LAYOUTS))
    layouts = [named[x] for x in args.layouts] if args.layouts else LAYOUTS
    if args.random:
        for dt in ("float16", "bfloat16"):
            check(np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt))
        random_run(D.gemm_draws(args.random, args.seed), lambda d: time_random(d, layouts, args.reps),
                   seed=args.seed, out=args.out, md=args.md,
                   title=f"Tensor-core GEMM vs cuBLAS (fp32 accumulation), {args.random} random shapes (#28's law)")
        return
    results = []
    for dt in args.dtypes:
        check(np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt))
        for s in args.shapes:
            shape = tuple(int(x) for x in s.split(","))
            for c in configs:
                results += smemkit.bench("gemm", shape, dtype=dt, layout=layouts, config=c, reps=args.reps)
                print("\n".join(md_table(results[-len(layouts):]).splitlines()[2:]), flush=True)
    text = header("Tensor-core GEMM vs cuBLAS (fp32 accumulation)") + "\n\nconfigs: " + "; ".join(
        f"{i}: {n}" for i, n in enumerate(names) if i in configs) + "\n\n" + md_table(results)
    emit(text, args.md)


if __name__ == "__main__":
    main()
