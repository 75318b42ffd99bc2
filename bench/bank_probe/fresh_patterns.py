"""A fresh random set of bank-probe patterns (not the ones the model was fitted to).

    python bench/bank_probe/fresh_patterns.py OUT.txt [--seed N] [--count N]

Families drawn at random per pattern: random words in a window of 1-16 KB, random permutations of
consecutive elements, lane pairs / quads sharing addresses (the load-packing cases), random inactive
lanes, few-distinct-address broadcasts, and random tile columns of the three layouts.  Widths 4, 8,
16; loads and stores.  The seed defaults to the clock, so every run is new; it is written in the file.
"""
import argparse
import time

import numpy as np

import smemkit


def pattern(rng, width):
    fam = rng.integers(0, 7)
    if fam == 0:  # random aligned words in a window
        window = int(rng.choice([1024, 4096, 16384]))
        a = rng.integers(0, window // width, 32) * width
    elif fam == 1:  # permutation of 32 consecutive elements at a random base
        a = (rng.permutation(32) + rng.integers(0, 64)) * width
    elif fam == 2:  # pairs or quads of lanes sharing an address (packing candidates)
        g = int(rng.choice([2, 4]))
        base = rng.integers(0, 256, 32 // g) * width
        a = np.repeat(base, g) if rng.random() < 0.5 else np.tile(base, g)
    elif fam == 3:  # a few distinct addresses spread over the warp
        k = int(rng.integers(1, 5))
        addrs = rng.integers(0, 512, k) * width
        a = addrs[rng.integers(0, k, 32)]
    elif fam == 4:  # strided
        a = np.arange(32) * int(rng.integers(1, 40)) * width
    else:  # a tile column / row of one of the layouts
        layout = smemkit.LAYOUTS[rng.integers(0, 3)]
        vec = width // 4 if fam == 5 else 1
        esz = 4 if vec > 1 or width == 4 else width
        cols = int(rng.choice([32, 64]))
        off, _ = smemkit.tile_offsets(layout, 32, cols, vec=max(vec, 1), itemsize=esz)
        c = int(rng.integers(0, cols // max(vec, 1))) * max(vec, 1)
        a = off[:, c] * esz
        a = a - a % width
    a = np.asarray(a, dtype=np.int64)
    if rng.random() < 0.25:  # random inactive lanes
        a[rng.random(32) < rng.random()] = -1
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=240)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    rng = np.random.default_rng(seed)
    with open(args.out, "w") as f:
        f.write(f"# fresh random bank probe patterns, seed {seed}: width kind a0..a31  # name\n")
        for i in range(args.count):
            width = int(rng.choice([4, 8, 16]))
            kind = "ld" if rng.random() < 0.5 else "st"
            a = pattern(rng, width)
            f.write(f"{width} {kind} {' '.join(map(str, a))}  # fresh-{seed}-{i}\n")
    print(f"wrote {args.count} patterns, seed {seed}")


if __name__ == "__main__":
    main()
