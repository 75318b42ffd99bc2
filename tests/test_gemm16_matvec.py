"""The fp16 / bf16 GEMM's memory-bound path (csrc/gemm16/matvec.h, matvec.cuh): variant 0 sends N <= 8
(with M >= N: COLS), M <= 8 (ROWS) and K <= kmax (MMA: tensor cores from registers; with kmax = 0 the
routing before it, K <= 16 TINYK) to kernels that use no shared memory; ROWS and COLS stream their big
operand with 16-byte loads at any row offset (funnel shifts).

CPU: the routing rule (a pure function of M, N, K and the gemm16_matvec knob) as explain() reports it,
on thousands of random shapes, against a Python mirror; no shared accesses in the plan.
GPU: every route (automatic and forced ROWS / COLS), every layout, fp16 / bf16, float32 output,
alpha / beta with c, NaN-poisoned outputs, odd pitches and bases, M or N = 1, K = 1..16 and K up to
60000, every row offset mod 8 (N or K = 8 q + r, odd bases), split and unsplit, within test_gemm's bound (gamma_K on the float64 product, plus the output rounding).
"""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _testing

ml_dtypes = pytest.importorskip("ml_dtypes")

from test_gemm import BF16, DTYPES, LAYOUT_IDS, LAYOUTS, OUT_TINY, OUT_U, gamma  # noqa: E402

TARGET_WARPS, MAX_SPLITS, SEG = 8448, 2048, 248  # SEG: a warp's 31 x 8 elements of the stream
MMA_WARPS, KMAX, KCAP = 2112, 32, 128


def cdiv(a, b):
    return -(-a // b)


def pow2(n, cap):
    p = 1
    while p < n and p < cap:
        p *= 2
    return p


def rows_splits(M, N, K, kmax):
    small = kmax > 0 and K * N * 2 <= 8 << 20
    gran = 16 if small else 32
    by_ws = cdiv(K, gran) if small else K // (8 * M)
    s = max(1, min(cdiv(TARGET_WARPS, cdiv(M, min(M, 8)) * cdiv(N, SEG)), cdiv(K, gran), by_ws, MAX_SPLITS))
    return cdiv(K, cdiv(cdiv(K, s), gran) * gran)


def mirror(M, N, K, mode=1, kmax=KMAX):
    """(kind, splits) the path takes for M x N x K, or None: matvec.h smk_mv_route_of in Python."""
    if mode <= 0 or min(M, N, K) <= 0:
        return None
    cols = N <= 8 and M >= N
    if mode == 2:
        return ("ROWS", rows_splits(M, N, K, kmax))
    if mode == 3:
        return ("COLS", cdiv(K, SEG))
    if mode == 4 and K <= KCAP:
        return ("MMA", 1)
    if cols:
        return ("COLS", cdiv(K, SEG))
    if M <= 8:
        return ("ROWS", rows_splits(M, N, K, kmax))
    if mma_takes(M, N, K, kmax):
        return ("MMA", 1)
    return ("TINYK", 1) if K <= 16 else None


def mma_takes(M, N, K, kmax):
    """matvec.h smk_mv_mma_takes: at most 32 m-tiles per warp, and 16-byte stores (N % 8 == 0), a small D,
    or even N <= 256 for K <= 16; N even and M N >= 2^21 for 17 <= K <= kmax."""
    if kmax <= 0 or K > kmax or mma_geometry(M, N, K)[2] > 32:  # at most 32 m-tiles per warp
        return False
    if K <= 16:
        return N % 8 == 0 or M * N <= 1 << 20 or (N % 2 == 0 and N <= 256)
    return N % 2 == 0 and M * N >= 1 << 21


def mma_geometry(M, N, K):
    """(NT, KS, m-tiles per warp, warps) of matvec.h smk_mv_mma."""
    nt, ks = (2 if N <= 16 else 4), (1 if K <= 16 else 2 if K <= 32 else 4 if K <= 64 else 8)
    ncg, mt = cdiv(N, 8 * nt), cdiv(M, 16)
    rpw = cdiv(mt * ncg, 1584 if ks == 8 else MMA_WARPS)
    return nt, ks, rpw, ncg * cdiv(mt, rpw)


def reported(M, N, K, mode=1, kmax=KMAX):
    # the routes before the SKINNY kernels (tests/test_gemm16_skinny.py mirrors those with their bits) and
    # before gemm16_mv_level's (tests/test_gemm16_mv_level.py mirrors its fused ROWS and TINYK widths)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_kmax=kmax, gemm16_mv_skinny=0, gemm16_mv_level=0):
        e = smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype="float16")
    if not e.config.startswith("memory-bound"):
        return None, e
    words = e.config.split()
    return (words[1], int(words[words.index("K") - 1].rstrip(","))), e


@pytest.mark.parametrize("kmax", [KMAX, 0, 128, 16])
def test_route_matches_the_rule_on_random_shapes(kmax):
    rng = np.random.default_rng(28 + kmax)
    for _ in range(3000):
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        if rng.uniform() < 0.3:  # more of the small-K shapes the MMA kernel takes
            K = int(rng.integers(1, 129))
        got, e = reported(M, N, K, kmax=kmax)
        assert got == mirror(M, N, K, kmax=kmax), (M, N, K, e.config)
        if got:
            assert e.accesses == () and "no shared memory" in e.config
            if got[0] == "MMA":
                nt, ks, rpw, warps = mma_geometry(M, N, K)
                assert K <= 16 * ks <= 2 * max(K, 16) and K <= max(kmax, 16)
                assert f"MMA {nt}x{ks} n-tiles x k steps, {rpw} m-tiles per warp" in e.config
                assert e.blocks == cdiv(warps, 4) and e.blocks < 2**31
                items = cdiv(M, 16) * cdiv(N, 8 * nt)  # (m-tile, column group) pairs, each one warp's once
                target = 1584 if ks == 8 else MMA_WARPS  # resident warps: 12 or 16 per SM of 132
                assert (rpw - 1) * target < items <= rpw * target and warps <= target + cdiv(N, 8 * nt)
            if got[1] > 1 and got[0] == "ROWS" and (kmax == 0 or K * N * 2 > 8 << 20):  # partials <= B / 4
                assert got[1] * M * N * 4 <= K * N * 2 // 4
            if got[1] > 1 and got[0] == "ROWS" and kmax > 0 and K * N * 2 <= 8 << 20:  # slices of >= 16 k
                assert got[1] <= cdiv(K, 16) and got[1] * M * N * 4 <= K * N * 2 * max(M, 2) // 4
            if got[1] > 1 and got[0] == "COLS":  # partials N / 124 of A's bytes (one per 248 k)
                assert got[1] * M * N * 4 <= M * (K + 247) * 2 * N // 124


@pytest.mark.parametrize("mode", [0, 2, 3, 4])
def test_route_modes(mode):
    for shape in [(1, 1, 1), (16, 4096, 4096), (9066, 2, 470), (300, 700, 333), (4972, 7083, 7)]:
        got, e = reported(*shape, mode=mode)
        assert got == mirror(*shape, mode=mode), (shape, e.config)
        if mode == 0:
            assert got is None and "memory-bound" not in e.config


def test_route_classes():
    assert mirror(8, 4096, 4096)[0] == "ROWS" and mirror(3, 2449, 16303)[0] == "ROWS"
    assert mirror(9066, 2, 470) == ("COLS", 2) and mirror(74, 6, 13105)[0] == "COLS"
    assert mirror(4972, 7083, 7, kmax=0) == ("TINYK", 1) and mirror(31, 8, 59124)[0] == "COLS"
    assert mirror(4972, 7083, 7) == ("TINYK", 1) and mirror(3000, 7088, 7) == ("MMA", 1)  # 16-byte stores
    assert mirror(2000, 6000, 32) == ("MMA", 1) and mirror(2000, 6001, 32) is None  # pairs, big D
    assert mirror(12047, 12, 10) == ("MMA", 1) and mirror(2917, 5082, 18) == ("MMA", 1)
    assert mirror(13771, 92, 1) == ("MMA", 1) and mirror(690, 335, 7) == ("MMA", 1)  # small N, small D
    assert mirror(838, 480, 32) is None and mirror(2917, 5082, 40) is None  # small D; K > 32
    assert mirror(4352, 7712, 1) == ("MMA", 1) and mirror(15011, 15304, 2) == ("TINYK", 1)  # 32, 213 m-tiles
    assert mirror(13097, 9696, 24) is None  # 118 m-tiles per warp: the tiles
    assert mirror(6271, 35, 12583) is None and mirror(4096, 4096, 4096) is None
    assert mirror(2000, 6000, 32, kmax=0) is None and mirror(5153, 12469, 65) is None
    for shape in [(16, 4096, 4096), (24, 4646, 96), (29, 7068, 17198), (32, 146, 12356)]:
        assert mirror(*shape) is None, shape  # 9 <= min(M, N) <= 32 with K > 64: the tile kernel
    assert mirror(1, 4096, 4096) == ("ROWS", 128) and mirror(8, 300, 40) == ("ROWS", 3)
    assert mirror(8, 300, 40, kmax=0) == ("ROWS", 1) and mirror(6, 1421, 176) == ("ROWS", 11)


def test_rows_grid_is_wide():
    """ROWS reaches the target warps when K allows it: slices of 32 k, workspace <= B / 4 (B over 8 MiB),
    slices of 16 k (B up to 8 MiB)."""
    for M, N, K in [(1, 4096, 4096), (2, 8920, 350), (4, 5269, 343), (1, 284, 50597), (8, 35, 17472), (6, 1421, 176)]:
        kind, S = mirror(M, N, K)
        warps = cdiv(N, SEG) * S
        small = K * N * 2 <= 8 << 20
        cap = cdiv(K, 16) if small else min(cdiv(K, 32), K // (8 * M))
        assert kind == "ROWS" and (warps >= TARGET_WARPS or 2 * S >= cap), (M, N, K)


def test_knob_kmax():
    assert _testing.current()["gemm16_mv_kmax"] == KMAX
    for bad in (1, 15, 129, -1):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_kmax=bad):
                pass
    with _testing.knobs(gemm16_mv_kmax=0):
        assert "TINYK" in smemkit.explain("gemm", (3000, 7088, 7), layout="swizzle", dtype="float16").config
    assert "MMA" in smemkit.explain("gemm", (3000, 7088, 7), layout="swizzle", dtype="float16").config


def test_knob_refuses_bad_modes():
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_matvec=9):  # 5 / 6 / 7 / 8: forced SKINNY / SKINNY_M / TALL / MROW (test_gemm16_skinny.py, _tall.py, _mrow.py)
            pass


# ---- GPU ----------------------------------------------------------------------------------------

def _check(d, a, b, alpha=1.0, beta=0.0, c=None, out_dtype=None):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64)
    bound = gamma(a.shape[1]) * abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0:
        c64 = c.astype(np.float64)
        ref, bound = ref + beta * c64, bound + 2 * 2.0**-24 * np.abs(beta * c64)
    od = np.dtype(out_dtype or a.dtype)
    bound = bound + OUT_U[od] * np.abs(ref) + OUT_TINY[od]
    d64 = np.asarray(d).astype(np.float64)
    assert d.dtype == od and d64.shape == ref.shape
    assert not np.any(np.isnan(d64)), "an output element was not written"
    err = np.abs(d64 - ref)
    assert np.all(err <= bound), f"worst excess {np.max(err - bound):.3e}"


def _ops(rng, M, N, K, dtype):
    return (rng.uniform(-1, 1, (M, K)).astype(dtype), rng.uniform(-1, 1, (K, N)).astype(dtype),
            rng.uniform(-1, 1, (M, N)).astype(dtype))


GPU_SHAPES = [(1, 1, 1), (1, 4096, 4096), (3, 2449, 1633), (16, 1000, 4096), (31, 8, 5912), (32, 300, 700),
              (9066, 2, 470), (74, 6, 13105), (500, 1, 60000), (1, 3, 60000), (700, 5, 9), (4972, 708, 7),
              (2, 2, 60000), (17, 257, 1), (40, 40, 16)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2, 3], ids=["auto", "rows", "cols"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_matvec_shapes(poison, shape, dtype, mode):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    with _testing.knobs(gemm16_matvec=mode):
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2, 3], ids=["auto", "rows", "cols"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_matvec_layouts_and_f32_out(poison, layout, dtype, mode):
    rng = np.random.default_rng(5)
    for shape in [(7, 300, 1000), (1000, 3, 2000), (600, 500, 11)]:
        a, b, c = _ops(rng, *shape, dtype)
        c32 = c.astype(np.float32)
        with _testing.knobs(gemm16_matvec=mode):
            d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
            _check(d, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
            _check(smemkit.gemm(a, b, layout=layout), a, b)


@pytest.mark.gpu
@pytest.mark.parametrize("K", list(range(1, 17)))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_matvec_tiny_k(poison, K, dtype):
    rng = np.random.default_rng(K)
    for shape in [(333, 517, K), (1, 1, K), (64, 1, K)]:
        a, b, c = _ops(rng, *shape, dtype)
        _check(smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0), a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2, 3], ids=["auto", "rows", "cols"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_matvec_odd_pitch_and_base(poison, dtype, mode):
    """Views whose rows start anywhere on 2 bytes (odd pitches, odd bases), C and D too."""
    rng = np.random.default_rng(11)
    for M, N, K in [(5, 301, 2001), (1001, 3, 777), (300, 201, 9)]:
        big_a, big_b, big_c = _ops(rng, M + 1, N + 5, K + 3, dtype)
        a, b, c = big_a[1:, 1:K + 1], rng.uniform(-1, 1, (K + 1, N + 3)).astype(dtype)[1:, 3:], big_c[1:, 2:N + 2]
        with _testing.knobs(gemm16_matvec=mode):
            _check(smemkit.gemm(a, b, c, alpha=1.0, beta=0.5), a, b, 1.0, 0.5, c)
            c32 = big_c.astype(np.float32)[1:, 1:N + 1]
            _check(smemkit.gemm(a, b, c32, beta=-1.0, out_dtype=np.float32), a, b, 1.0, -1.0, c32, np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2, 3], ids=["auto", "rows", "cols"])
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_matvec_every_row_offset(poison, dtype, r, mode):
    """N or K = 8 q + r, rows of pitch = r mod 8 from base offsets r and r + 3: every 16-byte offset of
    every stream; ROWS split (K >= 16 M) and not, COLS split (K > 256) and not."""
    rng = np.random.default_rng(100 + r)
    shapes = [(3, 8 * 31 + r, 8 * 5 + r), (7, 8 * 62 + r, 8 * 300 + r), (3, 8 * 40 + r, 8 * 9 + r), (5, 8 * 70 + r, 8 * 700 + r), (8, 8 * 37 + r, 40 + r), (1, 8 + r, 3000 + r),
              (8 * 50 + r, 3, 8 * 30 + r), (8 * 40 + r, 8, 8 * 900 + r), (8 * 9 + r, 1 + r, 8 * 31 + r), (r + 1, 1, r + 1)]
    for M, N, K in shapes:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            c = rng.uniform(-1, 1, (M, N)).astype(dtype)
            with _testing.knobs(gemm16_matvec=mode):
                _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
                ad, bd = np.ascontiguousarray(a), np.ascontiguousarray(b)
                _check(smemkit.gemm(ad, bd), ad, bd)


@pytest.mark.gpu
def test_matvec_is_deterministic(poison):
    rng = np.random.default_rng(3)
    a, b, _ = _ops(rng, 5, 4096, 4096, np.float16)
    d0 = smemkit.gemm(a, b)
    assert all(np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16)) for _ in range(3))
    a, b, _ = _ops(rng, 74, 6, 13105, BF16)
    d0 = smemkit.gemm(a, b)
    assert np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16))


# ---- the MMA kernel (K <= kmax, M, N > 8; forced with gemm16_matvec=4 on any M, N with K <= 128) ------

MMA_SHAPES = [(9, 9, 1), (12047, 12, 10), (1000, 32, 6), (700, 13, 2), (27, 3887, 16), (638, 1253, 13),
              (333, 517, 17), (64, 100, 33), (2917, 509, 18), (407, 425, 64), (100, 77, 65), (50, 40, 128),
              (17, 1, 40), (1, 300, 16), (8, 8, 100), (4000, 3000, 40), (33, 15, 31), (16, 16, 16)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 4], ids=["auto", "mma"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", MMA_SHAPES, ids=["x".join(map(str, s)) for s in MMA_SHAPES])
def test_mma_shapes(poison, shape, dtype, mode):
    """Dense operands (4-byte A pairs where K is even), alpha / beta with C, out= (NaN-filled), D's
    pairs aligned or not (odd N); the knob's K bound raised to 128 for the automatic route."""
    rng = np.random.default_rng(sum(shape) + 7)
    a, b, c = _ops(rng, *shape, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_kmax=128):
        if mode == 1:
            assert reported(*shape, mode=1, kmax=128)[0] == mirror(*shape, kmax=128)
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        assert smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=out) is out
        _check(out, a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_mma_layouts_and_f32_out(poison, layout, dtype):
    """Every layout runs the same kernel (no shared memory); float32 output (NumPy dtype and its name)."""
    rng = np.random.default_rng(9)
    for shape in [(600, 500, 11), (301, 77, 16), (1500, 1400, 24)]:
        a, b, c = _ops(rng, *shape, dtype)
        c32 = c.astype(np.float32)
        assert reported(*shape)[0] == ("MMA", 1)
        for od in (np.float32, "float32"):
            d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=od)
            _check(d, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
        _check(smemkit.gemm(a, b, layout=layout), a, b)
        e = smemkit.explain("gemm", shape, layout=layout, dtype=str(np.dtype(dtype)))
        assert e.accesses == () and "memory-bound MMA" in e.config


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 4], ids=["auto", "mma"])
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_mma_odd_pitch_and_base(poison, dtype, r, mode):
    """Views whose rows start anywhere on 2 bytes: A off 4 bytes (2-byte pairs), odd B / C / D pitches,
    C and D pairs unaligned, K = 8 q + r (odd K: the last pair half zero)."""
    rng = np.random.default_rng(200 + r)
    for M, N, K in [(8 * 40 + r, 8 * 30 + r, 8 + r), (8 * 9 + r, 17 + r, 8 * 5 + r), (200 + r, 9 + r, 1 + r),
                    (3 + r, 8 * 12 + r, 8 * 7 + r)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
            with _testing.knobs(gemm16_matvec=mode):
                _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
                out = np.full((M, N), np.nan, dtype)  # out= must be C-contiguous
                assert smemkit.gemm(a, b, out=out) is out
                _check(out, a, b)
                c32 = rng.uniform(-1, 1, (M, N + 3)).astype(np.float32)[:, 1:N + 1]
                _check(smemkit.gemm(a, b, c32, beta=2.0, out_dtype=np.float32), a, b, 1.0, 2.0, c32, np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("kmax", [0, 16, 64, 128])
def test_routes_under_every_kmax(poison, kmax):
    """The knob's settings (0: TINYK and the ROWS slices before) on the shapes they route differently."""
    rng = np.random.default_rng(kmax)
    for shape, dtype in [((500, 300, 9), np.float16), ((6, 1421, 176), BF16), ((300, 333, 100), np.float16),
                         ((4, 713, 337), np.float16), ((300, 29, 40), BF16)]:
        a, b, c = _ops(rng, *shape, dtype)
        with _testing.knobs(gemm16_mv_kmax=kmax):
            _check(smemkit.gemm(a, b, c, alpha=1.5, beta=0.5), a, b, 1.5, 0.5, c)


@pytest.mark.gpu
def test_mma_random_law_draws(poison):
    """Shapes from #28's law with K <= 128 (bounded in size), forced MMA and automatic."""
    rng = np.random.default_rng(31)
    done = 0
    while done < 24:
        M, N = (int(round(math.exp(rng.uniform(0, math.log(3000))))) for _ in range(2))
        K = int(rng.integers(1, 129))
        if M * N < 64:
            continue
        dtype = DTYPES[done % 2]
        a, b, c = _ops(rng, M, N, K, dtype)
        with _testing.knobs(gemm16_matvec=4 if done % 3 == 0 else 1):
            _check(smemkit.gemm(a, b, c, alpha=-1.0, beta=0.25), a, b, -1.0, 0.25, c)
        done += 1


@pytest.mark.gpu
@pytest.mark.parametrize("v16", [1, 0], ids=["v16", "pairs"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_mma_device_pitches(poison, dtype, v16):
    """Device-resident torch operands as a user has them: A and B views at any 2-byte offset and pitch
    (A's pairs as two 2-byte loads), out= a dense D at an offset of 0 / 2 / 4 / 16 bytes (16-byte stores
    only on 16 bytes with N % 8 == 0), C likewise; every element written, nothing outside D touched."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    from test_gemm import _from_torch, _to_torch
    rng = np.random.default_rng(17 + v16)
    tdt = torch.bfloat16 if np.dtype(dtype) == BF16 else torch.float16
    for M, N, K, off in [(333, 48, 12, 0), (70, 104, 40, 8), (129, 33, 64, 0), (200, 77, 9, 1), (50, 40, 20, 2),
                         (1000, 1000, 33, 0), (17, 24, 1, 8)]:
        a = rng.uniform(-1, 1, (M, K + 5)).astype(dtype)
        b = rng.uniform(-1, 1, (K, N + 3)).astype(dtype)
        c = rng.uniform(-1, 1, (M, N)).astype(dtype)
        ao, bo = off % 5, off % 3
        da, db = _to_torch(a, torch)[:, ao:ao + K], _to_torch(b, torch)[:, bo:bo + N]
        a, b = a[:, ao:ao + K], b[:, bo:bo + N]
        assert reported(M, N, K, mode=4)[0] == ("MMA", 1)
        for beta in (0.0, 0.5):
            flat = torch.full((M * N + 16,), float("nan"), device="cuda", dtype=tdt)
            out = flat[off:off + M * N].view(M, N)
            cflat = torch.zeros(M * N + 16, device="cuda", dtype=tdt)
            cflat[off:off + M * N] = _to_torch(c, torch).view(-1)
            dc = cflat[off:off + M * N].view(M, N)
            with _testing.knobs(gemm16_mv_v16=v16, gemm16_matvec=4):  # the kernel on every shape here
                d = smemkit.gemm(da, db, dc if beta else None, alpha=1.25, beta=beta, out=out)
            assert d.data_ptr() == out.data_ptr()
            _check(_from_torch(out, np.dtype(dtype)), a, b, 1.25, beta, c)
            rest = torch.cat([flat[:off], flat[off + M * N:]])
            assert bool(torch.isnan(rest.float()).all()), "a store outside D"
