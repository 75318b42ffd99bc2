"""Every shipped SGEMM config forced (GPU): the six tile configs of the warp-tiled kernel and the two
skinny kernels, each layout, block edges in M, N and K, alpha/beta, unsplit and a forced K split, on
NaN-poisoned outputs, against the float64 reference within gamma_{K+2} (test_sgemm.check).  The
chooser picks among these per shape (tests/test_sgemm_choose.py); these tests make every one of them
run on shapes it would not be picked for, so none is correct only where the model sends it."""
import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_sgemm import check, odd_pitch_view

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")[1:]  # every config compiled in (index 0 is "auto")
SHAPES = [(300, 200, 1001), (129, 257, 65), (1, 513, 77), (70, 5, 300)]
AB = [(1.0, 0.0), (2.0, -0.75)]


@pytest.fixture
def force():
    def set_(config, splits):
        _C._set_knob("sgemm_config", CONFIGS.index(config) + 1)
        _C._set_knob("sgemm_splits", splits)
    yield set_
    _C._set_knob("sgemm_config", 0)
    _C._set_knob("sgemm_splits", 0)


def test_every_shipped_config_is_forceable_by_name():
    for name in ["128x128x8", "64x64x8", "128x256x8", "64x64x16", "128x64x8", "64x128x8", "skinny-m", "skinny-n",
                 "64x128x8/minb4"]:
        assert name in CONFIGS
        assert name in smemkit.bench_configs("sgemm")


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_forced_config_within_bound(config, layout, mnk, splits, alpha, beta, rng, poison, force):
    force(config, splits)
    M, N, K = mnk
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    check(d, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_forced_config_on_unaligned_device_views(config, layout, torch, force):
    """Row pitches that are odd and bases off 16 bytes: every config's scalar (VEC = false) path."""
    force(config, 0)
    M, N, K = 131, 67, 203
    g = torch.Generator(device="cuda").manual_seed(7)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    torch.cuda.synchronize()
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)
