"""Replay a measured probe table through the bank model; print disagreements; exit 1 on any.

    python bench/bank_probe/check_model.py TABLE.csv
"""
import csv
import sys

import numpy as np

from smemkit import bank_model


def main(path):
    rows = list(csv.DictReader(open(path)))
    bad = 0
    for r in rows:
        a = np.array(r["addresses"].split(), dtype=np.int64)
        kind = "load" if r["kind"] == "ld" else "store"
        got = bank_model.wavefronts(a, int(r["width"]), kind)
        if got != int(r["wavefronts"]):
            bad += 1
            print(f"MISMATCH {r['width']}B {kind} measured {r['wavefronts']} model {got}: {r['addresses']}")
    print(f"{len(rows) - bad} of {len(rows)} measured patterns reproduced by the model")
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
