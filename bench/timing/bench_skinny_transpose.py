"""Skinny transposes (issue 26) through smemkit.bench (each layout against cudaMemcpy D2D of the same bytes
in the same run): what ships (the skinny kernel, csrc/transpose/skinny.cuh, where configs.h's choose()
picks it) beside the tiled kernel forced (config 1, a 32x32-unit tile; --tiled), and torch's
x.t().contiguous() through smemkit.timeit where torch with CUDA is there.  Correctness (bit-exact) first.

    python bench/timing/bench_skinny_transpose.py [--layouts swizzle,pad,naive] [--tiled] [--reps 20]
"""
import argparse
import sys

import numpy as np

import smemkit

# the examples: (rows, cols, dtype)
SHAPES = [(2237203, 3, "float16"), (2, 587572, "float64"), (13, 940434, "float16"), (3115923, 1, "complex128"),
          (29, 621477, "float16"), (3, 2000000, "float32"), (2000000, 3, "float32"), (1, 1 << 24, "float32"),
          (1 << 24, 1, "float32"), (8, 1 << 22, "uint8"), (1 << 22, 8, "uint8")]


def check(rows, cols, dtype):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, size=(rows, cols, np.dtype(dtype).itemsize), dtype=np.uint8).view(dtype)[..., 0]
    for layout in smemkit.LAYOUTS:
        got = smemkit.transpose(a, layout=layout)
        if not np.array_equal(got.view(np.uint8), np.ascontiguousarray(a.T).view(np.uint8)):
            sys.exit(f"FAIL: {layout} transpose of {rows}x{cols} {dtype} is not bit-exact")


def torch_ratio(rows, cols, dtype, copy_gbs, reps):
    """torch's x.t().contiguous() in GB/s and as a share of the copy, or None without torch + CUDA."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    tdt = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64, "uint8": torch.uint8,
           "complex128": torch.complex128}[dtype]
    x = torch.zeros((rows, cols), dtype=tdt, device="cuda")
    nbytes = 2 * rows * cols * x.element_size()
    t = smemkit.timeit(lambda: x.t().contiguous(), nbytes=nbytes, reps=reps)[0]
    return t.rate, (t.rate / copy_gbs if copy_gbs else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layouts", default="swizzle,pad,naive")
    ap.add_argument("--tiled", action="store_true", help="also time the tiled kernel forced (config 1)")
    ap.add_argument("--reps", type=int, default=None)
    args = ap.parse_args()
    layouts = args.layouts.split(",")
    print(f"{'shape':<22}{'dtype':<12}{'config':<28}{'layout':<9}{'GB/s':>9}{'of copy':>9}{'torch of copy':>15}")
    for rows, cols, dtype in SHAPES:
        check(min(rows, 4099), min(cols, 4099), dtype)  # the same path (short side kept), smaller
        configs = [None, 1] if args.tiled else [None]
        tr = None
        for cfg in configs:
            for r in smemkit.bench("transpose", (rows, cols), layout=layouts, dtype=dtype, config=cfg, reps=args.reps):
                if tr is None:
                    tr = torch_ratio(rows, cols, dtype, r.ceiling, args.reps) or ("n/a", None)
                cfgname = smemkit.explain("transpose", (rows, cols), r.layout, dtype).config if cfg is None else r.config
                torch_s = "n/a" if tr[1] is None else f"{tr[1]:.2f}"
                print(f"{rows}x{cols:<14}{dtype:<12}{cfgname[:27]:<28}{r.layout:<9}{r.rate:>9.0f}{r.ratio:>9.2f}"
                      f"{torch_s:>15}")


if __name__ == "__main__":
    main()
