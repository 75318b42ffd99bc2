"""Time every compiled SGEMM tile config x a ladder of K splits, against cuBLAS fp32 in the same call:
the data the chooser's cost model (sgemm_cost_ns in csrc/sgemm/choose.cu) is fitted to.  GPU only.

    python bench/timing/sgemm_grid.py OUT.jsonl        (about 4 minutes on an H100; one JSON line per timing)
    python bench/timing/fit_sgemm_model.py OUT.jsonl   (no GPU: the fit, and the model's picks replayed)
    python bench/timing/sgemm_grid.py OUT.jsonl --random 120 --seed S [--mid] [--shapes MxNxK ...] [--budget-s T]
        draws of issue 27's law (--mid: M, N > 32, K > 16) and / or named shapes instead of the sweep, 5 reps
        a timing, pad only, the automatic choice (config "auto", S 0) timed too; stops after T seconds

Shapes: bench_sgemm.SWEEP plus EXTRA.  Per shape and tile config: S = 1, and while the tiles fill fewer
than two waves (SMs x the config's blocks per SM) S grows by x1.5 up to ~2.2 waves or the k-tiles.
Layouts: pad at every S, swizzle too at S = 1.  The skinny kernels (memory-bound, their own model
branch) are timed on the shapes whose small side they cover (M <= 32 for skinny-m, N <= 32 for
skinny-n), over the same ladder.  Every timing is smemkit.bench (the one timing path) with config=
and splits= forced.
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import smemkit  # noqa: E402
from bench_sgemm import SWEEP  # noqa: E402
from smemkit._testing import device_info, sgemm_choose  # noqa: E402

EXTRA = [("mid", 1536, 1536, 1536), ("mid", 768, 768, 768), ("mid", 3072, 3072, 512), ("mid", 2048, 512, 2048),
         ("mid", 333, 4444, 555), ("skinny", 8, 4096, 4096), ("skinny", 16, 4096, 4096),
         ("skinny", 32, 4096, 4096), ("skinny", 4096, 16, 4096), ("mid", 2048, 2048, 8192),
         ("skinny", 96, 96, 4096), ("mid", 1024, 256, 4096), ("mid", 6144, 6144, 6144)]

# blocks per SM each config is built for (its __launch_bounds__ MINBLOCKS; csrc/sgemm/configs.h)
MINBLOCKS = {"128x128x8": 2, "64x64x8": 4, "128x256x8": 1, "64x64x16": 4, "128x64x8": 4, "64x128x8": 3,
             "64x128x8/minb4": 4, "skinny-m": 4, "skinny-n": 3, "128x128x16": 1, "128x128x8/128thr": 2}
# the skinny kernels' block tiles, BM x BN x BK (csrc/sgemm/configs.h: the skinny-m / skinny-n rows)
SKINNY_TILES = {"skinny-m": (8, 512, 64), "skinny-n": (16, 8, 256)}


def dims(name):
    if name in SKINNY_TILES:
        return SKINNY_TILES[name]
    b = name.split("/")[0].split("x")
    return int(b[0]), int(b[1]), int(b[2])


def runs(name, M, N):
    """Whether the grid times config `name` on an M x N output."""
    if name == "skinny-m":
        return M <= 32
    if name == "skinny-n":
        return N <= 32
    return True


def ladder(M, N, K, name, sms):
    bm, bn, bk = dims(name)
    tiles = math.ceil(M / bm) * math.ceil(N / bn)
    wave = sms * MINBLOCKS.get(name, 1)
    ss = [1]
    if tiles < 2 * wave and M * N < 4096 * 4096:
        s = 1
        while True:
            s = max(s + 1, int(round(s * 1.5)))
            if s > math.ceil(K / bk) or tiles * s > 2.2 * wave or s > 2048:
                break
            ss.append(s)
    return ss


def shape_list(args):
    """(cls, M, N, K) of the run: the sweep, or --random N --seed S draws of issue 27's law (--mid: only those
    the tile kernels take, M and N > 32 and K > 16), and/or --shapes MxNxK ..."""
    import draws as D
    out = []
    if "--random" in args:
        n, seed = int(args[args.index("--random") + 1]), int(args[args.index("--seed") + 1])
        for d in D.sgemm_draws(n, seed):
            M, N, K = d.shape
            if "--mid" not in args or (M > 32 and N > 32 and K > 16):
                out.append(("random%d" % seed, M, N, K))
    if "--shapes" in args:
        for tok in args[args.index("--shapes") + 1:]:
            if tok.startswith("--"):
                break
            M, N, K = (int(v) for v in tok.split("x"))
            out.append(("named", M, N, K))
    return out or SWEEP + EXTRA


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    budget = float(args[args.index("--budget-s") + 1]) if "--budget-s" in args else 1e9
    reps = 5 if "--random" in args or "--shapes" in args else 10
    sms = device_info()["sms"]
    names = smemkit.bench_configs("sgemm")
    t0 = time.time()
    with open(args[0], "w") as out:
        shapes = shape_list(args)
        for i, (cls, M, N, K) in enumerate(shapes):
            if time.time() - t0 > budget:
                print(f"budget {budget:.0f} s spent after {i} shapes", flush=True)
                break
            auto = sgemm_choose(M, N, K, sms)
            for ci, name in enumerate(names):
                if not runs(name, M, N):
                    continue
                for S in ([0] if ci == 0 else ladder(M, N, K, name, sms)):
                    for lay in (["pad", "swizzle"] if S == 1 and reps == 10 else ["pad"]):
                        r = smemkit.bench("sgemm", (M, N, K), layout=lay, config=ci or None, splits=S or None, reps=reps,
                                          warmup_ms=5 if reps == 10 else 2)[0]
                        rec = dict(M=M, N=N, K=K, cls=cls, config="auto" if ci == 0 else name, S=S, layout=lay,
                                   ms=r.median_ms, ratio=r.ratio,
                                   cublas_tf=r.ceiling / 1e3 if r.ceiling else None, auto=list(auto))
                        out.write(json.dumps(rec) + "\n")
                        out.flush()
            print(f"[{i + 1}/{len(shapes)}] {M}x{N}x{K} done, {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
