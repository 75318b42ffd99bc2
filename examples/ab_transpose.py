"""Quick A/B of the three shared-memory layouts on the transpose -- copy this and change the shape.

    python examples/ab_transpose.py [rows cols]

On a GPU: device-side timings (CUDA events, L2 flushed, layouts interleaved) against the D2D copy
ceiling.  Without one: the bank model's prediction of the same launch, so you still see the conflict.
"""
import sys

import numpy as np

import smemkit


def main(rows=8192, cols=8192):
    print("Predicted (bank model):")
    for layout in smemkit.LAYOUTS:
        e = smemkit.explain("transpose", (rows, cols), layout)
        load = e.accesses[1]
        print(f"  {layout:<8} column load: {load.wavefronts} wavefronts for {load.instructions} instructions "
              f"({load.worst_ways:.0f}-way)")
    if not smemkit.is_available():
        print("No GPU: skipping the timings.")
        return 0
    a = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    for layout in smemkit.LAYOUTS:  # correctness first
        assert np.array_equal(smemkit.transpose(a, layout=layout), a.T)
    print(smemkit.format_table(smemkit.bench("transpose", (rows, cols))))
    return 0


if __name__ == "__main__":
    sys.exit(main(*map(int, sys.argv[1:3])))
