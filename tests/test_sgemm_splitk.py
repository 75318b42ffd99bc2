"""smemkit.sgemm through split-K (GPU): the K slices' partial tiles and the reduction that applies
alpha and beta, for every layout, against the float64 reference within gamma_{K+2} (test_sgemm.check:
split-K changes the order of the sums, not the bound).  Shapes the chooser splits on this device run
as they ship; the `splits` fixture forces a split on shapes it would not split."""
import numpy as np
import pytest

import smemkit
from smemkit import _C
from _shared import check_numpy_call, operands
from test_sgemm import check

LAYOUTS = smemkit.LAYOUTS
# K of no particular divisibility; outputs too small to give every SM a tile
AUTO_SHAPES = [(64, 64, 65536), (128, 128, 16384), (256, 256, 8192), (130, 67, 2049), (1, 1, 5003),
               (37, 45, 4099), (1, 4096, 4096), (33, 1, 40000)]
FORCED = [((37, 45, 83), 3), ((37, 45, 83), 11), ((64, 64, 17), 2), ((300, 200, 1001), 7), ((5, 3, 9), 2),
          ((1000, 1000, 1000), 4)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


@pytest.fixture
def splits(set_knobs):
    return lambda s: set_knobs(sgemm_splits=s)


def sms():
    return _C._device_info()["sms"]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", AUTO_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_auto_split_within_bound(layout, mnk, alpha, beta, rng, poison):
    assert _C._sgemm_choose(*mnk, sms())[1] > 1, "this shape is meant to take the split-K path"
    check_numpy_call(rng, mnk, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk,s", FORCED, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_forced_split_within_bound(layout, mnk, s, alpha, beta, rng, poison, splits):
    splits(s)
    a, b, c = operands(rng, *mnk, beta)
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    check(d, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("forced", [0, 5])
def test_beta_zero_does_not_read_a_nan_c(layout, forced, rng, poison, splits):
    splits(forced)
    a, b, _ = operands(rng, 70, 33, 3001, 0.0)
    c = np.full((70, 33), np.nan, np.float32)
    d = smemkit.sgemm(a, b, c, beta=0.0, alpha=1.5, layout=layout)
    check(d, a, b, None, 1.5, 0.0)


@pytest.mark.gpu
def test_nan_and_inf_in_one_slice_propagate_like_numpy(splits):
    splits(4)
    a = np.ones((6, 64), np.float32)
    b = np.ones((64, 5), np.float32)
    a[1, 40] = np.nan  # slice 2 of 4 (16 deep each)
    b[3, 4] = np.inf   # slice 0
    d = smemkit.sgemm(a, b)
    want = a @ b
    np.testing.assert_array_equal(np.isnan(d), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_k_is_deterministic_and_close_to_unsplit(layout, rng, splits):
    a, b, _ = operands(rng, 128, 128, 16384, 0.0)
    d1 = smemkit.sgemm(a, b, layout=layout)
    d2 = smemkit.sgemm(a, b, layout=layout)
    np.testing.assert_array_equal(d1, d2)  # the reduction's order is fixed, not timing-dependent
    splits(1)
    d0 = smemkit.sgemm(a, b, layout=layout)
    check(d0, a, b)
    check(d1, a, b)


@pytest.mark.gpu
def test_bench_times_split_and_unsplit():
    auto = smemkit.bench("sgemm", (64, 64, 8192), layout="swizzle", reps=3)[0]
    one = smemkit.bench("sgemm", (64, 64, 8192), layout="swizzle", splits=1, reps=3)[0]
    assert auto.median_ms > 0 and one.median_ms > 0
    with pytest.raises(ValueError, match="splits"):
        smemkit.bench("sgemm", (64, 64, 8192), splits=0)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("pdl", [0, 1])
@pytest.mark.parametrize("mnk,s", [((300, 200, 1001), 7), ((1, 4096, 4096), 0), ((33, 1, 40000), 0)],
                         ids=["300x200x1001-s7", "1x4096x4096", "33x1x40000"])
def test_reduction_as_a_dependent_launch_or_after_the_gemm(layout, pdl, mnk, s, rng, poison, set_knobs):
    """Knob 'pdl' (0 the default: the reduction launches after the GEMM; 1: a programmatic dependent
    launch on sm_90) changes when the reduction starts, never what it computes."""
    set_knobs(pdl=pdl, sgemm_splits=s)
    assert s or _C._sgemm_choose(*mnk, sms())[1] > 1
    a, b, c = operands(rng, *mnk, 1.0)
    check(smemkit.sgemm(a, b, c, alpha=2.0, beta=-0.75, layout=layout), a, b, c, 2.0, -0.75)
