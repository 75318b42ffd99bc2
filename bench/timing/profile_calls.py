"""The issues' acceptance method: the device time of every kernel a call launches (memcpys and memsets
included), summed by torch.profiler over back-to-back calls, for smemkit's call and its anchor in the same
process -- torch.mm (cuBLAS, TF32 and reduced-precision reductions off) for the GEMMs, a D2D copy of the
same bytes (``y.copy_(x)``) for transposes -- on the same device-resident torch tensors.

bench_calls.py / bench_widths.py time with CUDA events around each call (L2 flushed before it, and any gap
while the GPU waits for the host included).  The two differ where a call is a few microseconds (no
flush, no launch gaps here) and where two kernels of a call overlap (a programmatic dependent launch's
wait is device time of the waiting kernel: summed, the overlap counts twice).  Two modes:

    python bench/timing/profile_calls.py --op sgemm --random 300 --seed 21 [--out rows.jsonl] [--md f.md]
        a random run of the op's law (sgemm, gemm or transpose) timed this way; rows and summary as
        bench_calls.py writes them (ratio = anchor / smemkit), so draws.py --summarize reads them
    python bench/timing/profile_calls.py --rows run.jsonl [--worst 40] [--kernels]
        re-time the draws of a finished events run (bench_calls.py / bench_widths.py --out), worst first,
        printing both ratios side by side (and, with --kernels, each smemkit kernel's device time)
    python bench/timing/profile_calls.py --op gemm --shapes 12047,12,10 6,1421,176 [--dtype float16,bfloat16]
        given shapes, each kernel of both calls with its device time and smemkit's config (explain)

--knob NAME=V (repeatable) sets a smemkit._testing knob for the whole run.  --arm SUFFIX:NAME=V[,NAME=V]
(repeatable, with --op --random or --shapes) times each draw once more under those knobs, arms interleaved
draw by draw (columns '<layout>SUFFIX'; --shapes prints a line per arm): the same-run A/B of docs/RESULTS.md
"Session 37", e.g.
    python bench/timing/profile_calls.py --op transpose --random 200 --seed 62 --arm k2:transpose_skinny=2
The run's own arm takes the measured choices (smemkit.autotune: the SGEMM's and the transposes', timed in the warm-up
calls); a transpose arm that sets any transpose knob runs that knob's path untuned, and --arm t0:transpose_tune=0 (or
t0:sgemm_tune=0) is the defaults untuned.

Needs torch with CUDA.  Transposes use layout pad (the events runs' best layout on most draws), GEMMs
swizzle, unless --layout says otherwise.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import smemkit
import draws as D
from _common import random_run, reps_arg, require_gpu



def device_us(prof, iters):
    """(device time of the CUDA kernels / memcpys / memsets of the profiled region per iteration, in us;
    {name: us per iteration})."""
    total, per = 0.0, {}
    for e in prof.events():
        if "CUDA" not in str(getattr(e, "device_type", "")):
            continue
        us = e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
        total += us
        per[e.name] = per.get(e.name, 0.0) + us / iters
    return total / iters, per


def profiled(torch, fn, iters):
    """fn's summed device time per call (us) and its kernels, after 3 warm-up calls."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    return device_us(prof, iters)


def callables(torch, op, shape, dtype, layout):
    """(anchor, smemkit call) on fresh device tensors of the draw's shape and dtype."""
    dt = getattr(torch, dtype)
    if op == "transpose":
        x = torch.randn(*shape, device="cuda", dtype=dt) if dt.is_complex else \
            (torch.randn(*shape, device="cuda") * 100).to(dt)
        y = torch.empty_like(x)
        f = smemkit.matrix_transpose if x.dim() == 3 else smemkit.transpose
        return (lambda: y.copy_(x)), (lambda: f(x, layout=layout))
    M, N, K = shape
    a = torch.randn(M, K, device="cuda").to(dt)
    b = torch.randn(K, N, device="cuda").to(dt)
    ref = torch.empty(M, N, device="cuda", dtype=dt)
    out = torch.empty(M, N, device="cuda", dtype=dt)
    f = smemkit.sgemm if dtype == "float32" else smemkit.gemm
    return (lambda: torch.mm(a, b, out=ref)), (lambda: f(a, b, out=out, layout=layout))


def time_draw(torch, op, shape, dtype, layout, iters):
    anchor, ours = callables(torch, op, shape, dtype, layout)
    (ta, _), (to, kernels) = profiled(torch, anchor, iters), profiled(torch, ours, iters)
    return {"ratio": {layout: ta / to if to > 0 else float("nan")},
            "device_us": {"anchor": ta, layout: to}, "kernels_us": kernels}


def time_arms(torch, op, shape, dtype, layout, iters, arms):
    """time_draw under each arm's knobs (('', {}) the run's own), one after the other on this draw; the
    ratios as '<layout>SUFFIX', each arm's kernels under 'kernels_us' by the same label."""
    from smemkit import _testing
    rec = {"ratio": {}, "device_us": {}, "kernels_us": {}}
    for suffix, knobs in arms:
        with _testing.knobs(**knobs):
            r = time_draw(torch, op, shape, dtype, layout, iters)
        label = layout + suffix
        rec["ratio"][label] = r["ratio"][layout]
        rec["device_us"]["anchor" + suffix], rec["device_us"][label] = r["device_us"]["anchor"], r["device_us"][layout]
        rec["kernels_us"][label] = r["kernels_us"]
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=["sgemm", "gemm", "transpose"], help="a random run of this op's law")
    ap.add_argument("--random", type=reps_arg, metavar="N", help="N draws (with --op)")
    ap.add_argument("--shapes", nargs="+", metavar="M,N,K", help="given shapes (with --op; transposes R,C or B,R,C)")
    ap.add_argument("--dtype", help="--shapes: comma-separated dtypes (default: the op's law's)")
    ap.add_argument("--knob", action="append", default=[], metavar="NAME=V", help="a smemkit._testing knob")
    ap.add_argument("--arm", action="append", default=[], metavar="SUFFIX:NAME=V[,NAME=V]",
                    help="--random / --shapes: also time each draw under these knobs (columns '<layout>SUFFIX'), interleaved")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rows", help="re-time the draws of this events run instead")
    ap.add_argument("--worst", type=int, default=40, help="--rows: the N draws with the lowest ratio (0: all)")
    ap.add_argument("--layout", help="default: pad for transposes, swizzle for GEMMs")
    ap.add_argument("--iters", type=int, default=20, help="profiled calls per callable and draw")
    ap.add_argument("--kernels", action="store_true", help="--rows: print each smemkit kernel's device time")
    ap.add_argument("--out", help="JSON lines, one per draw")
    ap.add_argument("--md", help="--op: append the markdown summary to this file")
    args = ap.parse_args(argv)
    if (args.op is None) == (args.rows is None):
        ap.error("give --op with --random or --shapes, or --rows")
    args.arms = [("", {})] + [parse_arm(ap, spec) for spec in args.arm]  # refused before any device work
    require_gpu("profile_calls.py")
    import torch
    from smemkit import _testing
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    with _testing.knobs(**{k: int(v) for k, v in (kv.split("=", 1) for kv in args.knob)}):
        return run(args, ap, torch)


def parse_arm(ap, spec):
    """'SUFFIX:NAME=V[,NAME=V]' -> (SUFFIX, {NAME: V}), knobs of smemkit._testing only."""
    from smemkit import _testing
    suffix, _, kvs = spec.partition(":")
    try:
        knobs = {k: int(v) for k, v in (kv.split("=", 1) for kv in kvs.split(","))}
    except ValueError:
        knobs = {}
    if not suffix or not knobs or any(k not in _testing.KNOBS for k in knobs):
        ap.error(f"--arm {spec}: want SUFFIX:NAME=INT[,NAME=INT] with knobs of {', '.join(_testing.KNOBS)}")
    return ":" + suffix, knobs


def explained(op, shape, layout, dtype, knobs):
    """explain()'s config of the kernel the call runs under knobs (for gemm: wgmma or mma.sync, as the
    launcher's rule names it for dense device tensors)."""
    from smemkit import _testing
    if op != "gemm":
        with _testing.knobs(**knobs):  # an arm's knobs pick its path (the config printed beside its ratio)
            return smemkit.explain(op, shape, layout, dtype).config
    info = _testing.device_info()
    with _testing.knobs(**knobs):
        kern = _testing.gemm16_kernel_for(shape, layout, cc=info["cc"], sms=info["sms"])
        return smemkit.explain(op, shape, layout, dtype, sms=info["sms"], kernel=kern).config


def run(args, ap, torch):
    if args.op and args.shapes:
        layout = args.layout or ("pad" if args.op == "transpose" else "swizzle")
        law = {"sgemm": "float32", "gemm": "float16,bfloat16", "transpose": "uint8,float16,float32"}[args.op]
        for shape in ([int(x) for x in t.split(",")] for t in args.shapes):
            for dtype in (args.dtype or law).split(","):
                rec = time_arms(torch, args.op, shape, dtype, layout, args.iters, args.arms)
                for suffix, knobs in args.arms:
                    lab = layout + suffix
                    cfg = explained(args.op, shape, layout, dtype, knobs)
                    print(f"{D.shape_str(shape):>22} {dtype:10} {suffix or '':4} ratio {rec['ratio'][lab]:.3f}  anchor "
                          f"{rec['device_us']['anchor' + suffix]:8.1f} us  smemkit {rec['device_us'][lab]:8.1f} us  "
                          f"{cfg[:100]}")
                    for name, us in sorted(rec["kernels_us"][lab].items(), key=lambda kv: -kv[1]):
                        print(f"{'':>38}{us:8.1f} us  {name[:110]}")
        return 0
    if args.op:
        if not args.random:
            ap.error("--op needs --random N or --shapes")
        layout = args.layout or ("pad" if args.op == "transpose" else "swizzle")
        draws = {"sgemm": D.sgemm_draws, "gemm": D.gemm_draws, "transpose": D.transpose_draws}[args.op](
            args.random, args.seed)
        title = (f"{args.op}: anchor / smemkit, summed kernel device time (torch.profiler), {args.random} "
                 f"random shapes, layout {layout}")
        random_run(draws, lambda d: time_arms(torch, d.op, d.shape, d.dtype, layout, args.iters, args.arms),
                   seed=args.seed, out=args.out, md=args.md, title=title)
        return 0

    rows = [json.loads(line) for line in open(args.rows) if line.strip()]
    rows = [r for r in rows if r.get("ratio")]
    rows.sort(key=lambda r: max(v for k, v in r["ratio"].items() if k != "naive"))
    out = open(args.out, "w") if args.out else None
    both = []
    for r in rows[:args.worst or None]:
        layout = args.layout or ("pad" if r["op"] == "transpose" else "swizzle")
        rec = time_draw(torch, r["op"], r["shape"], r["dtype"], layout, args.iters)
        rp, re_ = rec["ratio"][layout], r["ratio"][layout]
        both.append((rp, re_))
        print(f"{D.shape_str(r['shape']):>22} {r['dtype']:10} events {re_:.3f} profiler {rp:.3f}  anchor "
              f"{rec['device_us']['anchor']:8.1f} us  smemkit {rec['device_us'][layout]:8.1f} us", flush=True)
        if args.kernels:
            for name, us in sorted(rec["kernels_us"].items(), key=lambda kv: -kv[1]):
                print(f"{'':>34}{us:8.1f} us  {name[:110]}")
        if out:
            out.write(json.dumps({"shape": r["shape"], "dtype": r["dtype"], "ratio_events": re_, **rec}) + "\n")
    if both:
        g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
        print(f"{len(both)} draws: geomean events {g([e for _, e in both]):.3f}, profiler "
              f"{g([p for p, _ in both]):.3f}, profiler / events {g([p / e for p, e in both]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
