"""Fit the SGEMM chooser's level-1 tile model (knob sgemm_model 1, csrc/sgemm/choose_fit.cu) to grids of issue 27's
mid class, and replay its picks.  No GPU; numpy.

    python bench/timing/fit_sgemm_grid.py FIT.jsonl [--judge JUDGE.jsonl]
        fit on FIT, print the constants of choose_fit.cu, replay the fitted picks on FIT (and JUDGE)
    python bench/timing/fit_sgemm_grid.py --replay GRID.jsonl ...
        replay the shipped constants (SHIPPED below, = choose_fit.cu's table) on each grid, and the built
        extension's pick at sgemm_model 1 against this file's (they must agree)

GRID: bench/timing/sgemm_grid.py OUT --random N --seed S --mid (every compiled tile config x a ladder of K splits,
pad layout, and the automatic choice as config "auto").  Replay: per draw, the model's (config, S) looked up in the
grid, its timed ratio to cuBLAS; figures: geomean, p10, min, against the oracle (the best timed point per draw)
and against the grid's "auto" rows (the chooser the grid ran with).  A pick the grid did not time is counted at
the nearest timed S of its config and listed.

The model (docs/SGEMM_NOTES.md, "Session 45: the level-1 tile model"): a launch of a tile row over `s` exact K
slices, each kt k-tiles deep, runs blocks = tiles x s blocks; the busiest SM gets b = ceil(blocks / SMs) of them,
in rounds of at most minblocks resident blocks; a round of n blocks takes

    kt x sqrt(L^2 + (n c)^2) + o      (c: an SM's time per k-tile per resident block, throughput-bound;
                                       L: a k-tile's latency floor; o: a block's fixed cost)

so full rounds are throughput-bound and a grid of one block per SM latency-bound (the wave quantisation is the
last round's n).  Every launch costs t0; a split launch adds tr0 + its workspace bytes (2 s M N' + M N floats) / bw
+ (reduction trips past the first, reduce.cuh) x trip.  The BK = 16 rows' launches that sgemm_deep_gate (level 6)
sends to the deep cp.async kernel have their own (c, L, o), on the half tile 32x64 for 64x64x16.  Fitted by
Levenberg-Marquardt on log time, each timing weighted exp(-log(t / t_best of its draw) / 0.25): the chooser has
to rank the contenders of a draw, not price its losers.
"""
import collections
import json
import math
import sys

SMS = 132
# the TILE rows of csrc/sgemm/configs.h, in its order: (BM, BN, BK, MINBLOCKS)
ROWS = collections.OrderedDict([
    ("128x128x8", (128, 128, 8, 2)), ("64x64x8", (64, 64, 8, 4)), ("128x256x8", (128, 256, 8, 1)),
    ("64x64x16", (64, 64, 16, 4)), ("128x64x8", (128, 64, 8, 4)), ("64x128x8", (64, 128, 8, 3)),
    ("64x128x8/minb4", (64, 128, 8, 4)), ("32x128x16", (32, 128, 16, 4))])
# the deep kernel's launches of the BK = 16 rows (sgemm/deep.h: 64x64x16's on the 32x64x16 half tile)
DEEP = collections.OrderedDict([("64x64x16/half", (32, 64, 16, 4)), ("32x128x16/deep", (32, 128, 16, 4))])
VAR = list(ROWS) + list(DEEP)
DIMS = dict(ROWS, **DEEP)
LADDER = [1, 2, 3, 4, 6, 9, 14, 21, 32, 48, 72, 108, 162, 243, 364, 546, 819, 1228, 1842]
MIN_SLICE_K = 48   # choose.cu kMinSliceK
MAX_WAVES = 2.2    # splits tried while tiles x S <= 2.2 waves (as the grid's ladder)
# choose_fit.cu's table: (c, L, o) in ns per variant; globals in ns (bw in bytes / ns)
SHIPPED = {
    "128x128x8": (664.6, 509.4, 6670.7), "64x64x8": (188.2, 528.3, 3683.1), "128x256x8": (1419.3, 308.7, 7915.3),
    "64x64x16": (495.5, 0.0, 4213.1), "128x64x8": (358.1, 570.2, 5797.7), "64x128x8": (331.6, 577.1, 5712.7),
    "64x128x8/minb4": (347.0, 560.3, 5957.8), "32x128x16": (369.8, 1032.6, 4280.6),
    "64x64x16/half": (280.6, 212.2, 3182.2), "32x128x16/deep": (482.0, 235.9, 3497.5),
    "t0": 2423.1, "tr0": 4312.5, "bw": 2394.3, "trip": 2444.3}


def exact_split(K, S, bk):
    """choose.cu sgemm_exact_split: (slices, k_chunk), whole k-tiles, none empty."""
    s = min(S, (K + bk - 1) // bk, 65535)
    if s <= 1:
        return 1, K
    chunk = ((K + s - 1) // s + bk - 1) // bk * bk
    n = (K + chunk - 1) // chunk
    return (n, chunk) if n > 1 else (1, K)


def deepest(K, bk):
    """choose.cu sgemm_deepest: the most slices none shallower than MIN_SLICE_K but the last."""
    c0 = (MIN_SLICE_K + bk - 1) // bk * bk
    for s in range((K + c0 - 1) // c0, 1, -1):
        if exact_split(K, s, bk)[1] >= MIN_SLICE_K:
            return s
    return 1


def tiles(M, N, bm, bn):
    return -(-M // bm) * -(-N // bn)


def trips(s):
    """reduce.cuh: dependent round trips of a lane summing s slices (choose.cu sgemm_reduce_chain_ns)."""
    if s <= 1:
        return 1
    L = 32 // (2 if s >= 16 else 4 if s >= 8 else 8)
    return ((s + L - 1) // L + 3) // 4


def variant(name, M, N, K, s):
    """The kernel a launch runs at sgemm_deep 6 (launch.cu sgemm_deep_gate): the deep one where N >= 32, K > 16
    and the row's grid is at most 2 blocks per SM."""
    bm, bn, bk, _ = ROWS[name]
    if bk == 16 and N >= 32 and K > 16 and tiles(M, N, bm, bn) * s <= 2 * SMS:
        return name + ("/half" if name == "64x64x16" else "/deep")
    return name


def feats(M, N, K, name, S):
    s, chunk = exact_split(K, S, ROWS[name][2])
    v = variant(name, M, N, K, s)
    bm, bn, bk, mb = DIMS[v]
    b = -(-tiles(M, N, bm, bn) * s // SMS)
    rounds = -(-b // mb)
    return dict(v=VAR.index(v), s=s, kt=-(-chunk // bk), nfull=rounds - 1, mb=mb, nlast=b - mb * (rounds - 1),
                bytes=(2.0 * s * M * ((N + 3) & ~3) + M * N) * 4 if s > 1 else 0.0, trips=trips(s) - 1)


def model_ns(M, N, K, name, S, P=SHIPPED):
    """The level-1 price (ns) of row `name` over S slices (made exact), scalar: choose_fit.cu sgemm_fit_ns."""
    f = feats(M, N, K, name, S)
    c, L, o = P[VAR[f["v"]]]

    def rnd(n):
        return f["kt"] * math.sqrt(L * L + (n * c) * (n * c)) + o
    t = P["t0"] + f["nfull"] * rnd(f["mb"]) + rnd(f["nlast"])
    if f["s"] > 1:
        t += P["tr0"] + f["bytes"] / P["bw"] + f["trips"] * P["trip"]
    return t


def candidates(M, N, K, name):
    """S tried for a row (choose_fit.cu sgemm_fit_auto): 1, and while its tiles fill under two waves the ladder
    up to MAX_WAVES waves of blocks and sgemm_deepest."""
    bm, bn, bk, mb = ROWS[name]
    t, wave = tiles(M, N, bm, bn), SMS * mb
    out = [1]
    if t < 2 * wave and K > bk:
        dp = deepest(K, bk)
        for s in LADDER[1:]:
            if s > dp or t * s > MAX_WAVES * wave:
                break
            out.append(s)
    return out


def in_class(M, N, K):
    """The shapes level 1 prices: the tile kernels' mid class (the grid's --mid law)."""
    return M > 32 and N > 32 and K > 16


def choose(M, N, K, P=SHIPPED):
    """(row, exact S) of least level-1 price: rows in ROWS order, S ascending, ties to the first."""
    best = None
    for name in ROWS:
        for S in candidates(M, N, K, name):
            t = model_ns(M, N, K, name, S, P)
            if best is None or t < best[0]:
                best = (t, name, S)
    return best[1], exact_split(K, best[2], ROWS[best[1]][2])[0]


def load(path):
    """{(M, N, K): {"auto": (pick, ratio), "pts": {(row, exact S): (ms, ratio)}}} of a grid's pad timings."""
    by = collections.OrderedDict()
    for line in open(path):
        r = json.loads(line)
        d = by.setdefault((r["M"], r["N"], r["K"]), {"auto": None, "pts": {}})
        if r["config"] == "auto":
            d["auto"] = (tuple(r["auto"]), r["ratio"])
        elif r["config"] in ROWS and r["layout"] == "pad":
            d["pts"][(r["config"], exact_split(r["K"], r["S"], ROWS[r["config"]][2])[0])] = (r["ms"], r["ratio"])
    return by


def figures(xs):
    xs = sorted(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)), xs[max(0, math.ceil(0.1 * len(xs)) - 1)], xs[0]


def replay(by, pick, tag):
    """Print the replay figures of pick(M, N, K) -> (row, S) over a grid; return the per-draw ratios."""
    got, orc, auto, untimed = [], [], [], []
    for (M, N, K), d in by.items():
        name, s = pick(M, N, K)
        pts = d["pts"]
        if (name, s) not in pts:
            near = min((p for p in pts if p[0] == name), key=lambda p: abs(math.log(p[1] / s)))
            untimed.append(f"{M}x{N}x{K} {name} S={s} (at S={near[1]})")
            s = near[1]
        got.append(pts[(name, s)][1])
        orc.append(max(v[1] for v in pts.values()))
        if d["auto"]:
            auto.append(d["auto"][1])
    line = "%s: %d draws, picks geomean %.3f p10 %.3f min %.3f" % ((tag, len(got)) + figures(got))
    line += " | oracle %.3f / %.3f / %.3f" % figures(orc)
    if auto:
        line += " | grid's auto %.3f / %.3f / %.3f" % figures(auto)
    print(line + "; picks / oracle geomean %.3f" % figures([g / o for g, o in zip(got, orc)])[0])
    for u in untimed:
        print("   untimed pick, counted at the nearest timed S: " + u)
    return got


def table(by):
    import numpy as np
    rows = [dict(feats(M, N, K, n, s), ms=v[0], sh=(M, N, K)) for (M, N, K), d in by.items()
            for (n, s), v in d["pts"].items()]
    A = {k: np.array([r[k] for r in rows], dtype=float) for k in ("v", "s", "kt", "nfull", "mb", "nlast", "bytes",
                                                                   "trips", "ms")}
    A["v"] = A["v"].astype(int)
    best = {}
    for r in rows:
        best[r["sh"]] = min(best.get(r["sh"], 1e9), r["ms"])
    A["w"] = np.array([math.exp(-math.log(r["ms"] / best[r["sh"]]) / 0.25) for r in rows])
    return A


def predict(p, A):
    """model_ns over a table, parameters as logs: c, L, o of every variant, then t0, tr0, 1 / bw, trip."""
    import numpy as np
    nv = len(VAR)
    c, L, o = (np.exp(p[i * nv:(i + 1) * nv])[A["v"]] for i in range(3))
    t0, tr0, bwi, trip = np.exp(p[3 * nv:3 * nv + 4])

    def rnd(n):
        return A["kt"] * np.sqrt(L * L + (n * c) ** 2) + o
    split = np.where(A["s"] > 1, tr0 + A["bytes"] * bwi + A["trips"] * trip, 0.0)
    return t0 + A["nfull"] * rnd(A["mb"]) + rnd(A["nlast"]) + split


def fit(A, iters=80):
    """Levenberg-Marquardt on the weighted log error; returns the parameters as a SHIPPED-like dict."""
    import numpy as np
    c0 = [DIMS[v][0] * DIMS[v][1] * DIMS[v][2] / 170.0 for v in VAR]
    p = np.log(np.array(c0 + [x * 0.6 * DIMS[v][3] for x, v in zip(c0, VAR)] + [2000.0] * len(VAR) +
                        [3000.0, 5000.0, 1 / 6000.0, 1800.0]))
    y, sw = np.log(A["ms"] * 1e6), np.sqrt(A["w"])

    def res(q):
        return sw * (np.log(predict(q, A)) - y)
    r, lam = res(p), 1e-2
    for _ in range(iters):
        J = np.empty((len(r), len(p)))
        for i in range(len(p)):
            d = p.copy()
            d[i] += 1e-4
            J[:, i] = (res(d) - r) / 1e-4
        H, g = J.T @ J, J.T @ r
        while lam < 1e8:
            q = p + np.clip(np.linalg.solve(H + lam * np.diag(np.diag(H) + 1e-9), -g), -1, 1)
            rq = res(q)
            if rq @ rq < r @ r:
                p, r, lam = q, rq, max(lam / 3, 1e-7)
                break
            lam *= 4
    nv, e = len(VAR), np.exp(p)
    P = {v: tuple(round(float(e[i + k * nv]), 1) for k in range(3)) for i, v in enumerate(VAR)}
    P.update(t0=round(float(e[3 * nv]), 1), tr0=round(float(e[3 * nv + 1]), 1), bw=round(float(1 / e[3 * nv + 2]), 1),
             trip=round(float(e[3 * nv + 3]), 1))
    err = np.log(predict(p, A) / (A["ms"] * 1e6))
    print("fit: %d timings, log error sd %.3f (weighted rms %.3f)" % (len(err), err.std(), math.sqrt(r @ r / len(r))))
    return P


def built_pick(M, N, K):
    from smemkit._testing import knobs, sgemm_choose
    with knobs(sgemm_model=1):
        return tuple(sgemm_choose(M, N, K, SMS))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "--replay":
        for path in args[1:]:
            by = load(path)
            replay(by, choose, path + " level 1")
            try:
                diff = [sh for sh in by if built_pick(*sh) != choose(*sh)]
                print("   the built chooser (sgemm_model 1) differs from this file's on %d draws %s" % (len(diff), diff))
            except ImportError as e:
                print("   (the built chooser not compared: %s)" % e)
        return
    P = fit(table(load(args[0])))
    for v in VAR:
        print('    {"%s", %.1f, %.1f, %.1f},' % ((v,) + P[v]))
    print("    t0 %.1f, tr0 %.1f, bw %.1f, trip %.1f" % (P["t0"], P["tr0"], P["bw"], P["trip"]))
    replay(load(args[0]), lambda M, N, K: choose(M, N, K, P), args[0] + " (fit)")
    if "--judge" in args:
        path = args[args.index("--judge") + 1]
        replay(load(path), lambda M, N, K: choose(M, N, K, P), path + " (judge)")


if __name__ == "__main__":
    main()
