"""Issue 27's "M tiny, N wide" calls on the wide kernel, knob sgemm_gemv levels 4 to 7 (csrc/sgemm/gemv_wide.cuh,
route: csrc/sgemm/gemv.cu wide_route): M <= 4 rows (level 5: M == 1 alone), any N > 1, any K, rows of B at any
alignment, lanes owning columns c0 + lane + 32 j (j < V = 1, or 4 at M == 1), the block's 8 warps over K, a split of
<= 128 slices summed in the kernel by the last block of each grid column (level 6: by reduce.cuh;
level 7: the count one acq_rel atomic, no device-wide fence).
CPU: the route is taken exactly for the class at each level (N == 1 keeps level 3's rows route, everything else
its plan), its geometry on thousands of shapes of the law and of the class, explain()'s replay of the Red passes
(4 wavefronts a warp access, every layout).
GPU: M = 1..4 in every layout, unaligned N and K, K = 1 and deep K, alpha / beta / C, NaN-poisoned outputs, B rows
off 16 bytes and odd pitches in NaN frames, out= and out=c, NaN / Inf propagation, bit-identical repeats; all
against the float64 reference within gamma_{K+2} (test_sgemm.check)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from _shared import check_dense_draws, check_nan_inf_and_repeats, check_numpy_call, check_out_and_c_in_nan_frames
from _shared import check_torch_views
from test_sgemm_gemv import SMS, plan, splits_of, torch_case

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
import draws  # noqa: E402  (bench/timing/draws.py: issue 27's law)

LAYOUTS = smemkit.LAYOUTS


def tiny_m_shapes(n=2000, seed=3441):
    """M <= 4 shapes: the law's (seed 3440) and log-uniform ones (M = 1..4, N and K up to 65536, N = 1 included)."""
    out = [d.shape for d in draws.sgemm_draws(6000, 3440) if d.shape[0] <= 4]
    rng = np.random.default_rng(seed)
    while len(out) < n:
        N, K = (int(round(math.exp(rng.uniform(0, math.log(65536))))) for _ in range(2))
        out.append((int(rng.integers(1, 5)), N, K))
    return out


def geometry(cfg):
    """(M, strip columns, columns a lane, fused) of a 'gemv wide' config string."""
    parts = cfg.split(", ")
    return (int(parts[0].split("M = ")[1].rstrip(")")), int(parts[1].split("-")[0]), int(parts[2].split()[0]),
            "fused tail" in cfg)


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_range_and_default():
    assert _testing.KNOBS["sgemm_gemv"] == 4
    for v in (4, 5, 6, 7):
        with _testing.knobs(sgemm_gemv=v):
            assert _testing.current()["sgemm_gemv"] == v
    with pytest.raises(ValueError):
        with _testing.knobs(sgemm_gemv=8):
            pass


@pytest.mark.parametrize("level", [4, 5, 6, 7])
def test_route_takes_exactly_the_class(level):
    law = [d.shape for d in draws.sgemm_draws(1500, 3442)]
    for mnk in tiny_m_shapes(1500) + law:
        M, N, K = mnk
        on, three = plan(mnk, level), plan(mnk, 3)
        if N > 1 and M <= (1 if level == 5 else 4) and K >= 1:
            assert on["config"].startswith(f"gemv wide (M = {M})"), (mnk, on["config"])
        else:  # N == 1 (the rows route), M > 4 / M > 1, K == 0: level 3's plan
            assert (on["config"], on["blocks"]) == (three["config"], three["blocks"]), mnk


def test_forced_calls_keep_the_chooser():
    for mnk in [(1, 5080, 494), (2, 14623, 455), (4, 5634, 166)]:
        for config, splits in [(2, 0), (0, 3), (2, 5)]:
            on, off = plan(mnk, 4, config=config, splits=splits), plan(mnk, 0, config=config, splits=splits)
            assert (on["config"], on["blocks"]) == (off["config"], off["blocks"]), mnk


def wide_cap(M, v):
    """gemv.h wide_max_splits: 128 slices where a lane holds <= 2 sums, else 64."""
    return 128 if M * v <= 2 else 64


def wide_slices(K, strips, M, v):
    """gemv.cu wide_split: one wave of 4 blocks per SM, slices >= 32 rows, <= wide_cap of them, a multiple of 8
    deep."""
    s = max(1, min(1 if strips >= 4 * SMS else 4 * SMS // strips, K // 32, wide_cap(M, v)))
    chunk = (math.ceil(K / s) + 7) // 8 * 8
    return (math.ceil(K / chunk), chunk) if math.ceil(K / chunk) > 1 else (1, K)


def test_route_geometry():
    """Strips of 128 columns (M == 1 alone) only within 1/8 waste and where, split, they fill 2 blocks per SM, else
    32; a split only where the strips leave room in one wave of 4 blocks per SM and never past it, slices >= 32 deep
    and a multiple of 8, <= 128 of them (64 where a lane holds > 2 sums); every split fused (grids of <= 4096 columns)."""
    for mnk in tiny_m_shapes(3000):
        M, N, K = mnk
        if N == 1:
            continue
        p = plan(mnk, 4)
        m, cols, v, fused = geometry(p["config"])
        s = splits_of(p)
        strips = math.ceil(N / cols)
        assert m == M and cols == 32 * v and v in (1, 4) and (v == 1 or M == 1), (mnk, p)
        s128 = math.ceil(N / 128)
        wide_ok = M == 1 and 8 * s128 * 128 <= 9 * N and s128 * wide_slices(K, s128, 1, 4)[0] >= 2 * SMS
        assert (v == 4) == wide_ok, (mnk, p)
        want, chunk = wide_slices(K, strips, M, v)
        assert s == want and p["blocks"] == strips * s and fused == (s > 1), (mnk, p)
        assert 1 <= s <= wide_cap(M, v), (mnk, p)
        if s > 1:
            assert chunk % 8 == 0 and chunk >= 32 and math.ceil(K / chunk) == s, (mnk, p)
            assert strips < 4 * SMS and p["blocks"] <= 4 * SMS, (mnk, p)  # one wave
        six, seven = plan(mnk, 6), plan(mnk, 7)  # the same grid: every split summed by reduce.cuh / the light count
        assert six["config"] == p["config"].replace(", fused tail", "") and six["blocks"] == p["blocks"], mnk
        light = p["config"].replace(", fused tail", ", fused tail, acq_rel count")
        assert seven["config"] == light and seven["blocks"] == p["blocks"], mnk


@pytest.mark.parametrize("layout", LAYOUTS)
def test_plan_replays_the_red_passes(layout):
    """explain(): warps 1..7 store one float4 a lane into Red and warp 0 loads it, once per block (and once more per
    grid column for the fused tail): 4 wavefronts a warp access, no excess, in every layout."""
    for mnk in [(1, 5080, 494), (1, 263, 13808), (3, 6949, 245), (4, 100, 7), (2, 70000 // 7, 3)]:
        with _testing.knobs(sgemm_gemv=4):
            e = smemkit.explain("sgemm", mnk, layout)
        p = plan(mnk, 4, layout)
        assert e.config.startswith("gemv wide") and len(e.accesses) == 2
        s = splits_of(p)
        reps = e.blocks + (e.blocks // s if s > 1 else 0)
        store, load = e.accesses
        off = layout != "swizzle"  # naive / pad: warp 0 issues the predicated STS.128 with every lane off (SASS)
        assert store.instructions - off * reps == load.instructions == 7 * reps, (mnk, e.config)
        for a in e.accesses:
            assert a.excess == 0 and a.wavefronts == 4 * load.instructions, (layout, mnk)
        st, ld = p["accesses"][0][4].reshape(-1, 32), p["accesses"][1][4]
        assert len(st) == 7 + off and (st[7:] < 0).all()
        st = st[:7]
        assert (st >= 0).all() and len(np.unique(st)) == st.size
        np.testing.assert_array_equal(np.sort(st.ravel()), np.sort(ld.ravel()))


# ---- GPU ------------------------------------------------------------------------------------------

SHAPES = [(1, 5080, 494), (1, 6387, 215), (1, 263, 13808), (1, 1621, 2206), (1, 5, 50003), (1, 129, 1),
          (1, 31, 77), (1, 1000, 4), (1, 2, 3), (1, 16383, 33), (2, 14623, 455), (2, 3, 7), (3, 6949, 245),
          (3, 77, 4099), (4, 5634, 166), (4, 1, 9), (4, 33, 1), (2, 4097, 130)]
AB = [(1.0, 0.0), (-0.5, 0.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
@pytest.mark.parametrize("level", [4, 6, 7])
def test_numpy_calls_within_bound(layout, mnk, alpha, beta, level, rng, poison, set_knobs):
    set_knobs(sgemm_gemv=level)
    check_numpy_call(rng, mnk, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("how", ["dense", "frames", "strided-x", "aligned-a"])
@pytest.mark.parametrize("mnk", [(1, 6387, 215), (1, 1327, 6349), (1, 77, 5), (2, 4099, 130), (3, 1001, 2047),
                                 (4, 5634, 166), (1, 16001, 9)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("level", [4, 7])
def test_torch_views_within_bound(layout, how, mnk, level, torch, poison, set_knobs):
    """B's rows off 16 bytes (pitch N + 3, base 2 floats past 16 bytes, in a NaN frame), odd pitches of X and C."""
    set_knobs(sgemm_gemv=level)
    check_torch_views(torch, torch_case, layout, how, mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(1, 5080, 494), (3, 70, 9001), (4, 1, 5), (2, 6001, 33)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shift", [0, 1, 3])
def test_out_and_c_in_nan_frames(mnk, shift, torch, set_knobs):
    """out= a view `shift` floats past 16 bytes in a NaN frame: nothing written outside it; beta = 0 with C all
    NaN reads no C; out=c (C aliasing D) with beta != 0."""
    set_knobs(sgemm_gemv=4)
    check_out_and_c_in_nan_frames(torch, torch_case, mnk, shift)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(1, 300, 5000), (2, 301, 5003), (4, 1000, 70000 // 4), (1, 8833, 2381),
                                 (3, 129, 64)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("level", [4, 5, 6, 7])
def test_nan_inf_and_repeats(mnk, level, set_knobs):
    """NaN / Inf propagate like NumPy's (and nowhere else); repeated calls give the same bits (fixed sum order,
    whichever block of the fused tail arrives last)."""
    set_knobs(sgemm_gemv=level)
    check_nan_inf_and_repeats(mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_law_draws(layout, torch, poison, set_knobs):
    """40 of the class's law draws (M <= 4, N > 1; seed 3443) as dense torch calls, alpha / beta / C."""
    set_knobs(sgemm_gemv=4)
    shapes = [d.shape for d in draws.sgemm_draws(3000, 3443) if d.shape[0] <= 4 and d.shape[1] > 1][:40]
    # the float64 reference of a > 128 MB B on the host: skip (27 of the 40 stay)
    check_dense_draws(torch, [(M, N, K) for M, N, K in shapes if N * K <= 1 << 24], 3443, layout)
