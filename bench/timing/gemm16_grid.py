"""Time the tensor-core GEMM's chooser candidates -- every tile of variant 0's table (api/gemm16.h
SMK_G16_CHOOSER_TILES) x a ladder of K splits, forced by knob gemm16_pick on the mma.sync kernel -- beside the
automatic choice, against cuBLAS in the same call: how far the cost model (csrc/gemm16_choose.c) is from the best
candidate per draw (the oracle).  GPU only.

    python bench/timing/gemm16_grid.py OUT.jsonl --random N --seed S [--budget-s T] [--layout swizzle]

Draws: issue 28's law (bench/timing/draws.py gemm_draws, fp16 and bf16), kept where the chooser's tiles run (M
and N > 32, K > 64: the memory-bound routes take the rest).  Per draw: the automatic call (config "auto": every
default, wgmma included where it runs), then per tile the splits S = 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 that
the chooser could form (under a wave of the tile, slices of >= 256 columns: a pick the chooser rejects is
skipped, checked through explain()).  Every timing is smemkit.bench (the one timing path), 5 repetitions.
One JSON line per timing: M, N, K, dtype, config ("auto" or "v<V>"), S, ms, ratio (cuBLAS / ours), cublas_ms.
"""
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import draws as D  # noqa: E402
import smemkit  # noqa: E402
from smemkit._testing import device_info, knobs  # noqa: E402

TILES = {1: (128, 256, 1), 6: (128, 128, 1), 8: (64, 128, 2), 9: (64, 64, 3)}  # variant: BM, BN, blocks per SM
LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def picked(shape, layout, dtype):
    """(BM, BN, S) of the launch explain() reports for the current knobs, or None (a memory-bound route)."""
    head = str(smemkit.explain("gemm", shape, layout, dtype)).splitlines()[0]
    m = re.search(r": (\d+)x(\d+)x\d+", head)
    if not m:
        return None
    s = re.search(r"split K (\d+) x", head)
    return int(m.group(1)), int(m.group(2)), int(s.group(1)) if s else 1


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-") or "--random" not in args:
        sys.exit(__doc__)
    n, seed = int(args[args.index("--random") + 1]), int(args[args.index("--seed") + 1])
    budget = float(args[args.index("--budget-s") + 1]) if "--budget-s" in args else 1e9
    layout = args[args.index("--layout") + 1] if "--layout" in args else "swizzle"
    sms = device_info()["sms"]
    draws = [d for d in D.gemm_draws(n, seed) if d.shape[0] > 32 and d.shape[1] > 32 and d.shape[2] > 64]
    t0 = time.time()
    with open(args[0], "w") as out:
        for i, d in enumerate(draws):
            if time.time() - t0 > budget:
                print(f"budget {budget:.0f} s spent after {i} draws", flush=True)
                break
            M, N, K = d.shape

            def timed(config, S):
                r = smemkit.bench("gemm", (M, N, K), layout=layout, dtype=d.dtype, reps=5, warmup_ms=2)[0]
                out.write(json.dumps(dict(M=M, N=N, K=K, dtype=d.dtype, config=config, S=S, ms=r.median_ms,
                                          ratio=r.ratio, seed=seed)) + "\n")

            timed("auto", 0)
            for v, (bm, bn, bps) in TILES.items():
                tiles = math.ceil(M / bm) * math.ceil(N / bn)
                for S in LADDER:
                    if S > 1 and (tiles >= sms * bps or math.ceil(K / 64) < S):
                        break
                    with knobs(gemm16_pick=v * 1000 + S, gemm16_kernel="mma"):
                        if picked((M, N, K), layout, d.dtype) != (bm, bn, S):
                            continue
                        timed(f"v{v}", S)
            out.flush()
            print(f"[{i + 1}/{len(draws)}] {M}x{N}x{K} {d.dtype} done, {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
