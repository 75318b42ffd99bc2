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
# Edge blocks read stand-ins (row M - 1, a row's last whole float4) for rows past M and float4
# columns past N: N % 4 == 0 (every float4 whole), 1 and 2 (one straddles N), N < 4 (none whole).
SHAPES = [(300, 200, 1001), (129, 257, 65), (1, 513, 77), (70, 5, 300), (37, 3, 129), (200, 130, 96)]
AB = [(1.0, 0.0), (2.0, -0.75)]


@pytest.fixture
def force(set_knobs):
    return lambda config, splits: set_knobs(sgemm_config=config, sgemm_splits=splits)


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
@pytest.mark.parametrize("mnk", [(131, 67, 203), (45, 3, 77)], ids=lambda s: "x".join(map(str, s)))
def test_forced_config_on_unaligned_device_views(config, layout, mnk, torch, force):
    """Row pitches that are odd and bases off 16 bytes: every config's scalar (VEC = false) path."""
    force(config, 0)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(7)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    torch.cuda.synchronize()
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)


def nan_framed_view(torch, g, r, c, vec):
    """An r x c float32 CUDA view inside a NaN frame: NaN in the row pitch's padding and in 8 rows after
    the last.  vec: a 16-byte pitch and base (the float4 path), else an odd pitch (the scalar path)."""
    pitch = (c + 4 + 3) // 4 * 4 if vec else (c + 1 if c % 2 == 0 else c + 2)
    full = torch.full((r + 8, pitch), float("nan"), device="cuda")
    full[:r, :c] = torch.randn(r, c, device="cuda", generator=g)
    return full[:r, :c]


@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(70, 5, 300), (300, 200, 1001), (37, 3, 129)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("vec", [True, False], ids=["pitch16", "oddpitch"])
def test_forced_config_never_reads_the_nan_frame(config, layout, mnk, splits, vec, torch, poison, force):
    """Nothing outside the operands' M x K and K x N reaches the output: edge blocks read in-range
    stand-ins for rows past M and columns past N, a float4 of B that straddles N is read whole (its
    columns past N, NaN here, feed only outputs never stored), and the ragged last k-tile reads
    nothing past K.
    Padding and rows past the end are NaN here, so one stray read (times a zeroed B row: NaN * 0)
    turns outputs into NaN; a build whose clamped load count let float4 loads run with nothing in
    range did exactly that."""
    force(config, splits)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(11)
    a, b = nan_framed_view(torch, g, M, K, vec), nan_framed_view(torch, g, K, N, vec)
    d = smemkit.sgemm(a, b, layout=layout)
    torch.cuda.synchronize()
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy())
