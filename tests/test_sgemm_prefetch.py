"""The prefetching skinny rows (issue 27, sgemm_new_paths level 5).  csrc/sgemm/skinny_m.cuh SkinnyMMultiply with
Cfg::PF: "skinny-m/pf" (U 8, 2 blocks per SM) and "skinny-m/pf4" (U 4, 3 blocks per SM, forced only) load
the next batch of B rows before the FMAs of this one; each runs one of three loops per k-tile: re-aligned
float4 (rows off 16 bytes, whole warps of columns, whole k-tiles), float4 in range, or predicated (edges).
csrc/sgemm/skinny_n.cuh SkinnyNStep with Cfg::PF: "skinny-n/pf" (3 blocks per SM) and "skinny-n/pf2" (2,
forced only) load A's next k-tile into a second register buffer before this one's FMAs.
CPU: the chooser offers the automatic ones only at level 5, in place of skinny-m / skinny-n, and explain()
replays the same shared accesses as their base rows.  GPU: every row forced, every layout, alpha/beta, K
splits, NaN-poisoned outputs, C aliasing D, odd pitches and bases off 16 bytes inside NaN frames, against the
float64 reference within gamma_{K+2} (test_sgemm.check); and level 5's automatic choice on seeded draws of
the M <= 8 and N <= 8 classes."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C
from _shared import check_numpy_call, operands
from test_sgemm import check, check_torch_calls
from test_sgemm_realign import run as run_framed
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _chooser_rows_for_small_m():
    """This module tests the chooser's skinny kernels, M <= 4 included: the wide matrix-vector route (sgemm_gemv 4,
    the default since session 44: tests/test_sgemm_gemv_wide.py) off."""
    with _knobs(sgemm_gemv=3):
        yield


LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
PF_M = ["skinny-m/pf", "skinny-m/pf4"]  # MS 8, BN 512, BK 64, as skinny-m
PF_N = ["skinny-n/pf", "skinny-n/pf2"]  # 16 x 8 tiles, BK 256, as skinny-n
M4 = "skinny-m4/pf"  # MS 4, 64 threads (BN 256), BK 64, U 8: M <= 4 at level 5
PF = PF_M + PF_N + [M4]
SKM = PF_M + [M4]  # the skinny-m kernel's rows (B streamed)
BASE = {"skinny-m/pf": "skinny-m", "skinny-m/pf4": "skinny-m", "skinny-n/pf": "skinny-n", "skinny-n/pf2": "skinny-n"}
SUFFIX = {"skinny-m": ", next B batch prefetched", "skinny-n": ", next A tile prefetched"}


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
    assert all(CONFIGS.index(name) > CONFIGS.index("tiny-k/rw2") for name in PF)


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4])
def test_below_level_five_never_offered(level, set_knobs):
    set_knobs(sgemm_new_paths=level)
    for M, N, K in law(np.random.default_rng(50 + level), 600):
        cfg = _C._plan("sgemm", (M, N, K), "pad", 4, 132)["config"]
        assert "prefetched" not in cfg, (level, M, N, K, cfg)
        cfg = _C._plan("sgemm", (N, M, K), "pad", 4, 132)["config"]  # the small-N side
        assert "prefetched" not in cfg, (level, N, M, K, cfg)


def test_level_five_replaces_the_skinny_rows_and_keeps_level_four_otherwise(set_knobs):
    """Level 5 = level 4 with skinny-m/pf in place of skinny-m (its own split: 2 blocks per SM) and skinny-n/pf
    in place of skinny-n (the same grid and split); the forced-only rows are never picked; every other choice
    (all classes of the law) is level 4's."""
    rng = np.random.default_rng(55)
    shapes = law(rng, 1500) + law(rng, 1500, mmax=16384)
    shapes += [(N, M, K) for M, N, K in law(rng, 1000)]
    plans = {}
    for level in (4, 5):
        set_knobs(sgemm_new_paths=level)
        plans[level] = [_C._plan("sgemm", s, "swizzle", 4, 132) for s in shapes]
    took = {"skinny-M": 0, "skinny-N": 0}
    for s, p4, p5 in zip(shapes, plans[4], plans[5]):
        c4, c5 = p4["config"], p5["config"]
        assert p5["blocks"] >= 1 and "prefetched" not in c4, (s, c5)
        if c5.startswith("skinny-M") and "prefetched" in c5:
            took["skinny-M"] += 1
            want = "skinny-M 4x256x64 block tile, 64 threads" if s[0] <= 4 else \
                "skinny-M 8x512x64 block tile, 128 threads"
            assert s[0] <= 8 and c5.startswith(want), (s, c5)
        elif c5.startswith("skinny-N") and "prefetched" in c5:
            took["skinny-N"] += 1
            assert c4.startswith("skinny-N"), (s, c4, c5)
            assert c5 == c4.replace(", splits", SUFFIX["skinny-n"] + ", splits") and p4["blocks"] == p5["blocks"], s
        else:
            assert c4 == c5 and p4["blocks"] == p5["blocks"], (s, c4, c5)
        if c4.startswith("skinny-M 8x512x64"):
            assert "prefetched" in c5, (s, c4, c5)
    assert took["skinny-M"] > 50 and took["skinny-N"] > 50, took


def test_level_is_clamped_to_eleven(set_knobs):
    set_knobs(sgemm_new_paths=11)  # 6, 7: test_sgemm_skinny_waves.py; 8, 9, 11: test_sgemm_matvec.py; 10: test_sgemm_pad_price.py
    with pytest.raises((ValueError, TypeError)):
        set_knobs(sgemm_new_paths=12)


PLAN_SHAPES = [(1, 2048, 3001), (3, 1000, 517), (8, 777, 2049), (1, 1, 5003), (4096, 1, 4096), (999, 3, 1025)]


@pytest.mark.parametrize("name", PF_M + PF_N)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", PLAN_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_plan_is_the_base_rows(name, layout, mnk):
    """The prefetch moves only the streamed operand's global loads: explain() has the base row's shared
    accesses, instruction for instruction and address for address."""
    base = _C._plan("sgemm", mnk, layout, 4, 132, index(BASE[name]), 1)
    pf = _C._plan("sgemm", mnk, layout, 4, 132, index(name), 1)
    assert pf["config"] == base["config"].replace(", splits", SUFFIX[BASE[name]] + ", splits")
    assert (pf["blocks"], pf["threads"], pf["smem_bytes"]) == (base["blocks"], base["threads"], base["smem_bytes"])
    for x, y in zip(pf["accesses"], base["accesses"]):
        assert x[:4] == y[:4]
        np.testing.assert_array_equal(x[4], y[4])
    e = smemkit.explain("sgemm", mnk, layout, config=index(name), splits=1)
    assert e.total() == smemkit.explain("sgemm", mnk, layout, config=index(BASE[name]), splits=1).total()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", PLAN_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_m4_plan(layout, mnk):
    """skinny-m4/pf: skinny-m's two accesses with MS = 4 and 2 warps; conflict-free in every layout (a quarter
    warp stores 128 contiguous bytes, 4 wavefronts a warp; a read is one address, 2), in both stages (pad:
    stage 1 starts 16 banks on, a uniform shift of 16-byte accesses)."""
    M, N, K = mnk
    e = smemkit.explain("sgemm", mnk, layout, config=index(M4), splits=1)
    assert e.config.startswith("skinny-M 4x256x64 block tile, 64 threads, 4x4 per thread, next B batch prefetched")
    nb, kt = math.ceil(M / 4) * math.ceil(N / 256), math.ceil(K / 64)
    assert e.blocks == nb
    store, load = e.accesses
    assert store.instructions == nb * (kt + 1) * 2  # one float4 of A per thread (4 x 64 floats), 2 warps
    assert load.instructions == nb * kt * 2 * 4 * 16  # 4 rows x 16 groups of 4 k per warp
    assert store.excess == 0 and load.excess == 0
    assert store.wavefronts == 4 * store.instructions and load.wavefronts == 2 * load.instructions
    p = _C._plan("sgemm", mnk, layout, 4, 132, index(M4), 1)
    assert p["threads"] == 64 and p["smem_bytes"] == 2 * 4 * (64 + (4 if layout == "pad" else 0)) * 4
    st = p["accesses"][0][4]
    assert len(np.unique(st)) == st.size and st.size * 16 == 4 * 64 * 4 and st.max() + 16 <= p["smem_bytes"] // 2


def test_m4_holds_m_up_to_4_at_level_5(set_knobs):
    set_knobs(sgemm_new_paths=5, sgemm_gemv=3)  # the chooser's rows: the wide M <= 4 kernel (gemv level 4) off
    for M in range(1, 9):
        cfg = _C._plan("sgemm", (M, 8191, 30000), "swizzle", 4, 132)["config"]
        assert cfg.startswith("skinny-M 4x256x64" if M <= 4 else "skinny-M 8x512x64"), (M, cfg)
    set_knobs(sgemm_new_paths=4)
    assert _C._plan("sgemm", (1, 8191, 30000), "swizzle", 4, 132)["config"].startswith("skinny-M 8x512x64")


# ---- GPU --------------------------------------------------------------------------------------------

SHAPES = [(1, 2048, 3001), (3, 1000, 517), (8, 777, 2049), (5, 1001, 700), (7, 128, 64), (2, 640, 128),
          (1, 1, 5003), (0, 5, 7), (9, 11, 0), (8, 8, 1), (17, 64, 300), (4, 3000, 191)]
SHAPES_N = [(2048, 1, 3001), (999, 3, 1025), (517, 8, 1029), (1001, 5, 700), (64, 3, 256), (640, 2, 512),
            (5003, 1, 1), (0, 5, 7), (9, 11, 0), (8, 8, 1), (300, 17, 300), (3000, 4, 191)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("name,mnk", [(n, s) for n in SKM for s in SHAPES] + [(n, s) for n in PF_N for s in SHAPES_N],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("splits", [1, 3])
def test_forced_within_bound(name, layout, mnk, splits, rng, poison, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    for alpha, beta in AB:
        check_numpy_call(rng, mnk, alpha, beta, layout)


# (row, shape, level): skinny-m rows re-align at every level >= 1; skinny-n rows only at levels 1-2 (scalar from 3)
FRAMED = [(n, s, 5) for n in SKM for s in [(1, 1000, 301), (8, 517, 129), (3, 128, 64), (6, 2049, 1000)]]
FRAMED += [(n, s, lv) for n in PF_N for s in [(1000, 1, 301), (517, 8, 1029), (129, 5, 513), (333, 7, 2047)]
           for lv in (5, 1)]


@pytest.mark.gpu
@pytest.mark.parametrize("name,mnk,level", FRAMED,
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1), (1, 3, 3)], ids=lambda s: "shift" + "".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_odd_pitches_in_nan_frames(name, mnk, level, layout, shifts, splits, torch, poison, set_knobs):
    """The streamed operand's rows off 16 bytes (skinny-m: the re-aligned loop on whole warps and k-tiles,
    predicated at the edges; skinny-n: the scalar path at level 5, the re-aligned one at level 1), the
    bytes outside every operand NaN."""
    set_knobs(sgemm_config=name, sgemm_splits=splits, sgemm_new_paths=level)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("pitch_mod", [0, 1, 2, 3])
def test_every_row_offset_dense(name, pitch_mod, torch, poison, set_knobs):
    set_knobs(sgemm_config=name)
    M, N, K = (5, 1024 + pitch_mod, 700) if name in SKM else (900, 7, 1024 + pitch_mod)
    run_framed(torch, "swizzle", M, N, K, (K, N, N), (0, 0, 0), 1.0, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
@pytest.mark.parametrize("splits", [1, 4])
def test_c_aliases_d_and_nan_c_is_not_read(name, splits, rng, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    M, N = (7, 1021) if name in SKM else (1021, 7)
    a, b, c = operands(rng, M, N, 1500, 1.0)
    c0 = c.copy()
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, out=c) is c
    check(c, a, b, c0, 2.0, 0.5)
    nan_c = np.full((M, N), np.nan, np.float32)
    check(smemkit.sgemm(a, b, nan_c, beta=0.0, alpha=1.5), a, b, None, 1.5, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_level_five_automatic_calls(layout, torch, poison, set_knobs):
    """Seeded draws of the M <= 8 and N <= 8 classes as a user's torch call runs them at level 5 (dense rows,
    odd K / N, alpha and beta through check_torch_calls), bounded to shapes of at most 2^27 MACs for time."""
    set_knobs(sgemm_new_paths=5)
    shapes = [s for s in law(np.random.default_rng(57), 200) if s[0] * s[1] * s[2] <= 2**27][:10]
    shapes += [(N, M, K) for M, N, K in law(np.random.default_rng(58), 200) if M * N * K <= 2**27][:10]
    for M, N, K in shapes:
        check_torch_calls(torch, M, N, K, M * 7 + N, layout)


@pytest.mark.parametrize("level", [3, 5])
def test_forced_rows_get_a_model_split_at_any_level(level, set_knobs):
    """Forced (the probe's arms), a "/pf" row is priced as at level 5 whatever the knob: skinny-n/pf splits
    as skinny-n does (same cost, same grid); skinny-m/pf splits a 1 x 4096 x 4096 call as skinny-m does
    with half the blocks per SM (2 per SM: the split that fills the same waves is at most skinny-m's)."""
    set_knobs(sgemm_new_paths=level)
    def split(name, mnk):
        return int(_C._plan("sgemm", mnk, "pad", 4, 132, index(name), 0)["config"].rsplit(" ", 1)[1])

    for mnk in [(4096, 1, 4096), (3239, 3, 54380), (999, 7, 1025)]:
        assert split("skinny-n/pf", mnk) == split("skinny-n", mnk), mnk
    assert 1 < split("skinny-m/pf", (1, 4096, 4096)) <= split("skinny-m", (1, 4096, 4096))


@pytest.mark.gpu
@pytest.mark.parametrize("name", PF)
def test_bench_runs_the_row(name):
    r = smemkit.bench("sgemm", (1, 4096, 4096) if name in SKM else (4096, 1, 4096), layout="pad", config=name,
                      splits=1, reps=3)[0]
    assert r.median_ms > 0
