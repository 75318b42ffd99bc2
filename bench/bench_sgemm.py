"""SGEMM benchmark through smemkit.bench (the one timing path): each layout against cuBLAS fp32 (no TF32)
in the same run.  Correctness against a float64 reference is checked first, for every config timed.

    python bench/bench_sgemm.py [--shapes 4096,4096,4096 8192,8192,8192] [--configs] [--md out.md]

--configs also times every tile config compiled in (the shipped BIG / SMALL, and the candidates when the
extension was built with SMEMKIT_SGEMM_CANDIDATES=1).
"""
import argparse
import sys

import numpy as np

import smemkit
from _common import emit, header, md_table


def check(config):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((517, 300), dtype=np.float32)
    b = rng.standard_normal((300, 389), dtype=np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = 300 * 2.0**-24 / (1 - 300 * 2.0**-24) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    smemkit._C._set_knob("sgemm_config", config)
    try:
        for layout in smemkit.LAYOUTS:
            if not np.all(np.abs(smemkit.sgemm(a, b, layout=layout) - ref) <= bound):
                sys.exit(f"FAIL: sgemm config {config} {layout} is outside the gamma_K bound")
    finally:
        smemkit._C._set_knob("sgemm_config", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", nargs="+", default=["1024,1024,1024", "4096,4096,4096", "8192,8192,8192",
                                                    "4097,4095,4093"])
    ap.add_argument("--configs", action="store_true", help="time every compiled tile config")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--md", help="append the markdown table to this file")
    args = ap.parse_args()
    names = smemkit.bench_configs("sgemm")
    configs = range(len(names)) if args.configs else [0]
    for c in configs:
        check(c)
    results = []
    for s in args.shapes:
        shape = tuple(int(x) for x in s.split(","))
        for c in configs:
            results += smemkit.bench("sgemm", shape, config=c, reps=args.reps)
    text = header("SGEMM float32 vs cuBLAS fp32") + "\n\n" + md_table(results)
    emit(text, args.md)


if __name__ == "__main__":
    main()
