"""Replay measured probe tables through the bank model; print disagreements; exit 1 on any.

    python bench/bank_probe/check_model.py TABLE.csv [TABLE.csv ...] [--instructions]

Kinds: ld / st (LDS / STS of the row's width, 1 to 16 bytes) and stsm1/2/4[t], ldsm1/2/4[t]
(stmatrix / ldmatrix .x1/.x2/.x4 [.trans], width 16).  --instructions also requires an instruction
count of exactly 1 on every row with an active lane (an empty count is then a failure too).
"""
import csv
import sys

import numpy as np

from smemkit import bank_model


def model_kind(kind):
    if kind in ("ld", "st"):
        return "load" if kind == "ld" else "store"
    if kind[:4] in ("ldsm", "stsm") and kind[4:5] in ("1", "2", "4") and kind[5:] in ("", "t"):
        return ("ldmatrix" if kind[0] == "l" else "stmatrix") + f".x{kind[4]}" + (".trans" if kind[5:] else "")
    raise SystemExit(f"check_model: unknown kind {kind!r}")


def check(path, instructions=False):
    rows = list(csv.DictReader(open(path)))
    bad = 0
    for r in rows:
        a = np.array(r["addresses"].split(), dtype=np.int64)
        kind = model_kind(r["kind"])
        got = bank_model.wavefronts(a, int(r["width"]), kind)
        if r["wavefronts"] in ("", None) or got != int(r["wavefronts"]):
            bad += 1
            print(f"MISMATCH {r['width']}B {r['kind']} {r.get('name', '')}: measured {r['wavefronts']!r} "
                  f"model {got}: {r['addresses']}")
        elif instructions and (a >= 0).any() and r["instructions"] != "1":
            bad += 1
            print(f"INSTRUCTIONS {r['width']}B {r['kind']} {r.get('name', '')}: {r['instructions']!r}, expected 1")
    print(f"{path}: {len(rows) - bad} of {len(rows)} measured patterns reproduced by the model")
    return bad, len(rows)


def main(argv):
    inst = "--instructions" in argv
    paths = [a for a in argv if a != "--instructions"]
    bad = total = 0
    for p in paths:
        b, n = check(p, inst)
        bad, total = bad + b, total + n
    print(f"{total - bad} of {total} measured patterns reproduced by the model")
    return 1 if bad or not total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
