"""Probe (issue 27, 2026-11-26): the small-N and tiny-K draws of the law, each timed as the chooser runs it
and with alternatives forced, against torch.mm in the same run, to decide the chooser's rules for the
matrix-vector class from measurements (not fitted to the acceptance seeds: use seeds 30+).

    python bench/timing/probe_mv.py --seed 30 --draws 900 --out probe.jsonl

Arms (every one on every kept draw, interleaved): auto; skinny-n with a K split filling two waves of its
blocks; tiny-k forced; 64x64x8 and 64x64x16 at their model split.  Kept draws: N <= 32 < M, or K <= 16.
--set pf (M <= 8 < N or N <= 8 < M, K > 16: the prefetching skinny rows of sgemm_new_paths level 5): auto
(the default level), levels 4 and 5, and forced at their model split skinny-m, skinny-m/pf, skinny-m/pf4,
64x64x8, skinny-m/pf at its deepest split (pf_deep) (M <= 8; skinny-m4/pf too for M <= 4), or skinny-n,
skinny-n/pf, skinny-n/pf2 (N <= 8).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import smemkit
from smemkit import _testing
import draws as D
from bench_calls import with_knobs
from _common import require_gpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--draws", type=int, default=900)
    ap.add_argument("--max", type=int, default=120, help="kept draws at most")
    ap.add_argument("--rep-ms", type=float, default=15.0)
    ap.add_argument("--set", choices=["small-n", "small-m", "tiny-k", "pf"], default="small-n",
                    help="small-n: N <= 32 < M or K <= 16 (the arms below); small-m: 8 < M <= 32 < N (skinny-m16 /"
                    " -m32, the short tile 32x128x16, 64x64x16, 64x128x8); tiny-k: K <= 16 (tiny-k, tiny-k/rw2); pf: M <= 8 < N or"
                    " N <= 8 < M, K > 16 (levels 4 / 5 and the prefetching skinny rows beside their base rows)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    require_gpu("probe_mv.py")
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    keep = {"small-n": lambda M, N, K: N <= 32 < M or K <= 16, "small-m": lambda M, N, K: 8 < M <= 32 < N,
            "tiny-k": lambda M, N, K: K <= 16, "pf": lambda M, N, K: (M <= 8 < N or N <= 8 < M) and K > 16}[args.set]
    kept = [d for d in D.sgemm_draws(args.draws, args.seed) if keep(*d.shape)][: args.max]
    with open(args.out, "w") as f:
        for i, d in enumerate(kept):
            M, N, K = d.shape
            tiles = math.ceil(M / 16) * math.ceil(N / 8)
            s2 = max(1, min(math.ceil(2 * 3 * sms / tiles), math.ceil(K / 256)))
            arms = {"auto": {}, "sn_fill2": {"sgemm_config": "skinny-n", "sgemm_splits": s2},
                    "tinyk": {"sgemm_config": "tiny-k", "sgemm_splits": 1},
                    "t64x64x8": {"sgemm_config": "64x64x8", "sgemm_splits": 0},
                    "t64x64x16": {"sgemm_config": "64x64x16", "sgemm_splits": 0}}
            if args.set == "small-m":
                arms = {"auto": {}, "lvl1": {"sgemm_new_paths": 1}}
                for c in ["skinny-m16", "skinny-m32", "32x128x16", "64x64x16", "64x128x8"]:
                    arms[c] = {"sgemm_config": c, "sgemm_splits": 0}
            elif args.set == "pf":
                arms = {"auto": {}, "lvl4": {"sgemm_new_paths": 4}, "lvl5": {"sgemm_new_paths": 5}}
                rows = ["skinny-m", "skinny-m/pf", "skinny-m/pf4", "64x64x8"] if M <= 8 else \
                    ["skinny-n", "skinny-n/pf", "skinny-n/pf2"]
                rows += ["skinny-m4/pf"] if M <= 4 else []
                for c in rows:
                    arms[c] = {"sgemm_config": c, "sgemm_splits": 0}
                if M <= 8:  # the deepest split (one 64-deep k-tile per slice): is the under-wave share too dear?
                    arms["pf_deep"] = {"sgemm_config": "skinny-m/pf", "sgemm_splits": min(65535, math.ceil(K / 64))}
            elif args.set == "tiny-k":
                arms = {"auto": {}, "lvl2": {"sgemm_new_paths": 2}, "tiny-k": {"sgemm_config": "tiny-k", "sgemm_splits": 1},
                        "tiny-k/rw2": {"sgemm_config": "tiny-k/rw2", "sgemm_splits": 1},
                        "64x64x16": {"sgemm_config": "64x64x16", "sgemm_splits": 0}}
            a = torch.randn(M, K, device="cuda")
            b = torch.randn(K, N, device="cuda")
            ref = torch.empty(M, N, device="cuda")
            out = torch.empty(M, N, device="cuda")
            fns = {"torch.mm": lambda: torch.mm(a, b, out=ref)}
            for name, kn in arms.items():
                fns[name] = with_knobs(lambda: smemkit.sgemm(a, b, out=out, layout="swizzle"), kn)
            try:
                t = smemkit.timeit(fns, warmup_ms=3, rep_ms=args.rep_ms)
            except (smemkit.CudaError, RuntimeError, ValueError) as e:
                print(f"{M}x{N}x{K}: {e}", file=sys.stderr)
                continue
            ms = {name: t[j].median_ms for j, name in enumerate(fns)}
            row = {"shape": [M, N, K], "auto": list(_testing.sgemm_choose(M, N, K, sms)), "s2": s2, "ms": ms,
                   "ratio": {k: ms["torch.mm"] / v for k, v in ms.items() if k != "torch.mm"}}
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"{i} {M}x{N}x{K} " + " ".join(f"{k}={v:.3f}" for k, v in row["ratio"].items()), flush=True)


if __name__ == "__main__":
    main()
