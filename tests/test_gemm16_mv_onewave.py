"""gemm16_mv_level bit 5 (value 32, with bit 0; 39 = 7 + it, 55 = 23 + it): the fused ROWS' K groups G rounded
down where G = cdiv(132, cw rg) would spill the grid past one wave of resident blocks (csrc/gemm16/matvec.h
smk_mv_rows_fused_at, smk_mv_fused_per_sm: TM = 3, 4, 7, 8 run one 256-thread block per SM).  The class:
7x4359x38673 fp16 144 blocks (0.82), 4x14057x1104 bf16 171 (0.49), 8x5091x8539 bf16 147 (0.91) at level 7,
seeds 151 / 153.  Unmeasured: the lead's A/B (level 39 against 7) decides.

CPU: explain() against a Python mirror on issue-28 law draws (seeds >= 3100): level 39 is level 7 except where
the mirror rounds G down, and then the grid fits one wave; with bit 4 (level 55) the clusters' rule reads the
rounded G.  GPU: level 39 on the class's shapes and neighbours, fp16 / bf16, alpha / beta, float32 output,
NaN-poisoned outputs, against the float64 reference with the gamma_K bound.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402
from test_gemm16_mv_cluster import explain, law  # noqa: E402
from test_gemm16_mv_level import LAUNCH_ROUNDS, MAX_SPLITS, NW, SEG, fused, fused_rounds  # noqa: E402

BLOCKS = 132
CLASS = [(7, 4359, 38673), (4, 14057, 1104), (8, 5091, 8539), (4, 4423, 12536), (4, 8717, 1834), (3, 4935, 3359),
         (4, 7901, 8631), (3, 6092, 9096)]


def per_sm(tm):
    return 1 if tm in (3, 4) or tm >= 7 else 2


def onewave(M, N, K):
    """(tm, kc, G, blocks) of matvec.h smk_mv_rows_fused_at with onewave."""
    tm = min(M, 8)
    uk = 4 if tm > 4 else 8
    rg, cw = cdiv(M, tm), cdiv(N, SEG)
    g = cdiv(BLOCKS, rg * cw)
    if g * rg * cw > per_sm(tm) * BLOCKS:
        g = per_sm(tm) * BLOCKS // (rg * cw)
    g = max(1, min(g, cdiv(K, NW * 2 * uk), MAX_SPLITS // NW))
    if g > 1 and fused_rounds(K, 1, uk) <= fused_rounds(K, g, uk) + LAUNCH_ROUNDS:
        g = 1
    kc = cdiv(cdiv(K, NW * g), uk) * uk
    G = cdiv(cdiv(K, kc), NW)
    return tm, kc, G, cw * G * rg


def test_rule_on_law_draws():
    """3000 law draws (seeds 3110-3119 x 300) and M = 1 .. 8 on their N, K: level 39 routes as 7 but where the
    mirror rounds G down; its fused grids then fit one wave (or G == 1)."""
    rng = np.random.default_rng(3120)
    moved = 0
    shapes = [(s, dt) for seed in range(3110, 3120) for s, dt in law(300, seed)]
    shapes += [((int(rng.integers(1, 9)), N, K), dt) for (_, N, K), dt in shapes]
    for shape, dtype in shapes:
        e7, e39 = explain(shape, 7, dtype), explain(shape, 39, dtype)
        if not e7[0].startswith("memory-bound ROWS"):
            assert e39 == e7, (shape, e39)
            continue
        old, new = fused(*shape), onewave(*shape)
        assert e7[1] == old[3] and e39[1] == new[3], (shape, e7, e39, old, new)
        assert f"{new[2]} K slices of 8 warps" in e39[0], (shape, e39)
        assert new[2] == 1 or new[3] <= per_sm(new[0]) * BLOCKS
        if new != old:
            assert new[2] < old[2] and old[3] > per_sm(old[0]) * BLOCKS
            moved += 1
        else:
            assert e39 == e7
    print(f"{len(shapes)} draws: {moved} fused ROWS grids rounded down to one wave")
    assert moved > 10


def test_class_shapes():
    for shape in CLASS:
        old, new = fused(*shape), onewave(*shape)
        assert old[3] > BLOCKS and new[3] <= BLOCKS and new[2] < old[2], (shape, old, new)
        assert explain(shape, 39)[1] == new[3]


def test_cluster_rule_reads_the_rounded_g():
    """Level 55: the clusters' rule (test_gemm16_mv_cluster.cluster) on the one-wave G."""
    import test_gemm16_mv_cluster as tc
    saved = tc.fused
    try:
        tc.fused = onewave
        for shape, dtype in law(1500, 3121):
            want = tc.cluster(*shape)
            c55 = explain(shape, 55, dtype)[0]
            if not explain(shape, 7, dtype)[0].startswith("memory-bound ROWS"):
                continue
            assert ("-block clusters" in c55) == (want is not None), (shape, c55)
            if want is None:
                assert c55 == explain(shape, 39, dtype)[0]
    finally:
        tc.fused = saved


# ---- GPU ----------------------------------------------------------------------------------------

GPU_SHAPES = [(7, 4359, 3867), (4, 14057, 1104), (8, 5091, 853), (3, 4935, 3359), (4, 8717, 1834), (8, 4000, 5001)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_onewave_shapes(poison, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    c32 = c.astype(np.float32)
    for lv in (39, 55):
        with _testing.knobs(gemm16_mv_level=lv):
            d = np.full(c.shape, np.nan, dtype)
            smemkit.gemm(a, b, out=d)
            _check(d, a, b)
            _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
            _check(smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32,
                   out_dtype=np.float32)
