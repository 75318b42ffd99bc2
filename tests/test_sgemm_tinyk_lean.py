"""The tiny-K kernel's lean variant (knob sgemm_tinyk 1; csrc/sgemm/tinyk_lean.cuh, launched by
csrc/sgemm/tinyk.cu at the K slice's depth exactly).
CPU: the knob's range, the route untouched by it on issue 27's law (bench/timing/draws.py, seeds >= 3100), explain()
naming the variant.  GPU: forced tiny-k and tiny-k/rw2 at every K of 1..16, every layout, aligned and odd pitches
and bases, alpha/beta with C, NaN-poisoned outputs, K splits (exact slices: lean; a short last: tinyk_kernel), against
float64 within gamma_K; and D bit for bit that of tinyk.cuh's kernel (the same products in the same order)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm_tinyk import LAYOUTS, framed, run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "timing"))
import draws as D  # noqa: E402


def test_knob_range():
    assert _testing.KNOBS["sgemm_tinyk"] == 1  # the default since session 41's A/B
    with _testing.knobs(sgemm_tinyk=1):
        assert _testing.current()["sgemm_tinyk"] == 1
    with pytest.raises(ValueError):
        with _testing.knobs(sgemm_tinyk=2):
            pass


@pytest.mark.parametrize("seed", [3100, 3101])
@pytest.mark.parametrize("sms", [132, 108])
def test_route_unchanged_and_explain_names_the_variant(seed, sms):
    """The knob picks a kernel, never a route: every law draw's choice and plan blocks are the same at 0 and 1,
    and the plan string says 'lean' exactly on tiny-K routes at 1."""
    shapes = [d.shape for d in D.sgemm_draws(2500, seed)]
    shapes += [(1017, 1674, 12), (389, 5325, 9), (4640, 74, 12), (8244, 82, 16), (2533, 812, 10), (279, 7636, 10)]
    tiny = 0
    for M, N, K in shapes:
        with _testing.knobs(sgemm_tinyk=0):
            old = _C._plan("sgemm", (M, N, K), "pad", 4, sms)
        with _testing.knobs(sgemm_tinyk=1):
            new = _C._plan("sgemm", (M, N, K), "pad", 4, sms)
            assert _C._sgemm_choose(M, N, K, sms) == _C._sgemm_choose(M, N, K, sms)
        assert "lean" not in old["config"]
        assert new["blocks"] == old["blocks"] and new["threads"] == old["threads"]
        if old["config"].startswith("tiny-K"):
            tiny += 1
            assert new["config"].startswith(old["config"].split(", splits")[0]) and "lean" in new["config"]
            assert new["accesses"] == [] and new["smem_bytes"] == 0
        else:
            assert new["config"] == old["config"]
    assert tiny >= 5


def test_explain_says_lean():
    with _testing.knobs(sgemm_tinyk=1):
        e = smemkit.explain("sgemm", (4096, 4096, 9), layout="swizzle")
    assert "lean" in e.config and "no shared memory" in e.config
    with _testing.knobs(sgemm_tinyk=0):
        assert "lean" not in smemkit.explain("sgemm", (4096, 4096, 9), layout="swizzle").config


@pytest.mark.parametrize("K, splits, lean", [(16, 1, True), (9, 0, True), (32, 2, True), (48, 3, True),
                                            (29, 2, False), (17, 2, False), (33, 1, False), (20, 1, False)])
def test_explain_follows_the_launch_on_forced_configs(K, splits, lean):
    """smk_sgemm_tinyk_lean (api/sgemm_tinyk.h), which the launch asks too: lean where every K slice is as deep,
    1..16 (a K split of 16-deep slices with a short last one, or one slice deeper than 16, stays on tinyk.cuh)."""
    for cfg in ["tiny-k", "tiny-k/rw2"]:
        idx = _C._configs("sgemm").index(cfg)
        with _testing.knobs(sgemm_tinyk=1):
            plan = _C._plan("sgemm", (300, 200, K), "naive", 4, 132, idx, splits)
        assert ("lean" in plan["config"]) == lean, plan["config"]
        with _testing.knobs(sgemm_tinyk=0):
            assert "lean" not in _C._plan("sgemm", (300, 200, K), "naive", 4, 132, idx, splits)["config"]


# ---- GPU ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("aligned", [True, False], ids=["pitch16", "oddpitch"])
def test_lean_every_depth_within_bound(layout, aligned, torch, poison, set_knobs):
    set_knobs(sgemm_tinyk=1)
    for K in range(1, 17):
        M, N = (37 + 29 * K, 131 + 17 * K) if K % 2 else (200 + K, 129 + 64 * K)
        for cfg in ["tiny-k", "tiny-k/rw2"]:
            set_knobs(sgemm_config=cfg)
            for alpha, beta in [(1.0, 0.0), (2.0, -0.75)]:
                run(torch, layout, M, N, K, alpha, beta, aligned)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(300, 200, 32), (129, 257, 48), (45, 3, 29), (200, 130, 17)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [2, 3])
@pytest.mark.parametrize("cfg", ["tiny-k", "tiny-k/rw2"])
def test_lean_on_k_splits(mnk, splits, cfg, torch, poison, set_knobs):
    """K > 16 split into 16-deep slices (tiny-K's k-tile): all 16 deep (K = 32, 48 at 2 or 3 splits: the lean
    kernel, blockIdx.y picks the slice), or a short last one (K = 17, 29: tinyk_kernel, as at knob 0)."""
    set_knobs(sgemm_tinyk=1, sgemm_config=cfg, sgemm_splits=splits)
    run(torch, "swizzle", *mnk, 0.5, 1.5, False)
    run(torch, "pad", *mnk, 1.0, 0.0, True)


def _sgemm_bits(torch, a, b, c, alpha, beta, layout, set_knobs, level):
    set_knobs(sgemm_tinyk=level)
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    torch.cuda.synchronize()
    return d.contiguous().view(torch.int32).cpu().numpy()


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", ["tiny-k", "tiny-k/rw2"])
@pytest.mark.parametrize("aligned", [True, False], ids=["pitch16", "oddpitch"])
def test_lean_bit_equal_to_tinyk(cfg, aligned, torch, poison, set_knobs):
    """Same inputs (with a NaN and infinities in A and B), knob 0 against 1: identical bits, every K of
    1..16 and K = 32 split in two (the lean kernel's slices) and 29 (16 + 13: tinyk_kernel both), beta 0 and not.  No product
    underflows here, so the one exception (the sign of a -0 sum, tinyk_lean.cuh) cannot arise."""
    g = torch.Generator(device="cuda").manual_seed(3107)
    for K in list(range(1, 17)) + [32, 29]:
        M, N = 300 + 7 * K, (257 + 16 * K) if aligned else (255 + 16 * K)
        pa, pb, pc = ((K + 3) // 4 * 4, N + 4, N) if aligned else (K + 1, N + 2, N + 3)
        a = framed(torch, g, M, K, pa, 0 if aligned else 1)
        b = framed(torch, g, K, N, pb, 0 if aligned else 3)
        c = framed(torch, g, M, N, pc, 0 if aligned else 2)
        a[M // 2, K - 1] = float("nan")
        a[M // 3, 0] = float("inf")
        b[K // 2, N // 2] = -float("inf")
        for splits in [1, 2]:
            set_knobs(sgemm_config=cfg, sgemm_splits=splits)
            for alpha, beta, cc in [(1.0, 0.0, None), (-1.5, 0.25, c)]:
                old = _sgemm_bits(torch, a, b, cc, alpha, beta, "pad", set_knobs, 0)
                new = _sgemm_bits(torch, a, b, cc, alpha, beta, "pad", set_knobs, 1)
                assert np.array_equal(old, new), (cfg, M, N, K, splits, beta)
