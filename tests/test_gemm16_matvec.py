"""The fp16 / bf16 GEMM's memory-bound path (csrc/gemm16/matvec.h, matvec.cuh): variant 0 sends N <= 8
(with M >= N: COLS), M <= 8 (ROWS) and K <= 16 (TINYK) to CUDA-core kernels that use no shared memory;
ROWS and COLS stream their big operand with 16-byte loads at any row offset (funnel shifts).

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


def cdiv(a, b):
    return -(-a // b)


def pow2(n, cap):
    p = 1
    while p < n and p < cap:
        p *= 2
    return p


def mirror(M, N, K, mode=1):
    """(kind, splits) the path takes for M x N x K, or None: matvec.h smk_mv_route_of in Python."""
    if mode <= 0 or min(M, N, K) <= 0:
        return None
    cols = N <= 8 and M >= N
    if mode == 2 or (mode == 1 and not cols and M <= 8):
        s = max(1, min(cdiv(TARGET_WARPS, cdiv(M, min(M, 8)) * cdiv(N, SEG)), cdiv(K, 32), K // (8 * M), MAX_SPLITS))
        kc = cdiv(cdiv(K, s), 32) * 32
        return ("ROWS", cdiv(K, kc))
    if mode == 3 or cols:
        return ("COLS", cdiv(K, SEG))
    return ("TINYK", 1) if K <= 16 else None


def reported(M, N, K, mode=1):
    with _testing.knobs(gemm16_matvec=mode):
        e = smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype="float16")
    if not e.config.startswith("memory-bound"):
        return None, e
    words = e.config.split()
    return (words[1], int(words[words.index("K") - 1].rstrip(","))), e


def test_route_matches_the_rule_on_random_shapes():
    rng = np.random.default_rng(28)
    for _ in range(3000):
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        got, e = reported(M, N, K)
        assert got == mirror(M, N, K), (M, N, K, e.config)
        if got:
            assert e.accesses == () and "no shared memory" in e.config
            if got[1] > 1 and got[0] == "ROWS":  # partials at most a quarter of B's bytes
                assert got[1] * M * N * 4 <= K * N * 2 // 4
            if got[1] > 1 and got[0] == "COLS":  # partials N / 124 of A's bytes (one per 248 k)
                assert got[1] * M * N * 4 <= M * (K + 247) * 2 * N // 124


@pytest.mark.parametrize("mode", [0, 2, 3])
def test_route_modes(mode):
    for shape in [(1, 1, 1), (16, 4096, 4096), (9066, 2, 470), (300, 700, 333), (4972, 7083, 7)]:
        got, e = reported(*shape, mode=mode)
        assert got == mirror(*shape, mode=mode), (shape, e.config)
        if mode == 0:
            assert got is None and "memory-bound" not in e.config


def test_route_classes():
    assert mirror(8, 4096, 4096)[0] == "ROWS" and mirror(3, 2449, 16303)[0] == "ROWS"
    assert mirror(9066, 2, 470) == ("COLS", 2) and mirror(74, 6, 13105)[0] == "COLS"
    assert mirror(4972, 7083, 7) == ("TINYK", 1) and mirror(31, 8, 59124)[0] == "COLS"
    assert mirror(6271, 35, 12583) is None and mirror(4096, 4096, 4096) is None
    assert mirror(5153, 12469, 32) is None  # tiny K means K <= 16 here
    for shape in [(16, 4096, 4096), (24, 4646, 96), (29, 7068, 17198), (32, 146, 12356), (9, 9, 17)]:
        assert mirror(*shape) is None, shape  # 9 <= min(M, N) <= 32: the tile kernel
    assert mirror(1, 4096, 4096) == ("ROWS", 128) and mirror(8, 300, 40) == ("ROWS", 1)


def test_rows_grid_is_wide():
    """ROWS reaches the target warps when K allows it: slices of 32 k, workspace <= B / 4."""
    for M, N, K in [(1, 4096, 4096), (2, 8920, 350), (4, 5269, 343), (1, 284, 50597), (8, 35, 17472)]:
        kind, S = mirror(M, N, K)
        warps = cdiv(N, SEG) * S
        assert kind == "ROWS" and (warps >= TARGET_WARPS or 2 * S >= min(cdiv(K, 32), K // (8 * M))), (M, N, K)


def test_knob_refuses_bad_modes():
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_matvec=4):
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
