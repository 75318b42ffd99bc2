"""gemm16_mv_level bit 4 (value 16, with bit 0; 23 = 7 + it): ROWS' short K slices in thread-block clusters
(csrc/gemm16/matvec.h smk_mv_rows_cluster, matvec_sum.cuh mv_cluster_sum_spread): the C blocks of one cluster
(grid y) walk 8 C K slices of the same 248 x TM outputs and sum them in-kernel through a global scratch
ordered by the cluster barrier, one launch on C times the SMs of the fused route's one-launch grid (or in
place of its G-way split and reduce launch where G <= 2 C).  The class: ROWS calls with a short K on a
B of at most 8 MiB (seeds 151 / 153, H100: 8x4585x165 bf16 0.34, 2x1944x288 0.34, 6x4099x46 0.40).
Unmeasured: the lead's A/B (level 23 against 7) decides.

CPU: explain() against a Python mirror of the rule on thousands of issue-28 law draws (seeds >= 3100):
level 23 is level 7 except on the draws the rule takes, which it reports as clusters; the clusters cover
K, fit the one-wave cap, and never take a B over 8 MiB.  GPU: level 23 on the class's shapes, M = 1 .. 8,
odd N and K, rows at every offset mod 8 elements, every layout, fp16 / bf16, alpha / beta with C, float32
output, NaN-poisoned outputs, against the float64 reference with the gamma_K bound (the slices differ from
level 7's, so the bits may too), and deterministic run to run.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402
from test_gemm16_mv_level import fused  # noqa: E402

NW, SEG, CMAX, KMIN, SMALL = 8, 248, 8, 4, 8 << 20
LEVEL = 23  # 7 + bit 4

# seeds 151 / 153 (H100, level 7): the class's worst draws, and ROWS draws the rule must leave alone
CLASS = [(8, 4585, 165), (2, 1944, 288), (6, 4099, 46), (7, 3476, 57), (6, 1992, 123), (6, 8161, 221),
         (5, 13210, 144), (4, 7494, 233), (4, 7151, 43), (5, 14708, 59), (3, 4330, 174), (6, 9310, 245)]
KEPT = [(4, 14057, 1104), (3, 5417, 9483), (2, 13379, 6225), (5, 27, 57290), (8, 15, 26937), (1, 1508, 50129)]


def cap(c):
    """matvec.h smk_mv_cluster_cap: clusters of c one-block SMs in one wave (8 GPCs of 16 SMs)."""
    return 8 * (16 // c)


def cluster(M, N, K):
    """(tm, C, kc, blocks) of matvec.h smk_mv_rows_cluster where it takes M x N x K, else None."""
    tm, _, G, _ = fused(M, N, K)
    units = cdiv(N, SEG) * cdiv(M, tm)
    c = min(CMAX, cdiv(K, NW * KMIN))
    while c > 1 and units > cap(c):
        c -= 1
    if K * N * 2 > SMALL or c < 2 or G > 2 * c:
        return None
    return tm, c, cdiv(K, NW * c), units * c


def explain(shape, level, dtype="float16", **knobs):
    with _testing.knobs(gemm16_mv_level=level, **knobs):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype)
    return e.config, e.blocks, e.accesses


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [(d.shape, d.dtype) for d in gemm_draws(n, seed)]


def check_route(shape, dtype="float16", **knobs):
    """Level 23 against the mirror and level 7: 1 where the clusters take the shape, else 0."""
    e7, e23 = explain(shape, 7, dtype, **knobs), explain(shape, LEVEL, dtype, **knobs)
    want = cluster(*shape) if e7[0].startswith("memory-bound ROWS") else None
    if want is None:
        assert e23 == e7, (shape, e7, e23)
        return 0
    tm, c, kc, blocks = want
    assert e23[0] == (f"memory-bound ROWS {tm}x8 per thread, {c}-block clusters, {kc} k per warp; "
                      "no shared memory"), (shape, e23)
    assert e23[1] == blocks and not e23[2]  # nothing in shared memory to model
    M, N, K = shape
    assert c * NW * kc >= K > c * NW * (kc - 1)  # the slices cover K, each as short as that allows
    assert 2 <= c <= CMAX and blocks // c <= cap(c) and K * N * 2 <= SMALL
    return 1


def test_level_values():
    for ok in (16, 17, 23, 31):
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    assert _testing.current()["gemm16_mv_level"] == 1855  # bits 4 and 5 are in the default since session 41 (bit 6 is not), 8 since 42, 9 and 10 since 45


def test_rule_on_law_draws():
    """4000 draws of issue 28's law (seeds 3100, 3101): level 23 is level 7 but where the rule takes a ROWS
    draw (and then names the clusters)."""
    moved = rows = 0
    for seed in (3100, 3101):
        for shape, dtype in law(2000, seed):
            moved += check_route(shape, dtype)
            rows += shape[0] <= 8 and not (shape[1] <= 8 and shape[0] >= shape[1])
    print(f"seeds 3100/3101, 4000 draws: {rows} ROWS draws, {moved} move to clusters")
    assert 0 < moved < rows


def test_rule_on_rows_shapes():
    """M = 1 .. 8 on the law's N and K (seed 3102), and forced ROWS (gemm16_matvec=2) on any shape."""
    rng = np.random.default_rng(3102)
    moved = 0
    for (_, N, K), dtype in law(2000, 3102):
        moved += check_route((int(rng.integers(1, 9)), N, K), dtype)
    assert moved > 100
    for shape, dtype in law(300, 3103):
        check_route(shape, dtype, gemm16_matvec=2)


def test_class_and_kept_shapes():
    for shape in CLASS:
        assert check_route(shape) == 1, shape
    for shape in KEPT:
        assert check_route(shape) == 0, shape


def test_bit4_needs_bit0():
    """Without bit 0 (the 8-warp ROWS) bit 4 changes nothing: 16 .. 22 even route as 0 .. 6 even."""
    for shape, dtype in law(300, 3104) + [(s, "float16") for s in CLASS]:
        for lv in (0, 2, 4, 6):
            assert explain(shape, lv + 16, dtype) == explain(shape, lv, dtype), (shape, lv)


def test_workspace_counts_the_scratch():
    """smk_gemm16_temp_bytes_shape counts the clusters' scratch: blocks x 8 warps x TM x 8 x 32 lanes x 4 bytes
    (one launch: no partials)."""
    import ctypes
    from smemkit import _C
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    for shape in CLASS:
        tm, c, kc, blocks = cluster(*shape)
        with _testing.knobs(gemm16_mv_level=LEVEL):
            assert so.smk_gemm16_temp_bytes_shape(*shape, 0, 1, 1, 132) == blocks * NW * tm * 8 * 32 * 4, shape


# ---- GPU ----------------------------------------------------------------------------------------

GPU_SHAPES = CLASS + [(1, 9, 33), (3, 17, 40), (8, 249, 65), (5, 4000, 100), (7, 30001, 129), (1, 33000, 47),
                      (2, 31 * 248, 257), (4, 15 * 248 + 3, 511), (8, 2000, 1000), (3, 500, 2000)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2], ids=["auto", "rows"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_cluster_shapes(poison, shape, dtype, mode):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    c32 = c.astype(np.float32)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_level=LEVEL):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=str(np.dtype(dtype)))
        assert ("-block clusters" in e.config) == (cluster(*shape) is not None), e.config
        d = np.full(c.shape, np.nan, dtype)
        r = smemkit.gemm(a, b, out=d)
        assert r is d or np.shares_memory(r, d)
        _check(d, a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        _check(smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32,
               out_dtype=np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_cluster_layouts_every_m(poison, layout, dtype):
    """M = 1 .. 8 (every TM instantiation), odd N and K, each layout (the same code: no shared memory)."""
    rng = np.random.default_rng(11)
    for M in range(1, 9):
        for N, K in [(2 * 248 * M + 1, 101 + 2 * M), (1001 + 16 * M, 37 + M)]:
            assert cluster(M, N, K) is not None, (M, N, K)
            a, b, c = _ops(rng, M, N, K, dtype)
            with _testing.knobs(gemm16_mv_level=LEVEL):
                d = np.full(c.shape, np.nan, dtype)
                smemkit.gemm(a, b, out=d, layout=layout)
                _check(d, a, b)
                _check(smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, layout=layout), a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_cluster_every_row_offset(poison, dtype, r):
    """A, B, C rows at every offset mod 8 elements (odd pitches, odd bases)."""
    rng = np.random.default_rng(500 + r)
    for M, N, K in [(3, 8 * 31 + r, 8 * 5 + r), (8, 8 * 370 + r, 40 + r), (1, 8 * 700 + r, 200 + r),
                    (6, 8 * 123 + r, 77 + r)]:
        off = (r + 3) % 8
        a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
        b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
        c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
        with _testing.knobs(gemm16_mv_level=LEVEL):
            assert "-block clusters" in explain((M, N, K), LEVEL)[0], (M, N, K)
            _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)


@pytest.mark.gpu
def test_cluster_is_deterministic(poison):
    rng = np.random.default_rng(4)
    with _testing.knobs(gemm16_mv_level=LEVEL):
        for shape in [(8, 4585, 165), (2, 1944, 288), (6, 4099, 46)]:
            a, b, _ = _ops(rng, *shape, np.float16)
            d0 = smemkit.gemm(a, b)
            assert all(np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16)) for _ in range(5))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_cluster_forced_row_groups(poison, dtype):
    """Forced ROWS (gemm16_matvec=2) with M > 8: several row groups (grid z), each cluster its own scratch."""
    rng = np.random.default_rng(12)
    for shape in [(9, 1000, 100), (20, 777, 65), (33, 301, 250)]:
        assert cluster(*shape) is not None, shape
        a, b, c = _ops(rng, *shape, dtype)
        with _testing.knobs(gemm16_matvec=2, gemm16_mv_level=LEVEL):
            assert "-block clusters" in explain(shape, LEVEL, gemm16_matvec=2)[0]
            d = np.full(c.shape, np.nan, dtype)
            smemkit.gemm(a, b, out=d)
            _check(d, a, b)
            _check(smemkit.gemm(a, b, c, alpha=-1.0, beta=0.5), a, b, -1.0, 0.5, c)
