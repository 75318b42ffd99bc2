"""Quick A/B of the three shared-memory layouts on the warp-tiled SGEMM, against cuBLAS fp32.

    python examples/ab_sgemm.py [M N K]

The naive layout's transposed A-tile store is a 2-way bank conflict; pad and swizzle remove it.  On a
GPU: correctness against a float64 reference, then device-side timings.  Without one: the prediction.
"""
import sys

import numpy as np

import smemkit


def main(M=4096, N=4096, K=4096):
    for layout in smemkit.LAYOUTS:
        store = smemkit.explain("sgemm", (M, N, K), layout).accesses[0]
        print(f"{layout:<8} {store.name}: {store.wavefronts} wavefronts, {store.excess} over the ideal "
              f"({store.worst_ways:.0f}-way)")
    if not smemkit.is_available():
        print("No GPU: skipping the timings.")
        return 0
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, min(K, 1024))).astype(np.float32)
    b = rng.standard_normal((min(K, 1024), N)).astype(np.float32)
    ref = a.astype(np.float64) @ b
    for layout in smemkit.LAYOUTS:  # correctness first
        d = smemkit.sgemm(a, b, layout=layout)
        assert np.linalg.norm(d - ref) / np.linalg.norm(ref) < 4 * np.sqrt(a.shape[1]) * 2.0**-24
    print(smemkit.format_table(smemkit.bench("sgemm", (M, N, K))))
    return 0


if __name__ == "__main__":
    sys.exit(main(*map(int, sys.argv[1:4])))
