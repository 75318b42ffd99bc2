"""The GEMMs as a user calls them, on shapes drawn from issue 27's / 28's laws: smemkit's call and
``torch.mm`` on the same dense, device-resident torch tensors, each timed by ``smemkit.timeit`` (CUDA
events around the call, L2 flushed, warm-up, median; every kernel the call enqueues: padded copies,
split-K reductions), interleaved in one run.  TF32 and reduced-precision reductions off, so torch.mm is
cuBLAS fp32 / fp32-accumulating fp16 and bf16.  Ratio = torch.mm's time over smemkit's (> 1: smemkit
faster), the issues' own definition.

    python bench/timing/bench_calls.py --op sgemm --random 300 --seed 11 [--layouts swizzle,pad] [--out rows.jsonl]
    python bench/timing/bench_calls.py --op gemm --random 200 --seed 11
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


def _with_variant(f, v):
    """f run with the tensor-core GEMM forced to variant v (smemkit._testing's gemm16_variant knob, put
    back behind it); None: f as it is."""
    if v is None:
        return f

    def g():
        with _testing.knobs(gemm16_variant=v):
            return f()
    return g


def time_call(d, layouts, torch, rep_ms, variants=(None,)):
    """One draw: torch.mm and smemkit's call (every layout, every forced variant: labels layout@vN) on
    the same tensors, interleaved."""
    M, N, K = d.shape
    dt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[d.dtype]
    a = torch.randn(M, K, device="cuda").to(dt)
    b = torch.randn(K, N, device="cuda").to(dt)
    ref = torch.empty(M, N, device="cuda", dtype=dt)
    out = torch.empty(M, N, device="cuda", dtype=dt)
    f = smemkit.sgemm if d.dtype == "float32" else smemkit.gemm
    fns = {"torch.mm": lambda: torch.mm(a, b, out=ref)}
    labels = []
    for lay in layouts:
        for v in variants:
            label = lay if v is None else f"{lay}@v{v}"
            fns[label] = _with_variant(lambda lay=lay: f(a, b, out=out, layout=lay), v)
            labels.append(label)
    t = smemkit.timeit(fns, warmup_ms=5, rep_ms=rep_ms)
    ceil = t[0].median_ms
    ms = {lab: t[i + 1].median_ms for i, lab in enumerate(labels)}
    return {"ratio": {lay: ceil / v for lay, v in ms.items()}, "median_ms": {"torch.mm": ceil, **ms}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=["sgemm", "gemm"], default="sgemm", help="sgemm (float32, #27) or gemm (fp16 / bf16, #28)")
    ap.add_argument("--random", type=reps_arg, metavar="N", required=True, help="N shapes from the op's law")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layouts", default="swizzle", help="comma-separated layouts (default: swizzle)")
    ap.add_argument("--variants", help="gemm: comma-separated forced variants to A/B in one run, e.g. 0,10 "
                    "(0: the chooser, 10: variant 0 before #28; smemkit.bench_configs('gemm'))")
    ap.add_argument("--rep-ms", type=float, default=25.0, help="timed budget per callable and draw")
    ap.add_argument("--out", help="write one JSON line per draw here")
    ap.add_argument("--md", help="append the markdown summary to this file")
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
    variants = [int(v) for v in args.variants.split(",")] if args.variants else [None]
    random_run(draws, lambda d: time_call(d, layouts, torch, args.rep_ms, variants), seed=args.seed, out=args.out,
               md=args.md, title=title)


if __name__ == "__main__":
    main()
