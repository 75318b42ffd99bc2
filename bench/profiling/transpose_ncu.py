"""One launch of smemkit's transpose (layout pad) per SPEC on device-resident torch tensors, for Nsight
Compute: where the time of a sub-word or odd-pitch transpose goes (memory traffic, stall reasons).

    ncu --kernel-name regex:"transpose_kernel|skinny" --section SpeedOfLight --section WarpStateStats \
        --section MemoryWorkloadAnalysis_Tables --csv --page details \
        python3 bench/profiling/transpose_ncu.py [SPEC ...]

SPEC = RxC[xD]:DTYPE[:KNOB=V[,KNOB=V]] (a batch when three extents; knobs from smemkit._testing).  Prints
the order of the launches, which is ncu's order of the profiled kernels.
"""
import sys

import torch

import smemkit
from smemkit._testing import knobs

DEFAULT = ["5753x7562:uint8", "5752x7560:uint8", "489x695064:uint8", "149113x147:uint8",
           "578113x36:uint8", "4951x15233:float16", "4952x15232:float16", "359x267530:float32"]


def parse(spec):
    parts = spec.split(":")
    shape = tuple(int(s) for s in parts[0].split("x"))
    kn = dict(kv.split("=") for kv in parts[2].split(",")) if len(parts) > 2 and parts[2] else {}
    return shape, parts[1], {k: int(v) for k, v in kn.items()}


def main(specs):
    for spec in specs:
        shape, dtype, kn = parse(spec)
        x = torch.empty(shape, dtype=getattr(torch, dtype), device="cuda")
        x.view(torch.uint8).random_()
        with knobs(**kn):
            (smemkit.matrix_transpose if x.dim() == 3 else smemkit.transpose)(x, layout="pad")
            torch.cuda.synchronize()
            cfg = smemkit.explain('transpose', shape, 'pad', dtype).config  # the path under the spec's knobs
        print(f"launch {spec} config {cfg}", flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
