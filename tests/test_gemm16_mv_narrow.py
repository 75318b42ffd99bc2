"""gemm16_mv_level bit 6 (value 64; 71 = 7 + it, 119 = 55 + it): ROWS' narrow outputs -- M <= 8, N <= 124 (a
ROWS warp's 248-column segment at most half used), K > 16 -- to SKINNY_M (csrc/gemm16/matvec.h
smk_mv_narrow_takes; the kernel: csrc/gemm16/gemm16_skinny.cu).  The class (seeds 151 / 153, level 7):
5x27x57290 fp16 0.47, 8x15x26937 fp16 0.50, 7x89x3611 bf16 0.68, 4x42x10947 fp16 0.69, 1x100x25526 bf16 0.70.
Unmeasured: the lead's A/B (level 71 against 7) decides.

CPU: on issue-28 law draws (seeds >= 3100) and M = 1 .. 8 on their N, K, level 71 is level 7 except on the
draws the rule names, which explain() reports as SKINNY_M with gemm16_matvec=6's geometry.  GPU: level 71 on
the class's shapes and the rule's edges (N = 124 / 125, K = 17), fp16 / bf16, alpha / beta with C, float32
output, NaN-poisoned outputs, against the float64 reference with the gamma_K bound.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES  # noqa: E402
from test_gemm16_matvec import _check, _ops  # noqa: E402
from test_gemm16_mv_cluster import explain, law  # noqa: E402

CLASS = [(5, 27, 57290), (8, 15, 26937), (7, 89, 3611), (4, 42, 10947), (1, 100, 25526), (5, 49, 13097),
         (2, 61, 17517)]


def takes(M, N, K):
    """matvec.h smk_mv_narrow_takes (at bit 6), after COLS (N <= 8 with M >= N) and SKINNY's N <= 8 rule."""
    return M <= 8 and N <= 124 and K > 16 and not (N <= 8 and M >= N)


def check(shape, dtype):
    e7, e71 = explain(shape, 7, dtype), explain(shape, 71, dtype)
    if takes(*shape):
        forced = explain(shape, 7, dtype, gemm16_matvec=6)
        assert e71[0].startswith("memory-bound SKINNY_M") and e71 == forced, (shape, e71, forced)
        return 1
    assert e71 == e7, (shape, e7, e71)
    return 0


def test_rule_on_law_draws():
    rng = np.random.default_rng(3130)
    moved = 0
    for (M, N, K), dtype in law(1500, 3130):
        moved += check((M, N, K), dtype)
        moved += check((int(rng.integers(1, 9)), N, K), dtype)
    print(f"3000 draws: {moved} narrow ROWS draws to SKINNY_M")
    assert moved > 20


def test_class_and_edges():
    for shape in CLASS:
        assert check(shape, "float16") == 1
    for shape, want in [((8, 124, 5000), 1), ((8, 125, 5000), 0), ((3, 100, 17), 1), ((3, 100, 16), 0),
                        ((9, 100, 5000), 0), ((2, 5, 3000), 1), ((5, 5, 3000), 0)]:
        assert check(shape, "bfloat16") == want, shape


# ---- GPU ----------------------------------------------------------------------------------------

GPU_SHAPES = CLASS + [(8, 124, 5000), (3, 100, 17), (2, 5, 3000), (1, 2, 40000), (6, 9, 700)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_narrow_shapes(poison, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    c32 = c.astype(np.float32)
    with _testing.knobs(gemm16_mv_level=71):
        assert explain(shape, 71, str(np.dtype(dtype)))[0].startswith("memory-bound SKINNY_M")
        d = np.full(c.shape, np.nan, dtype)
        smemkit.gemm(a, b, out=d)
        _check(d, a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        _check(smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32,
               out_dtype=np.float32)
