"""The GEMMs as a user calls them, on shapes drawn from issue 27's / 28's laws: smemkit's call and
``torch.mm`` on the same dense, device-resident torch tensors, each timed by ``smemkit.timeit`` (CUDA
events around the call, L2 flushed, warm-up, median; every kernel the call enqueues: padded copies,
split-K reductions), interleaved in one run.  TF32 and reduced-precision reductions off, so torch.mm is
cuBLAS fp32 / fp32-accumulating fp16 and bf16.  Ratio = torch.mm's time over smemkit's (> 1: smemkit
faster), the issues' own definition.

    python bench/timing/bench_calls.py --op sgemm --random 300 --seed 11 [--layouts swizzle,pad] [--out rows.jsonl]
    python bench/timing/bench_calls.py --op gemm --random 200 --seed 11 [--knob gemm16_matvec=0]
    python bench/timing/bench_calls.py --op sgemm --random 300 --seed 11 --ab-old   (issue 27's paths vs before)
    python bench/timing/bench_calls.py --op gemm --random 200 --seed 11 --variants 0,10   (chooser vs pre-#28)

Needs torch with CUDA.  Why this and not only ``smemkit.bench``: bench times smemkit's kernels against
its own cuBLAS handle on operands it allocates; this times exactly what a user's call does (the two
cuBLAS anchors agree within 3%, docs/RESULTS.md "Random draws from the issues' laws").  The per-shape
rows (--out, JSON lines) summarise without a GPU: ``python bench/timing/draws.py --summarize rows.jsonl``.
"""
from __future__ import annotations

import argparse
import sys

import smemkit
from smemkit import _testing
import draws as D
from _common import random_run, reps_arg, require_gpu


def with_knobs(call, knobs):
    """call run with smemkit._testing knobs set around it (put back behind it), for an A/B inside one run;
    {} : call as it is.  The knobs are C globals set from Python, a few microseconds of host time inside the
    timed region: on draws of a few microseconds compare whole runs (--knob / --old-paths) instead."""
    if not knobs:
        return call

    def run():
        with _testing.knobs(**knobs):
            return call()
    return run


def time_call(d, layouts, torch, rep_ms, arms=(("", {}),)):
    """One draw: torch.mm and smemkit's call (every layout x every A/B arm: label '<layout><suffix>', the
    arm's knobs set around the call) on the same tensors, interleaved."""
    M, N, K = d.shape
    dt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[d.dtype]
    a = torch.randn(M, K, device="cuda").to(dt)
    b = torch.randn(K, N, device="cuda").to(dt)
    ref = torch.empty(M, N, device="cuda", dtype=dt)
    out = torch.empty(M, N, device="cuda", dtype=dt)
    f = smemkit.sgemm if d.dtype == "float32" else smemkit.gemm
    fns = {"torch.mm": lambda: torch.mm(a, b, out=ref)}
    for lay in layouts:
        for suffix, knobs in arms:
            fns[lay + suffix] = with_knobs(lambda lay=lay: f(a, b, out=out, layout=lay), knobs)
    t = smemkit.timeit(fns, warmup_ms=5, rep_ms=rep_ms)
    ceil = t[0].median_ms
    ms = {name: t[i + 1].median_ms for i, name in enumerate(list(fns)[1:])}
    return {"ratio": {lay: ceil / v for lay, v in ms.items()}, "median_ms": {"torch.mm": ceil, **ms}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=["sgemm", "gemm"], default="sgemm", help="sgemm (float32, #27) or gemm (fp16 / bf16, #28)")
    ap.add_argument("--random", type=reps_arg, metavar="N", required=True, help="N shapes from the op's law")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layouts", default="swizzle", help="comma-separated layouts (default: swizzle)")
    ap.add_argument("--rep-ms", type=float, default=25.0, help="timed budget per callable and draw")
    ap.add_argument("--out", help="write one JSON line per draw here")
    ap.add_argument("--md", help="append the markdown summary to this file")
    ap.add_argument("--knob", action="append", default=[], metavar="NAME=INT",
                    help="smemkit._testing knob for the whole run (A/B: gemm16_matvec=0 is the path off)")
    ap.add_argument("--ab-old", action="store_true",
                    help="sgemm: also time each layout with the issue-27 paths off ('<layout>:old' columns)")
    ap.add_argument("--ab", action="append", default=[], metavar="NAME=INT",
                    help="sgemm: also time each layout with this knob set ('<layout>:NAME=INT' columns; repeatable), "
                    "e.g. sgemm_new_paths=1 (issue 27's paths without the matrix-vector rows)")
    ap.add_argument("--old-paths", action="store_true", help="the whole run with the issue-27 paths off")
    ap.add_argument("--variants", help="gemm: comma-separated forced variants to A/B in one run, e.g. 0,10 "
                    "(0: the chooser, 10: variant 0 before #28; smemkit.bench_configs('gemm')): '<layout>@vN'")
    ap.add_argument("--arm", action="append", default=[], metavar="SUFFIX:NAME=INT[,NAME=INT]",
                    help="another arm timed on the same tensors with these knobs ('<layout>SUFFIX' columns), "
                    "e.g. ':old:gemm16_mv_kmax=0'")
    args = ap.parse_args(argv)
    require_gpu("bench_calls.py")
    try:
        import torch
    except ImportError:
        sys.exit("bench_calls.py: needs torch (the issues' ceiling is torch.mm on torch tensors)")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    layouts = [s.strip() for s in args.layouts.split(",") if s.strip()]
    draws = D.sgemm_draws(args.random, args.seed) if args.op == "sgemm" else D.gemm_draws(args.random, args.seed)
    title = (f"{args.op}: torch.mm time / smemkit call time on dense torch tensors, {args.random} random shapes "
             f"(#{27 if args.op == 'sgemm' else 28}'s law)")
    knobs = {k: int(v) for k, v in (kv.split("=", 1) for kv in args.knob)}
    if knobs:
        title += " with knobs " + ", ".join(f"{k}={v}" for k, v in knobs.items())
    for k, v in knobs.items():  # checked here: knobs(**...) is not a name the script tests can read
        if k not in _testing.KNOBS:
            sys.exit(f"bench_calls.py: no knob {k}; the knobs are {', '.join(_testing.KNOBS)}")
    if args.old_paths:
        knobs["sgemm_new_paths"] = 0
        title += " [issue-27 paths off]"
    arms = [("", {})]
    if args.ab_old and args.op == "sgemm":
        arms.append((":old", {"sgemm_new_paths": 0}))
    for kv in args.ab:
        k, v = kv.split("=", 1)
        if k not in _testing.KNOBS:
            sys.exit(f"bench_calls.py: no knob {k}; the knobs are {', '.join(_testing.KNOBS)}")
        arms.append((f":{k}={int(v)}", {k: int(v)}))
    if args.variants:
        arms = [(f"@v{v}", {"gemm16_variant": int(v)}) for v in args.variants.split(",")]
    for spec in args.arm:
        suffix, _, kvs = spec.rpartition(":")
        arm = {k: int(v) for k, v in (kv.split("=", 1) for kv in kvs.split(","))}
        if not suffix or any(k not in _testing.KNOBS for k in arm):
            sys.exit(f"bench_calls.py: --arm {spec}: want SUFFIX:NAME=INT[,NAME=INT] with knobs of {', '.join(_testing.KNOBS)}")
        arms.append((suffix, arm))
    with _testing.knobs(**knobs):
        random_run(draws, lambda d: time_call(d, layouts, torch, args.rep_ms, arms), seed=args.seed,
                   out=args.out, md=args.md, title=title)


if __name__ == "__main__":
    main()
