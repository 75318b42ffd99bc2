"""Launch each of smemkit's kernels once per layout, for Nsight Compute to count (bench/profiling/ncu_kernels.sh).

    python bench/profiling/ncu_kernels.py MANIFEST [--new | --wide | --case op,MxNxK,dtype[,torch] ...] [--knob NAME=V ...]
        [--ops transpose sgemm gemm]

--new: only the cases of the every-shape issues' paths (NEW), a quicker run.  --wide: only the 1- and 2-byte
transposes with short sides 65..256 (WIDE: skinny_prmt.cuh under transpose_skinny=4, else the tiled kernel).
--knob NAME=V (repeatable): a smemkit._testing knob for every launch; give compare_ncu.py the same.

Writes the launch list (op, layout, shape, dtype, config) to MANIFEST, one line per call in call
order, so the ncu rows can be matched to calls.  A call may launch several kernels (padded copies, a
split-K reduction, the memory-bound paths); each call is preceded by a marker kernel (torch's
spin_kernel, ``torch.cuda._sleep``) and the last by one more, so compare_ncu.py sums the counters of
every kernel between two markers: what explain() predicts is the call's shared traffic, all kernels.  Every transpose element width (1, 2, 4, 8, 16
bytes) is covered, tile multiples and ragged edges, odd pitches of 1- and 2-byte elements, and a batch
(shape (batch, rows, cols): one launch through smemkit.matrix_transpose).  The tensor-core GEMM
("gemm") runs on PyTorch CUDA tensors (dense, row-major: odd K or N make rows that are not 16-byte
aligned, so config 0 pads them and config 2 reads them through registers), every layout incl. the
article's Swizzle(2, 3, 2) ("swizzle232").
"""
import sys

import numpy as np

import smemkit
from smemkit._testing import knobs

CASES = [("transpose", (1024, 1024), "float32"), ("transpose", (1000, 1000), "float32"),
         ("transpose", (1024, 1024), "float64"), ("transpose", (1024, 1024), "uint8"),
         ("transpose", (1000, 1000), "uint8"), ("transpose", (1024, 1024), "float16"),
         ("transpose", (1000, 1000), "float16"), ("transpose", (1024, 1024), "complex128"),
         ("transpose", (1000, 1000), "complex128"), ("transpose", (4, 512, 512), "uint8"),
         ("transpose", (3, 500, 300), "complex128"),
         # odd pitches: interior tiles on the re-aligning whole-word path (its shuffles are not shared
         # accesses: the shared counts must stay what explain() predicts)
         ("transpose", (1001, 1003), "uint8"), ("transpose", (999, 1001), "float16"),
         ("transpose", (3, 257, 259), "uint8"),
         # skinny matrices: csrc/transpose/skinny.cuh (one side at most 32 elements, 16 for 16-byte ones)
         ("transpose", (100000, 3), "float32"), ("transpose", (3, 100000), "float16"),
         ("transpose", (65536, 1), "uint8"), ("transpose", (7, 50000), "complex128"),
         ("transpose", (4, 1000, 5), "float64"),
         ("sgemm", (512, 512, 512), "float32"),
         ("sgemm", (1024, 1024, 1024), "float32"), ("sgemm", (1000, 777, 555), "float32"),
         ("sgemm", (2048, 2048, 512), "float32"), ("sgemm", (64, 64, 16384), "float32")]
# the every-shape issues' paths (26-28): --new profiles these alone
NEW = [  # issue 27's paths: the tiny-K kernel (no shared memory), the skinny kernels on rows off 16 bytes
         # (re-aligned streams) with a K split and its reduction, the padded tile path (operand copies)
         ("sgemm", (4681, 2634, 2), "float32"), ("sgemm", (2048, 515, 9), "float32"),
         ("sgemm", (30, 3927, 2117), "float32"), ("sgemm", (2159, 30, 1521), "float32"),
         ("sgemm", (4870, 1, 3779), "float32"), ("sgemm", (1018, 1910, 371), "float32"),
         # the matrix-vector rows and the short tile (chooser level 3): skinny-m16, skinny-m (M <= 8),
         # 32x128x16 split, and skinny-m32 forced (config 12: the chooser gives 17 <= M <= 32 the short tile)
         ("sgemm", (9, 500, 20000), "float32"), ("sgemm", (6, 7955, 838), "float32"),
         ("sgemm", (20, 3000, 500), "float32"), ("sgemm", (24, 2728, 618), "float32", 12),
         # the word-wise skinny transpose (1- and 2-byte elements, short side up to 64, any pitch)
         ("transpose", (50000, 40), "uint8"), ("transpose", (37, 60001), "float16"),
         ("transpose", (3, 100001), "uint8"), ("transpose", (5, 3001, 7), "float16"),
         # the sector store (csrc/transpose/sector.cuh; transpose_sector 3, the default: single uint8 matrices
         # of >= 16 MiB with both sides >= 1.5 KB): 4099x5003 and 1541x10891 take it; the float32 ones run
         # the plain kernel (mode 4 gives them the sector store, where explain() is off: TRANSPOSE_NOTES)
         ("transpose", (1001, 999), "float32"), ("transpose", (2877, 3001), "float32"),
         ("transpose", (263, 16001), "float32"), ("transpose", (4099, 5003), "uint8"),
         ("transpose", (1541, 10891), "uint8"), ("transpose", (3, 1101, 1907), "float32"),
         # skinny_prmt.cuh (transpose_skinny 3, the default): case B above (50000x40), case A here
         ("transpose", (36, 60001), "uint8"), ("transpose", (3000, 36), "float16")]
CASES += NEW
# skinny_prmt.cuh's wide class (transpose_skinny 4, session 38): case B (S' = 128, 256; rows off words), case A on
# words, case A off words (the element-store variant), batches whose matrices do not start on a word
WIDE = [("transpose", (50000, 77), "uint8"), ("transpose", (20000, 200), "float16"),
        ("transpose", (128, 30001), "uint8"), ("transpose", (141, 20001), "float16"),
        ("transpose", (77, 40001), "uint8"), ("transpose", (3, 5001, 129), "uint8"),
        ("transpose", (3, 99, 5001), "float16")]
# every shipped SGEMM tile config forced once (index into smemkit.bench_configs("sgemm")), edges included
CASES += [("sgemm", (1000, 777, 555), "float32", c) for c in range(1, len(smemkit.bench_configs("sgemm")))]
# 128-byte-aligned rows (K, N multiples of 64) with and without block edges, then rows that are not
# (1000-element pitches; odd K / N, padded by config 0), then the large ones
GEMM_SHAPES = [(256, 256, 256), (1024, 512, 256), (777, 640, 960), (513, 640, 128), (1000, 1024, 1024),
               (1000, 1000, 1000), (513, 257, 129), (31, 33, 17), (4097, 4095, 4093), (4096, 4096, 4096)]
GEMM_LAYOUTS = ["naive", "pad", "swizzle", "swizzle232"]
# (op, shape, dtype, config): config 0 everywhere; the register-staged path (config 2) on an odd
# shape; 128x256 tiles with edges (config 1: config 0 picks 128x128 there), bf16 once
CASES += [("gemm", s, "float16", 0) for s in GEMM_SHAPES]
CASES += [("gemm", (513, 257, 129), "float16", 2), ("gemm", (777, 640, 960), "float16", 1),
          ("gemm", (1024, 512, 256), "bfloat16", 0)]
# issue 28's routes of config 0: split-K (64x64 / 64x128 tiles + the reduction), unaligned rows read in
# place, the memory-bound paths (ROWS, COLS, tiny K: no shared memory), mid-size tiles
NEW += [("gemm", s, "float16", 0) for s in [(256, 256, 16384), (381, 29, 5523), (1245, 208, 8608),
                                            (12047, 12, 10), (6, 1421, 176), (6964, 6, 4032),
                                            (2917, 5082, 18), (1000, 2000, 1000)]]
NEW += [("gemm", (9066, 2, 470), "bfloat16", 0)]
CASES += NEW[-9:]
# issue 27's short-K class (the tile kernel's epilogue; knob sgemm_epi: run with --knob sgemm_epi=1 to count the
# staged epilogue, whose row loads double on rows off 16 bytes): dense CUDA operands ("torch", as explain() assumes
# and a user's call has them: D's pitch N; host arrays get 16-byte pitches), N % 4 == 2, 0 (off 128), 1; and
# 128-byte rows (N % 32 == 0: the register epilogue at level 1)
NEW += [("sgemm", s, "float32", 0, "torch") for s in [(1599, 4826, 21), (6071, 2788, 23), (3698, 317, 40),
                                                     (1024, 2048, 24)]]
CASES += NEW[-4:]
# session 44's paths: rows on 4 / 8 bytes copied by narrow cp.async (gemm16_narrow_async; split launches, fp16 and
# bf16), TALL (N <= 8, tall A: no shared memory), the wide SGEMM matrix-vector kernel (M <= 4: none), the case-A
# strips (csrc/transpose/skinny_strip.cuh) and the 1 x n copy (none)
NEW += [("gemm", (381, 130, 5522), "bfloat16", 0), ("gemm", (3033, 12, 1054), "float16", 0),
        ("gemm", (1000, 1000, 1002), "float16", 0), ("gemm", (1500, 60, 4100), "float16", 0), ("gemm", (200, 1000, 8196), "bfloat16", 0),
        ("gemm", (8206, 4, 228), "float16", 0),
        ("sgemm", (3, 5000, 2000), "float32"), ("sgemm", (2, 4559, 305), "float32"),
        ("transpose", (62, 200001), "uint8"), ("transpose", (30, 100003), "float16"),
        ("transpose", (5, 62, 20001), "uint8"), ("transpose", (1, 1000001), "uint8"),
        # session 45's explain fixes on shapes not measured before: a uint8 strip with S <= 32, a batched 512-byte
        # naive strip, another skinny_lean shape
        ("transpose", (20, 100001), "uint8"), ("transpose", (3, 30, 10003), "float16"), ("transpose", (5, 40001), "uint8")]
CASES += NEW[-15:]


def mark():
    """A marker kernel between calls (compare_ncu.py groups the kernels of a call by them)."""
    import torch
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()


def gemm_layout(name):
    return smemkit.Swizzle(2, 3, 2) if name == "swizzle232" else name


def launch_gemm(shape, dtype, layout, config, rng):
    import torch
    m, n, k = shape
    tdt = torch.bfloat16 if dtype == "bfloat16" else torch.float16
    a = torch.from_numpy(rng.uniform(-1, 1, (m, k)).astype(np.float32)).to("cuda", tdt)
    b = torch.from_numpy(rng.uniform(-1, 1, (k, n)).astype(np.float32)).to("cuda", tdt)
    with knobs(gemm16_variant=config, gemm16_kernel="mma"):  # the mma.sync kernel explain() models
        smemkit.gemm(a, b, layout=gemm_layout(layout))
        torch.cuda.synchronize()


def main(manifest, ops, cases=None):
    rng = np.random.default_rng(0)
    with open(manifest, "w") as f:
        for case in CASES if cases is None else cases:
            op, shape, dtype = case[:3]
            config = case[3] if len(case) > 3 else 0
            if op not in ops:
                continue
            for layout in (GEMM_LAYOUTS if op == "gemm" else smemkit.LAYOUTS):
                mark()
                if op == "gemm":
                    launch_gemm(shape, dtype, layout, config, rng)
                elif op == "transpose":
                    a = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                                     dtype=np.uint8).view(dtype).reshape(shape)
                    if len(shape) == 2:
                        smemkit.transpose(a, layout=layout)
                    else:
                        smemkit.matrix_transpose(a, layout=layout)
                else:
                    m, n, k = shape
                    a = rng.standard_normal((m, k)).astype(np.float32)
                    b = rng.standard_normal((k, n)).astype(np.float32)
                    if case[4:] == ("torch",):  # dense device operands (pitches K and N)
                        import torch
                        a, b = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
                        torch.cuda.synchronize()  # host-to-device copies: no kernel the filter profiles
                    with knobs(sgemm_config=config):
                        smemkit.sgemm(a, b, layout=layout)
                f.write(f"{op},{layout},{'x'.join(map(str, shape))},{dtype},{config}\n")
        mark()


if __name__ == "__main__":
    args = sys.argv[1:]
    ops = ("transpose", "sgemm", "gemm")
    cases = None
    if "--new" in args:
        cases = NEW
        args.remove("--new")
    if "--wide" in args:
        cases = WIDE
        args.remove("--wide")
    while "--case" in args:  # --case op,MxNxK,dtype[,torch][,cfg=N]: profile these alone (repeatable; N a config index)
        i = args.index("--case")
        op, shape, dtype, *rest = args[i + 1].split(",")
        cfg = [int(r[4:]) for r in rest if r.startswith("cfg=")]
        rest = [r for r in rest if not r.startswith("cfg=")]
        cases = (cases or []) + [(op, tuple(int(x) for x in shape.split("x")), dtype, cfg[0] if cfg else 0, *rest)]
        del args[i:i + 2]
    values = {}
    while "--knob" in args:
        i = args.index("--knob")
        name, v = args[i + 1].split("=")
        values[name] = int(v)
        del args[i:i + 2]
    if "--ops" in args:
        i = args.index("--ops")
        ops, args = tuple(args[i + 1:]), args[:i]
    with knobs(**values):
        main(args[0], ops, cases)
