"""gemm16_mv_level bit 2 (value 4; 7 = every bit): the memory-bound path's small-call latency rules
(csrc/gemm16/matvec.h smk_mv_route_of, session 40, docs/GEMM16_NOTES.md "Session 40: small mv calls"):
N <= 8 with M > 8 and K <= kmax to the MMA kernel (COLS's 248-k segments would hold <= kmax / 8 loading
lanes); SKINNY on an A of at most 8 MiB in 8-warp blocks that sum their 8 K slices in-kernel
(smk_mv_skinny_fused, one launch where the rounds say so); and the 8-warp blocks' sums spread over their
warps (matvec_sum.cuh mv_block_sum_spread), for fused ROWS too.

CPU: explain() against a Python mirror of the rule on thousands of law draws (seeds >= 3000), its
properties (slices cover K, one launch unless the rounds pay for the reduce, one wave), and levels
without the bit unchanged.  GPU: every changed path (fused SKINNY automatic and forced on any N <= 32,
the MMA kernel on N <= 8, spread ROWS), fp16 / bf16, alpha / beta with C, float32 output, NaN-poisoned
outputs, odd pitches and bases, M or N = 1, against the float64 reference with the gamma_K bound.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402
from test_gemm16_mv_level import fused, law_draws  # noqa: E402

NW, BLOCKS, LAUNCH_ROUNDS, MAX_SPLITS, SMALL = 8, 132, 2, 2048, 8 << 20


def skinny_fused(M, N, K):
    """(npad, kc, G, blocks) of matvec.h smk_mv_skinny_fused."""
    rg = cdiv(M, 32)
    g = max(1, min(cdiv(BLOCKS, rg), cdiv(K, NW * 32), MAX_SPLITS // NW))
    if g > 1 and cdiv(K, NW * 32) <= cdiv(K, NW * g * 32) + LAUNCH_ROUNDS:
        g = 1
    kc = cdiv(cdiv(K, NW * g), 32) * 32
    G = cdiv(cdiv(K, kc), NW)
    return cdiv(N, 8), kc, G, rg * G


def explain(shape, level, **knobs):
    knobs.setdefault("gemm16_mv_skinny", 2)  # SKINNY's rules: TALL (bits 16 + 64, the default since session 44) off
    with _testing.knobs(gemm16_mv_level=level, **knobs):
        return smemkit.explain("gemm", shape, layout="swizzle", dtype="float16")


def test_level_values():
    for ok in range(16):  # 8 .. 15: bit 3, test_gemm16_mv_rule.py
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    assert _testing.current()["gemm16_mv_level"] == 1855  # the default since session 45 (319 since 42, 63 since 41)
    for bad in (-1, 2048):  # 16 .. 511: bits 4-8, test_gemm16_mv_cluster.py / _onewave.py / _tinyk16.py / _chunks.py
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass


def narrow_draws(n, seed):
    """Law draws with N (or M) folded into 1 .. 8 (the N <= 8 classes), plus the issue's small shapes."""
    rng = np.random.default_rng(seed)
    out = [(M, int(rng.integers(1, 9)), K) for M, _, K in law_draws(n, seed)]
    return out + [(13753, 5, 16), (2466, 2, 218), (1218, 6, 302), (3856, 4, 284), (8624, 7, 128),
                  (5396, 2, 180), (366, 4, 3566), (9, 1, 17), (10505, 2, 30991)]


def test_skinny_fused_rule_on_law_draws():
    seen = {"fused1": 0, "fusedG": 0, "big": 0, "mma": 0}
    for M, N, K in narrow_draws(2000, 3001):
        e3, e7 = explain((M, N, K), 3), explain((M, N, K), 7)
        if M <= 8 or M < N:  # ROWS (M <= 8) and M < N: the N <= 8 rules do not apply
            continue
        if K <= 16:  # COLS's at level 3 (gemm16_mv_skinny 2 gives K > 16 to SKINNY first): now the MMA kernel
            assert e3.config.startswith("memory-bound COLS")
            mt = cdiv(M, 16)
            assert e7.config.startswith("memory-bound MMA 2x1 n-tiles"), (M, N, K, e7.config)
            assert e7.blocks == cdiv(cdiv(mt, cdiv(mt, 2112)), 4)
            seen["mma"] += 1
            continue
        assert e3.config.startswith("memory-bound SKINNY") and "rows per warp" in e3.config
        if M * K * 2 > SMALL:  # a big A keeps the 4-warp kernel
            assert e7.config == e3.config and e7.blocks == e3.blocks
            seen["big"] += 1
            continue
        npad, kc, G, blocks = skinny_fused(M, N, K)
        assert e7.config.startswith(f"memory-bound SKINNY {npad} n-tiles, 32 rows per block, {G} K slices of 8 "
                                    "warps, spread sum"), (M, N, K, e7.config)
        assert e7.blocks == blocks and not e7.accesses
        assert kc % 32 == 0 and (G - 1) * NW * kc < K <= G * NW * kc  # the slices cover K, no group of 8 idle
        if G > 1:  # split only where the rounds pay for the reduce launch, within one wave
            assert cdiv(K, NW * 32) > cdiv(K, NW * G * 32) + LAUNCH_ROUNDS
            assert blocks < BLOCKS + cdiv(M, 32)
        seen["fused1" if G == 1 else "fusedG"] += 1
    assert all(v > 0 for v in seen.values()), seen


def test_rows_spread_and_level4_alone():
    for M, N, K in [(int(1 + K % 8), N, K) for _, N, K in law_draws(800, 3002)]:
        if N <= 8 and M >= N:
            continue
        tm, kc, G, blocks = fused(M, N, K)
        e3, e7, e4 = explain((M, N, K), 3), explain((M, N, K), 7), explain((M, N, K), 4)
        assert " summed in the block" in e3.config and e3.blocks == blocks
        assert e7.config.startswith(e3.config.split(" summed in the block")[0] + ", spread sum")
        assert e7.blocks == blocks
        assert explain((M, N, K), 0).config == e4.config  # bit 2 changes nothing on ROWS without bit 0


def test_other_paths_unchanged():
    """Bit 2 moves only the N <= 8 classes and fused ROWS: every other route is level 3's."""
    for M, N, K in law_draws(1500, 3003):
        e3, e7 = explain((M, N, K), 3), explain((M, N, K), 7)
        if N <= 8 or M <= 8:
            continue
        assert (e7.config, e7.blocks) == (e3.config, e3.blocks), (M, N, K)


def test_forced_skinny_takes_the_fused_kernel():
    for M, N, K in [(M, 1 + N % 32, K) for M, N, K in law_draws(300, 3004)]:
        e = explain((M, N, K), 7, gemm16_matvec=5)
        if M * K * 2 <= SMALL:
            npad, kc, G, blocks = skinny_fused(M, N, K)
            assert f"{G} K slices of 8 warps, spread sum" in e.config and e.blocks == blocks
        else:
            assert "rows per warp" in e.config


# ---- GPU ----------------------------------------------------------------------------------------

SHAPES = [(13753, 5, 16), (2466, 2, 218), (1218, 6, 302), (3856, 4, 284), (8624, 7, 128), (366, 4, 3566),
          (9, 1, 17), (33, 8, 40000), (100, 1, 4096), (4, 2518, 375), (8, 583, 776), (1, 3000, 77), (5, 92, 3234),
          (7, 1, 100), (20, 3, 5), (1, 1, 1)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 5], ids=["auto", "skinny"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_latency_shapes(poison, shape, dtype, mode):
    if mode == 5 and shape[1] > 32:
        pytest.skip("forced SKINNY takes N <= 32")
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_level=7):
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        d = smemkit.gemm(a, b, out=out)
        assert d is out or np.shares_memory(d, out)
        _check(out, a, b)
        c32 = c.astype(np.float32)
        _check(smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32,
               out_dtype=np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_latency_layouts(poison, layout, dtype):
    rng = np.random.default_rng(8)
    for shape in [(2466, 2, 218), (700, 5, 9), (3, 2000, 40), (500, 30, 700)]:
        a, b, c = _ops(rng, *shape, dtype)
        with _testing.knobs(gemm16_mv_level=7, gemm16_matvec=5 if shape[1] > 8 else 1):
            _check(smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, layout=layout), a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_latency_every_row_offset(poison, dtype, r):
    """Rows at every offset mod 8 elements (odd pitches, odd bases) of A, B, C and a float32 C: fused
    SKINNY (one launch and G > 1, the last group's elements past K), MMA on N <= 8, spread ROWS."""
    rng = np.random.default_rng(500 + r)
    for M, N, K in [(1218, 6, 8 * 37 + r), (300 + r, 1 + r, 8 * 400 + r), (3000 + r, 3, 9 + r), (5, 8 * 60 + r, 700 + r),
                    (40 + r, 8, 8 * 4 + r)]:
        off = (r + 3) % 8
        a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
        b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
        c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
        c32 = rng.uniform(-1, 1, (M, N + 3)).astype(np.float32)[:, 1:1 + N]
        with _testing.knobs(gemm16_mv_level=7):
            _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
            _check(smemkit.gemm(a, b, c32, beta=2.0, out_dtype=np.float32), a, b, 1.0, 2.0, c32, out_dtype=np.float32)


@pytest.mark.gpu
def test_latency_is_deterministic(poison):
    rng = np.random.default_rng(5)
    with _testing.knobs(gemm16_mv_level=7):
        for shape in [(1218, 6, 302), (366, 4, 3566), (4, 2518, 375)]:
            a, b, _ = _ops(rng, *shape, np.float16)
            d0 = smemkit.gemm(a, b)
            assert all(np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16)) for _ in range(3))
