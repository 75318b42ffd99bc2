"""Launch chosen tensor-core GEMMs once each (PyTorch CUDA tensors), for Nsight Compute to profile.

    python bench/profiling/gemm16_launches.py M,N,K[:layout[:config[:dtype]]] ...

layout: naive / pad / swizzle / swizzle232 (default swizzle); config: a variant of
smemkit.bench_configs("gemm") (default 0); dtype float16 / bfloat16 (default float16).  Dense row-major
operands: odd K or N give rows that are not 16-byte aligned (config 0 pads them).
"""
import sys

import numpy as np
import torch

import smemkit
from smemkit._testing import knobs


def main(specs):
    rng = np.random.default_rng(0)
    for spec in specs:
        parts = spec.split(":")
        m, n, k = (int(x) for x in parts[0].split(","))
        layout = parts[1] if len(parts) > 1 else "swizzle"
        config = int(parts[2]) if len(parts) > 2 else 0
        tdt = torch.bfloat16 if len(parts) > 3 and parts[3] == "bfloat16" else torch.float16
        a = torch.from_numpy(rng.uniform(-1, 1, (m, k)).astype(np.float32)).to("cuda", tdt)
        b = torch.from_numpy(rng.uniform(-1, 1, (k, n)).astype(np.float32)).to("cuda", tdt)
        with knobs(gemm16_variant=config, gemm16_kernel="mma"):  # the mma.sync kernel explain() models
            smemkit.gemm(a, b, layout=smemkit.Swizzle(2, 3, 2) if layout == "swizzle232" else layout)
            torch.cuda.synchronize()
        print(spec, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
