"""The prefetching skinny-m rows (issue 27, sgemm_new_paths level 5; csrc/sgemm/skinny_m.cuh SkinnyMMultiply with
Cfg::PF): "skinny-m/pf" (U 8, 2 blocks per SM) and "skinny-m/pf4" (U 4, 3 blocks per SM, forced only) load
the next batch of B rows before the FMAs of this one.  Each runs one of three loops per k-tile: re-aligned
float4 (rows off 16 bytes, whole warps of columns, whole k-tiles), float4 in range, or predicated (edges).
CPU: the chooser offers them only at level 5, in place of skinny-m, and explain() replays the same shared
accesses as skinny-m.  GPU: every row forced, every layout, alpha/beta, K splits, NaN-poisoned outputs, C
aliasing D, odd pitches and bases off 16 bytes inside NaN frames, against the float64 reference within
gamma_{K+2} (test_sgemm.check); and level 5's automatic choice on a seeded draw of the M <= 8 class."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_sgemm import check, check_torch_calls
from test_sgemm_realign import run as run_framed

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
PF = ["skinny-m/pf", "skinny-m/pf4"]
ROWS = {"skinny-m/pf": 8, "skinny-m/pf4": 8}  # MS: rows of D per block (BN 512, BK 64 for both)


def index(name):
    return CONFIGS.index(name)


def law(rng, n, mmax=8):
    """n draws of issue 27's law with M <= mmax (bench/timing/draws.py's sgemm law, M redrawn small)."""
    out = []
    while len(out) < n:
        M = int(rng.integers(1, mmax + 1))
        N, K = (int(round(math.exp(rng.uniform(0, math.log(v))))) for v in (16384, 65536))
        if M * N >= 64 and M * N * K >= 2**20 and M * N * K <= 4096**3:
            out.append((M, N, K))
    return out


# ---- CPU: the chooser and the plan ------------------------------------------------------------------

def test_rows_are_appended_after_the_shipped_ones():
    assert CONFIGS[:3] == ["auto", "128x128x8", "64x64x8"]
    assert all(name in CONFIGS for name in PF) and CONFIGS.index("skinny-m/pf") > CONFIGS.index("tiny-k/rw2")


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4])
def test_below_level_five_never_offered(level, set_knobs):
    set_knobs(sgemm_new_paths=level)
    for M, N, K in law(np.random.default_rng(50 + level), 600):
        cfg = _C._plan("sgemm", (M, N, K), "pad", 4, 132)["config"]
        assert "prefetched" not in cfg, (level, M, N, K, cfg)


def test_level_five_replaces_skinny_m_and_keeps_level_four_otherwise(set_knobs):
    """Level 5 = level 4 with skinny-m/pf in place of skinny-m: where level 4 picks skinny-m level 5 picks
    skinny-m/pf; the forced-only pf4 is never picked; every other choice (all classes of the law) is level 4's."""
    rng = np.random.default_rng(55)
    shapes = law(rng, 1500) + law(rng, 1500, mmax=16384)
    plans = {}
    for level in (4, 5):
        set_knobs(sgemm_new_paths=level)
        plans[level] = [_C._plan("sgemm", s, "swizzle", 4, 132) for s in shapes]
    took = 0
    for s, p4, p5 in zip(shapes, plans[4], plans[5]):
        assert p5["blocks"] >= 1, (s, p5["config"])
        if "prefetched" in p5["config"]:
            took += 1
            assert s[0] <= 8 and p5["config"].startswith("skinny-M 8x512x64 block tile, 128 threads"), s
        if p4["config"].startswith("skinny-M 8x512x64") and "prefetched" not in p4["config"]:
            assert "prefetched" in p5["config"], (s, p4["config"], p5["config"])
        elif "prefetched" not in p5["config"]:
            assert p4["config"] == p5["config"] and p4["blocks"] == p5["blocks"], (s, p4["config"], p5["config"])
    assert took > 50


def test_level_is_clamped_to_five(set_knobs):
    set_knobs(sgemm_new_paths=5)
    with pytest.raises((ValueError, TypeError)):
        set_knobs(sgemm_new_paths=6)


@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1, 4096, 4096), (3, 1000, 517), (8, 777, 2049), (1, 1, 5003)],
                         ids=lambda s: "x".join(map(str, s)))
def test_plan_is_skinny_m_s(name, layout, mnk):
    """The prefetch moves only B's global loads: explain() has skinny-m's shared accesses, instruction for
    instruction and address for address."""
    base = _C._plan("sgemm", mnk, layout, 4, 132, index("skinny-m"), 1)
    pf = _C._plan("sgemm", mnk, layout, 4, 132, index(name), 1)
    assert pf["config"] == base["config"].replace(", splits", ", next B batch prefetched, splits")
    assert (pf["blocks"], pf["threads"], pf["smem_bytes"]) == (base["blocks"], base["threads"], base["smem_bytes"])
    for x, y in zip(pf["accesses"], base["accesses"]):
        assert x[:4] == y[:4]
        np.testing.assert_array_equal(x[4], y[4])
    e = smemkit.explain("sgemm", mnk, layout, config=index(name), splits=1)
    assert e.total() == smemkit.explain("sgemm", mnk, layout, config=index("skinny-m"), splits=1).total()


# ---- GPU --------------------------------------------------------------------------------------------

SHAPES = [(1, 4096, 4096), (3, 1000, 517), (8, 777, 2049), (5, 1001, 700), (7, 128, 64), (2, 640, 128),
          (1, 1, 5003), (0, 5, 7), (9, 11, 0), (8, 8, 1), (17, 64, 300), (4, 3000, 191)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


def operands(rng, M, N, K, beta):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
    return a, b, c


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_forced_within_bound(name, layout, mnk, splits, rng, poison, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    for alpha, beta in AB:
        a, b, c = operands(rng, *mnk, beta)
        c_before = None if c is None else c.copy()
        d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
        check(d, a, b, c, alpha, beta)
        if c is not None:
            np.testing.assert_array_equal(c, c_before)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1, 1000, 301), (8, 517, 129), (3, 128, 64), (6, 2049, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1), (1, 3, 3)], ids=lambda s: "shift" + "".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_odd_pitches_in_nan_frames(name, layout, mnk, shifts, splits, torch, poison, set_knobs):
    """B's rows off 16 bytes (the re-aligned loop, whole warps and k-tiles; predicated at the edges), the
    bytes outside every operand NaN."""
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("pitch_mod", [0, 1, 2, 3])
def test_every_row_offset_dense(name, pitch_mod, torch, poison, set_knobs):
    set_knobs(sgemm_config=name)
    M, N, K = 5, 1024 + pitch_mod, 700
    run_framed(torch, "swizzle", M, N, K, (K, N, N), (0, 0, 0), 1.0, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("splits", [1, 4])
def test_c_aliases_d_and_nan_c_is_not_read(name, splits, rng, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    a, b, c = operands(rng, 7, 1021, 1500, 1.0)
    c0 = c.copy()
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, out=c) is c
    check(c, a, b, c0, 2.0, 0.5)
    nan_c = np.full((7, 1021), np.nan, np.float32)
    check(smemkit.sgemm(a, b, nan_c, beta=0.0, alpha=1.5), a, b, None, 1.5, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_level_five_automatic_calls(layout, torch, poison, set_knobs):
    """A seeded draw of the M <= 8 class as a user's torch call runs it at level 5 (dense rows, odd K / N,
    alpha and beta through check_torch_calls), bounded to shapes of at most 2^27 MACs for time."""
    set_knobs(sgemm_new_paths=5)
    shapes = [s for s in law(np.random.default_rng(57), 200) if s[0] * s[1] * s[2] <= 2**27][:12]
    for M, N, K in shapes:
        check_torch_calls(torch, M, N, K, M * 7 + N, layout)
