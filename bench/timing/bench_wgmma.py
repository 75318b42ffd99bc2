"""A/B of the sm_90a TMA + wgmma GEMM (csrc/hopper/, issue 29) against the ldmatrix + mma.sync kernel and
cuBLAS GemmEx, all through smemkit.bench (the one timing path; cuBLAS timed in the same run).

    python bench/timing/bench_wgmma.py [--shapes 4096,4096,4096 8192,8192,8192] [--dtypes float16 bfloat16]
                                       [--modes swizzle swz233 swz133 naive]

Per shape and dtype: one row for mma.sync (its shipped "swizzle" layout, variant 0, forced with
_testing.knobs(gemm16_kernel="mma"): the default "auto" picks wgmma for big aligned grids), one for the
default ("auto": the kernel it picked is named), and one per wgmma mode
(_testing.knobs(gemm16_kernel="wgmma")): swizzle = TMA SWIZZLE_128B, swz233 = Swizzle(2, 3, 3) =
64B, swz133 = Swizzle(1, 3, 3) = 32B, naive = no swizzle (interleaved core matrices).  Before timing,
each wgmma mode is checked on a 300 x 264 x 200 product against float64 and the script stops if the
wgmma kernel did not run (a silent fallback to mma.sync would otherwise time the wrong kernel).
"""
import argparse
import sys

import numpy as np

import smemkit
from smemkit import _testing

MODES = {"swizzle": "swizzle", "swz233": smemkit.Swizzle(2, 3, 3), "swz133": smemkit.Swizzle(1, 3, 3),
         "naive": "naive"}


def check(dtype, layout):
    import ml_dtypes  # noqa: F401 - bfloat16 on the host
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (300, 200)).astype(dtype)
    b = rng.uniform(-1, 1, (200, 264)).astype(dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = 200 * 2.0**-24 * (np.abs(a64) @ np.abs(b64)) + 2.0**-7 * np.abs(ref) + 1e-6
    before = _testing.wgmma_launches()
    with _testing.knobs(gemm16_kernel="wgmma", poison=True):
        d = smemkit.gemm(a, b, layout=layout).astype(np.float64)
    if _testing.wgmma_launches() == before:
        sys.exit(f"FAIL: the wgmma kernel did not run ({dtype} {layout}): not an sm_90 device, or a build "
                 "without 90 in SMEMKIT_CUDA_ARCH")
    if not np.all(np.abs(d - ref) <= bound):
        sys.exit(f"FAIL: wgmma {dtype} {layout} outside the bound (max err {np.max(np.abs(d - ref)):.3e})")


def row(kernel, mode, shape, r):
    """One markdown row; rate and ceiling come in GFLOP/s (2*M*N*K over the median)."""
    cub = "n/a" if r.ceiling is None else f"{r.ceiling / 1e3:.1f}"
    ratio = "-" if r.ratio is None else f"{r.ratio:.3f}"
    print(f"| {'x'.join(map(str, shape))} | {r.dtype} | {kernel} | {mode} | {r.median_ms:.3f} | {r.rate / 1e3:.1f} | "
          f"{cub} | {ratio} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=["4096,4096,4096", "8192,8192,8192"])
    ap.add_argument("--dtypes", nargs="+", default=["float16", "bfloat16"])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    args = ap.parse_args()
    print(f"device: {_testing.device_info()['name']}")
    for dt in args.dtypes:
        for m in args.modes:
            check(np.float16 if dt == "float16" else __import__("ml_dtypes").bfloat16, MODES[m])
    print("| shape | dtype | kernel | layout | median ms | TFLOP/s | cuBLAS TFLOP/s | ratio to cuBLAS |")
    print("|---|---|---|---|---|---|---|---|")
    for s in args.shapes:
        shape = tuple(int(x) for x in s.split(","))
        for dt in args.dtypes:
            with _testing.knobs(gemm16_kernel="mma"):
                r = smemkit.bench("gemm", shape, dtype=dt, layout=["swizzle"])[0]
            row("mma.sync", "swizzle", shape, r)
            r = smemkit.bench("gemm", shape, dtype=dt, layout=["swizzle"])[0]
            row(f"auto {r.config.rsplit('[', 1)[-1].rstrip(']')}", "swizzle", shape, r)
            with _testing.knobs(gemm16_kernel="wgmma"):
                before = _testing.wgmma_launches()
                res = smemkit.bench("gemm", shape, dtype=dt, layout=[MODES[m] for m in args.modes])
                ran = _testing.wgmma_launches() - before
            for m, r in zip(args.modes, res):
                row("wgmma" if ran and r.config.endswith("[wgmma]") else "FALLBACK(mma.sync)", m, shape, r)


if __name__ == "__main__":
    main()
