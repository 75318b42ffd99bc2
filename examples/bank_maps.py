"""Draw the 32x32 float32 tile of each layout coloured by bank, the transpose's column read outlined.

    python examples/bank_maps.py [outdir]      -> outdir/bank_map_{naive,pad,swizzle}.png

Needs matplotlib (pip install "smemkit[plot]"); runs on any machine, no GPU needed.
"""
import os
import sys

import smemkit


def main(outdir="."):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    paths = []
    for layout in smemkit.LAYOUTS:
        fig, ax = plt.subplots(figsize=(9, 9))
        smemkit.plot_bank_map(layout, 32, 32, 4, access="column", index=0, ax=ax)
        path = os.path.join(outdir, f"bank_map_{layout}.png")
        fig.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(fig)
        paths.append(path)
        print(path)
    return paths


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
