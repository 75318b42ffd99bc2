"""Launch the sm_90a TMA + wgmma GEMM once or twice per swizzle mode, for Nsight Compute to count
(bench/profiling/ncu_wgmma.sh).

    python bench/profiling/ncu_wgmma.py MANIFEST [--set small|big|discover]

First one warm-up launch (fp16 256^3, 128B: ncu skips it with --launch-skip 1), then per case the
modes 128B ("swizzle"), 64B (Swizzle(2, 3, 3)), 32B (Swizzle(1, 3, 3)) and none ("naive"), each launched
`launches` times through smemkit.gemm on PyTorch CUDA tensors with _testing.knobs(gemm16_kernel="wgmma").
MANIFEST gets one line per profiled launch (shape, dtype, mode, launch index), in launch order; the
script stops if the wgmma kernel did not run (a silent mma.sync fallback would count the wrong kernel).
Sets: discover = fp16 1024^3 once per mode; small = fp16 1024^3 twice, fp16 2048x2048x1024, bf16
1024^3 and 2048x2048x1024 once; big = fp16 4096^3 once.
"""
import argparse
import sys

import numpy as np

import smemkit
from smemkit import _testing

MODES = {"128B": "swizzle", "64B": smemkit.Swizzle(2, 3, 3), "32B": smemkit.Swizzle(1, 3, 3), "none": "naive"}
SETS = {"discover": [((1024, 1024, 1024), "float16", 1)],
        "small": [((1024, 1024, 1024), "float16", 2), ((2048, 2048, 1024), "float16", 1),
                  ((1024, 1024, 1024), "bfloat16", 1), ((2048, 2048, 1024), "bfloat16", 1)],
        "big": [((4096, 4096, 4096), "float16", 1)]}


def operands(shape, dtype, rng):
    import torch
    m, n, k = shape
    tdt = torch.bfloat16 if dtype == "bfloat16" else torch.float16
    a = torch.from_numpy(rng.uniform(-1, 1, (m, k)).astype(np.float32)).to("cuda", tdt)
    b = torch.from_numpy(rng.uniform(-1, 1, (k, n)).astype(np.float32)).to("cuda", tdt)
    return a, b


def launch(a, b, layout):
    import torch
    before = _testing.wgmma_launches()
    with _testing.knobs(gemm16_kernel="wgmma"):
        smemkit.gemm(a, b, layout=layout)
    torch.cuda.synchronize()
    if _testing.wgmma_launches() != before + 1:
        sys.exit(f"FAIL: the wgmma kernel did not run for layout {layout!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("--set", default="small", choices=list(SETS))
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    wa, wb = operands((256, 256, 256), "float16", rng)
    launch(wa, wb, "swizzle")  # warm-up: --launch-skip 1
    with open(args.manifest, "w") as f:
        for shape, dtype, launches in SETS[args.set]:
            a, b = operands(shape, dtype, rng)
            for mode, layout in MODES.items():
                for i in range(launches):
                    launch(a, b, layout)
                    f.write(f"{'x'.join(map(str, shape))} {dtype} {mode} {i}\n")
                    f.flush()


if __name__ == "__main__":
    main()
