"""SGEMM benchmark through smemkit.bench (the one timing path): each layout against cuBLAS fp32 (no TF32)
in the same run.  Correctness against a float64 reference is checked first, for every config timed.

    python bench/timing/bench_sgemm.py [--shapes 4096,4096,4096 8192,8192,8192] [--configs] [--md out.md]
    python bench/timing/bench_sgemm.py --sweep [--reps 20] [--md out.md]
    python bench/timing/bench_sgemm.py --random 200 --seed 1 [--out rows.jsonl] [--md out.md]

--configs also times every tile config compiled in (the shipped BIG / SMALL, and the candidates when the
extension was built with SMEMKIT_SGEMM_CANDIDATES=1).
--sweep times SWEEP (squares, K-heavy small outputs, tall-skinny and their transposes, short K, odd sizes):
every layout against cuBLAS with the shipped choice (smemkit._testing.sgemm_choose: tile config and K
split), for the shapes the chooser splits also swizzle unsplit (splits=1, the kernel before split-K) and with twice the
split, for tall / wide shapes also the other shipped tile; it prints the ratio to cuBLAS per shape, the geometric means and the worst shape.
--random N --seed S (issue #27): N shapes from the issue's law (bench/timing/draws.py), each timed by
smemkit.bench in every layout with the shipped choice beside cuBLAS fp32 (TF32 off) in the same run; ratio =
cuBLAS time / smemkit's, every kernel of both calls counted (split-K's reduction included).  Repetitions
sized per shape (draws.reps_for; --reps fixes them).  One JSON line per draw to --out (with the chooser's
tile and K split); the summary (geomean, p10, median, min by class and layout) to stdout and --md.
"""
import argparse
import math
import sys
import time

import numpy as np

import draws as D
import smemkit
from _common import emit, header, md_table, random_run, require_gpu, reps_arg
from smemkit._testing import device_info, knobs, sgemm_choose


def check(config):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((517, 300), dtype=np.float32)
    b = rng.standard_normal((300, 389), dtype=np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = 300 * 2.0**-24 / (1 - 300 * 2.0**-24) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    with knobs(sgemm_config=config):
        for layout in smemkit.LAYOUTS:
            if not np.all(np.abs(smemkit.sgemm(a, b, layout=layout) - ref) <= bound):
                sys.exit(f"FAIL: sgemm config {config} {layout} is outside the gamma_K bound")
        # a K-heavy small output: the split-K path (as chosen, then forced to 7 slices)
        a = rng.standard_normal((96, 5001), dtype=np.float32)
        b = rng.standard_normal((5001, 80), dtype=np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        bound = 5001 * 2.0**-24 / (1 - 5001 * 2.0**-24) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
        for forced in (0, 7):
            with knobs(sgemm_splits=forced):
                for layout in smemkit.LAYOUTS:
                    if not np.all(np.abs(smemkit.sgemm(a, b, layout=layout) - ref) <= bound):
                        sys.exit(f"FAIL: sgemm config {config} splits {forced} {layout} is outside the gamma_K bound")


# (class, M, N, K): issue 11's sweep
SWEEP = ([("square", n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192)]
         + [("K-heavy", m, n, k) for m, n, k in [(64, 64, 16384), (64, 64, 65536), (128, 128, 16384),
                                                 (128, 128, 65536), (128, 256, 16384), (256, 256, 8192),
                                                 (256, 256, 32768), (512, 512, 8192)]]
         + [("tall", m, n, 1024) for m, n in [(65536, 64), (65536, 128), (65536, 192), (65536, 256), (16384, 64)]]
         + [("wide", n, m, 1024) for m, n in [(65536, 64), (65536, 128), (65536, 192), (65536, 256), (16384, 64)]]
         + [("short-K", m, n, k) for m, n, k in [(8192, 8192, 16), (8192, 8192, 32), (8192, 8192, 128),
                                                 (4096, 4096, 16), (4096, 4096, 64)]]
         + [("odd", m, n, k) for m, n, k in [(4097, 4095, 4093), (1000, 1000, 1000), (1023, 517, 2049),
                                             (130, 67, 2049), (777, 555, 12345), (63, 65, 30001),
                                             (1, 4096, 4096), (4096, 1, 4096)]]
         + [("mid", m, n, k) for m, n, k in [(768, 768, 768), (1536, 1536, 1536), (2048, 512, 2048),
                                             (333, 4444, 555), (1024, 256, 4096), (6144, 6144, 6144)]]
         + [("skinny", m, n, k) for m, n, k in [(8, 4096, 4096), (16, 4096, 4096), (32, 4096, 4096),
                                                (4096, 16, 4096), (96, 96, 4096)]])


def f2(x):
    return "n/a" if x is None else f"{x:.2f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def sweep(reps):
    """One row per shape: the shipped choice in every layout vs cuBLAS; split shapes also unsplit and 2x split."""
    sms = device_info()["sms"]
    t0 = time.perf_counter()
    rows = ["| class | M x N x K | config, splits | cuBLAS TFLOP/s | naive | pad | swizzle | swizzle TFLOP/s | "
            "swizzle unsplit | swizzle 2x split | swizzle other tile |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = {name: [] for name in smemkit.LAYOUTS}
    unsplit, worst = [], None
    for cls, M, N, K in SWEEP:
        name, s = sgemm_choose(M, N, K, sms)
        res = {r.layout: r for r in smemkit.bench("sgemm", (M, N, K), reps=reps)}
        for layout, r in res.items():
            ratios[layout].append(r.ratio)
        sw = res["swizzle"]
        extra = ["", "", ""]
        if s > 1:
            for i, forced in enumerate((1, min(2 * s, 65535))):
                r = smemkit.bench("sgemm", (M, N, K), layout="swizzle", splits=forced, reps=reps)[0]
                extra[i] = f"{f2(r.ratio)} (S={forced})"
                if forced == 1:
                    unsplit.append((r.ratio, sw.ratio))
        if cls in ("tall", "wide"):  # the other shipped tile, for the tile rule (BIG when its grid fills the SMs)
            other = "64x64x8" if name == "128x128x8" else "128x128x8"
            r = smemkit.bench("sgemm", (M, N, K), layout="swizzle", config=other, reps=reps)[0]
            extra[2] = f"{f2(r.ratio)} ({other})"
        if sw.ratio is not None and (worst is None or sw.ratio < worst[0]):
            worst = (sw.ratio, f"{M}x{N}x{K}")
        rows.append(f"| {cls} | {M}x{N}x{K} | {name}, {s} | {f2(sw.ceiling and sw.ceiling / 1e3)} | "
                    + " | ".join(f2(res[n].ratio) for n in smemkit.LAYOUTS)
                    + f" | {sw.rate / 1e3:.1f} | {extra[0]} | {extra[1]} | {extra[2]} |")
        print(rows[-1], flush=True)
    rows.append("")
    rows.append("geometric mean of the ratio to cuBLAS over the %d shapes: " % len(SWEEP)
                + ", ".join(f"{n} {geomean(ratios[n]):.3f}" for n in smemkit.LAYOUTS))
    if unsplit:
        rows.append(f"the {len(unsplit)} split shapes, swizzle: unsplit {geomean([u for u, _ in unsplit]):.3f}, "
                    f"split {geomean([v for _, v in unsplit]):.3f}")
    rows.append(f"worst shape (swizzle): {worst and worst[1]} at {worst and round(worst[0], 3)}; sweep took {time.perf_counter() - t0:.0f} s "
                f"at reps={reps} on {sms} SMs")
    return "\n".join(rows)


def time_random(d, sms, reps=None):
    """One draw of #27: every layout with the shipped choice beside cuBLAS fp32, one smemkit.bench run."""
    reps = reps or D.reps_for(d, len(smemkit.LAYOUTS) + 1)
    res = smemkit.bench("sgemm", d.shape, reps=reps)
    ceil = res[0].ceiling
    return {"reps": reps, "choice": list(sgemm_choose(*d.shape, sms)), "ratio": {r.layout: r.ratio for r in res},
            "median_ms": {**{r.layout: r.median_ms for r in res},
                          "cublas": None if ceil is None else d.flops / 1e6 / ceil},
            "bench": [r.to_dict() for r in res]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=["1024,1024,1024", "4096,4096,4096", "8192,8192,8192",
                                                    "4097,4095,4093"])
    ap.add_argument("--configs", action="store_true", help="time every compiled tile config")
    ap.add_argument("--sweep", action="store_true", help="issue 11's sweep of shapes (ignores --shapes)")
    ap.add_argument("--random", type=reps_arg, metavar="N", help="time N shapes drawn from #27's law")
    ap.add_argument("--seed", type=int, default=1, help="the draws' seed (--random)")
    ap.add_argument("--out", help="--random: write one JSON line per draw here")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--md", help="append the markdown table to this file")
    args = ap.parse_args()
    require_gpu("bench_sgemm.py")
    names = smemkit.bench_configs("sgemm")
    configs = range(len(names)) if args.configs else [0]
    for c in configs:
        check(c)
    if args.random:
        sms = device_info()["sms"]
        random_run(D.sgemm_draws(args.random, args.seed), lambda d: time_random(d, sms, args.reps), seed=args.seed,
                   out=args.out, md=args.md, title=f"SGEMM float32 vs cuBLAS fp32, {args.random} random shapes (#27's law)")
        return
    if args.sweep:
        emit(header("SGEMM float32 vs cuBLAS fp32, sweep") + "\n\n" + sweep(args.reps or 20), args.md)
        return
    results = []
    for s in args.shapes:
        shape = tuple(int(x) for x in s.split(","))
        for c in configs:
            results += smemkit.bench("sgemm", shape, config=c, reps=args.reps)
    text = header("SGEMM float32 vs cuBLAS fp32") + "\n\n" + md_table(results)
    emit(text, args.md)


if __name__ == "__main__":
    main()
