"""Time the skinny SGEMM configs (csrc/sgemm/skinny_m.cuh, skinny_n.cuh) against what ships ("auto") and cuBLAS, on the
matrix-vector-like shapes of issue 11, over forced K splits.  One line per (shape, config, splits):
median ms, TFLOP/s, share of cuBLAS (BenchResult.ratio), the B (or A) stream in TB/s.

    python bench/timing/bench_skinny.py [--layouts pad,swizzle,naive] [--reps 20]
"""
import argparse

import smemkit

CASES = [  # shape, config, splits to try
    ((1, 4096, 4096), "skinny-m", [1, 8, 16, 32, 64]),
    ((8, 4096, 4096), "skinny-m", [1, 16, 32, 64]),
    ((16, 4096, 4096), "skinny-m", [1, 16, 32]),
    ((1, 8192, 8192), "skinny-m", [1, 16, 32]),
    ((4096, 1, 4096), "skinny-n", [1, 2, 4]),
    ((4096, 8, 4096), "skinny-n", [1, 2]),
    ((4096, 16, 4096), "skinny-n", [1, 2]),
    ((8192, 1, 8192), "skinny-n", [1]),
]


def line(r, splits):
    M, N, K = r.shape
    big = K * N if M <= N else M * K  # the operand streamed
    tbps = 4 * big / (r.median_ms * 1e-3) / 1e12
    ratio = "n/a" if r.ratio is None else f"{r.ratio:.2f}"
    return (f"{'x'.join(map(str, r.shape)):>16} {r.layout:>8} {r.config:>10} S={splits!s:>4} {r.median_ms:9.4f} ms "
            f"{r.rate / 1e3:7.3f} TFLOP/s  cuBLAS x{ratio}  stream {tbps:5.2f} TB/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layouts", default="pad")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    for shape, cfg, splits in CASES:
        for layout in args.layouts.split(","):
            r = smemkit.bench("sgemm", shape, layout=layout, reps=args.reps)[0]
            print(line(r, "auto"), flush=True)
            for s in splits:
                r = smemkit.bench("sgemm", shape, layout=layout, config=cfg, splits=s, reps=args.reps)[0]
                print(line(r, s), flush=True)


if __name__ == "__main__":
    main()
