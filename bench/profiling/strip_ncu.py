"""One launch per (shape, transpose_strip knob) of smemkit's transpose (layout pad) on device-resident
torch tensors, for Nsight Compute: the strip kernel (csrc/transpose/strip.cuh; knob 1, and 2 = walks of one
tile) against the tiled kernel it replaces (knob 0) on the same shapes, in one process.

    ncu --kernel-name regex:"transpose_kernel|strip_kernel" --metrics gpu__time_duration.sum,\
dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum \
        python3 bench/profiling/strip_ncu.py [SHAPE:DTYPE ...]

Prints the order of the launches (shape, dtype, knob), which is ncu's order of the profiled kernels.
"""
import sys

import torch

import smemkit
from smemkit._testing import knobs

DEFAULT = ["2455x204788:uint8", "22603x10625:uint8", "11504x3568:uint8", "561x325468:float16",
           "365766x175:float16", "15611x17288:float16"]


def main(specs):
    for spec in specs:
        shape, dtype = spec.split(":")
        shape = tuple(int(s) for s in shape.split("x"))
        x = torch.empty(shape, dtype=getattr(torch, dtype), device="cuda")
        x.view(torch.uint8).random_()
        for k in (0, 1, 2):
            with knobs(transpose_strip=k):
                smemkit.matrix_transpose(x, layout="pad")
            torch.cuda.synchronize()
            print(f"launch {spec} transpose_strip={k}", flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
