"""gemm16_mv_level bit 3 (value 8; 15 = 7 + it): the 8-warp SKINNY (bit 2's smk_mv_skinny_fused) only where
it pays by mechanism (csrc/gemm16/matvec.h smk_mv_skinny_fused_pays): every warp of the block has a K slice
(K > 8 x 32) or the 4-warp grid would leave most SMs idle (cdiv(M, 128) <= 132 / 4); else the 4-warp
SKINNY as at level 3.  The class it targets: a tall A with a short K (docs/GEMM16_NOTES.md "Level 7
measured": 10120x6x49 bf16 0.88 -> 0.46 from level 3 to 7).  Unmeasured: the lead's A/B decides.

CPU: on issue 28's law (bench/timing/draws.py gemm_draws, seeds >= 3000) level 15 routes as level 7 except
exactly on the draws the rule excludes, where it routes as level 3's SKINNY; explain() names the form;
bit 3 without bit 2 changes nothing.  GPU: level 15 on the class's shapes and its neighbours, fp16 / bf16,
alpha / beta with C, float32 output, NaN-poisoned outputs, against the float64 reference with the gamma_K
bound, and bit-equal to level 3 (the 4-warp form) or level 7 (the 8-warp form), whichever route it took.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402

NW, BLOCKS, ROWS, SMALL = 8, 132, 32, 8 << 20

# the class (level 3 -> 7 lost) and the short-K / long-K winners (GEMM16_NOTES "Level 7 measured")
LOSERS = [(10120, 6, 49), (9448, 4, 91), (9279, 5, 84), (15198, 7, 134), (6521, 5, 35)]
WINNERS = [(3325, 5, 113), (4152, 8, 131), (3159, 5, 293), (1005, 3, 356), (42, 8, 31994), (127, 7, 2860),
           (231, 6, 2458), (100, 7, 4957)]


def pays(M, N, K):
    """matvec.h smk_mv_skinny_fused_pays."""
    return K > NW * 32 or cdiv(M, 4 * ROWS) <= BLOCKS // 4


def explain(shape, level, dtype="float16", **knobs):
    knobs.setdefault("gemm16_mv_skinny", 2)  # SKINNY's rules: TALL (bits 16 + 64, the default since session 44) off
    with _testing.knobs(gemm16_mv_level=level, **knobs):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype)
    return e.config, e.blocks


def is_fused(config):
    return config.startswith("memory-bound SKINNY") and " K slices of 8 warps" in config


def is_four_warp(config):
    return config.startswith("memory-bound SKINNY") and " rows per warp" in config


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [(d.shape, d.dtype) for d in gemm_draws(n, seed)]


def replay(draws, **knobs):
    """Level 15 against 7 and 3 draw by draw: the number of draws that move (the rule's exclusions)."""
    moved = kept = 0
    for shape, dtype in draws:
        e3, e7, e15 = (explain(shape, lv, dtype, **knobs) for lv in (3, 7, 15))
        if is_fused(e7[0]) and not pays(*shape):
            assert is_four_warp(e15[0]) and e15 == e3, (shape, e3, e15)
            assert e15 != e7
            moved += 1
        else:
            assert e15 == e7, (shape, e7, e15)
            kept += is_fused(e7[0])
    return moved, kept


def test_level_range():
    for ok in range(16):
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    assert _testing.current()["gemm16_mv_level"] == 1855  # bit 3 is in the default since session 41, bit 8 since 42, 9 and 10 since 45
    for bad in (-1, 2048):  # 16 .. 511: bits 4-8, test_gemm16_mv_cluster.py / _onewave.py / _tinyk16.py / _chunks.py
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass


def test_level15_on_law_draws():
    """3000 draws of issue 28's law (seed 3000): level 15 is level 7 but on the excluded draws."""
    moved, kept = replay(law(3000, 3000))
    print(f"seed 3000, 3000 draws: {moved} move to the 4-warp SKINNY, {kept} keep the 8-warp SKINNY")
    assert moved > 0 and kept > 0


def test_level15_on_law_draws_with_wide_skinny():
    """gemm16_mv_skinny 3 (SKINNY also for 9 <= N <= 32): the rule holds there too (seed 3001)."""
    moved, kept = replay(law(1500, 3001), gemm16_mv_skinny=3)
    assert moved > 0 and kept > 0


def test_class_shapes():
    for shape in LOSERS:
        for dtype in ("float16", "bfloat16"):
            c3, c7, c15 = (explain(shape, lv, dtype)[0] for lv in (3, 7, 15))
            assert is_fused(c7) and is_four_warp(c15) and c15 == c3, (shape, c15)
    for shape in WINNERS:
        c7, c15 = explain(shape, 7)[0], explain(shape, 15)[0]
        assert is_fused(c7) and c15 == c7, (shape, c15)


def test_rule_edges():
    """The two arms of the rule at their edges: K = 256 / 257, cdiv(M, 128) = 33 / 34."""
    for M, K, fused in [(4224, 100, True), (4225, 100, False), (9000, 256, False), (9000, 257, True),
                        (4225, 17, False), (4224, 256, True)]:
        assert pays(M, 5, K) == fused
        c = explain((M, 5, K), 15)[0]
        assert (is_fused(c) if fused else is_four_warp(c)), (M, K, c)


def test_bit3_alone_changes_nothing():
    """Without bit 2 there is no 8-warp SKINNY to keep out: levels 8..11 route as 0..3; 12..15 keep bit 2's
    other rules (MMA on N <= 8, K <= kmax; spread ROWS)."""
    for shape, dtype in law(600, 3002):
        for lv in range(4):
            assert explain(shape, lv + 8, dtype) == explain(shape, lv, dtype), (shape, lv)
        e12, e4 = explain(shape, 12, dtype), explain(shape, 4, dtype)
        assert e12 == e4 or (is_fused(e4[0]) and not pays(*shape) and is_four_warp(e12[0]))


def test_forced_skinny_follows_the_rule():
    for M, N, K in [(M, 1 + N % 32, K) for (M, N, K), _ in law(400, 3003)] + LOSERS:
        c7, c15 = explain((M, N, K), 7, gemm16_matvec=5)[0], explain((M, N, K), 15, gemm16_matvec=5)[0]
        if is_fused(c7) and not pays(M, N, K):
            assert c15 == explain((M, N, K), 3, gemm16_matvec=5)[0] and is_four_warp(c15)
        else:
            assert c15 == c7


# ---- GPU ----------------------------------------------------------------------------------------

NEAR = [(4225, 3, 200), (5000, 8, 256), (8000, 2, 17), (12000, 1, 64)]  # the rule's edges, N = 1, K = 17
GPU_SHAPES = LOSERS + NEAR + [(3325, 5, 113), (4152, 8, 131), (3159, 5, 293)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_level15_shapes(poison, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    c32 = c.astype(np.float32)
    four = is_four_warp(explain(shape, 15)[0])
    same = 3 if four else 7  # the level whose route level 15 took
    out = {}
    for lv in (15, same):
        with _testing.knobs(gemm16_mv_level=lv):
            d = np.full(c.shape, np.nan, dtype)
            smemkit.gemm(a, b, out=d)
            out[lv] = (d, smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5),
                       smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, out_dtype=np.float32))
    d, dc, d32 = out[15]
    _check(d, a, b)
    _check(dc, a, b, -0.75, 1.5, c)
    _check(d32, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
    for x, y in zip(out[15], out[same]):
        assert np.array_equal(x.view(np.uint8), y.view(np.uint8)), (shape, same)
