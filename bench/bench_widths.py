"""Transpose of every element width (1, 2, 4, 8, 16 bytes), single 8192 x 8192 and a batch of
64 x 1024 x 1024, each layout against cudaMemcpy D2D of the same bytes, with PyTorch beside.

    python bench/bench_widths.py [--sweep] [--reps 40] [--md out.md]

8192 x 8192: smemkit.bench (the C timing loop: events, layouts and the D2D copy interleaved, L2
flushed before every launch, medians).  --sweep also times every compiled tile shape (variant) of
every width through the same loop.  The batch (one launch for all 64 matrices) and PyTorch's
``x.t().contiguous()`` / ``x.mT.contiguous()`` are timed with CUDA events through PyTorch, interleaved
with a D2D copy of the same bytes (``y.copy_(x)``), L2 flushed before each.  GB/s = (read + write) / time.
"""
import argparse
import datetime
import statistics
import subprocess

import numpy as np

import smemkit
from smemkit import _C

WIDTHS = [("uint8", 1), ("float16", 2), ("float32", 4), ("float64", 8), ("complex128", 16)]


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:
        return "unknown"


def torch_times(ops, reps, flush):
    """Median ms of each op (a callable), interleaved, L2 flushed (a write of `flush`) before each."""
    import torch
    for f in ops.values():  # warm-up
        f()
    torch.cuda.synchronize()
    ev = {k: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
          for k in ops}
    for r in range(reps):
        for k, f in ops.items():
            flush.zero_()
            ev[k][r][0].record()
            f()
            ev[k][r][1].record()
    torch.cuda.synchronize()
    return {k: statistics.median(a.elapsed_time(b) for a, b in v) for k, v in ev.items()}


def torch_dtype(name):
    import torch
    return getattr(torch, name)


def bench_torch_2d(name, n, reps, flush):
    import torch
    x = torch.empty((n, n), dtype=torch_dtype(name), device="cuda")
    x.view(torch.uint8).random_()
    y = torch.empty_like(x)
    t = torch_times({"torch": lambda: x.t().contiguous(), "copy": lambda: y.copy_(x)}, reps, flush)
    return t["torch"], t["copy"]


def bench_batch(name, esz, shape, reps, flush):
    import torch
    b, r, c = shape
    x = torch.empty(shape, dtype=torch_dtype(name), device="cuda")
    x.view(torch.uint8).random_()
    y = torch.empty((b, c, r), dtype=x.dtype, device="cuda")
    z = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    ops = {}
    for layout in smemkit.LAYOUTS:
        ops[layout] = (lambda L: lambda: _C._transpose_ptr(x.data_ptr(), y.data_ptr(), r, c, c, 1, esz, L, stream,
                                                           -1, b, r * c))(layout)
    ops["copy"] = lambda: z.copy_(x)
    ops["torch"] = lambda: x.mT.contiguous()
    # correctness first
    ops["pad"]()
    torch.cuda.synchronize()
    if not torch.equal(y.view(torch.uint8), x.mT.contiguous().view(torch.uint8)):
        raise SystemExit(f"FAIL: batch {shape} {name} not bit-exact")
    return torch_times(ops, reps, flush)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--batch", default="64x1024x1024")
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--md")
    args = ap.parse_args()
    import torch
    info = _C._device_info()
    flush = torch.empty(2 * info["l2_bytes"], dtype=torch.uint8, device="cuda")
    n = args.size
    bshape = tuple(int(s) for s in args.batch.split("x"))
    lines = [f"Transpose widths, {smemkit.device_name()}, {datetime.date.today().isoformat()}, commit {commit()}; "
             f"GB/s = (read + write) / median time; % = of cudaMemcpy D2D of the same bytes in the same run", ""]
    lines += [f"{n}x{n} (smemkit.bench; torch timed through PyTorch events against its own D2D copy)", "",
              "| dtype | bytes | naive | pad | swizzle | D2D GB/s | torch x.t().contiguous() | shipped tile |",
              "|---|---|---|---|---|---|---|---|"]
    sweep = []
    for name, esz in WIDTHS:
        res = smemkit.bench("transpose", (n, n), dtype=name)
        pct = {r.layout: 100 * r.ratio for r in res}
        tt, tc = bench_torch_2d(name, n, args.reps, flush)
        cfg = smemkit.explain("transpose", (n, n), "pad", name).config
        lines.append(f"| {name} | {esz} | {pct['naive']:.1f}% | **{pct['pad']:.1f}%** | **{pct['swizzle']:.1f}%** | "
                     f"{res[0].ceiling:.0f} | {100 * tc / tt:.1f}% | {cfg} |")
        print(lines[-1], flush=True)
        if args.sweep:
            for v, (tile, rows) in enumerate(_C._transpose_variants()):
                if v == 0:
                    continue
                run = _C._bench("transpose", (n, n), smemkit.LAYOUTS, itemsize=esz, variant=v, warmup=5,
                                reps=args.reps, flush_bytes=2 * info["l2_bytes"])
                t = {k: statistics.median(x) for k, x in run["times"].items()}
                sweep.append(f"| {name} | {tile}x{tile} units, {tile}x{rows} thr | "
                             + " | ".join(f"{100 * t['copy'] / t[L]:.1f}%" for L in smemkit.LAYOUTS) + " |")
                print(sweep[-1], flush=True)
    if sweep:
        lines += ["", f"Tile sweep, {n}x{n}, % of D2D (variant v >= 1; variant 0 = the shipped row of its width)", "",
                  "| dtype | tile | naive | pad | swizzle |", "|---|---|---|---|---|"] + sweep
    lines += ["", f"batch {args.batch}, one launch (PyTorch events, D2D = y.copy_(x))", "",
              "| dtype | bytes | naive | pad | swizzle | D2D GB/s | torch x.mT.contiguous() |", "|---|---|---|---|---|---|---|"]
    for name, esz in WIDTHS:
        t = bench_batch(name, esz, bshape, args.reps, flush)
        gbs = 2 * np.prod(bshape) * esz / t["copy"] / 1e6
        lines.append(f"| {name} | {esz} | " + " | ".join(
            (f"**{100 * t['copy'] / t[L]:.1f}%**" if L != "naive" else f"{100 * t['copy'] / t[L]:.1f}%")
            for L in smemkit.LAYOUTS) + f" | {gbs:.0f} | {100 * t['copy'] / t['torch']:.1f}% |")
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    print("\n" + text)
    if args.md:
        with open(args.md, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
