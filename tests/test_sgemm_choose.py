"""smk_sgemm_choose (CPU): the tile config and K split every SGEMM launch uses, and the plan that
explain() replays for it.  _C._sgemm_choose is the pure C function; no GPU is needed."""
import itertools
import math

import pytest

import smemkit
from smemkit import _C

SIZES = [1, 7, 64, 128, 1000, 4096, 65536]
KS = [1, 16, 128, 8192, 65536]
SMS = [1, 108, 132]
CONFIGS = _C._configs("sgemm")


# (BM, BN, BK) of the memory-bound configs, whose names are not their tile (csrc/sgemm/configs.h: the skinny-m / skinny-n rows)
SKINNY_GEOM = {"skinny-m": (8, 512, 64), "skinny-n": (16, 8, 256), "tiny-k": (128, 128, 16),
               "skinny-m16": (16, 512, 64), "skinny-m32": (32, 512, 32), "tiny-k/rw2": (16, 128, 16)}



@pytest.fixture(autouse=True)
def _level_3(set_knobs):
    """These rules are issue 27's level 3 (the chooser's own default); _sgemm_choose and _plan follow the
    launcher's level, the knob sgemm_new_paths (7 by default: docs/SGEMM_NOTES.md), so pin it here."""
    set_knobs(sgemm_new_paths=3)

def geom(name):
    return SKINNY_GEOM.get(name) or tuple(int(v) for v in name.split("/")[0].split("x")[:3])


def bk_of(name):
    return geom(name)[2]


def tiles_of(name, M, N):
    bm, bn, _ = geom(name)
    return math.ceil(M / bm) * math.ceil(N / bn)


def minblocks_of(name):
    return {"128x128x8": 2, "64x64x8": 4, "128x256x8": 1, "64x64x16": 4, "128x64x8": 4, "64x128x8": 3,
            "64x128x8/minb4": 4,
            "skinny-m": 4, "skinny-n": 3, "tiny-k": 2, "skinny-m16": 3, "skinny-m32": 2, "32x128x16": 4,
            "tiny-k/rw2": 2}.get(name, 1)


@pytest.mark.parametrize("sms", SMS)
def test_every_shape_of_the_grid_gets_a_valid_choice(sms):
    for M, N, K in itertools.product(SIZES, SIZES, KS):
        name, splits = _C._sgemm_choose(M, N, K, sms)
        assert name in CONFIGS[1:], (M, N, K, sms, name)
        assert isinstance(splits, int) and 1 <= splits <= max(1, math.ceil(K / bk_of(name))), (M, N, K, sms, splits)
        wave = sms * minblocks_of(name)
        if tiles_of(name, M, N) >= 2 * wave:
            assert splits == 1, f"{M}x{N}x{K} on {sms} SMs: the tiles fill two waves, yet split {splits} ways"
        assert tiles_of(name, M, N) * splits <= 4 * wave + tiles_of(name, M, N), (M, N, K, sms, name, splits)


@pytest.mark.parametrize("sms", [108, 132])
@pytest.mark.parametrize("mnk", [(64, 64, 65536), (128, 128, 16384), (256, 256, 8192), (1, 1, 65536),
                                 (1, 4096, 4096), (1000, 1000, 1000), (130, 67, 2049)],
                         ids=lambda s: "x".join(map(str, s)))
def test_k_heavy_small_outputs_are_split(mnk, sms):
    name, splits = _C._sgemm_choose(*mnk, sms)
    assert splits > 1
    blocks = tiles_of(name, *mnk[:2]) * splits
    assert sms // 2 <= blocks <= 4 * sms * minblocks_of(name), f"{blocks} blocks of {name} for {sms} SMs"


@pytest.mark.parametrize("sms", [108, 132])
@pytest.mark.parametrize("n", [4096, 8192])
def test_big_squares_and_short_k_are_not_split(n, sms):
    assert _C._sgemm_choose(n, n, n, sms) == ("128x128x8", 1)  # the tile sweep's fastest at big squares
    assert _C._sgemm_choose(n, n, 16, sms)[1] == 1
    assert _C._sgemm_choose(64, 65536, 1024, sms)[1] == 1
    if sms == 132:  # 512 tiles of 128x64 fill one wave of 528; on 108 SMs (432) the model may split
        assert _C._sgemm_choose(65536, 64, 1024, sms)[1] == 1


def exact_chunk(K, S, bk):
    """sgemm_exact_split's slice depth: ceil(K / S) rounded up to whole k-tiles (K when S == 1)."""
    return K if S <= 1 else math.ceil(math.ceil(K / S) / bk) * bk


def test_shallow_k_is_never_split_below_48_deep_slices():
    for M, N, K in itertools.product(SIZES, SIZES, [1, 8, 16, 63, 64, 128, 255, 256, 511, 1000, 16384]):
        name, splits = _C._sgemm_choose(M, N, K, 132)
        if splits > 1:  # every slice but the last at least 48 deep, in whole k-tiles
            assert exact_chunk(K, splits, bk_of(name)) >= 48, (M, N, K, name, splits)
        if K <= bk_of(name):
            assert splits == 1


def test_the_slice_floor_counts_whole_k_tiles():
    """256 deep in 64x64x16 tiles: 6 slices of 48 (the last 16) are allowed, where K // 48 = 5 is not the
    limit (measured on an H100: 0.96 of cuBLAS at 6 slices, 0.77 unsplit; docs/SGEMM_NOTES.md)."""
    assert _C._sgemm_choose(256, 256, 256, 132) == ("64x64x16", 6)
    assert exact_chunk(256, 6, 16) == 48 and exact_chunk(256, 7, 16) == 48  # 7 asks for 6 slices
    assert exact_chunk(100, 3, 8) == 40  # too shallow: 100 deep allows at most 2 slices of 48+


@pytest.mark.parametrize("mn,want", [((65536, 64), "128x64x8"), ((65536, 192), "128x64x8"),
                                     ((65536, 128), "128x128x8"), ((65536, 256), "128x128x8"),
                                     ((4097, 4095), "128x128x8")])
def test_tall_outputs_get_tiles_that_are_not_half_empty(mn, want):
    """Picks of the cost model where the tile sweep's winner was clear (docs/SGEMM_NOTES.md)."""
    assert _C._sgemm_choose(*mn, 1024, 132) == (want, 1)


def test_the_model_follows_the_sm_count():
    """The same shape on fewer SMs never gets more blocks per SM than on more."""
    for M, N, K in [(1024, 1024, 1024), (128, 128, 16384), (1023, 517, 2049)]:
        per_sm = []
        for sms in (16, 66, 132):
            name, s = _C._sgemm_choose(M, N, K, sms)
            per_sm.append(tiles_of(name, M, N) * s / sms)
        assert all(p > 0 for p in per_sm)


def test_choose_is_pure_and_checks_its_arguments():
    assert _C._sgemm_choose(128, 128, 16384, 132) == _C._sgemm_choose(128, 128, 16384, 132)
    name, s0 = _C._sgemm_choose(0, 0, 0, 132)
    assert name in CONFIGS[1:] and s0 == 1
    for bad in [(-1, 1, 1, 132), (1, -1, 1, 132), (1, 1, -1, 132), (1, 1, 1, 0)]:
        with pytest.raises(ValueError, match="sms >= 1"):
            _C._sgemm_choose(*bad)


# ---- the plan explain() replays is the launch's choice, every K slice included -----------------------

def plan_splits(plan):
    field = plan["config"].rsplit(", splits ", 1)
    assert len(field) == 2, plan["config"]
    return int(field[1])


@pytest.mark.parametrize("sms", [108, 132])
@pytest.mark.parametrize("mnk", [(64, 64, 65536), (128, 128, 16384), (256, 256, 8192), (130, 67, 2049),
                                 (512, 512, 512), (4096, 4096, 4096), (1000, 7, 999)],
                         ids=lambda s: "x".join(map(str, s)))
def test_plan_follows_the_chooser_and_counts_every_slice(mnk, sms, set_knobs):
    set_knobs(sgemm_deep=0)  # the chooser's own tile (sgemm_deep's half tile: tests/test_sgemm_deep.py)
    name, splits = _C._sgemm_choose(*mnk, sms)
    plan = _C._plan("sgemm", mnk, "pad", 4, sms)
    assert plan["config"].startswith("x".join(map(str, geom(name))) + " block tile") or (
        name.startswith(("skinny", "tiny")) and
        plan["config"].startswith(name.replace("-m", "-M").replace("-n", "-N").replace("-k", "-K")))
    assert plan_splits(plan) == splits
    tiles = tiles_of(name, *mnk[:2])
    assert plan["blocks"] == tiles * splits
    # every k-tile of every output tile is run by exactly one slice: the shared traffic of the
    # launch is that of the unsplit GEMM
    unsplit = _C._plan("sgemm", mnk, "pad", 4, sms, 0, 1)
    assert plan_splits(unsplit) == 1 and unsplit["blocks"] == tiles
    ktiles = math.ceil(mnk[2] / bk_of(name))
    for (n1, _, kind, r1, a1, *_), (n2, _, _, r2, a2, *_) in zip(plan["accesses"], unsplit["accesses"]):
        assert n1 == n2 and a1.shape == a2.shape
        if "after the last k-tile" in n1:  # the cross-barrier fragment row: once per block and K slice
            assert (r1, r2) == (tiles * splits, tiles)
            continue
        # loads: every k-tile once; stores: one more group per block and K slice (the kernel stores
        # after its last tile too)
        extra = (splits, 1) if kind == "store" else (0, 0)
        assert (r1, r2) == (tiles * (ktiles + extra[0]), tiles * (ktiles + extra[1]))


@pytest.mark.parametrize("K,forced,want", [(17, 3, 3), (17, 2, 2), (100, 1000, 13), (65536, 3, 3), (8, 5, 1),
                                           (0, 4, 1), (4096, 7, 7), (4096, 9, 9), (1000, 6, 6)])
def test_forced_splits_are_clamped_to_whole_k_tiles(K, forced, want):
    plan = _C._plan("sgemm", (64, 64, K), "swizzle", 4, 132, 2, forced)  # 64x64x8 tiles: k-tiles of 8
    assert plan_splits(plan) == want
    assert plan["blocks"] == want
    for name, _, kind, reps, *_ in plan["accesses"]:
        if "after the last k-tile" in name:
            assert reps == (want if K > 0 else 0)
        else:
            assert reps == math.ceil(K / 8) + (want if kind == "store" and K > 0 else 0)


def test_explain_reports_the_split():
    e = smemkit.explain("sgemm", (128, 128, 16384), "swizzle")
    assert e.config.endswith(f", splits {_C._sgemm_choose(128, 128, 16384, 132)[1]}")
    forced = smemkit.explain("sgemm", (128, 128, 16384), "swizzle", splits=1)
    assert forced.config.endswith(", splits 1")
    s = _C._sgemm_choose(128, 128, 16384, 132)[1]
    # the same k-tiles, sliced, and one fragment row after each slice's last k-tile
    per_row = forced.total("load") // (16384 + 1)
    assert e.total("load") == forced.total("load") + (s - 1) * per_row
    per_group = forced.total("store") // (16384 // 8 + 1)  # one store group per k-tile, +1 per slice
    assert e.total("store") == forced.total("store") + (s - 1) * per_group
    with pytest.raises(ValueError, match="splits"):
        _C._plan("sgemm", (8, 8, 8), "pad", 4, 132, 0, -1)
