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


def bk_of(name):
    return int(name.split("/")[0].split("x")[2])


def tiles_of(name, M, N):
    bm, bn = (int(v) for v in name.split("/")[0].split("x")[:2])
    return math.ceil(M / bm) * math.ceil(N / bn)


@pytest.mark.parametrize("sms", SMS)
def test_every_shape_of_the_grid_gets_a_valid_choice(sms):
    for M, N, K in itertools.product(SIZES, SIZES, KS):
        name, splits = _C._sgemm_choose(M, N, K, sms)
        assert name in CONFIGS[1:], (M, N, K, sms, name)
        assert isinstance(splits, int) and 1 <= splits <= math.ceil(K / bk_of(name)), (M, N, K, sms, splits)
        if tiles_of(name, M, N) >= sms:
            assert splits == 1, f"{M}x{N}x{K} on {sms} SMs: the tiles fill the GPU, yet split {splits} ways"


@pytest.mark.parametrize("sms", [108, 132])
@pytest.mark.parametrize("mnk", [(64, 64, 65536), (128, 128, 16384), (256, 256, 8192), (1, 1, 65536),
                                 (1, 4096, 4096), (4096, 1, 4096)], ids=lambda s: "x".join(map(str, s)))
def test_k_heavy_small_outputs_are_split(mnk, sms):
    name, splits = _C._sgemm_choose(*mnk, sms)
    assert splits > 1
    blocks = tiles_of(name, *mnk[:2]) * splits
    assert sms <= blocks <= 4 * sms, f"{blocks} blocks for {sms} SMs: more than one wave at 4 blocks per SM"


@pytest.mark.parametrize("sms", [108, 132])
@pytest.mark.parametrize("n", [2048, 4096, 8192])
def test_big_squares_and_short_k_are_not_split(n, sms):
    assert _C._sgemm_choose(n, n, n, sms) == ("128x128x8", 1)
    assert _C._sgemm_choose(n, n, 16, sms)[1] == 1
    assert _C._sgemm_choose(65536, 64, n, sms)[1] == 1
    assert _C._sgemm_choose(64, 65536, n, sms)[1] == 1


def test_shallow_k_is_never_split_below_64_deep_slices():
    for M, N, K in itertools.product(SIZES, SIZES, [1, 16, 63, 128, 255, 511, 1000]):
        name, splits = _C._sgemm_choose(M, N, K, 132)
        assert splits <= max(1, K // 64)


@pytest.mark.parametrize("mn,want", [((65536, 64), "64x64x8"), ((64, 65536), "64x64x8"), ((65536, 192), "64x64x8"),
                                     ((65536, 128), "128x128x8"), ((65536, 256), "128x128x8"),
                                     ((4097, 4095), "128x128x8"), ((16384, 64), "64x64x8")])
def test_big_tiles_only_where_they_are_not_half_empty(mn, want):
    assert _C._sgemm_choose(*mn, 1024, 132) == (want, 1)


def test_choose_is_pure_and_checks_its_arguments():
    assert _C._sgemm_choose(128, 128, 16384, 132) == _C._sgemm_choose(128, 128, 16384, 132)
    assert _C._sgemm_choose(0, 0, 0, 132) == ("64x64x8", 1)
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
def test_plan_follows_the_chooser_and_counts_every_slice(mnk, sms):
    name, splits = _C._sgemm_choose(*mnk, sms)
    plan = _C._plan("sgemm", mnk, "pad", 4, sms)
    assert plan["config"].startswith("x".join(name.split("/")[0].split("x")[:3]) + " block tile")
    assert plan_splits(plan) == splits
    tiles = tiles_of(name, *mnk[:2])
    assert plan["blocks"] == tiles * splits
    # every k-tile of every output tile is run by exactly one slice: the shared traffic of the
    # launch is that of the unsplit GEMM
    unsplit = _C._plan("sgemm", mnk, "pad", 4, sms, 0, 1)
    assert plan_splits(unsplit) == 1 and unsplit["blocks"] == tiles
    for (n1, _, _, r1, a1, *_), (n2, _, _, r2, a2, *_) in zip(plan["accesses"], unsplit["accesses"]):
        assert n1 == n2 and r1 == r2 == tiles * math.ceil(mnk[2] / bk_of(name))
        assert a1.shape == a2.shape


@pytest.mark.parametrize("K,forced,want", [(17, 3, 3), (17, 2, 2), (100, 1000, 13), (65536, 3, 3), (8, 5, 1),
                                           (0, 4, 1), (4096, 7, 7), (4096, 9, 9), (1000, 6, 6)])
def test_forced_splits_are_clamped_to_whole_k_tiles(K, forced, want):
    plan = _C._plan("sgemm", (64, 64, K), "swizzle", 4, 132, 0, forced)
    assert plan_splits(plan) == want
    assert plan["blocks"] == want
    assert all(acc[3] == math.ceil(K / 8) for acc in plan["accesses"])


def test_explain_reports_the_split():
    e = smemkit.explain("sgemm", (128, 128, 16384), "swizzle")
    assert e.config.endswith(f", splits {_C._sgemm_choose(128, 128, 16384, 132)[1]}")
    forced = smemkit.explain("sgemm", (128, 128, 16384), "swizzle", splits=1)
    assert forced.config.endswith(", splits 1")
    assert e.total() == forced.total()
    with pytest.raises(ValueError, match="splits"):
        _C._plan("sgemm", (8, 8, 8), "pad", 4, 132, 0, -1)
