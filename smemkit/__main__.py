"""python -m smemkit: the A/B of the three shared-memory layouts.

With a GPU: times the transpose in each layout against cudaMemcpy D2D of the same bytes (the
ceiling) on device-resident data, beside the wavefronts the bank model predicts.  Without one: says
so, prints the bank tables of a 32x32 tile and, per layout, the predicted wavefronts of every
shared-memory access of both kernels (smemkit.explain).  Exit status 0 on success, 1 with a one-line
error otherwise.
"""
import argparse
import statistics
import sys

import smemkit


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


def analysis(size, out):
    """Per layout, the bank model's prediction for every shared-memory access of both kernels."""
    for op, shape in (("transpose", (size, size)), ("sgemm", (size, size, size))):
        out.write(f"\n{op} {'x'.join(map(str, shape))}: predicted shared-memory wavefronts per launch "
                  f"(bank model; ideal = conflict-free)\n")
        out.write(f"{'layout':<9}{'access':<50}{'instr':>11}{'wavefronts':>12}{'ideal':>11}{'ways':>6}\n")
        for layout in smemkit.LAYOUTS:
            e = smemkit.explain(op, shape, layout)
            for a in e.accesses:
                out.write(f"{layout:<9}{a.name:<50}{a.instructions:>11}{a.wavefronts:>12}{a.ideal:>11}"
                          f"{a.worst_ways:>6.1f}\n")


def time_transpose(size, reps, out):
    t = smemkit._C._bench_transpose(size, size, 4, 0, 10, reps)
    nbytes = 2 * size * size * 4
    copy = nbytes / statistics.median(t["copy"]) / 1e6
    out.write(f"transpose {size}x{size} float32 on {smemkit.device_name()}, median of {reps}, "
              f"GB/s = (read + write) / time\n")
    out.write(f"{'layout':<16}{'ms':>10}{'GB/s':>10}{'of copy':>10}{'predicted ld wavefronts':>26}\n")
    for name in (*smemkit.LAYOUTS, "copy"):
        med = statistics.median(t[name])
        gbs = nbytes / med / 1e6
        label = "cudaMemcpy D2D" if name == "copy" else name
        pred = "" if name == "copy" else f"{smemkit.explain('transpose', (size, size), name).total('load'):>26}"
        out.write(f"{label:<16}{med:>10.4f}{gbs:>10.0f}{100 * gbs / copy:>9.1f}%{pred}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m smemkit", description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=8192, help="matrix edge for the timing (default 8192)")
    ap.add_argument("--reps", type=int, default=50, help="timed repetitions (default 50)")
    ap.add_argument("--cpu", action="store_true", help="print the CPU analysis even with a GPU")
    args = ap.parse_args(argv)
    if args.size < 1 or args.reps < 1:
        ap.error("--size and --reps must be positive")
    try:
        if args.cpu or not smemkit.is_available():
            if not args.cpu:
                print("No usable GPU found: printing the bank model's tables instead.")
            bank_tables(sys.stdout)
            analysis(min(args.size, 4096), sys.stdout)
        else:
            time_transpose(args.size, args.reps, sys.stdout)
    except (smemkit.CudaError, MemoryError, ValueError) as e:
        print(f"smemkit: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `python -m smemkit | head`
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
