"""Host-side costs (issue 13), in one run.

1. NumPy round trip (host array in, host array out) of an N x N float32 transpose, wall time, median
   of --reps, for N in --sizes (default 8192 and 1024):
   - the floor: pinned host -> device plus device -> host of the same bytes (PyTorch pinned tensors,
     CUDA events), one after the other and both at once;
   - smemkit with a fresh output and with ``out=`` reused, in every host mode (0 pageable, 1 page-locked
     in place, 2 page-locked + pipelined, 3 staged through the pinned pool, -1 automatic = shipped);
   - torch.from_numpy(h).cuda().t().contiguous().cpu().numpy();
   - np.empty of the result plus its first touch (what a fresh output costs before any copy).
2. Per call on a 64x64 float32 device array: smemkit on CuPy and PyTorch inputs beside CuPy's
   ``x.T.copy()`` and PyTorch's ``x.t().contiguous()``, an empty CuPy RawKernel launch (the floor) and
   that launch plus one cupy.empty (the floor plus one allocation).  The variants run interleaved,
   --rounds rounds of --calls back-to-back calls each; the table gives each one's median round.

    python bench/timing/bench_host.py [--sizes 8192,1024] [--reps 7] [--rounds 7] [--calls 2000] [--md out.md]
"""
import argparse
import statistics
import time

import numpy as np

import smemkit
from smemkit._testing import knobs, staging_info
from _common import header

MODES = [(0, "pageable"), (1, "page-locked in place"), (2, "page-locked, 3-stream pipeline"),
         (3, "staged through the pinned pool"), (-1, "automatic (shipped)")]


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def wall(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def pinned_floor(n, reps):
    """(H2D then D2H, both at once) of n*n float32 in ms, pinned, CUDA events; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    h = torch.empty((n, n), dtype=torch.float32, pin_memory=True)
    back = torch.empty_like(h, pin_memory=True)
    d = torch.empty((n, n), dtype=torch.float32, device="cuda")
    d2 = torch.empty_like(d)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()

    def timed(both):
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t0.record()
        if both:
            cur = torch.cuda.current_stream()
            s1.wait_stream(cur)
            s2.wait_stream(cur)
            with torch.cuda.stream(s1):
                d.copy_(h, non_blocking=True)
            with torch.cuda.stream(s2):
                back.copy_(d2, non_blocking=True)
            cur.wait_stream(s1)
            cur.wait_stream(s2)
        else:
            d.copy_(h, non_blocking=True)
            back.copy_(d, non_blocking=True)
        t1.record()
        torch.cuda.synchronize()
        return t0.elapsed_time(t1)

    out = []
    for both in (False, True):
        timed(both)
        out.append(statistics.median(timed(both) for _ in range(reps)))
    return out


def round_trip(n, reps):
    rng = np.random.default_rng(0)
    h = rng.standard_normal((n, n)).astype(np.float32)
    want = np.ascontiguousarray(h.T)
    out = np.empty_like(want)
    floor = pinned_floor(n, reps)
    rows = []
    base = floor[0] if floor else None

    def row(label, ms):
        rows.append([label, f"{ms:.2f}", "n/a" if base is None else f"{ms / base:.2f}x"])

    if floor:
        row("floor: pinned H2D + D2H, one after the other", floor[0])
        row("pinned H2D and D2H at once", floor[1])
    for mode, label in MODES:
        with knobs(host_mode=mode):
            assert np.array_equal(smemkit.transpose(h), want)
            out.fill(np.nan)
            assert smemkit.transpose(h, out=out) is out and np.array_equal(out, want)
            row(f"smemkit, fresh output, {label}", wall(lambda: smemkit.transpose(h), reps))
            row(f"smemkit, out= reused, {label}", wall(lambda: smemkit.transpose(h, out=out), reps))
    row("np.empty of the result + first touch (no GPU)", wall(lambda: np.empty_like(want).fill(0), reps))
    try:
        import torch
        f = lambda: torch.from_numpy(h).cuda().t().contiguous().cpu().numpy()  # noqa: E731
        assert np.array_equal(f(), want)
        row("torch.from_numpy(h).cuda().t().contiguous().cpu().numpy()", wall(f, reps))
    except ImportError:
        pass
    return table([f"round trip {n}x{n} float32", "median ms", "x floor"], rows)


def per_call(rounds, calls):
    variants = []
    try:
        import cupy
        x = cupy.random.standard_normal((64, 64), dtype=cupy.float32)
        empty_k = cupy.RawKernel('extern "C" __global__ void k() {}', "k")
        sync_c = cupy.cuda.get_current_stream().synchronize
        variants += [("smemkit.transpose(cupy 64x64)", lambda: smemkit.transpose(x), sync_c),
                     ("cupy x.T.copy()", lambda: x.T.copy(), sync_c),
                     ("empty cupy RawKernel launch (floor)", lambda: empty_k((1,), (1,), ()), sync_c),
                     ("empty launch + cupy.empty((64, 64))",
                      lambda: (empty_k((1,), (1,), ()), cupy.empty((64, 64), cupy.float32)), sync_c)]
    except ImportError:
        pass
    try:
        import torch
        t = torch.randn(64, 64, device="cuda")
        sync_t = torch.cuda.synchronize
        variants += [("smemkit.transpose(torch 64x64)", lambda: smemkit.transpose(t), sync_t),
                     ("torch x.t().contiguous()", lambda: t.t().contiguous(), sync_t)]
    except ImportError:
        pass
    times = {name: [] for name, _, _ in variants}
    for _ in range(rounds):
        for name, fn, sync in variants:
            for _ in range(100):
                fn()
            sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            times[name].append((time.perf_counter() - t0) / calls * 1e6)
    rows = [[name, f"{statistics.median(v):.2f}", f"{min(v):.2f}"] for name, v in times.items()]
    return table(["per call, 64x64 float32 device array", "median us", "best round us"], rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="8192,1024")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--md")
    args = ap.parse_args()
    parts = [header("host-side costs (bench/timing/bench_host.py)")]
    for n in (int(s) for s in args.sizes.split(",") if s):  # --sizes "": the per-call table only
        parts.append(round_trip(n, args.reps))
        print(parts[-1], "\n", flush=True)
    parts.append(per_call(args.rounds, args.calls))
    print(parts[-1], flush=True)
    info = staging_info()
    parts.append(f"pinned staging pool after the run: {info}")
    print(parts[-1])
    if args.md:
        with open(args.md, "a") as f:
            f.write("\n\n".join(parts) + "\n\n")


if __name__ == "__main__":
    main()
