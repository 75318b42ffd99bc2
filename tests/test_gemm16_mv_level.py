"""gemm16_mv_level (csrc/gemm16/matvec.h): bit 0 ROWS in 8-warp blocks that sum their K slices in-kernel
(smk_mv_rows_fused, matvec_sum.cuh: one launch where that is enough, else G partials for the reduce);
bit 1 TINYK's block width by N (smk_mv_tinyk: CPL = 1, 2, 4, 8 columns per lane x 32).

CPU: the rules as explain() reports them against a Python mirror on thousands of law draws, and their
properties (slices cover K, one launch unless the rounds say otherwise, one wave); level 0 unchanged.
GPU: the fused ROWS kernel (automatic and forced on any shape) and every TINYK width, every layout,
fp16 / bf16, float32 output, alpha / beta with C, NaN-poisoned outputs, odd pitches and bases, against
the float64 reference with test_gemm's bound.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

ml_dtypes = pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv, pow2  # noqa: E402

SEG, NW, BLOCKS, LAUNCH_ROUNDS, MAX_SPLITS = 248, 8, 132, 2, 2048


def fused_rounds(K, g, uk):
    return cdiv(cdiv(K, NW * g), 2 * uk)


def fused(M, N, K):
    """(tm, kc, G, blocks) of matvec.h smk_mv_rows_fused."""
    tm = min(M, 8)
    uk = 4 if tm > 4 else 8
    rg, cw = cdiv(M, tm), cdiv(N, SEG)
    g = max(1, min(cdiv(BLOCKS, rg * cw), cdiv(K, NW * 2 * uk), MAX_SPLITS // NW))
    if g > 1 and fused_rounds(K, 1, uk) <= fused_rounds(K, g, uk) + LAUNCH_ROUNDS:
        g = 1
    kc = cdiv(cdiv(K, NW * g), uk) * uk
    G = cdiv(cdiv(K, kc), NW)
    return tm, kc, G, cw * G * rg


def law_draws(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        M, N = (int(round(np.exp(rng.uniform(0, np.log(16384))))) for _ in range(2))
        K = int(round(np.exp(rng.uniform(0, np.log(65536)))))
        if M * N >= 64 and M * N * K >= 1 << 20 and M * N * K <= 8192**3:
            out.append((M, N, K))
    return out


def explain(shape, **knobs):
    with _testing.knobs(gemm16_mv_skinny=0, **knobs):
        return smemkit.explain("gemm", shape, layout="swizzle", dtype="float16")


def test_level_knob_values():
    assert _testing.current()["gemm16_mv_level"] == 1855  # the default since session 45 (GEMM16_NOTES)
    for bad in (-1, 2048):  # 16 .. 511: bits 4-8, test_gemm16_mv_cluster.py / _onewave.py / _tinyk16.py / _chunks.py
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass


def test_fused_rows_rule_on_law_draws():
    rng = np.random.default_rng(2026)
    shapes = [(int(rng.integers(1, 9)), N, K) for _, N, K in law_draws(1500, 3901)]
    shapes += [(6, 7250, 49), (4, 3062, 742), (8, 908, 8468), (6, 104, 14144), (2, 8641, 181), (1, 2, 1)]
    shapes = [(M, N, K) for M, N, K in shapes if not (N <= 8 and M >= N)]  # those are COLS / SKINNY's
    one = 0
    for M, N, K in shapes:
        tm, kc, G, blocks = fused(M, N, K)
        e = explain((M, N, K), gemm16_mv_level=1)
        assert e.config.startswith(f"memory-bound ROWS {tm}x8 per thread") and "summed in the block" in e.config, e.config
        assert f"{G} K slices of 8 warps" in e.config and e.blocks == blocks
        assert not e.accesses  # no shared memory: nothing to model
        uk = 4 if tm > 4 else 8
        assert kc % uk == 0 and (G - 1) * NW * kc < K <= G * NW * kc  # the slices cover K, no group idle
        assert G <= MAX_SPLITS // NW
        if G > 1:  # split only where the rounds pay for the reduce launch, and within one wave
            assert fused_rounds(K, 1, uk) > fused_rounds(K, G, uk) + LAUNCH_ROUNDS - 1
            assert blocks < BLOCKS + cdiv(N, SEG) * NW
        one += G == 1
        c = explain((M, N, K), gemm16_mv_level=319).config  # level 319 (63 + chunks) also takes ROWS clusters (test_gemm16_mv_cluster.py); 1855 (the default) takes MROW
        assert c.startswith(f"memory-bound ROWS {tm}x8 per thread, ") and ("16-byte B rows," in c or "-block clusters," in c), c
    assert 0.2 < one / len(shapes) < 1  # both one-launch and split routes occur on the law


def test_forced_rows_takes_the_fused_kernel_on_any_shape():
    for M, N, K in law_draws(300, 3902):
        tm, kc, G, blocks = fused(M, N, K)
        e = explain((M, N, K), gemm16_matvec=2, gemm16_mv_level=1)
        assert e.config.startswith(f"memory-bound ROWS {tm}x8") and f"{G} K slices of 8 warps" in e.config
        assert e.blocks == blocks


def test_tinyk_width_rule():
    for M, N, K in [(M, N, 1 + K % 16) for M, N, K in law_draws(1500, 3903)]:
        e0, e2 = explain((M, N, K), gemm16_mv_level=0), explain((M, N, K), gemm16_mv_level=2)
        if "TINYK" not in e0.config:
            assert e2.config == e0.config and e2.blocks == e0.blocks
            continue
        cpl = pow2(cdiv(N, 128), 8)
        assert e2.config.startswith(f"memory-bound TINYK 8x{32 * cpl} per thread")
        assert e2.blocks == cdiv(M, 8) * cdiv(N, 128 * cpl)
        assert e0.config.startswith("memory-bound TINYK 8x256 per thread")
        assert 128 * cpl >= N or cpl == 8  # a block's columns cover N, else the widest


# ---- GPU ----------------------------------------------------------------------------------------

FUSED_SHAPES = [(6, 7250, 49), (4, 3062, 742), (8, 908, 8468), (6, 104, 14144), (2, 8641, 181), (1, 1, 1),
                (3, 17, 5), (7, 300, 64), (5, 903, 2511), (8, 1146, 1097), (1, 4096, 60000), (2, 5, 33)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2], ids=["auto", "rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", FUSED_SHAPES, ids=["x".join(map(str, s)) for s in FUSED_SHAPES])
def test_fused_rows_shapes(poison, shape, dtype, mode):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_level=1):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=str(np.dtype(dtype)))
        assert "summed in the block" in e.config or (mode == 1 and shape[1] <= 8 and shape[0] >= shape[1])
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        d = smemkit.gemm(a, b, out=out)
        assert d is out or np.shares_memory(d, out)
        _check(out, a, b)


@pytest.mark.gpu
@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_level_layouts_and_f32_out(poison, layout, dtype, level):
    rng = np.random.default_rng(7)
    for shape in [(7, 300, 1000), (3, 2000, 40), (8, 500, 9000), (600, 100, 11), (7972, 155, 8), (300, 333, 16),
                  (100, 700, 3)]:
        a, b, c = _ops(rng, *shape, dtype)
        c32 = c.astype(np.float32)
        with _testing.knobs(gemm16_mv_level=level):
            d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
            _check(d, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
            _check(smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, layout=layout), a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2], ids=["auto", "rows"])
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_level_every_row_offset(poison, dtype, r, mode):
    """Rows at every offset mod 8 elements (odd pitches, odd bases) for A, B, C: fused ROWS (one launch and
    split) and TINYK at widths 1 .. 8."""
    rng = np.random.default_rng(300 + r)
    shapes = [(3, 8 * 31 + r, 8 * 5 + r), (7, 8 * 62 + r, 8 * 300 + r), (5, 8 * 70 + r, 8 * 700 + r),
              (8, 8 * 37 + r, 40 + r), (1, 8 + r, 3000 + r), (50 + r, 8 * 15 + r, 1 + r), (40, 8 * 60 + r, 9 + r)]
    for M, N, K in shapes:
        off = (r + 3) % 8
        a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
        b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
        c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
        with _testing.knobs(gemm16_matvec=mode if M <= 8 else 1, gemm16_mv_level=3):
            _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)


@pytest.mark.gpu
def test_fused_rows_is_deterministic(poison):
    rng = np.random.default_rng(4)
    with _testing.knobs(gemm16_mv_level=1):
        for shape in [(5, 4096, 4096), (6, 7250, 49)]:
            a, b, _ = _ops(rng, *shape, np.float16)
            d0 = smemkit.gemm(a, b)
            assert all(np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16)) for _ in range(3))
