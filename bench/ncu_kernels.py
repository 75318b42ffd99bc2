"""Launch each of smemkit's kernels once per layout, for Nsight Compute to count (bench/ncu_kernels.sh).

Writes the launch list (op, layout, shape, dtype) to the file named by argv[1], one line per launch in
launch order, so the ncu rows can be matched to launches.
"""
import sys

import numpy as np

import smemkit

CASES = [("transpose", (1024, 1024), "float32"), ("transpose", (1000, 1000), "float32"),
         ("transpose", (1024, 1024), "float64"), ("sgemm", (512, 512, 512), "float32"),
         ("sgemm", (1024, 1024, 1024), "float32"), ("sgemm", (1000, 777, 555), "float32")]


def main(manifest):
    rng = np.random.default_rng(0)
    with open(manifest, "w") as f:
        for op, shape, dtype in CASES:
            for layout in smemkit.LAYOUTS:
                if op == "transpose":
                    a = rng.standard_normal(shape).astype(dtype)
                    smemkit.transpose(a, layout=layout)
                else:
                    m, n, k = shape
                    a = rng.standard_normal((m, k)).astype(np.float32)
                    b = rng.standard_normal((k, n)).astype(np.float32)
                    smemkit.sgemm(a, b, layout=layout)
                f.write(f"{op},{layout},{'x'.join(map(str, shape))},{dtype}\n")


if __name__ == "__main__":
    main(sys.argv[1])
