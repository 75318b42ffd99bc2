"""Issue 27's narrow-N class (knob sgemm_narrow): the skinny-n kernel (csrc/sgemm/skinny_n.cuh) with one N tile of 16
or 32 columns, "skinny-n16" / "skinny-n32" (configs.h: R = 4 rows per warp, R * NS = 64 / 128 sums per lane,
reduce-scattered in groups of 32).  CPU: the chooser offers them only at sgemm_narrow 1 (level >= 6) and only for the N
each holds in one tile, on thousands of draws of the law; explain() replays their shared accesses (store counts and the
bank arithmetic of skinny_n.cuh).  GPU: forced in every layout with N / K tails, K splits, alpha / beta, NaN-poisoned
outputs, odd pitches, and as the chooser's pick, against the float64 reference within gamma_{K+2} (test_sgemm.check)."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from _shared import check_numpy_call
from test_sgemm import check, check_torch_calls, odd_pitch_view
from test_sgemm_skinny_waves import law

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
NARROW = ["skinny-n16", "skinny-n32"]
# configs.h: (NS, R, BK, THREADS); BM = R * THREADS / 32
GEOM = {"skinny-n16": (16, 4, 128, 128), "skinny-n32": (32, 4, 128, 256)}
SMS = 132


def choose(mnk, narrow, level=11):
    with _testing.knobs(sgemm_narrow=narrow, sgemm_new_paths=level):
        return _C._sgemm_choose(*mnk, SMS)


def shapes():
    rng = np.random.default_rng(3301)
    return law(rng, 2500, nmax=40)


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_default_is_off():
    assert _testing.KNOBS["sgemm_narrow"] == 0
    assert all(n in CONFIGS for n in NARROW)


def test_knob_off_never_offers_the_narrow_rows():
    for mnk in shapes():
        assert choose(mnk, 0)[0] not in NARROW, mnk


def test_knob_on_moves_only_narrow_n_and_to_the_row_that_holds_n():
    moved = 0
    for mnk in shapes():
        M, N, K = mnk
        old, new = choose(mnk, 0), choose(mnk, 1)
        if new[0] in NARROW:
            moved += 1
            ns, _, bk, _ = GEOM[new[0]]
            assert ns // 2 < N <= ns and K > 16, (mnk, new)
            assert 1 <= new[1] <= max(1, math.ceil(K / bk)), (mnk, new)
        else:
            assert new == old, (mnk, old, new)
    assert moved > 100  # the class is a real share of N <= 40 draws


@pytest.mark.parametrize("level", [3, 5])
def test_levels_below_six_ignore_the_knob(level):
    for mnk in shapes()[:600]:
        assert choose(mnk, 1, level) == choose(mnk, 0, level), mnk


@pytest.mark.parametrize("mnk", [(14773, 27, 2707), (2894, 22, 42091), (6289, 9, 3857), (9795, 28, 11738),
                                 (1533, 12, 52468), (2255, 17, 17763), (5053, 34, 700), (8706, 23, 411),
                                 (12576, 11, 193)], ids=lambda s: "x".join(map(str, s)))
def test_issue_examples_choice(mnk):
    """Issue 27's examples (seed 173): N <= 32 take the row that holds N in one tile; N = 34 stays on the tiles."""
    name, s = choose(mnk, 1)
    N = mnk[1]
    if N <= 32:
        assert name == ("skinny-n16" if N <= 16 else "skinny-n32"), (mnk, name, s)
    else:
        assert name not in NARROW


@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(100, 13, 1000), (64, 32, 256), (33, 17, 129)], ids=lambda s: "x".join(map(str, s)))
def test_plan(name, layout, mnk):
    M, N, K = mnk
    ns, r, bk, threads = GEOM[name]
    warps, bm = threads // 32, r * threads // 32
    e = smemkit.explain("sgemm", mnk, layout, config=CONFIGS.index(name), splits=1)
    assert e.config.startswith(f"skinny-N {bm}x{ns}x{bk} block tile, {threads} threads, {r} rows per warp")
    nb, kt = math.ceil(M / bm) * math.ceil(N / ns), math.ceil(K / bk)
    assert e.blocks == nb
    store, load = e.accesses
    b_loads = bk * ns // 4 // threads
    assert store.instructions == nb * (kt + 1) * warps * 4 * b_loads
    assert load.instructions == nb * kt * warps * (bk // 128) * ns
    assert load.excess == 0 and load.wavefronts == 4 * load.instructions
    # skinny_n.cuh: a warp's store e hits 128 / NS consecutive k in NS / 4 rows e, 4+e, ..
    ways = {"naive": ns // 4, "pad": ns // 8, "swizzle": ns // 8}[layout]
    assert store.worst_ways == float(ways) and store.wavefronts == ways * store.instructions


@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_plan_writes_every_slice_element_once(name, layout):
    p = _C._plan("sgemm", (64, 32, 1024), layout, 4, SMS, CONFIGS.index(name), 1)
    ns, _, bk, threads = GEOM[name]
    assert p["threads"] == threads
    assert p["smem_bytes"] == 2 * ns * (bk + (4 if layout == "pad" else 0)) * 4
    store = p["accesses"][0][4]
    assert (store >= 0).all() and len(np.unique(store)) == store.size


# ---- GPU ------------------------------------------------------------------------------------------

SHAPES = [(100, 13, 1000), (257, 16, 129), (1000, 9, 4099), (33, 17, 129), (64, 32, 256), (999, 27, 3001),
          (5, 31, 77), (4096, 22, 1025), (1, 16, 5003), (77, 32, 1)]
AB = [(1.0, 0.0), (-0.5, 0.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_forced_within_bound(name, layout, mnk, splits, alpha, beta, rng, poison, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    check_numpy_call(rng, mnk, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(700, 13, 513), (130, 30, 1001), (17, 19, 300)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_forced_on_odd_pitches(name, layout, mnk, splits, torch, poison, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + 31 * N)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    a_h, b_h, c_h = a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy()
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    check(np.ascontiguousarray(d.cpu().numpy()), a_h, b_h, c_h, 0.5, -1.5)


@pytest.mark.gpu
@pytest.mark.parametrize("name", NARROW)
def test_nan_and_inf_propagate_like_numpy(name, set_knobs):
    set_knobs(sgemm_config=name, sgemm_splits=1)
    a = np.ones((70, 300), np.float32)
    b = np.ones((300, 20), np.float32)
    a[41, 280] = np.nan
    b[3, 17] = np.inf
    d = smemkit.sgemm(a, b)
    want = a @ b
    np.testing.assert_array_equal(np.isnan(d), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(6289, 9, 3857), (2255, 17, 1776), (8706, 23, 411), (12576, 11, 193),
                                 (3000, 32, 2049)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_auto_calls_with_the_knob(mnk, layout, torch, poison, set_knobs):
    """A user's dense torch call with sgemm_narrow=1: the chooser's narrow row and its K split."""
    set_knobs(sgemm_narrow=1)
    M, N, K = mnk
    name, _ = _C._sgemm_choose(M, N, K, torch.cuda.get_device_properties(0).multi_processor_count)
    assert name in NARROW, (mnk, name)
    check_torch_calls(torch, M, N, K, M * 7 + N, layout)
