"""1- and 2-byte transposes whose rows do not start on a 4-byte boundary: the re-aligning whole-word
path against the element-wise path it replaced (knob transpose_odd_path), and where the rest goes.

    python bench/timing/bench_oddpitch.py [--reps 20] [--no-offsets] [--md out.md]
    ncu --metrics dram__bytes_read.sum,... python bench/timing/bench_oddpitch.py --launch-only

Part 1, smemkit.bench (the one timing path: events, layouts and the D2D copy of the same bytes
interleaved, L2 flushed before every launch, medians): odd shapes (every full tile on the new path,
the ragged last row / column of tiles element-wise) with the path off ("before") and on ("after"),
and 8192^2 (the aligned path, untouched) as the reference.

Part 2 (PyTorch events, --no-offsets skips it): 8192^2 with the input and / or output at a byte
offset from an aligned allocation, so every tile is full: offset 4 keeps words aligned but no row
starts on a 32-byte sector (the aligned word path); offsets 1 and 2 take the re-aligning path.  Each
as a share of PyTorch's own copy of the same bytes (``y.copy_(x)``, aligned), interleaved, L2 flushed
before each.  It separates what the re-aligning costs from what rows off 32-byte sectors cost.
"""
import argparse

import smemkit
from _common import emit, header
from bench_widths import torch_times
from smemkit._testing import knobs

SHAPES = [(8191, 8191), (8190, 8191), (8191, 8190), (4097, 4095), (8190, 8190)]
DTYPES = ["uint8", "float16"]


def word_aligned(shape, dtype):
    """Do both pitches (input: cols, output: rows elements) start every row on a 4-byte boundary?"""
    esz = 1 if dtype == "uint8" else 2
    return all(d * esz % 4 == 0 for d in shape[-2:])


def bench_table(reps):
    rows = ["| shape | dtype | path | naive | pad | swizzle | D2D GB/s |", "|---|---|---|---|---|---|---|"]
    cases = []
    for dtype in DTYPES:
        for shape in SHAPES + [(16, 1023, 1025), (8192, 8192)]:
            cases += [(shape, dtype, 1)] if word_aligned(shape, dtype) else [(shape, dtype, 0), (shape, dtype, 1)]
    for shape, dtype, on in cases:
        with knobs(transpose_odd_path=on):
            res = smemkit.bench("transpose", shape, dtype=dtype, reps=reps)
        by = {r.layout: r for r in res}
        path = "aligned words" if word_aligned(shape, dtype) else "re-aligned words" if on else "element-wise (before)"
        rows.append(f"| {'x'.join(map(str, shape))} | {dtype} | {path} | "
                    + " | ".join(f"{by[lay].ratio:.1%}" for lay in smemkit.LAYOUTS)
                    + f" | {res[0].ceiling:.0f} |")
    return "\n".join(rows)


def offsets_table(reps):
    import torch
    n = 8192
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = ["| dtype | in offset | out offset | path | pad | swizzle |", "|---|---|---|---|---|---|"]
    for dtype, esz, offs in [("uint8", 1, [(0, 0), (32, 32), (4, 0), (0, 4), (4, 4), (1, 0), (0, 1), (1, 1), (2, 3)]),
                             ("float16", 2, [(0, 0), (4, 4), (2, 0), (0, 2), (2, 2)])]:
        tdt = getattr(torch, dtype)
        ibuf = torch.randint(0, 256, (n * n * esz + 64,), dtype=torch.uint8, device="cuda")
        obuf = torch.empty(n * n * esz + 64, dtype=torch.uint8, device="cuda")
        src = torch.empty(n, n, dtype=tdt, device="cuda")
        dst = torch.empty_like(src)
        for io, oo in offs:
            x = ibuf[io:io + n * n * esz].view(tdt).view(n, n)
            y = obuf[oo:oo + n * n * esz].view(tdt).view(n, n)
            for on in ((0, 1) if (io | oo) & 3 else (1,)):
                ops = {"copy": lambda: dst.copy_(src)}
                for lay in ("pad", "swizzle"):
                    ops[lay] = (lambda lay=lay: smemkit.transpose(x, layout=lay, out=y))
                with knobs(transpose_odd_path=on):
                    t = torch_times(ops, reps, flush)  # bench_widths' loop: interleaved, L2 flushed
                assert torch.equal(y.view(torch.uint8 if esz == 1 else torch.int16),
                                   x.t().contiguous().view(torch.uint8 if esz == 1 else torch.int16))
                path = "aligned words" if not (io | oo) & 3 else "re-aligned words" if on else "element-wise (before)"
                rows.append(f"| {dtype} | {io} | {oo} | {path} | {t['copy'] / t['pad']:.1%} | "
                            f"{t['copy'] / t['swizzle']:.1%} |")
    return "\n".join(rows)


def launch_once():
    """--launch-only: one pad transpose of 8192^2 uint8 per (in, out) byte offset, for ncu's traffic
    counters (DRAM bytes, L2 sectors) to compare in launch order: (0, 0), (4, 4), (1, 1), (1, 1) with
    the element-wise path."""
    import torch
    n = 8192
    ibuf = torch.randint(0, 256, (n * n + 64,), dtype=torch.uint8, device="cuda")
    obuf = torch.empty(n * n + 64, dtype=torch.uint8, device="cuda")
    for off, on in [(0, 1), (4, 1), (1, 1), (1, 0)]:
        with knobs(transpose_odd_path=on):
            smemkit.transpose(ibuf[off:off + n * n].view(n, n), layout="pad", out=obuf[off:off + n * n].view(n, n))
            torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-offsets", action="store_true")
    ap.add_argument("--md")
    ap.add_argument("--launch-only", action="store_true")
    args = ap.parse_args()
    if args.launch_only:
        return launch_once()
    emit(header("odd-pitch transposes, % of cudaMemcpy D2D of the same bytes (smemkit.bench)"), args.md)
    emit(bench_table(args.reps), args.md)
    if not args.no_offsets:
        emit("8192^2 at byte offsets, % of PyTorch's copy of the same bytes (PyTorch events)", args.md)
        emit(offsets_table(args.reps), args.md)


if __name__ == "__main__":
    main()
