"""CPU replay of the SGEMM deep pipeline's gate (knob sgemm_deep; csrc/sgemm/deep.h) on issue 27's law, and its
predicted effect on a measured run.  No GPU (smemkit's chooser and gate are pure functions):

    python bench/timing/deep_replay.py --seeds 3100 3119 [--n 300]       # how many draws each level takes
    python bench/timing/deep_replay.py --rows /path/sgemm_s150.jsonl [--label swizzle]   # moved draws, predicted

The launch each draw makes is replayed as the launcher makes it (smemkit._testing.sgemm_choose: config and K
slices; a slice's depth about K / S in whole k-tiles); the gate answers 0 (tile.cuh), 1 (the deep kernel of the
launch's tile) or 2 (the deep 32x64x16 half tile).  --rows takes the draws whose measured route is one launch
of the 64x64x16 tile kernel (kernels_us) and predicts the deep route's time with a model fitted on session 41's
run (seed 150, 47 such draws with K > 16 on rows off 16 bytes, H100, profiler device time):

    t = 1.49 + 1.14 w + c kt w   us      w = resident blocks on the busiest SM, kt = k-tiles of 16
    c = 0.578 us now (rows off 16 bytes; ~0.45 on aligned rows); the deep kernel: C_SAME per k-tile and block
    of 64x64x16 (~700 instructions a warp at ~2 GHz: its issue floor, the exposed load latency and half of A's
    L1 work gone), C_HALF per k-tile and block of 32x64x16 (~370 instructions a warp), with w counted in the
    half tile's blocks.

Each draw's prediction is its measured time less the modelled difference (its residual kept), floored at
FLOOR_US.  The constants are guesses from instruction counts, not measurements: the device A/B decides.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import draws as D

C_NOW, C_NOW_VEC, C_SAME, C_HALF = 0.578, 0.45, 0.36, 0.20
FLOOR_US = 2.5
SMS = 132


def gate_of(M, N, K, knob, sms=SMS):
    """(config, splits, how) of the launch a dense call of M x N x K makes at sgemm_deep level knob."""
    from smemkit import _testing
    name, splits = _testing.sgemm_choose(M, N, K, sms)
    kdepth = K if splits == 1 else math.ceil(K / splits / 16) * 16
    return name, splits, _testing.sgemm_deep_gate(M, N, kdepth, name, splits, sms, knob)


def predict(M, N, K, how, t_now, vec):
    """The deep route's predicted time (us) of a one-launch 64x64x16 draw measured at t_now."""
    kt = math.ceil(K / 16)
    w = math.ceil(math.ceil(M / 64) * math.ceil(N / 64) / SMS)
    now = (C_NOW_VEC if vec else C_NOW) * kt * w
    if how == 2:
        wh = math.ceil(math.ceil(M / 32) * math.ceil(N / 64) / SMS)
        new = C_HALF * kt * wh
    else:
        new = C_SAME * kt * w
    return max(FLOOR_US, t_now - now + new)


def count(seeds, n):
    tally, total = {}, 0
    for seed in seeds:
        for d in D.sgemm_draws(n, seed):
            total += 1
            for knob in (1, 2, 3):
                how = gate_of(*d.shape, knob)[2]
                tally[(knob, how)] = tally.get((knob, how), 0) + 1
    print(f"{total} draws of seeds {seeds[0]}..{seeds[-1]} (sgemm law, dense calls, {SMS} SMs)")
    for knob in (1, 2, 3):
        same, half = tally.get((knob, 1), 0), tally.get((knob, 2), 0)
        print(f"  sgemm_deep={knob}: {same + half} taken ({100 * (same + half) / total:.1f}%): {same} on the deep "
              f"kernel of their own tile, {half} on the half tile")


def replay_rows(path, label):
    rows = D.read_jsonl(path)
    for knob in (1, 2, 3):
        moved, new_ratio = [], {}
        for r in rows:
            M, N, K = r["shape"]
            kern = r["kernels_us"].get(label, {})
            how = gate_of(M, N, K, knob)[2]
            if not how or len(kern) != 1 or "SgemmCfg<64, 64, 16," not in next(iter(kern)):
                continue
            vec = ", true, false>" in next(iter(kern))
            t_now, anchor = r["device_us"][label], r["device_us"]["anchor"]
            t_new = predict(M, N, K, how, t_now, vec)
            moved.append((r["ratio"][label], anchor / t_new, M, N, K, how, t_now, t_new))
            new_ratio[r["index"]] = anchor / t_new
        before = [r["ratio"][label] for r in rows]
        after = [new_ratio.get(r["index"], r["ratio"][label]) for r in rows]
        sb, sa = D.summarize(before), D.summarize(after)
        print(f"sgemm_deep={knob}: {len(moved)} of {len(rows)} draws moved; geomean {sb['geomean']:.3f} -> "
              f"{sa['geomean']:.3f}, p10 {sb['p10']:.3f} -> {sa['p10']:.3f}, min {sb['min']:.3f} -> {sa['min']:.3f}")
        if knob == 3:
            for old, new, M, N, K, how, t0, t1 in sorted(moved):
                print(f"    {M}x{N}x{K:<6} {'half' if how == 2 else 'same'}  {t0:5.1f} -> {t1:5.1f} us  "
                      f"ratio {old:.3f} -> {new:.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", nargs=2, type=int, metavar=("FIRST", "LAST"), help="count the gate's takes")
    ap.add_argument("--n", type=int, default=300, help="draws per seed")
    ap.add_argument("--rows", help="a measured sgemm run (JSON lines): moved draws and predicted ratios")
    ap.add_argument("--label", default="swizzle", help="the run's arm label of the current defaults")
    a = ap.parse_args(argv)
    if a.seeds:
        count(list(range(a.seeds[0], a.seeds[1] + 1)), a.n)
    if a.rows:
        replay_rows(a.rows, a.label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
