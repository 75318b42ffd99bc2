"""Issue 27's matrix-vector calls, knob sgemm_gemv (csrc/sgemm/gemv.h, gemv.cuh, gemv.cu): N == 1 (A x, a group of
8 / 16 / 32 lanes per row of A) and M == 1 (x^T B, float4 column groups of B in 32- / 64- / 128-column strips, K over
a block's 8 warps and a split of <= 64 slices summed by reduce.cuh at knob 1, by the kernel's last block per grid
column at knob 2).  CPU: the route is taken exactly for automatic
calls with M == 1 or N == 1 and K >= 1 at knob 1, every other call's plan unchanged; explain() replays the cols
kernel's cross-warp sum (4 wavefronts a warp access in every layout).  GPU: automatic calls in every layout on the
class's shapes, K = 1 and long K, alpha / beta / C, beta = 0 with NaN in C, out= (also out=c), rows off 16 bytes
(odd pitches, bases 1..3 floats past 16 bytes, in NaN frames), strided x, NaN / Inf propagation, poisoned outputs,
bit-identical repeats; all against the float64 reference within gamma_{K+2} (test_sgemm.check)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from _shared import (check_dense_draws, check_nan_inf_and_repeats, check_numpy_call, check_out_and_c_in_nan_frames,
                     check_torch_views, dense_operands)
from test_sgemm import odd_pitch_view
from test_sgemm_epi import framed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
import draws  # noqa: E402  (bench/timing/draws.py: issue 27's law)

LAYOUTS = smemkit.LAYOUTS
SMS = 132


def plan(mnk, gemv, layout="swizzle", config=0, splits=0):
    with _testing.knobs(sgemm_gemv=gemv):
        return _C._plan("sgemm", mnk, layout, 4, SMS, config, splits)


def splits_of(p):
    return int(p["config"].rsplit(" ", 1)[1])


def class_shapes(n=1500, seed=3431):
    """M == 1 / N == 1 shapes: the law's (bench/timing/draws.py sgemm_draws) and log-uniform ones of the class."""
    out = [d.shape for d in draws.sgemm_draws(4000, 3430) if 1 in d.shape[:2]]
    rng = np.random.default_rng(seed)
    while len(out) < n:
        side, K = (int(round(math.exp(rng.uniform(0, math.log(v))))) for v in (65536, 65536))
        out.append((1, side, K) if rng.integers(2) else (side, 1, K))
    return out


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_default_takes_n1_alone():
    """Level 3, the default since session 43: the rows route for N == 1, the chooser's kernels for M == 1 (the cols
    route lost on wide unaligned B in session 43's held-out A/B); 0 off for both."""
    assert _testing.KNOBS["sgemm_gemv"] == 4
    assert not plan((1, 263, 13808), 0)["config"].startswith("gemv")
    assert plan((1, 263, 13808), 3)["config"] == plan((1, 263, 13808), 0)["config"]
    assert plan((7288, 1, 304), 3)["config"].startswith("gemv rows (N = 1)")
    for mnk in class_shapes(300):
        three, want = plan(mnk, 3), plan(mnk, 1 if mnk[1] == 1 else 0)
        assert (three["config"], three["blocks"]) == (want["config"], want["blocks"]), mnk


def test_route_takes_exactly_the_class():
    law = [d.shape for d in draws.sgemm_draws(1500, 3432)]
    for mnk in class_shapes(600) + law:
        M, N, K = mnk
        on, off = plan(mnk, 1), plan(mnk, 0)
        if (M == 1 or N == 1) and K >= 1:
            want = "gemv rows (N = 1)" if N == 1 else "gemv cols (M = 1)"
            assert on["config"].startswith(want), (mnk, on["config"])
        else:
            assert on["config"] == off["config"] and on["blocks"] == off["blocks"], mnk


def test_level_two_fuses_exactly_the_splits():
    """Knob 2: the same route, and a split's slices summed in the kernel (no reduce kernel) wherever the grid has
    <= 4096 columns (counters.h SMK_RT_COUNTERS); explain() counts the tail's second cross-warp sum."""
    for mnk in class_shapes(800):
        one, two = plan(mnk, 1), plan(mnk, 2)
        s = splits_of(one)
        assert splits_of(two) == s and two["blocks"] == one["blocks"], mnk
        assert ("fused tail" in two["config"]) == (s > 1 and one["blocks"] // s <= 4096), (mnk, two["config"])
        assert two["config"].replace(", fused tail", "") == one["config"], mnk
        if mnk[0] == 1 and mnk[1] > 1:
            extra = one["blocks"] // s if s > 1 else 0
            assert [a[3] for a in two["accesses"]] == [a[3] + extra for a in one["accesses"]], mnk


def test_forced_calls_keep_the_chooser():
    for mnk in [(1, 263, 13808), (7288, 1, 304)]:
        for config, splits in [(2, 0), (0, 3), (2, 5)]:
            on, off = plan(mnk, 1, config=config, splits=splits), plan(mnk, 0, config=config, splits=splits)
            assert (on["config"], on["blocks"]) == (off["config"], off["blocks"]), mnk


def test_route_geometry():
    for mnk in class_shapes():
        M, N, K = mnk
        p = plan(mnk, 1)
        s = splits_of(p)
        assert 1 <= s <= 64, (mnk, s)
        chunk = math.ceil(K / s) if s == 1 else None
        if s > 1:  # gemv.cu sgemv_split: slices a multiple of 16 deep, none empty
            chunk = (math.ceil(K / s) + 15) // 16 * 16
            assert math.ceil(K / chunk) == s and chunk % 16 == 0, (mnk, s)
        if N == 1:
            g = int(p["config"].split(", ")[1].split()[0])
            assert g in (8, 16, 32)
            assert p["blocks"] == math.ceil(M / (256 // g)) * s, (mnk, p)
            assert p["smem_bytes"] == 0 and p["accesses"] == []
        else:
            cols = int(p["config"].split(", ")[1].split("-")[0])
            assert cols in (32, 64, 128)
            strips = math.ceil(N / cols)
            assert cols == 32 or 8 * strips * cols <= 9 * N, (mnk, cols)  # strips within 1/8 waste ...
            cap = max(1, min(64, K // (2 * 8 * (128 // cols))))  # slices of >= 2 rows of B per lane
            assert cols == 32 or strips >= 2 * SMS or strips * cap >= 4 * SMS, (mnk, p)  # ... that can fill 4 per SM
            assert p["blocks"] == strips * s, (mnk, p)
        if s > 1:  # split only under 2 blocks per SM, and never into slices of under 16 k
            assert p["blocks"] // s < 2 * SMS and chunk >= 16, (mnk, p)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cols_plan_is_conflict_free(layout):
    for mnk in [(1, 263, 13808), (1, 8833, 2381), (1, 100, 7)]:
        with _testing.knobs(sgemm_gemv=1):
            e = smemkit.explain("sgemm", mnk, layout)
        p = plan(mnk, 1, layout)
        assert e.config.startswith("gemv cols") and len(e.accesses) == 2
        store, load = e.accesses
        off = layout != "swizzle"  # naive / pad: warp 0 issues the predicated STS.128 with every lane off (SASS)
        assert store.instructions - off * e.blocks == load.instructions == 7 * e.blocks
        for a in e.accesses:
            assert a.excess == 0 and a.wavefronts == 4 * load.instructions, (layout, mnk)
        st, ld = p["accesses"][0][4].reshape(-1, 32), p["accesses"][1][4]
        assert len(st) == 7 + off and (st[7:] < 0).all()
        st = st[:7]
        assert (st >= 0).all() and len(np.unique(st)) == st.size  # every lane of warps 1..7 its own 16 bytes
        np.testing.assert_array_equal(np.sort(st.ravel()), np.sort(ld.ravel()))  # warp 0 reads what they wrote
        assert p["smem_bytes"] >= 7 * 128 * 4


def test_rows_plan_has_no_shared_memory():
    with _testing.knobs(sgemm_gemv=1):
        e = smemkit.explain("sgemm", (7288, 1, 304), "pad")
    assert e.config.startswith("gemv rows") and len(e.accesses) == 0 and e.blocks == math.ceil(7288 / 16)


# ---- GPU ------------------------------------------------------------------------------------------

SHAPES = [(1, 263, 13808), (1, 8833, 2381), (1, 3371, 313), (1, 1327, 6349), (1, 5, 50003), (1, 129, 1),
          (1, 31, 77), (1, 1000, 4), (7288, 1, 304), (4529, 1, 1547), (4180, 1, 1310), (3, 1, 100001),
          (1, 1, 1), (1, 1, 4099), (100, 1, 1), (257, 1, 33), (5000, 1, 7), (1, 2, 3)]
AB = [(1.0, 0.0), (-0.5, 0.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
@pytest.mark.parametrize("level", [1, 2])
def test_numpy_calls_within_bound(layout, mnk, alpha, beta, level, rng, poison, set_knobs):
    set_knobs(sgemm_gemv=level)
    check_numpy_call(rng, mnk, alpha, beta, layout)


def torch_case(torch, g, M, N, K, how):
    """A, B (x), C as device tensors: dense, or off 16 bytes in NaN frames (odd pitches, bases 1..3 floats past
    16 bytes), or x a strided column / a misaligned contiguous vector."""
    if how == "dense":
        return dense_operands(torch, g, M, N, K)
    if how == "frames":
        a, _ = framed(torch, g, M, K, K + 1 if K % 2 == 0 else K + 2, 1)
        b, _ = framed(torch, g, K, N, N + 3 if N > 1 else 1, 2)
        c, _ = framed(torch, g, M, N, N, 3)
        return a, b, c
    if how == "strided-x":
        a = odd_pitch_view(torch, g, M, K)
        b = torch.randn(K, N + 6, device="cuda", generator=g)[:, 3:3 + N]
        return a, b, torch.randn(M, N, device="cuda", generator=g)
    a = torch.randn(M, K, device="cuda", generator=g)  # "aligned-a": A on 16 bytes, x / B off them
    return a, odd_pitch_view(torch, g, K, N), odd_pitch_view(torch, g, M, N)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("how", ["dense", "frames", "strided-x", "aligned-a"])
@pytest.mark.parametrize("mnk", [(1, 263, 13808), (1, 1327, 6349), (1, 77, 5), (1, 4099, 130), (7288, 1, 304),
                                 (4529, 1, 1547), (3, 1, 70001), (33, 1, 9), (1, 1, 2049)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("level", [1, 2])
def test_torch_views_within_bound(layout, how, mnk, level, torch, poison, set_knobs):
    set_knobs(sgemm_gemv=level)
    check_torch_views(torch, torch_case, layout, how, mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(1, 263, 13808), (4529, 1, 1547), (1, 70, 9), (3, 1, 5001)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shift", [0, 1, 3])
@pytest.mark.parametrize("level", [1, 2])
def test_out_and_c_in_nan_frames(mnk, shift, level, torch, set_knobs):
    """out= a view `shift` floats past 16 bytes in a NaN frame: nothing written outside it; beta = 0 with C all
    NaN reads no C; out=c (C aliasing D) with beta != 0."""
    set_knobs(sgemm_gemv=1)
    check_out_and_c_in_nan_frames(torch, torch_case, mnk, shift)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(1, 300, 5000), (300, 1, 5000), (1, 1, 70000), (1, 8833, 2381)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("level", [1, 2])
def test_nan_inf_and_repeats(mnk, level, set_knobs):
    """NaN / Inf propagate like NumPy's (and nowhere else); repeated calls give the same bits (fixed sum order,
    whichever block of the fused tail arrives last)."""
    set_knobs(sgemm_gemv=level)
    check_nan_inf_and_repeats(mnk)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("level", [1, 2])
def test_k_zero_and_law_draws(layout, level, torch, poison, set_knobs):
    """K = 0 keeps the old path (beta C or zeros); 40 of the class's law draws (seed 3433) as dense torch calls."""
    set_knobs(sgemm_gemv=level)
    c = np.random.default_rng(5).standard_normal((1, 11)).astype(np.float32)
    np.testing.assert_array_equal(smemkit.sgemm(np.ones((1, 0), np.float32), np.ones((0, 11), np.float32),
                                                layout=layout), np.zeros((1, 11)))
    np.testing.assert_allclose(smemkit.sgemm(np.ones((1, 0), np.float32), np.ones((0, 11), np.float32), c,
                                             beta=-2.0, layout=layout), -2.0 * c, rtol=0, atol=0)
    shapes = [d.shape for d in draws.sgemm_draws(3000, 3433) if 1 in d.shape[:2]][:40]
    check_dense_draws(torch, shapes, 3433, layout)
