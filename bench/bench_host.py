"""NumPy round trip and per-call overhead (issue: device-resident use and honest A/B timing).

1. Wall time of a NumPy -> GPU transpose -> NumPy round trip at 8192x8192 float32, smemkit against
   torch.from_numpy(h).cuda().t().contiguous().cpu().numpy() in the same run (median of --reps).
2. Per-call overhead on a small device array (64x64 float32, CuPy and PyTorch): wall time per call
   of a loop of back-to-back calls, minus the kernel's own time (CUDA events) -- the host cost a
   quick A/B script pays on top of the kernel.

    python bench/bench_host.py [--size 8192] [--reps 7] [--md out.md]
"""
import argparse
import statistics
import time

import numpy as np

import smemkit


def wall(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3, min(ts) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--md")
    args = ap.parse_args()
    n = args.size
    lines = [f"{smemkit.device_name()}: host-side costs", ""]
    h = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    want = np.ascontiguousarray(h.T)
    assert np.array_equal(smemkit.transpose(h), want)
    lines += ["| round trip, %dx%d float32 | median ms | min ms |" % (n, n), "|---|---|---|"]
    modes = {0: "pageable copies", 1: "page-locked in place", 2: "page-locked, 3-stream column-band pipeline",
             -1: "automatic (shipped default)"}
    for mode, label in modes.items():
        smemkit._C._set_knob("host_mode", mode)
        assert np.array_equal(smemkit.transpose(h), want)
        med, mn = wall(lambda: smemkit.transpose(h, layout="swizzle"), args.reps)
        lines.append(f"| smemkit.transpose(h), {label} | {med:.1f} | {mn:.1f} |")
    smemkit._C._set_knob("host_mode", -1)
    try:
        import torch
        assert np.array_equal(torch.from_numpy(h).cuda().t().contiguous().cpu().numpy(), want)
        med, mn = wall(lambda: torch.from_numpy(h).cuda().t().contiguous().cpu().numpy(), args.reps)
        lines.append(f"| torch.from_numpy(h).cuda().t().contiguous().cpu().numpy() | {med:.1f} | {mn:.1f} |")
    except ImportError:
        lines.append("| torch | n/a | n/a |")

    lines += ["", "| per-call overhead, 64x64 float32 device array | wall us/call | kernel us | overhead us |",
              "|---|---|---|---|"]
    kernel_us = 1e3 * smemkit.bench("transpose", (64, 64), layout="swizzle", reps=2000, flush_l2=False).median_ms
    calls = 5000
    for lib in ("cupy", "torch"):
        try:
            if lib == "cupy":
                import cupy
                x = cupy.random.standard_normal((64, 64), dtype=cupy.float32)
                sync = cupy.cuda.get_current_stream().synchronize
                native = lambda: x.T.copy()  # noqa: E731
            else:
                import torch
                x = torch.randn(64, 64, device="cuda")
                sync = torch.cuda.synchronize
                native = lambda: x.t().contiguous()  # noqa: E731
        except ImportError:
            lines.append(f"| {lib} | n/a | | |")
            continue
        for name, fn in ((f"smemkit.transpose({lib} 64x64)", lambda: smemkit.transpose(x)),
                         (f"{lib} native transpose copy", native)):
            for _ in range(200):
                fn()
            sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            per = (time.perf_counter() - t0) / calls * 1e6
            lines.append(f"| {name} | {per:.1f} | {kernel_us:.1f} | {per - kernel_us:.1f} |")
    text = "\n".join(lines)
    print(text)
    if args.md:
        with open(args.md, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
