"""python -m smemkit: the A/B of the three shared-memory layouts.

With a GPU: times the transpose, the SGEMM and the float16 tensor-core GEMM in each layout on
device-resident data (smemkit.bench) against the ceiling measured in the same run (cudaMemcpy D2D;
cuBLAS fp32; cuBLAS fp16 with fp32 accumulation), beside the wavefronts the bank model predicts.
Without one (or with --cpu): says so on one line, then prints the bank tables of a 32x32 tile and, per
layout, the predicted wavefronts of every shared-memory access of the kernels at each size.

Every flag means the same with and without a GPU: --op / --layout / --size / --sweep choose what is
analysed (and timed, on a GPU); --plot draws the timings (GPU) or the bank maps and the predicted
wavefronts (CPU); --json prints one schema either way:

    {"schema": 1, "smemkit": version, "device": GPU name or null, "timed": bool,
     "rows": [one per op, size and layout, each with exactly the keys of ROW_KEYS:
              BenchResult's fields (op, layout, shape, dtype, n, median_ms, min_ms, p20_ms, p80_ms,
              times_ms, rate, unit, ceiling_name, ceiling, ratio, device, predicted_wavefronts,
              predicted_excess, config) -- the timing ones null when "timed" is false -- plus
              "accesses": explain()'s per-access list]}

--rep-ms only sizes timings: without a GPU it is ignored, and a note on stderr says so.
Exit status 0 on success, 1 with a one-line error otherwise (2 for a bad argument).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, TextIO, cast

import smemkit
from smemkit.bench import Op
from smemkit.explain import Explanation
from smemkit.layouts import Layout
from smemkit.timing import progress

DEFAULT_SIZE = {"transpose": 8192, "sgemm": 4096, "gemm": 4096}
CPU_DEFAULT_MAX = 4096  # without --size, the analysis uses min(DEFAULT_SIZE, this)
DTYPE = {"transpose": "float32", "sgemm": "float32", "gemm": "float16"}  # gemm: the tensor-core kernel
MAX_SIZE = 2**31 - 257  # the largest matrix edge every kernel (and explain) accepts
SWEEP = {"transpose": [1024, 2048, 4096, 8192, 16384], "sgemm": [1024, 2048, 4096, 8192],
         "gemm": [1024, 2048, 4096, 8192]}
JSON_SCHEMA = 1
ROW_KEYS = ("op", "layout", "shape", "dtype", "n", "median_ms", "min_ms", "p20_ms", "p80_ms", "times_ms", "rate",
            "unit", "ceiling_name", "ceiling", "ratio", "device", "predicted_wavefronts", "predicted_excess",
            "config", "accesses")
UNIT = {"transpose": "GB/s", "sgemm": "GFLOP/s", "gemm": "GFLOP/s"}


def bank_tables(out: TextIO) -> None:
    out.write("Bank of each element of a 32x32 float32 tile as stored (row r, column c); a warp reading\n"
              "column c touches the banks in column c of the table.\n")
    for layout in smemkit.LAYOUTS:
        bm = smemkit.bank_map(layout, 32, 32, 4)
        distinct = len(set(bm[:, 0].tolist()))
        out.write(f"\n{layout}: column read touches {distinct} distinct bank(s) -> "
                  f"{32 // distinct}-way conflict\n")
        out.write("     " + " ".join(f"{c:2d}" for c in range(0, 32)) + "   <- c\n")
        for r in range(32):
            out.write(f"r{r:2d}  " + " ".join(f"{b:2d}" for b in bm[r]) + "\n")


def shape_of(op: str, n: int) -> tuple[int, ...]:
    return (n, n) if op == "transpose" else (n, n, n)


def plan(ops: list[str], size: int | None, sweep: bool, gpu: bool) -> list[tuple[str, int]]:
    """(op, matrix edge) pairs to analyse / time, in order."""
    if sweep:
        return [(op, n) for op in ops for n in SWEEP[op]]
    return [(op, size or (DEFAULT_SIZE[op] if gpu else min(DEFAULT_SIZE[op], CPU_DEFAULT_MAX))) for op in ops]


def explain(op: str, n: int, layout: str) -> Explanation:
    return smemkit.explain(cast(Op, op), shape_of(op, n), cast(Layout, layout), DTYPE[op])


def analysis(points: list[tuple[str, int]], layouts: list[str], out: TextIO) -> None:
    """Per layout, the bank model's prediction for every shared-memory access of the kernels."""
    for op, n in points:
        shape = shape_of(op, n)
        out.write(f"\n{op} {'x'.join(map(str, shape))}: predicted shared-memory wavefronts per launch "
                  f"(bank model; ideal = conflict-free)\n")
        out.write(f"{'layout':<9}{'access':<50}{'instr':>11}{'wavefronts':>12}{'ideal':>11}{'ways':>6}\n")
        for layout in layouts:
            for a in explain(op, n, layout).accesses:
                out.write(f"{layout:<9}{a.name:<50}{a.instructions:>11}{a.wavefronts:>12}{a.ideal:>11}"
                          f"{a.worst_ways:>6.1f}\n")


def cpu_rows(points: list[tuple[str, int]], layouts: list[str]) -> list[dict[str, Any]]:
    """The --json rows without timings: the same keys as with them, timing values null."""
    rows = []
    for op, n in points:
        for layout in layouts:
            e = explain(op, n, layout)
            d = e.to_dict()
            row: dict[str, Any] = dict.fromkeys(ROW_KEYS)
            row.update(op=op, layout=layout, shape=list(e.shape), dtype=e.dtype, unit=UNIT[op],
                       predicted_wavefronts=e.total(), predicted_excess=e.total(what="excess"),
                       config=smemkit.bench_configs(op)[0], accesses=d["accesses"])
            rows.append(row)
    return rows


def gpu_rows(results: list[smemkit.BenchResult]) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        row = r.to_dict()
        kern = {"kernel": "wgmma"} if r.op == "gemm" and r.config.endswith("[wgmma]") else {}
        e = smemkit.explain(cast(Op, r.op), r.shape, cast(Layout, r.layout), r.dtype, **kern)
        row["accesses"] = e.to_dict()["accesses"]
        rows.append({k: row[k] for k in ROW_KEYS})
    return rows


def _pyplot() -> Any:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("--plot needs matplotlib: pip install 'smemkit[plot]'") from None
    return plt


def plot(results: list[smemkit.BenchResult], path: str) -> None:
    """The timings: % of the ceiling per layout, one group per op and size."""
    plt = _pyplot()
    groups: list[str] = []
    for r in results:
        key = f"{r.op}\n{'x'.join(map(str, r.shape))}"
        if key not in groups:
            groups.append(key)
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(groups)), 4))
    w = 0.8 / len(smemkit.LAYOUTS)
    for j, layout in enumerate(smemkit.LAYOUTS):
        xs, ys = [], []
        for i, g in enumerate(groups):
            for r in results:
                if r.layout == layout and f"{r.op}\n{'x'.join(map(str, r.shape))}" == g and r.ratio is not None:
                    xs.append(i + (j - 1) * w)
                    ys.append(100 * r.ratio)
        ax.bar(xs, ys, w, label=layout)
    ax.axhline(100, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel("% of ceiling (D2D copy / cuBLAS fp32)")
    ax.set_title(f"smemkit layouts on {results[0].device}")
    ax.legend()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_cpu(points: list[tuple[str, int]], layouts: list[str], path: str) -> None:
    """No GPU: the three bank maps (the transpose's column read outlined) over the bank model's
    predicted wavefronts per launch, as a multiple of the conflict-free ideal, per op, size and layout."""
    plt = _pyplot()
    fig = plt.figure(figsize=(max(18, 1.6 * len(points) + 2), 14))
    grid = fig.add_gridspec(2, len(smemkit.LAYOUTS), height_ratios=[1.6, 1])
    for j, layout in enumerate(smemkit.LAYOUTS):
        smemkit.plot_bank_map(layout, access="column", index=0, ax=fig.add_subplot(grid[0, j]))
    ax = fig.add_subplot(grid[1, :])
    w = 0.8 / len(layouts)
    for j, layout in enumerate(layouts):
        ys = []
        for op, n in points:
            e = explain(op, n, layout)
            ys.append(e.total() / max(e.total(what="ideal"), 1))
        ax.bar([i + (j - (len(layouts) - 1) / 2) * w for i in range(len(points))], ys, w, label=layout)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks(range(len(points)), [f"{op}\n{'x'.join(map(str, shape_of(op, n)))}" for op, n in points])
    ax.set_ylabel("predicted wavefronts / conflict-free ideal")
    ax.set_title("bank model's prediction (no GPU: nothing timed)")
    ax.legend()
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m smemkit", description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--op", choices=("transpose", "sgemm", "gemm", "all"), default="all",
                    help="gemm: the float16 tensor-core GEMM (ldmatrix + mma) against cuBLAS fp16")
    ap.add_argument("--layout", choices=smemkit.LAYOUTS, action="append",
                    help="layout(s) to time / analyse (repeatable; default all three)")
    ap.add_argument("--size", type=int, help="matrix edge (default 8192 transpose, 4096 sgemm / gemm; without a "
                                             "GPU at most 4096 unless given)")
    ap.add_argument("--sweep", action="store_true", help="a range of sizes (with a GPU: timed, progress bar on stderr)")
    ap.add_argument("--json", action="store_true", help="print JSON (one schema with or without a GPU: see --help "
                                                         "of the module docstring) instead of tables")
    ap.add_argument("--plot", metavar="PNG", help="GPU: %% of ceiling per layout; no GPU: the bank maps and the "
                                                  "predicted wavefronts (needs matplotlib)")
    ap.add_argument("--rep-ms", type=float, default=None, help="timing budget per size in ms (default 100; GPU only)")
    ap.add_argument("--cpu", action="store_true", help="the CPU analysis even with a GPU")
    args = ap.parse_args(argv)
    if args.size is not None and not 1 <= args.size <= MAX_SIZE:
        ap.error(f"--size must be in [1, {MAX_SIZE}]; got {args.size}")
    if args.sweep and args.size is not None:
        ap.error("--size and --sweep exclude each other (--sweep runs its own sizes)")
    rep_ms = 100.0 if args.rep_ms is None else args.rep_ms
    if not (math.isfinite(rep_ms) and rep_ms > 0):
        ap.error(f"--rep-ms must be a positive number of milliseconds; got {args.rep_ms}")
    ops = ["transpose", "sgemm", "gemm"] if args.op == "all" else [args.op]
    layouts: list[str] = args.layout or list(smemkit.LAYOUTS)
    try:
        gpu = not args.cpu and smemkit.is_available()
        points = plan(ops, args.size, args.sweep, gpu)
        if not gpu:
            if args.rep_ms is not None:
                print("smemkit: note: --rep-ms sizes timings, and nothing is timed without a GPU", file=sys.stderr)
            if args.json:
                print(json.dumps({"schema": JSON_SCHEMA, "smemkit": smemkit.__version__, "device": None,
                                  "timed": False, "rows": cpu_rows(points, layouts)}, indent=1))
            else:
                if not args.cpu:
                    print("No usable GPU found: printing the bank model's analysis instead (it needs none).")
                bank_tables(sys.stdout)
                analysis(points, layouts, sys.stdout)
            if args.plot:
                plot_cpu(points, layouts, args.plot)
                print(f"wrote {args.plot}", file=sys.stderr)
            return 0
        results: list[smemkit.BenchResult] = []
        for i, (op, n) in enumerate(points):
            if args.sweep:
                progress(i, len(points), f"{op} {n}")
            results += smemkit.bench(cast(Op, op), shape_of(op, n), layout=cast(list[Layout], layouts),
                                     dtype=DTYPE[op], rep_ms=rep_ms)
        if args.sweep:
            progress(len(points), len(points), "done")
        if args.json:
            print(json.dumps({"schema": JSON_SCHEMA, "smemkit": smemkit.__version__, "device": results[0].device,
                              "timed": True, "rows": gpu_rows(results)}, indent=1))
        else:
            print(f"{results[0].device}: median of device-side CUDA-event timings, L2 flushed, layouts "
                  f"interleaved; ceilings measured in the same run")
            print(smemkit.format_table(results))
        if args.plot:
            plot(results, args.plot)
            print(f"wrote {args.plot}", file=sys.stderr)
    except BrokenPipeError:  # `python -m smemkit | head` (before OSError, its base)
        sys.stderr.close()
        return 0
    except (smemkit.CudaError, MemoryError, ValueError, TypeError, RuntimeError, OSError) as e:
        print(f"smemkit: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
