"""Fit the SGEMM chooser's cost model (sgemm_cost_ns, csrc/sgemm/choose.cu) to a tile grid, and replay its picks.

    python bench/timing/fit_sgemm_model.py GRID.jsonl   (GRID from bench/timing/sgemm_grid.py; no GPU, ~30 s)
    python bench/timing/fit_sgemm_model.py bench/data/sgemm_grid_h100.jsonl.gz
        (the grid the shipped constants come from)

The model of one tile config (the same arithmetic as sgemm_cost_ns): a block of a BM x BN tile over a
k_chunk-deep slice costs BM*BN*(k_chunk + k0) FMA at F FMA/ns per SM; a wave is SMs x minblocks blocks
and takes minblocks block-times; a last, partial wave of r blocks per SM takes (r/minblocks)^beta of a
full one; every launch costs t0, a split launch tr0 more plus its workspace bytes at bw.  Fitted by
least squares on log(time) over the pad timings: each (shape, config) weighs alike whatever the length
of its split ladder, shapes of 2^31 FMA and more 6x (there the configs differ by 2-3%, and those
decide the big-square pick).  Per config F by golden section for each (beta, k0) of a small grid;
t0, tr0, bw from a grid; two rounds.  Matrix-vector shapes (the skinny kernels' domain) are left out.

Then, for every shape, the (config, S) of least modelled time among the grid's measured points (slices
no shallower than 48, kMinSliceK) is compared with the fastest measured: the model's picks, replayed
over the grid.  The built extension's chooser (which tries only S = 1 and the S of 1..4 full waves) is
replayed too, where the grid timed its pick.
"""
import collections
import gzip
import json
import math
import sys

CONFIGS = ["128x128x8", "64x64x8", "128x256x8", "64x64x16", "128x64x8", "64x128x8",  # config rows 1..6 (csrc/sgemm/configs.h)
           "64x128x8/minb4"]  # row 9 (7, 8: the skinny kernels)
MINBLOCKS = {"128x128x8": 2, "64x64x8": 4, "128x256x8": 1, "64x64x16": 4, "128x64x8": 4, "64x128x8": 3,
             "64x128x8/minb4": 4}
SKINNY = {(1, 4096, 4096), (4096, 1, 4096), (8, 4096, 4096), (32, 4096, 4096), (4096, 16, 4096), (16, 4096, 4096)}
MIN_SLICE_K = 48
SMS = 132


def dims(name):
    b = name.split("/")[0].split("x")
    return int(b[0]), int(b[1]), int(b[2])


def exact_split(K, S, bk):
    """sgemm_exact_split: (slices, k_chunk) with whole k-tiles, none empty."""
    s = min(S, (K + bk - 1) // bk, 65535)
    if s <= 1:
        return 1, K
    chunk = ((K + s - 1) // s + bk - 1) // bk * bk
    n = (K + chunk - 1) // chunk
    return (n, chunk) if n > 1 else (1, K)


def model_s(M, N, K, S, cfg, p, g):
    """Modelled seconds of one launch.  p = (F in FMA/s, beta, k0); g = (t0 s, tr0 s, bw bytes/s)."""
    F, beta, k0 = p
    t0, tr0, bw = g
    bm, bn, bk = dims(cfg)
    R = MINBLOCKS[cfg]
    tiles = math.ceil(M / bm) * math.ceil(N / bn)
    s, chunk = exact_split(K, S, bk)
    block = bm * bn * (math.ceil(chunk / bk) * bk + k0) / F
    full, rest = divmod(tiles * s, SMS * R)
    t = t0 + full * R * block
    if rest:
        t += R * block * (math.ceil(rest / SMS) / R) ** beta
    if s > 1:
        t += tr0 + (2 * s * M * ((N + 3) // 4 * 4) * 4 + M * N * 4) / bw
    return t


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = [json.loads(line) for line in f]
    rows = [r for r in rows if r["layout"] == "pad" and r["config"] in CONFIGS and (r["M"], r["N"], r["K"]) not in SKINNY]
    count = collections.Counter((r["M"], r["N"], r["K"], r["config"]) for r in rows)
    data = [(r["M"], r["N"], r["K"], r["S"], r["config"], r["ms"] * 1e-3,
             (6.0 if r["M"] * r["N"] * r["K"] >= 2**31 else 1.0) * 4.0 / count[(r["M"], r["N"], r["K"], r["config"])])
            for r in rows]
    return rows, data


def err(data, cfg, p, g):
    return sum(w * math.log(model_s(M, N, K, S, c, p, g) / t) ** 2 for M, N, K, S, c, t, w in data if c == cfg)


def fit(data):
    g = [2e-6, 8e-6, 4e12]
    P = {c: [1e11 * MINBLOCKS[c], 0.5, 16] for c in CONFIGS}
    for rnd in range(2):
        for c in CONFIGS:
            best = None
            for beta in [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1.0]:
                for k0 in [8, 16, 20, 24, 28, 32, 40, 48]:
                    lo, hi = math.log(0.05e12), math.log(3e12)
                    f = lambda x: err(data, c, [math.exp(x), beta, k0], g)  # noqa: E731
                    for _ in range(40):
                        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
                        lo, hi = (lo, b) if f(a) < f(b) else (a, hi)
                    x = (lo + hi) / 2
                    e = f(x)
                    if best is None or e < best[0]:
                        best = (e, [math.exp(x), beta, k0])
            P[c] = best[1]
        best = None
        for t0 in [0.0, 1e-6, 2e-6, 3e-6]:
            for tr0 in [4e-6, 6e-6, 8e-6, 10e-6, 12e-6, 15e-6]:
                for bw in [2e12, 3e12, 4e12, 6e12, 8e12, 12e12]:
                    e = sum(err(data, c, P[c], [t0, tr0, bw]) for c in CONFIGS)
                    if best is None or e < best[0]:
                        best = (e, [t0, tr0, bw])
        g = best[1]
        print(f"round {rnd}: weighted squared log error {best[0]:.3f}", flush=True)
    return P, g


def replay(rows, P, g):
    by = collections.defaultdict(list)
    for r in rows:
        bk = dims(r["config"])[2]
        if r["S"] == 1 or exact_split(r["K"], r["S"], bk)[1] >= MIN_SLICE_K:
            by[(r["M"], r["N"], r["K"])].append(r)
    picked, best = [], []
    for (M, N, K), rs in by.items():
        pick = min(rs, key=lambda r: model_s(M, N, K, r["S"], r["config"], P[r["config"]], g))
        top = max(rs, key=lambda r: r["ratio"])
        picked.append(pick["ratio"])
        best.append(top["ratio"])
        flag = "   <-- below 0.95 of the best" if pick["ratio"] < 0.95 * top["ratio"] else ""
        print(f"{M}x{N}x{K}: pick {pick['config']} S={pick['S']} {pick['ratio']:.3f}   "
              f"best {top['config']} S={top['S']} {top['ratio']:.3f}{flag}")
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    print(f"geomean of the ratio to cuBLAS (pad), {len(picked)} shapes: picks {gm(picked):.4f}, "
          f"best measured {gm(best):.4f}; worst pick {min(picked):.3f}")


def replay_shipped(rows):
    """The built extension's own chooser (smemkit._testing.sgemm_choose, no GPU needed) on the same shapes:
    its (config, S) looked up in the grid, where the grid measured it."""
    try:
        from smemkit._testing import sgemm_choose
    except ImportError as e:
        print(f"(the shipped chooser not replayed: {e})")
        return
    by = collections.defaultdict(dict)
    for r in rows:
        bk = dims(r["config"])[2]
        by[(r["M"], r["N"], r["K"])][(r["config"], exact_split(r["K"], r["S"], bk)[0])] = r["ratio"]
    got, missing = [], []
    for (M, N, K), pts in by.items():
        cfg, s = sgemm_choose(M, N, K, SMS)
        if cfg not in CONFIGS:
            continue
        s = exact_split(K, s, dims(cfg)[2])[0]
        if (cfg, s) in pts:
            got.append(pts[(cfg, s)])
        else:
            missing.append(f"{M}x{N}x{K} ({cfg}, S={s})")
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    if got:
        print(f"shipped chooser: {len(got)} picks measured in the grid, geomean {gm(got):.4f}, worst {min(got):.3f}")
    if missing:
        print(f"shipped chooser: {len(missing)} picks the grid did not time: " + ", ".join(missing))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows, data = load(sys.argv[1])
    P, g = fit(data)
    print("COST column (fma_per_ns, k0, beta, 0) of csrc/sgemm/configs.h:")
    for c in CONFIGS:
        F, beta, k0 = P[c]
        print(f'    "{c}": ({F / 1e9:.1f}, {k0}, {beta}, 0)')
    print(f"csrc/sgemm/choose.cu: kLaunchNs = {g[0] * 1e9:.0f}, kSplitNs = {g[1] * 1e9:.0f}, kSplitBytesPerNs = {g[2] / 1e9:.0f}")
    replay(rows, P, g)
    replay_shipped(rows)


if __name__ == "__main__":
    main()
