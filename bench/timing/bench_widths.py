"""Transpose of every element width (1, 2, 4, 8, 16 bytes), single 8192 x 8192 and a batch of
64 x 1024 x 1024, each layout against cudaMemcpy D2D of the same bytes, with PyTorch beside.

    python bench/timing/bench_widths.py [--sweep] [--reps 40] [--md out.md]
    python bench/timing/bench_widths.py --random 200 --seed 1 [--out rows.jsonl] [--md out.md]
        [--knob transpose_strip=0]   (any smemkit._testing knob for the whole run, repeatable: A/B)
        [--skinny 1]   (the knob transpose_skinny for the whole run: 2 the default, 1 the element-wise
                        skinny kernel alone as before skinny_vec.cuh, 0 the tiled kernel always; A/B)

smemkit's kernels -- 8192 x 8192 and the batch (one launch for all 64 matrices) -- are timed by
smemkit.bench (the one timing path: events, layouts and the D2D copy interleaved, L2 flushed before
every launch, medians); --sweep also times every compiled tile shape of every width through it.
PyTorch's ``x.t().contiguous()`` / ``x.mT.contiguous()`` is not smemkit's, so it is timed with CUDA
events through PyTorch, interleaved with PyTorch's own D2D copy of the same bytes (``y.copy_(x)``), L2
flushed before each, and reported as a share of that copy.  GB/s = (read + write) / time.

--random N --seed S (issue #26): N shapes from the issue's law (bench/timing/draws.py: 2-D and batched,
uint8 ... complex128, 4 MiB to 1 GiB), each timed by smemkit.bench in every layout beside the D2D copy
(ratio = copy time / smemkit's), and torch's x.t().contiguous() / x.mT.contiguous() timed by
smemkit.timeit beside torch's own copy of the same bytes (y.copy_(x)) on the draws where torch moves
data (not when rows or cols is 1), skipped without torch.  smemkit over torch = (copy / smemkit) /
(torch's copy / torch): each side over the copy of its own run.  The repetitions are sized per shape
(draws.reps_for); --reps fixes them.  One JSON line per draw goes to --out; the summary (geomean, p10,
median, min by class and layout, #26's targets) to stdout and --md.
"""
import argparse
import statistics
import sys

import draws as D
import smemkit
from _common import emit, header, random_run, require_gpu, reps_arg
from smemkit._testing import device_info

WIDTHS = [("uint8", 1), ("float16", 2), ("float32", 4), ("float64", 8), ("complex128", 16)]


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


def torch_share(name, shape, reps, flush):
    """PyTorch's transpose copy as a share of its own D2D copy of the same bytes."""
    import torch
    x = torch.empty(shape, dtype=torch_dtype(name), device="cuda")
    x.view(torch.uint8).random_()
    y = torch.empty_like(x)
    t = torch_times({"torch": lambda: x.mT.contiguous(), "copy": lambda: y.copy_(x)}, reps, flush)
    return t["copy"] / t["torch"]


def row(name, esz, res, torch_pct, extra=""):
    pct = {r.layout: 100 * r.ratio for r in res}
    return (f"| {name} | {esz} | {pct['naive']:.1f}% | **{pct['pad']:.1f}%** | **{pct['swizzle']:.1f}%** | "
            f"{res[0].ceiling:.0f} | {torch_pct:.1f}% |{extra}")


def torch_or_none():
    """torch when it is installed and sees the GPU, else None (the torch columns are then skipped)."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def time_random(d, torch, reps=None):
    """One draw of #26: smemkit.bench in every layout beside the D2D copy; torch beside its own copy."""
    nlay = len(smemkit.LAYOUTS)
    reps = reps or D.reps_for(d, nlay + 1)
    res = smemkit.bench("transpose", d.shape, dtype=d.dtype, reps=reps)
    if res[0].ceiling is None:
        raise RuntimeError(f"bench gave no D2D copy time ({res[0].ceiling_name})")
    copy_ms = 2 * d.nbytes / 1e6 / res[0].ceiling  # bench's rates are (read + write) bytes per time
    row = {"reps": reps, "nbytes": d.nbytes, "ratio": {r.layout: r.ratio for r in res},
           "median_ms": {**{r.layout: r.median_ms for r in res}, "copy": copy_ms},
           "torch_moves_data": D.torch_moves_data(d.shape), "torch": None, "vs_torch": None,
           "bench": [r.to_dict() for r in res]}
    if torch is not None and row["torch_moves_data"]:
        x = torch.empty(d.shape, dtype=torch_dtype(d.dtype), device="cuda")
        x.view(torch.uint8).random_()
        y = torch.empty_like(x)
        fn = (lambda: x.t().contiguous()) if x.dim() == 2 else (lambda: x.mT.contiguous())
        t = smemkit.timeit({"torch": fn, "copy": lambda: y.copy_(x)}, reps=reps, nbytes=2 * d.nbytes)
        share = t["copy"].median_ms / t["torch"].median_ms  # torch's transpose over its own copy
        row["torch"] = {"median_ms": t["torch"].median_ms, "copy_ms": t["copy"].median_ms, "share": share}
        row["vs_torch"] = {r.layout: r.ratio / share for r in res}
        row["vs_torch_direct"] = {r.layout: t["torch"].median_ms / r.median_ms for r in res}
        del x, y, t
        torch.cuda.empty_cache()
    return row


def random_mode(args):
    torch = torch_or_none()
    if torch is None:
        print("torch with CUDA not found: the torch comparison is skipped", flush=True)
    ds = D.transpose_draws(args.random, args.seed)
    random_run(ds, lambda d: time_random(d, torch, args.reps), seed=args.seed, out=args.out, md=args.md,
               title=f"Transpose, {args.random} random shapes (#26's law)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--batch", default="64x1024x1024")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (default: 40; --random: per shape)")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--random", type=reps_arg, metavar="N", help="time N shapes drawn from #26's law")
    ap.add_argument("--seed", type=int, default=1, help="the draws' seed (--random)")
    ap.add_argument("--out", help="--random: write one JSON line per draw here")
    ap.add_argument("--md")
    ap.add_argument("--knob", action="append", default=[], metavar="NAME=V",
                    help="a smemkit._testing knob for the whole run (repeatable), e.g. transpose_strip=0 for an A/B")
    ap.add_argument("--skinny", type=int, default=2, choices=[0, 1, 2, 3],
                    help="the knob transpose_skinny: 2 (default) word-wise skinny kernel for 1- and 2-byte "
                    "elements, 3 the same with skinny_prmt.cuh where it fits, 1 the element-wise skinny kernel "
                    "alone, 0 the tiled kernel always")
    args = ap.parse_args()
    require_gpu("bench_widths.py")
    from smemkit import _testing
    extra = {k: int(v) for k, v in (kv.split("=", 1) for kv in args.knob)}
    with _testing.knobs(transpose_skinny=args.skinny, **extra):
        print(f"transpose_skinny={args.skinny} {extra}", file=sys.stderr, flush=True)
        return run(args)


def run(args):
    if args.random:
        return random_mode(args)
    args.reps = args.reps or 40
    import torch
    info = device_info()
    flush = torch.empty(2 * info["l2_bytes"], dtype=torch.uint8, device="cuda")
    n = args.size
    bshape = tuple(int(s) for s in args.batch.split("x"))
    lines = [header("Transpose widths") + "; GB/s = (read + write) / median time; % = of cudaMemcpy D2D of the "
             "same bytes in the same run", ""]
    lines += [f"{n}x{n}", "", "| dtype | bytes | naive | pad | swizzle | D2D GB/s | torch x.t().contiguous() | "
              "shipped tile |", "|---|---|---|---|---|---|---|---|"]
    sweep = []
    for name, esz in WIDTHS:
        res = smemkit.bench("transpose", (n, n), dtype=name, reps=args.reps)
        cfg = smemkit.explain("transpose", (n, n), "pad", name).config
        lines.append(row(name, esz, res, 100 * torch_share(name, (n, n), args.reps, flush), f" {cfg} |"))
        print(lines[-1], flush=True)
        for c in (smemkit.bench_configs("transpose")[1:] if args.sweep else []):
            r = smemkit.bench("transpose", (n, n), dtype=name, config=c, reps=args.reps)
            sweep.append(f"| {name} | {c} | " + " | ".join(f"{100 * x.ratio:.1f}%" for x in r) + " |")
            print(sweep[-1], flush=True)
    if sweep:
        lines += ["", f"Tile sweep, {n}x{n}, % of D2D (the shipped row of each width is in the table above)", "",
                  "| dtype | tile (units) | naive | pad | swizzle |", "|---|---|---|---|---|"] + sweep
    lines += ["", f"batch {args.batch}, one launch", "",
              "| dtype | bytes | naive | pad | swizzle | D2D GB/s | torch x.mT.contiguous() |", "|---|---|---|---|---|---|---|"]
    for name, esz in WIDTHS:
        res = smemkit.bench("transpose", bshape, dtype=name, reps=args.reps)
        lines.append(row(name, esz, res, 100 * torch_share(name, bshape, args.reps, flush)))
        print(lines[-1], flush=True)
    emit("\n".join(lines), args.md)


if __name__ == "__main__":
    main()
