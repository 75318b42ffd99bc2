"""python -m smemkit: the A/B of the three shared-memory layouts.

With a GPU: times the transpose, the SGEMM and the float16 tensor-core GEMM in each layout on
device-resident data (smemkit.bench) against the ceiling measured in the same run (cudaMemcpy D2D;
cuBLAS fp32; cuBLAS fp16 with fp32 accumulation), beside the wavefronts the
bank model predicts.  Without one: says so on one line, then prints the bank tables of a 32x32 tile
and, per layout, the predicted wavefronts of every shared-memory access of both kernels.
Exit status 0 on success, 1 with a one-line error otherwise.
"""
import argparse
import json
import math
import sys

import smemkit

DEFAULT_SIZE = {"transpose": 8192, "sgemm": 4096, "gemm": 4096}
DTYPE = {"transpose": "float32", "sgemm": "float32", "gemm": "float16"}  # gemm: the tensor-core kernel
MAX_SIZE = 2**31 - 257  # the largest matrix edge every kernel (and explain) accepts
SWEEP = {"transpose": [1024, 2048, 4096, 8192, 16384], "sgemm": [1024, 2048, 4096, 8192],
         "gemm": [1024, 2048, 4096, 8192]}


def bank_tables(out):
    out.write("Bank of each element of a 32x32 float32 tile as stored (row r, column c); a warp reading\n"
              "column c touches the banks in column c of the table.\n")
    for layout in smemkit.LAYOUTS:
        bm = smemkit.bank_map(layout, 32, 32, 4)
        distinct = len(set(bm[:, 0]))
        out.write(f"\n{layout}: column read touches {distinct} distinct bank(s) -> "
                  f"{32 // distinct}-way conflict\n")
        out.write("     " + " ".join(f"{c:2d}" for c in range(0, 32)) + "   <- c\n")
        for r in range(32):
            out.write(f"r{r:2d}  " + " ".join(f"{b:2d}" for b in bm[r]) + "\n")


def shape_of(op, n):
    return (n, n) if op == "transpose" else (n, n, n)


def analysis(ops, layouts, size, out):
    """Per layout, the bank model's prediction for every shared-memory access of the kernels."""
    for op in ops:
        shape = shape_of(op, size or min(DEFAULT_SIZE[op], 4096))
        out.write(f"\n{op} {'x'.join(map(str, shape))}: predicted shared-memory wavefronts per launch "
                  f"(bank model; ideal = conflict-free)\n")
        out.write(f"{'layout':<9}{'access':<50}{'instr':>11}{'wavefronts':>12}{'ideal':>11}{'ways':>6}\n")
        for layout in layouts:
            for a in smemkit.explain(op, shape, layout, DTYPE[op]).accesses:
                out.write(f"{layout:<9}{a.name:<50}{a.instructions:>11}{a.wavefronts:>12}{a.ideal:>11}"
                          f"{a.worst_ways:>6.1f}\n")


def progress(i, n, label):
    width = 30
    done = int(width * i / n)
    sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {label:<28}")
    sys.stderr.flush()
    if i == n:
        sys.stderr.write("\n")


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("--plot needs matplotlib: pip install 'smemkit[plot]'") from None
    groups = []
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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m smemkit", description=__doc__.split("\n")[0])
    ap.add_argument("--op", choices=("transpose", "sgemm", "gemm", "all"), default="all",
                    help="gemm: the float16 tensor-core GEMM (ldmatrix + mma) against cuBLAS fp16")
    ap.add_argument("--layout", choices=smemkit.LAYOUTS, action="append",
                    help="layout(s) to time (repeatable; default all three)")
    ap.add_argument("--size", type=int, help="matrix edge (default 8192 transpose, 4096 sgemm)")
    ap.add_argument("--sweep", action="store_true", help="time a range of sizes (progress bar on stderr)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of tables")
    ap.add_argument("--plot", metavar="PNG", help="draw %% of ceiling per layout (needs matplotlib)")
    ap.add_argument("--rep-ms", type=float, default=100, help="timing budget per size in ms (default 100)")
    ap.add_argument("--cpu", action="store_true", help="print the CPU analysis even with a GPU")
    args = ap.parse_args(argv)
    if args.size is not None and not 1 <= args.size <= MAX_SIZE:
        ap.error(f"--size must be in [1, {MAX_SIZE}]; got {args.size}")
    if not (math.isfinite(args.rep_ms) and args.rep_ms > 0):
        ap.error(f"--rep-ms must be a positive number of milliseconds; got {args.rep_ms}")
    ops = ["transpose", "sgemm", "gemm"] if args.op == "all" else [args.op]
    layouts = args.layout or list(smemkit.LAYOUTS)
    try:
        if args.cpu or not smemkit.is_available():
            if args.json:
                print(json.dumps([smemkit.explain(op, shape_of(op, args.size or min(DEFAULT_SIZE[op], 4096)), l,
                                                  DTYPE[op])
                                  .to_dict() for op in ops for l in layouts], indent=1))
                return 0
            if not args.cpu:
                print("No usable GPU found: printing the bank model's analysis instead (it needs none).")
            bank_tables(sys.stdout)
            analysis(ops, layouts, args.size, sys.stdout)
            return 0
        plan = [(op, n) for op in ops for n in (SWEEP[op] if args.sweep else [args.size or DEFAULT_SIZE[op]])]
        results = []
        for i, (op, n) in enumerate(plan):
            if args.sweep:
                progress(i, len(plan), f"{op} {n}")
            results += smemkit.bench(op, shape_of(op, n), layout=layouts, dtype=DTYPE[op], rep_ms=args.rep_ms)
        if args.sweep:
            progress(len(plan), len(plan), "done")
        if args.json:
            print(json.dumps([r.to_dict() for r in results], indent=1))
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
