"""Every kernel x layout x edge shape, through the Python API, for compute-sanitizer (bench/sanitize.sh).

Small shapes on purpose: tile +-1, 1x1, K = 0, non-multiples, odd leading dimensions.  Checks the
results too, so a sanitizer run is also a correctness run.
"""
import sys

import numpy as np

import smemkit

TRANSPOSE_SHAPES = [(1, 1), (1, 7), (7, 1), (33, 31), (63, 65), (64, 64), (65, 64), (64, 65), (129, 3)]
SGEMM_SHAPES = [(1, 1, 1), (7, 13, 5), (33, 31, 17), (63, 65, 7), (64, 64, 0), (65, 129, 9), (128, 128, 8),
                (129, 127, 9)]


def main():
    rng = np.random.default_rng(0)
    smemkit._C._set_poison(True)
    bad = 0
    for layout in smemkit.LAYOUTS:
        for dtype in ("float32", "float64"):
            for shape in TRANSPOSE_SHAPES:
                a = rng.standard_normal(shape).astype(dtype)
                bad += not np.array_equal(smemkit.transpose(a, layout=layout), a.T)
        for m, n, k in SGEMM_SHAPES:
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            c = rng.standard_normal((m, n)).astype(np.float32)
            for alpha, beta in ((1.0, 0.0), (0.5, -1.0)):
                d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
                ref = alpha * (a.astype(np.float64) @ b) + beta * c
                bad += not np.allclose(d, ref, rtol=1e-4, atol=1e-4)
    print(f"sanitize cases: {bad} wrong results")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
