"""Where a gemm() call's device time goes: every kernel one call launches, from torch.profiler (the
acceptance's measure), against torch.mm's kernels in the same process, the same shape in fp16 and bf16.

    python bench/timing/profile_gemm16_calls.py [--reps 10] [--knob gemm16_mv_kmax=0] [M,N,K ...]

Per shape and dtype: torch.mm's device us per call and kernel names, smemkit's device us per call,
kernels per call and names (a workspace memset, a padded copy, a reduce show up as their own kernels),
and the wall us per call of a synchronised loop (host overhead where it exceeds the device time).
"""
import argparse
import sys
import time
from collections import defaultdict

import smemkit
from smemkit import _testing

DEFAULT = ["12047,12,10", "2917,5082,18", "9847,6886,38", "6,1421,176", "4,7113,337", "950,14,308",
           "7819,24,30630", "6964,6,40324", "3,1894,565", "10,106,1089", "1024,1024,1024"]


def device_us(torch, fn, reps):
    """{kernel name: (count, total us)} over reps calls, and the device us per call."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    kern = defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type.name == "CUDA":
            k = kern[ev.name[:60]]
            k[0] += 1
            k[1] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
    total = sum(v[1] for v in kern.values()) / reps
    return total, {n: (c / reps, t / reps) for n, (c, t) in kern.items()}


def wall_us(torch, fn, reps):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / reps * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shapes", nargs="*", default=DEFAULT)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--knob", action="append", default=[], metavar="NAME=INT")
    args = ap.parse_args(argv)
    import torch
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    knobs = {k: int(v) for k, v in (kv.split("=", 1) for kv in args.knob)}
    print(f"knobs {knobs or 'default'}; {torch.cuda.get_device_name()}")
    with _testing.knobs(**knobs):
        for s in args.shapes:
            M, N, K = map(int, s.split(","))
            for dt in (torch.float16, torch.bfloat16):
                a = torch.randn(M, K, device="cuda").to(dt)
                b = torch.randn(K, N, device="cuda").to(dt)
                ref = torch.empty(M, N, device="cuda", dtype=dt)
                out = torch.empty(M, N, device="cuda", dtype=dt)
                t_dev, t_k = device_us(torch, lambda: torch.mm(a, b, out=ref), args.reps)
                s_dev, s_k = device_us(torch, lambda: smemkit.gemm(a, b, out=out), args.reps)
                t_wall = wall_us(torch, lambda: torch.mm(a, b, out=ref), args.reps)
                s_wall = wall_us(torch, lambda: smemkit.gemm(a, b, out=out), args.reps)
                cfg = smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype=str(dt).removeprefix("torch.")).config
                print(f"{M}x{N}x{K} {str(dt)[6:]:8s} ratio {t_dev / s_dev:.3f}  torch {t_dev:7.1f} us dev "
                      f"{t_wall:7.1f} wall | ours {s_dev:7.1f} us dev {s_wall:7.1f} wall | {cfg[:90]}")
                print("    torch: " + "; ".join(f"{n} x{c:.1f} {t:.1f}us" for n, (c, t) in t_k.items()))
                print("    ours:  " + "; ".join(f"{n} x{c:.1f} {t:.1f}us" for n, (c, t) in s_k.items()))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
