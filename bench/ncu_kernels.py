"""Launch each of smemkit's kernels once per layout, for Nsight Compute to count (bench/ncu_kernels.sh).

Writes the launch list (op, layout, shape, dtype) to the file named by argv[1], one line per launch in
launch order, so the ncu rows can be matched to launches.  Every transpose element width (1, 2, 4, 8,
16 bytes) is covered, tile multiples and ragged edges, odd pitches of 1- and 2-byte elements, and a batch (shape (batch, rows, cols): one launch
through smemkit.matrix_transpose).
"""
import os
import sys

import numpy as np

import smemkit

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
         ("sgemm", (512, 512, 512), "float32"),
         ("sgemm", (1024, 1024, 1024), "float32"), ("sgemm", (1000, 777, 555), "float32")]


def matrix_transpose():
    if not hasattr(smemkit, "matrix_transpose"):  # until the entry point is wired: the tests' stand-in
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
        import _temp_matrix_transpose  # noqa: F401
    return smemkit.matrix_transpose


def main(manifest):
    rng = np.random.default_rng(0)
    with open(manifest, "w") as f:
        for op, shape, dtype in CASES:
            for layout in smemkit.LAYOUTS:
                if op == "transpose":
                    a = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                                     dtype=np.uint8).view(dtype).reshape(shape)
                    if len(shape) == 2:
                        smemkit.transpose(a, layout=layout)
                    else:
                        matrix_transpose()(a, layout=layout)
                else:
                    m, n, k = shape
                    a = rng.standard_normal((m, k)).astype(np.float32)
                    b = rng.standard_normal((k, n)).astype(np.float32)
                    smemkit.sgemm(a, b, layout=layout)
                f.write(f"{op},{layout},{'x'.join(map(str, shape))},{dtype}\n")


if __name__ == "__main__":
    main(sys.argv[1])
