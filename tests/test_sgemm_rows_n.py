"""Issue 27's "tall A, small N" class, knob sgemm_rows_n (csrc/sgemm/rows_n.h, rows_n.cuh, rows_n.cu): 9 <= N <= 32
(levels 1, 3, 4; 2 <= N <= 32 at level 2), M >= 1024, K >= 17 on the narrow-N rows kernel (R = 4 rows of A a warp, 8
lanes a row; levels 3 / 4 also R = 2 / 1 and an L2 prefetch of A; B's K slice k-interleaved in shared memory, a K split
summed by reduce.cuh).  CPU: the route is taken exactly for that class of automatic calls at every level (every other
plan unchanged, N == 1 keeps the gemv rows), its geometry (R, slices, blocks, shared bytes, prefetch) against a Python
replay of the route, the launch limits (grid, dynamic shared bytes <= the opted-in budget), and explain()'s replay of
B's reads (2 wavefronts a warp LDS.128 in pad / swizzle at R = 4 / 2, 4 at R = 1, conflicted in naive).  GPU (levels
2 and 4): every N from 2 to 32, every R, each layout, unaligned K and N, rows off 16 bytes in NaN frames, split and
unsplit, alpha / beta / C, NaN-poisoned outputs, out= in a NaN frame, NaN / Inf propagation and bit-identical repeats,
a larger slice after a smaller on one instance; all against the float64 reference within gamma_{K+2}
(test_sgemm.check)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from _shared import (check_dense_draws, check_nan_inf_and_repeats, check_out_and_c_in_nan_frames, check_torch_views,
                     dense_operands, operands)
from test_sgemm import check, odd_pitch_view
from test_sgemm_epi import framed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
import draws  # noqa: E402  (bench/timing/draws.py: issue 27's law)

LAYOUTS = smemkit.LAYOUTS
SMS = 132
BUDGET = 72 * 1024  # rows_n.h kRowsNSmemBudget


def plan(mnk, level, layout="swizzle", config=0, splits=0):
    with _testing.knobs(sgemm_rows_n=level):
        return _C._plan("sgemm", mnk, layout, 4, SMS, config, splits)


def in_class(M, N, K, level=2):
    return (2 if level == 2 else 9) <= N <= 32 and M >= 1024 and K >= 17


def class_shapes(n=1500, seed=3441):
    """The class's shapes: the law's (bench/timing/draws.py sgemm_draws) and log-uniform ones, plus edges."""
    out = [d.shape for d in draws.sgemm_draws(4000, 3440) if d.shape[1] <= 40 and d.shape[0] >= 512]
    rng = np.random.default_rng(seed)
    while len(out) < n:
        M = int(round(math.exp(rng.uniform(math.log(512), math.log(65536)))))
        N = int(rng.integers(1, 41))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        out.append((M, N, K))
    return out + [(1024, 2, 17), (1023, 32, 100), (1024, 33, 100), (1024, 32, 16), (65536, 32, 65536)]


def route(p):
    """(columns, passes, blocks per slice, splits) from a rows-n plan's config."""
    cfg = p["config"]
    cols = int(cfg.split(", ")[1].split()[0])
    passes, blocks = (int(v) for v in cfg.split(", ")[4].replace(" passes / ", " ").split()[:2])
    return cols, passes, blocks, int(cfg.rsplit(" ", 1)[1])


def rows_a_warp(p):
    """The kernel's R (rows of A per warp) from a rows-n plan's config."""
    return int(p["config"].split(", ")[2].split()[1])


def cdiv(a, b):
    return -(-a // b)


def replay(M, N, K, layout, rpw, sms=SMS):
    """rows_n.cu rows_n_geometry at R = rpw rows a warp: (passes, groups, splits, chunk, k_last, blocks) and
    rows_n_price (level 3's, microseconds)."""
    cols = 4 * math.ceil(N / 4)
    pitch = {4: 16, 8: 32, 12: 64, 16: 64}.get(cols, 128) + (4 if layout == "pad" else 0)
    kt = BUDGET // (pitch * 4) * 4 // 16 * 16
    slots = 2 * sms
    passes, groups = -(-M // (8 * rpw)), -(-M // rpw)
    s = -(-K // kt)
    if passes * s < sms:
        s = max(s, min(-(-slots // passes), K // 128, 64))
    chunk = (-(-K // s) + 15) // 16 * 16
    s = -(-K // chunk)
    if s <= 1:
        chunk, s = K, 1
    k_last = K - (s - 1) * chunk
    blocks = min(passes, 1 if s >= slots else slots // s)
    lanes, u, rows = 32 // rpw, 8 if cols <= 16 else 4, -(-chunk // 4)
    rounds, batches = -(-groups // (8 * blocks)), -(-rows // (lanes * u))
    instr = groups * cols * ((s - 1) * cdiv(rows, lanes) + cdiv(cdiv(k_last, 4), lanes))
    price = float(rounds * batches) + float(instr) * (4 if rpw == 1 else 2) / sms / 1750.0
    return (passes, groups, s, chunk, k_last, blocks), price


def prefetch_groups(p):
    """Levels 3 / 4's L2 prefetch (row groups a warp) from a rows-n plan's config."""
    return int(p["config"].split(", ")[3].split()[1])


def want_rpw(M, N, K, layout, level, sms=SMS):
    """rows_n.h: 4 at levels 1 / 2; level 3: the cheapest of 4, 2, 1 by rows_n_price, ties to the smaller; level 4:
    4 where ceil(M / 4) groups give the 16 x SMs resident warps two rounds, 2 where ceil(M / 2) fill one, else 1."""
    if level >= 4:
        return 4 if cdiv(M, 4) >= 32 * sms else 2 if cdiv(M, 2) >= 16 * sms else 1
    best, price = 4, replay(M, N, K, layout, 4)[1]
    for rpw in (2, 1):
        if level >= 3 and replay(M, N, K, layout, rpw)[1] <= price:
            best, price = rpw, replay(M, N, K, layout, rpw)[1]
    return best


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_default_off():
    assert _testing.KNOBS["sgemm_rows_n"] == 0
    assert not plan((7841, 13, 548), 0)["config"].startswith("rows-n")


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_route_takes_exactly_the_class(level):
    law = [d.shape for d in draws.sgemm_draws(1500, 3442)]
    for mnk in class_shapes(800) + law:
        on, off = plan(mnk, level), plan(mnk, 0)
        if in_class(*mnk, level):
            assert on["config"].startswith("rows-n (N <= 32)"), (mnk, on["config"])
        else:
            assert on["config"] == off["config"] and on["blocks"] == off["blocks"], mnk


def test_forced_calls_keep_the_chooser():
    for mnk in [(7841, 13, 548), (1687, 11, 62631)]:
        for config, splits in [(2, 0), (0, 3), (2, 5)]:
            on, off = plan(mnk, 1, config=config, splits=splits), plan(mnk, 0, config=config, splits=splits)
            assert (on["config"], on["blocks"]) == (off["config"], off["blocks"]), mnk


@pytest.mark.parametrize("level", [2, 3, 4])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_route_geometry(layout, level):
    for mnk in class_shapes(1200):
        M, N, K = mnk
        if not in_class(M, N, K, level):
            continue
        p = plan(mnk, level, layout)
        cols, passes, blocks, s = route(p)
        rpw = rows_a_warp(p)
        assert rpw == want_rpw(M, N, K, layout, level), (mnk, p["config"])
        assert cols == 4 * math.ceil(N / 4) and passes == math.ceil(M / (8 * rpw)), (mnk, p["config"])
        want = replay(M, N, K, layout, rpw)[0]
        assert (passes, s, blocks) == (want[0], want[2], want[5]), (mnk, p["config"], want)
        # levels 3 / 4: whole rounds of row groups up to 24 MB of A in all (rows_n.h kRowsNPrefetchBytes)
        rounds, round_bytes = cdiv(want[1], 8 * blocks), 8 * blocks * s * rpw * want[3] * 4
        pf = min(rounds, (24 << 20) // round_bytes) if level >= 3 else 0
        assert prefetch_groups(p) == pf, (mnk, p["config"])
        chunk = K if s == 1 else (math.ceil(K / s) + 15) // 16 * 16
        assert math.ceil(K / chunk) == s, (mnk, s)  # no empty slice
        assert p["smem_bytes"] <= BUDGET, (mnk, p["smem_bytes"])  # B's slice fits (2 blocks an SM)
        pitch = {4: 16, 8: 32, 12: 64, 16: 64}.get(cols, 128) + (4 if layout == "pad" else 0)
        assert p["smem_bytes"] == math.ceil(chunk / 4) * pitch * 4, (mnk, layout)
        assert 1 <= blocks <= passes and blocks * s <= max(2 * SMS, s), (mnk, p["config"])
        assert p["blocks"] == blocks * s
        need = math.ceil(K / (BUDGET // (pitch * 4) * 4 // 16 * 16))  # the slices B's budget needs
        assert need <= s <= max(need, 64), (mnk, p["config"])
        if s > need:  # more only where the passes alone leave SMs idle, never under 128 deep
            assert passes * need < SMS and chunk >= 128, (mnk, p["config"])


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_launch_limits(level):
    """Every route launches: grid x <= 2^31 - 1, grid y (the slices) <= 65535, and the dynamic shared bytes <= the
    amount every instance opts in to (rows_n.cu: kRowsNSmemBudget, not the first call's bytes: session 44's crash,
    1687x11x62631 after 2514x9x1671 on one instance), over the law's draws and the class's shapes in every layout."""
    law = [d.shape for d in draws.sgemm_draws(20000, 3445)]
    shapes = [s for s in class_shapes(1500, 3446) + law if in_class(*s, level)]
    shapes += [s for s in [(1687, 11, 62631), (2514, 9, 1671), (1 << 22, 32, 1 << 20), (1024, 9, 1 << 24),
                           (1 << 26, 2, 17), (1 << 26, 9, 17)] if in_class(*s, level)]
    for layout in LAYOUTS:
        for mnk in shapes:
            p = plan(mnk, level, layout)
            assert p["config"].startswith("rows-n"), (mnk, p["config"])
            _, _, blocks, s = route(p)
            assert 1 <= blocks <= 2 ** 31 - 1 and 1 <= s <= 65535, (mnk, layout, p["config"])
            assert p["blocks"] == blocks * s and p["threads"] == 256, (mnk, layout)
            assert 0 < p["smem_bytes"] <= BUDGET, (mnk, layout, p["smem_bytes"])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_plan_b_reads(layout):
    """B's LDS.128 packs lanes 4 gl + rs (one address per 4 lanes): 2 wavefronts a warp instruction in pad and swizzle
    (8 distinct 16-byte slots of 8 tile rows), 4 / 8-way in naive; the staging stores (warp 0's first) one wavefront
    but in pad with N <= 4."""
    for mnk in [(7841, 13, 548), (2283, 29, 144), (9380, 3, 50), (1875, 24, 58274), (4000, 6, 999)]:
        with _testing.knobs(sgemm_rows_n=2):
            e = smemkit.explain("sgemm", mnk, layout)
        assert e.config.startswith("rows-n") and len(e.accesses) == 2, e.config
        store, read = e.accesses
        if layout == "naive":
            assert read.wavefronts > 2 * read.instructions, mnk
        else:
            assert read.wavefronts == 2 * read.instructions, (layout, mnk, read.wavefronts, read.instructions)
            # pad's row boundary inside a warp's store (rows_n.cuh: NQ = 1, two 16-float rows a store) is 2-way
            ways = 2 if layout == "pad" and mnk[1] <= 4 else 1
            assert store.wavefronts == ways * store.instructions, (layout, mnk)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_plan_b_reads_rows_a_warp(layout):
    """Level 4's (and 3's) R = 2 (lanes 2 gl + rs: a half-warp reads 8 tile rows) keeps R = 4's 2 wavefronts a warp LDS.128 in
    pad and swizzle; R = 1 (16 distinct rows a half-warp) takes 4, the minimum for 32 distinct 16-byte vectors; the
    instructions: 4 NQ per row group and L = 32 / R tile rows."""
    for mnk, rpw in [((20000, 13, 548), 4), ((9508, 17, 469), 2), ((7841, 13, 548), 2), ((2283, 29, 144), 1),
                     ((1687, 11, 62631), 1), ((4926, 25, 155), 2)]:
        with _testing.knobs(sgemm_rows_n=4):
            e = smemkit.explain("sgemm", mnk, layout)
            p = plan(mnk, 4, layout)
        assert rows_a_warp(p) == rpw, (mnk, p["config"])
        read = e.accesses[1]
        M, N, K = mnk
        if layout != "naive":
            assert read.wavefronts == (4 if rpw == 1 else 2) * read.instructions, (layout, mnk, rpw)
        cols, _, _, s = route(p)
        if s == 1:  # per row group, per L = 32 / R tile rows of the slice, 4 NQ LDS.128 (rows_n.cuh)
            assert read.instructions == cols * math.ceil(M / rpw) * math.ceil(math.ceil(K / 4) / (32 // rpw)), mnk


def test_n1_keeps_gemv_rows():
    with _testing.knobs(sgemm_rows_n=2):
        assert _C._plan("sgemm", (7288, 1, 304), "swizzle", 4, SMS, 0, 0)["config"].startswith("gemv rows")


# ---- GPU ------------------------------------------------------------------------------------------

# every N 2..32 once (NQ 1..8, N % 4 = 1, 2, 3, 0), K odd / even / unaligned / split, M off 32
SHAPES = [(1024, 2, 17), (1025, 3, 18), (1031, 4, 19), (2047, 5, 33), (1500, 6, 64), (1200, 7, 100), (1100, 8, 1001),
          (1033, 9, 4099), (2049, 10, 35), (1999, 11, 62631 // 8), (1024, 12, 300), (3001, 13, 548),
          (1234, 14, 50), (1024, 15, 1212), (1056, 16, 129), (1077, 17, 469), (1024, 18, 2000), (1100, 19, 777),
          (1025, 20, 3333), (1088, 21, 17), (1090, 22, 96), (1300, 23, 5000), (1024, 24, 58274 // 16),
          (2283, 25, 155), (1024, 26, 33), (1111, 27, 1), (1040, 28, 60), (1044, 29, 144), (1024, 30, 2049),
          (1025, 31, 31), (1500, 32, 640), (10726, 32, 51)]  # N 2..8 at level 2
AB = [(1.0, 0.0), (2.0, -0.75)]
# level 4: each rows-a-warp R (rows_n.h, by M: on 114..144 SMs R = 1 under 3648 rows, 2 from 4608 to 14591, 4 from
# 18432) x NQ 3..8, K aligned / odd (rows off 16 bytes) / split
SHAPES3 = [(1033, 9, 4099), (2049, 10, 35), (1024, 12, 300), (3001, 13, 548), (1056, 16, 129), (1077, 17, 469),
           (1025, 20, 3333), (1088, 21, 17), (2283, 29, 144), (1025, 31, 31), (1500, 32, 640), (1999, 11, 7828),
           (5001, 9, 77), (6007, 14, 50), (4926, 25, 155), (7841, 13, 548), (8000, 19, 1001), (5003, 24, 2049),
           (9508, 17, 469), (4700, 32, 33), (18500, 11, 40), (19001, 28, 97), (20000, 16, 300)]


def numpy_calls(rng, shapes, alpha, beta, layout):
    for M, N, K in shapes:
        a, b, c = operands(rng, M, N, K, beta)
        d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
        check(d, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_numpy_calls_within_bound(layout, alpha, beta, rng, poison, set_knobs):
    set_knobs(sgemm_rows_n=2)
    numpy_calls(rng, SHAPES, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_rows_a_warp_within_bound(layout, alpha, beta, rng, poison, set_knobs):
    set_knobs(sgemm_rows_n=4)
    numpy_calls(rng, SHAPES3, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("level", [1, 4])
def test_larger_slice_after_smaller(level, rng, set_knobs):
    """One kernel instance (NQ 3, swizzle, A on 16 bytes) first with a ~50 KB slice of B, then with a 72 KB one: the
    launcher opts every instance in to the budget (session 44's crash: the first call's bytes, then
    cudaErrorInvalidValue at 1687x11x62631)."""
    set_knobs(sgemm_rows_n=level)
    for M, N, K in [(1024, 11, 800), (1024, 11, 1152), (1032, 10, 1100)]:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        check(smemkit.sgemm(a, b, layout="swizzle"), a, b, None, 1.0, 0.0)


def torch_case(torch, g, M, N, K, how):
    """A, B, C as device tensors: dense, rows of A off 16 bytes (odd pitch, base past 16 bytes) in NaN frames, or
    A on 16 bytes with B and C off them."""
    if how == "dense":
        return dense_operands(torch, g, M, N, K)
    if how == "frames":
        a, _ = framed(torch, g, M, K, K + 1 if K % 2 == 0 else K + 2, 1)
        b, _ = framed(torch, g, K, N, N + 3, 2)
        c, _ = framed(torch, g, M, N, N, 3)
        return a, b, c
    a = torch.randn(M, (K + 3) // 4 * 4, device="cuda", generator=g)[:, :K]  # rows on 16 bytes, K unaligned
    return a, odd_pitch_view(torch, g, K, N), odd_pitch_view(torch, g, M, N)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("how", ["dense", "frames", "aligned-a"])
@pytest.mark.parametrize("mnk", [(7841, 13, 548), (2283, 29, 144), (2514, 9, 1671), (1030, 11, 20011),
                                 (9380, 14, 50), (1875, 24, 58274 // 8), (4097, 2, 5001)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("level", [2, 4])
def test_torch_views_within_bound(layout, how, mnk, level, torch, poison, set_knobs):
    set_knobs(sgemm_rows_n=level)
    check_torch_views(torch, torch_case, layout, how, mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(3001, 13, 548), (1024, 30, 9001), (1025, 3, 77)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shift", [0, 1, 3])
@pytest.mark.parametrize("level", [2, 4])
def test_out_and_c_in_nan_frames(mnk, shift, level, torch, set_knobs):
    """out= a view `shift` floats past 16 bytes in a NaN frame: nothing written outside it; beta = 0 with C all NaN
    reads no C; out=c (C aliasing D) with beta != 0."""
    set_knobs(sgemm_rows_n=level)
    check_out_and_c_in_nan_frames(torch, torch_case, mnk, shift)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(3001, 13, 548), (1024, 32, 40001), (1100, 5, 333)],
                         ids=lambda s: "x".join(map(str, s)))
def test_nan_inf_and_repeats(mnk, set_knobs):
    """NaN / Inf propagate like NumPy's (and nowhere else); repeated calls give the same bits."""
    set_knobs(sgemm_rows_n=2)
    check_nan_inf_and_repeats(mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_law_draws(layout, torch, poison, set_knobs):
    """30 of the class's law draws (seed 3443; A under 64 MB: the float64 reference runs on the host) as dense torch
    calls, alpha / beta with C."""
    set_knobs(sgemm_rows_n=2)
    law = (d.shape for d in draws.sgemm_draws(20000, 3443))
    shapes = [s for s in law if in_class(*s) and s[0] * s[2] <= 1 << 24][:30]
    check_dense_draws(torch, shapes, 3443, layout)
