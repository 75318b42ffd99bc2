"""Knob sgemm_redchain: the SGEMM chooser prices a K split's reduction by the chain of dependent slice loads
each lane of csrc/sgemm/reduce.cuh walks (ceil(S / L / 4) round trips, L = 32 / G lanes a float4 group), and
offers grids of a quarter, half and one block per SM as splits (csrc/sgemm/choose.cu sgemm_reduce_chain_ns).
The class: tiny outputs with a very long K, split 255..652 ways, whose reduction took 9-16 us of device time
(H100 seed 174: 5x57x29765 0.58 of cuBLAS, 17x62x36733 0.65, 8x85x20370 0.71).

CPU: the knob's range and default; level 0 is the chooser as before; on the law's draws level 1's splits are
valid and never walk a longer chain than level 0's; the class moves to <= 128 slices; explain() follows the
choice.  GPU: the class at level 1, every layout, alpha / beta with C, NaN-poisoned outputs, within gamma_{K+2}."""
import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check
from test_sgemm_skinny_waves import law

SMS = 132
CLASS = [(5, 57, 29765), (17, 62, 36733), (8, 85, 20370), (1, 178, 41685)]


def choose(mnk, level, sms=SMS):
    with _testing.knobs(sgemm_redchain=level):
        return _C._sgemm_choose(*mnk, sms)


def trips(s):
    """reduce.cuh: G = 2 from 16 slices, 4 from 8, else 8 float4 groups a warp; L = 32 / G lanes a group."""
    L = 32 // (2 if s >= 16 else 4 if s >= 8 else 8)
    return -(-(-(-s // L)) // 4)


def test_knob_range_and_default(set_knobs):
    assert _testing.KNOBS["sgemm_redchain"] == 1  # session 42's A/B (seed 177)
    for bad in (-1, 2):
        with pytest.raises(ValueError):
            set_knobs(sgemm_redchain=bad)


def test_law_splits_valid_and_chains_no_longer():
    moved = 0
    for mnk in law(np.random.default_rng(3302), 3000):
        for sms in (SMS, 78):
            (c0, s0), (c1, s1) = choose(mnk, 0, sms), choose(mnk, 1, sms)
            assert s1 >= 1 and s1 <= max(1, mnk[2])
            if (c0, s0) != (c1, s1):
                moved += 1
                assert trips(s1) <= trips(s0) or s1 == 1 or s0 == 1, (mnk, sms, (c0, s0), (c1, s1))
    assert moved > 0


@pytest.mark.parametrize("mnk", CLASS, ids=lambda s: "x".join(map(str, s)))
def test_class_moves_to_a_short_chain(mnk):
    (c0, s0), (c1, s1) = choose(mnk, 0), choose(mnk, 1)
    assert s0 > 200 and 1 < s1 <= 200 and trips(s1) < trips(s0), ((c0, s0), (c1, s1))
    for level, (c, s) in ((0, (c0, s0)), (1, (c1, s1))):
        with _testing.knobs(sgemm_redchain=level, sgemm_gemv=3):  # the chooser's price: the wide M <= 4 route off
            e = smemkit.explain("sgemm", mnk, "swizzle", sms=SMS)
        assert e.config.endswith(f"splits {s}"), (level, c, e.config)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("mnk", CLASS, ids=lambda s: "x".join(map(str, s)))
def test_class_within_bound(mnk, layout, poison, set_knobs):
    set_knobs(sgemm_redchain=1, sgemm_gemv=3)  # the skinny-m chain this class tests
    rng = np.random.default_rng(sum(mnk))
    M, N, K = mnk
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    c = rng.standard_normal((M, N), dtype=np.float32)
    check(smemkit.sgemm(a, b, layout=layout), a, b)
    check(smemkit.sgemm(a, b, c, alpha=-0.75, beta=1.25, layout=layout), a, b, c, -0.75, 1.25)
