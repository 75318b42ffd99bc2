"""Split-K's fused reduction in the SGEMM tile kernel (csrc/sgemm/fixup.cuh; knob splitk_fixup: 0 the
separate reduction kernel, 1 fused where csrc/sgemm/launch.cu's gate says, 2 fused on every tile split
launch whose tiles fit the counters, 3 on sm_90 the S <= 8 blocks of a tile as one thread-block cluster
that sums it together).  The last block of a tile, or the cluster's blocks, sum the S partials with the
separate reduction's own per-element order (reduce.cuh reduce_batch), so knobs 2 and 3 must equal knob 0
bit for bit.
CPU: the gate's properties on thousands of drawn shapes.  GPU: every layout, every tile config, forced
splits, alpha / beta / C, NaN-poisoned outputs, odd-pitch views, 20 repeated calls (the counters reset
themselves), two streams at once, and launches with more tiles than the counters (separate reduction)."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check, odd_pitch_view
from test_sgemm_tinyk import draws

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
TILES = [c for c in CONFIGS[1:] if c[0].isdigit()]
COUNTERS = 4096  # csrc/counters.h SMK_RT_COUNTERS
# block tile and threads of the TILE rows (csrc/sgemm/configs.h)
DIMS = {"128x128x8": (128, 128, 256), "64x64x8": (64, 64, 128), "128x256x8": (128, 256, 256),
        "64x64x16": (64, 64, 128), "128x64x8": (128, 64, 128), "64x128x8": (64, 128, 128),
        "64x128x8/minb4": (64, 128, 128), "32x128x16": (32, 128, 128), "128x32x16": (128, 32, 128)}


def chain(M, N, S, bm, bn, threads):
    """The gate's model: dependent L2 round trips of a tile's last block (launch.cu kFixupMaxChain)."""
    G = 2 if S >= 16 else 4 if S >= 8 else 8
    L = 32 // G
    groups = min(M, bm) * ((min(N, bn) + 3) // 4)
    return math.ceil(groups / (threads // 32 * G * 4)) * math.ceil(S / (2 * L))  # fixup.cuh kFixupBatches 4


def test_every_tile_row_has_known_dims():
    assert set(TILES) <= set(DIMS), set(TILES) - set(DIMS)


@pytest.mark.parametrize("sms", [132, 78])
def test_the_gate_on_drawn_shapes(sms):
    rng = np.random.default_rng(7 + sms)
    for M, N, K in draws(2000, 3 + sms):
        name, _ = _C._sgemm_choose(M, N, K, sms)
        for S in (1, 2, int(rng.integers(3, 40)), int(rng.integers(40, 600))):
            g = [_testing.sgemm_fixup_gate(M, N, S, name, k) for k in (0, 1, 2)]
            assert not g[0]
            assert g[1] <= g[2]  # 1 fuses a subset of 2
            if name not in DIMS:
                assert not g[2], (M, N, S, name)  # only the tile kernel has the fixup
                continue
            bm, bn, th = DIMS[name]
            tiles = math.ceil(M / bm) * math.ceil(N / bn)
            assert g[2] == (tiles <= COUNTERS), (M, N, S, name)
            small = S * min(M, bm) * min(N, bn) * 4 <= 192 << 10  # launch.cu kFixupMaxBytes
            assert g[1] == (tiles <= COUNTERS and chain(M, N, S, bm, bn, th) <= 8 and small), (M, N, S, name)


def test_the_gate_on_examples():
    gate = _testing.sgemm_fixup_gate
    assert gate(3, 9983, 3, "64x64x8", 1)  # 3 rows: one batch per warp
    assert not gate(12122, 534, 1, "128x64x8", 1)  # a whole 128x64 tile per block: 64 batches
    assert gate(12122, 534, 1, "128x64x8", 2)
    assert not gate(64 * 4097, 64, 2, "64x64x8", 2)  # 4097 tiles: more than the counters
    assert not gate(3, 9983, 3, "skinny-m", 2) and not gate(3, 9983, 3, 0, 2)
    assert not gate(0, 5, 3, "64x64x8", 2) and not gate(5, 5, 0, "64x64x8", 2)


def test_the_cluster_gate():
    """Level 3: a cluster for 2..8 slices of any tile row (no counters, any tile count), never below."""
    for name in DIMS:
        for S in range(1, 20):
            for M, N in ((1, 1), (5000, 7000), (64 * 4097, 64)):
                assert _C._sgemm_fixup_gate(M, N, S, CONFIGS.index(name), 3) == (2 if 2 <= S <= 8 else 0)
    assert _C._sgemm_fixup_gate(100, 100, 4, CONFIGS.index("skinny-m"), 3) == 0


def test_the_knob_takes_0_to_3():
    for v in (0, 1, 2, 3):
        with _testing.knobs(splitk_fixup=v):
            assert _testing.current()["splitk_fixup"] == v
    with pytest.raises(ValueError):
        _C._set_knob("splitk_fixup", 4)
    for v in (0, 1):
        with _testing.knobs(splitk_fence=v):
            assert _testing.current()["splitk_fence"] == v
    with pytest.raises(ValueError):
        _C._set_knob("splitk_fence", 2)


def both(set_knobs, call, **knobs):
    """call() under splitk_fixup 0 and 2 (the other knobs as given): the two results; the fused arm also
    under splitk_fence 0 (a fence per thread), whose bits must equal the default protocol's."""
    out = []
    for v in (0, 2):
        set_knobs(splitk_fixup=v, splitk_fence=1, **knobs)
        out.append(call())
    set_knobs(splitk_fixup=2, splitk_fence=0, **knobs)
    np.testing.assert_array_equal(call().view(np.uint32), out[1].view(np.uint32))
    set_knobs(splitk_fixup=3, splitk_fence=1, **knobs)  # clusters where S <= 8 (sm_90), else knob 0's kernels
    np.testing.assert_array_equal(call().view(np.uint32), out[0].view(np.uint32))
    return out


FORCED = [((37, 45, 83), 3), ((300, 200, 1001), 7), ((5, 3, 9), 2), ((130, 67, 2049), 16), ((1, 101, 4900), 40),
          ((257, 129, 3001), 1)]
AB = [(-0.5, 0.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("config", TILES)
@pytest.mark.parametrize("mnk,s", FORCED, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
@pytest.mark.parametrize("alpha,beta", AB, ids=str)
def test_fused_equals_the_reduction_kernel(layout, config, mnk, s, alpha, beta, rng, poison, set_knobs):
    M, N, K = mnk
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32) if beta else None
    d0, d2 = both(set_knobs, lambda: smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout),
                  sgemm_config=config, sgemm_splits=s)
    np.testing.assert_array_equal(d0.view(np.uint32), d2.view(np.uint32))
    check(d2, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(64, 64, 65536), (1, 4096, 4096), (130, 67, 2049), (37, 45, 4099), (3, 9983, 211),
                                 (68, 4282, 230), (92, 9147, 401), (13923, 14, 539)],
                         ids=lambda s: "x".join(map(str, s)))
def test_auto_choice_fused_equals_the_reduction_kernel(layout, mnk, rng, poison, set_knobs):
    M, N, K = mnk
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    for knob in (1, 2):
        d0 = None
        for v in (0, knob):
            set_knobs(splitk_fixup=v)
            d = smemkit.sgemm(a, b, c, alpha=1.5, beta=0.5, layout=layout)
            if d0 is None:
                d0 = d
        np.testing.assert_array_equal(d0.view(np.uint32), d.view(np.uint32))
    check(d, a, b, c, 1.5, 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("config", ["64x64x8", "128x128x8", "32x128x16"])
def test_odd_pitch_views_into_out(layout, config, torch, poison, set_knobs):
    M, N, K = 301, 203, 1203
    g = torch.Generator(device="cuda").manual_seed(5)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    res = []
    for v in (0, 2, 3):
        set_knobs(splitk_fixup=v, sgemm_config=config, sgemm_splits=5)
        out = torch.full((M, N), float("nan"), device="cuda")  # out= must be C-contiguous (the rules refuse views)
        smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout, out=out)
        torch.cuda.synchronize()
        res.append(np.ascontiguousarray(out.cpu().numpy()))
    np.testing.assert_array_equal(res[0].view(np.uint32), res[1].view(np.uint32))
    np.testing.assert_array_equal(res[0].view(np.uint32), res[2].view(np.uint32))
    check(res[1], a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)


@pytest.mark.gpu
@pytest.mark.parametrize("s", [2, 9, 33])
def test_twenty_calls_reset_the_counters(s, torch, set_knobs):
    set_knobs(splitk_fixup=2, sgemm_config="64x64x8", sgemm_splits=s)
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(200, 3000, device="cuda", generator=g)
    b = torch.randn(3000, 150, device="cuda", generator=g)
    first = smemkit.sgemm(a, b)
    for _ in range(19):
        np.testing.assert_array_equal(smemkit.sgemm(a, b).cpu().numpy(), first.cpu().numpy())
    check(first.cpu().numpy(), a.cpu().numpy(), b.cpu().numpy())


@pytest.mark.gpu
def test_two_streams_at_once(torch, set_knobs):
    """Two torch streams, each with its own counters, calls interleaved without synchronising."""
    set_knobs(splitk_fixup=2, sgemm_config="64x64x8", sgemm_splits=6)
    g = torch.Generator(device="cuda").manual_seed(4)
    ops = [(torch.randn(300, 4000, device="cuda", generator=g), torch.randn(4000, 260, device="cuda", generator=g))
           for _ in range(2)]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    torch.cuda.synchronize()
    outs = [[], []]
    for _ in range(10):
        for i, st in enumerate(streams):
            with torch.cuda.stream(st):
                outs[i].append(smemkit.sgemm(*ops[i]))
    torch.cuda.synchronize()
    set_knobs(splitk_fixup=0)
    for i in range(2):
        want = smemkit.sgemm(*ops[i]).cpu().numpy()
        for d in outs[i]:
            np.testing.assert_array_equal(d.cpu().numpy(), want)


@pytest.mark.gpu
def test_more_tiles_than_counters_take_the_reduction(rng, set_knobs):
    M, N, K = 64 * 65, 64 * 64, 40  # 4160 tiles of 64x64
    assert not _testing.sgemm_fixup_gate(M, N, 2, "64x64x8", 2)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    d0, d2 = both(set_knobs, lambda: smemkit.sgemm(a, b), sgemm_config="64x64x8", sgemm_splits=2)
    np.testing.assert_array_equal(d0, d2)
    check(d2, a, b)
