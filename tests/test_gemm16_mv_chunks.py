"""gemm16_mv_level bit 8 (value 256; 319 = 63 + it): the MMA kernel's D as aligned 16-byte row chunks at any ldd /
offset (csrc/gemm16/matvec_chunks.cuh mv_store_chunks: the quad transpose, each row's shift, a fifth n-tile left of
the warp's 32 columns so the warp owns whole chunks; K <= 32, 4 n-tiles, 2-byte D and beta == 0, else the old
stores) and TINYK's shapes (K <= 16, M, N > 8, rpw <= 32, kmax > 0) to the MMA kernel (matvec.h
smk_mv_chunks_takes).  The class (H200 seed 171): 9120x1485x16 0.44, 7171x726x16 0.51, 1054x12706x15 0.52,
5636x757x11 0.61, 602x9876x12 0.62.  Unmeasured: the lead's A/B (level 319 against 63) decides.

CPU: on issue-28 law draws (seeds >= 3300, and their M, N with K = 1 .. 16) level 319 is level 63 except where
level 63 takes TINYK with rpw <= 32 (now the MMA kernel with chunks, its grid) or the MMA kernel with 4 n-tiles and
K <= 32 (same grid, chunked stores).  GPU: gemm16_matvec = 4 (the MMA kernel on every shape) with level 319: odd M /
N / K, K = 1 .. 32, every D row offset mod 16 bytes, views, device out= at any 2-byte offset with nothing outside D
touched, fp16 / bf16, alpha, NaN-poisoned outputs; beta / C and float32 output (the old stores); every layout; bits
equal to level 63's; against the float64 reference with the gamma_K bound.
"""
import re

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops  # noqa: E402
from test_gemm16_mv_cluster import explain, law  # noqa: E402

LEVEL = 319
MMA_RE = re.compile(r"memory-bound MMA (\d)x(\d) n-tiles x k steps, (\d+) m-tiles per warp, 1 K slices; "
                    r"no shared memory")
CLASS = [(9120, 1485, 16), (7171, 726, 16), (1054, 12706, 15), (5636, 757, 11), (602, 9876, 12)]


def cdiv(a, b):
    return -(-a // b)


def mma_geometry(M, N, K):
    """(npad, tm, rpw, blocks) of matvec.h smk_mv_mma."""
    npad, tm = (2 if N <= 16 else 4), (1 if K <= 16 else 2 if K <= 32 else 4 if K <= 64 else 8)
    ncg, mt = cdiv(N, 8 * npad), cdiv(M, 16)
    rpw = cdiv(mt * ncg, 1584 if K > 64 else 2112)
    return npad, tm, rpw, cdiv(ncg * cdiv(mt, rpw), 4)


def chunks_config(npad, tm, rpw):
    return f"memory-bound MMA {npad}x{tm} n-tiles x k steps, {rpw} m-tiles per warp, 16B D chunks; no shared memory"


def check(shape, dtype="float16", **knobs):
    """Level 319 against level 63: 1 where a TINYK shape moves to the MMA kernel, 2 where an MMA shape keeps its
    grid and takes the chunks, else 0 (identical)."""
    e63, e319 = explain(shape, 63, dtype, **knobs), explain(shape, LEVEL, dtype, **knobs)
    M, N, K = shape
    m = MMA_RE.fullmatch(e63[0])
    if m and int(m.group(1)) == 4 and K <= 32:
        assert e319 == (chunks_config(4, int(m.group(2)), int(m.group(3))), e63[1], e63[2]), (shape, e63, e319)
        return 2
    npad, tm, rpw, blocks = mma_geometry(M, N, K)
    if (e63[0].startswith("memory-bound TINYK") and rpw <= 32 and knobs.get("gemm16_mv_kmax", 32) > 0 and K >= 4
            and N >= 128 and M >= 32):  # matvec.h SMK_MV_CHUNKS_KMIN / NMIN / MMIN: TINYK keeps the rest
        assert npad == 4 and tm == 1 and K <= 16
        assert e319 == (chunks_config(npad, tm, rpw), blocks, e63[2]) and not e319[2], (shape, e319)
        return 1
    assert e319 == e63, (shape, e63, e319)
    return 0


def test_level_values():
    for ok in (256, 319, 511):
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    assert _testing.current()["gemm16_mv_level"] == 1855  # the default since session 45 (319 since 42)
    for bad in (-1, 2048):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass


def test_route_on_law_draws():
    rng = np.random.default_rng(3310)
    counts = [0, 0, 0]
    for (M, N, K), dtype in law(1500, 3310):
        counts[check((M, N, K), dtype)] += 1
        counts[check((M, N, int(rng.integers(1, 17))), dtype)] += 1
    print(f"3000 draws: {counts[1]} TINYK -> MMA chunks, {counts[2]} MMA with chunks, {counts[0]} identical")
    assert counts[1] > 100 and counts[2] > 20


def test_route_class_and_edges():
    for shape in CLASS:
        for dtype in ("float16", "bfloat16"):
            assert check(shape, dtype) == 1, shape
    # rpw > 32 stays TINYK; K = 17 odd N stays with the tiles; kmax 0 moves nothing; N <= 16 was MMA already
    for shape, want in [((15011, 15303, 2), 0), ((9120, 1485, 17), 0), ((300, 8, 5), 0), ((8, 300, 5), 0),
                        ((2000, 13, 9), 0), ((1100, 1001, 13), 1), ((4000, 300, 16), 1), ((600, 301, 16), 2), ((4000, 600, 30), 2),
                        ((3359, 4067, 3), 0), ((7361, 68, 7), 2), ((28, 14206, 13), 2), ((9000, 117, 12), 0), ((3359, 4067, 4), 1)]:
        assert check(shape) == want, shape
    for shape in CLASS:
        assert check(shape, gemm16_mv_kmax=0) == 0, shape


def test_size_checks_follow_the_route():
    """gemm16_temp.c (smk_gemm16_temp_bytes_shape) routes as the launcher: the moved draws (TINYK -> MMA) need no
    temporaries at either level, and no draw's temporaries change with bit 8."""
    import ctypes
    from smemkit import _C
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    rng = np.random.default_rng(3311)
    for (M, N, K), _ in law(400, 3311):
        for k in (K, int(rng.integers(1, 17))):
            for al in (0, 1):
                got = {}
                for level in (63, LEVEL):
                    with _testing.knobs(gemm16_mv_level=level):
                        got[level] = so.smk_gemm16_temp_bytes_shape(M, N, k, 0, al, al, 132)
                assert got[63] == got[LEVEL], (M, N, k, got)
                if check((M, N, k)) == 1:
                    assert got[LEVEL] == 0, (M, N, k)


def test_forced_mma_takes_chunks():
    """gemm16_matvec = 4 (the GPU tests' route): every K <= 32 with N > 16 takes the chunks at level 319."""
    for M, N, K in [(17, 33, 1), (33, 257, 7), (35, 999, 17), (70, 301, 32), (9, 17, 3)]:
        npad, tm, rpw, blocks = mma_geometry(M, N, K)
        assert explain((M, N, K), LEVEL, gemm16_matvec=4)[:2] == (chunks_config(npad, tm, rpw), blocks)
    assert "chunks" not in explain((33, 257, 33), LEVEL, gemm16_matvec=4)[0]
    assert "chunks" not in explain((33, 16, 7), LEVEL, gemm16_matvec=4)[0]


# ---- GPU ----------------------------------------------------------------------------------------

GPU_SHAPES = [(17, 33, 1), (40, 37, 16), (33, 257, 7), (100, 511, 11), (261, 1000, 13), (9, 17, 3), (35, 999, 17),
              (70, 301, 32), (1203, 1355, 11), (600, 517, 2), (1000, 23, 16), (77, 40, 25), (1100, 1001, 13)]


def run(a, b, level=LEVEL, **kw):
    with _testing.knobs(gemm16_mv_level=level, gemm16_matvec=4):
        return smemkit.gemm(a, b, **kw)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_chunks_shapes(poison, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    assert "chunks" in explain(shape, LEVEL, str(np.dtype(dtype)), gemm16_matvec=4)[0]
    d = np.full(c.shape, np.nan, dtype)
    assert run(a, b, out=d) is d
    _check(d, a, b)
    _check(run(a, b, alpha=-0.75), a, b, -0.75)
    _check(run(a, b, c=c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)  # C read: the pair stores
    c32 = c.astype(np.float32)
    _check(run(a, b, c=c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32, out_dtype=np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_chunks_auto_route(poison, dtype):
    """The automatic route (level 319, no forcing) on moved shapes."""
    rng = np.random.default_rng(5)
    for shape in [(1100, 1001, 13), (2050, 555, 4), (1030, 1283, 16)]:
        assert check(shape, str(np.dtype(dtype))) == 1, shape
        a, b, _ = _ops(rng, *shape, dtype)
        with _testing.knobs(gemm16_mv_level=LEVEL):
            _check(smemkit.gemm(a, b, alpha=1.25), a, b, 1.25)


@pytest.mark.gpu
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_chunks_every_row_offset(poison, dtype, r):
    """A, B views at element offsets r and r + 3, N = 8 q + r (D's rows at every offset mod 16 bytes for odd N),
    K = 1 .. 32 over r (out= must be C-contiguous: ldd = N; device offsets: test_chunks_device_out_offsets)."""
    rng = np.random.default_rng(400 + r)
    for M, N, K in [(8 * 20 + r + 1, 8 * 31 + r, 1 + r), (8 * 3 + r + 9, 8 * 5 + r + 1, 9 + r), (9 + r, 8 * 2 + r + 1, 16 - r),
                    (16 * 4 + r, 8 * 9 + r, 24 + r), (33, 32 + r, 32)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            _check(run(a, b), a, b)
            _check(run(a, b, alpha=1.5), a, b, 1.5)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_chunks_layouts(poison, layout, dtype):
    rng = np.random.default_rng(7)
    for shape in [(600, 501, 11), (77, 1001, 4)]:
        a, b, c = _ops(rng, *shape, dtype)
        _check(run(a, b, layout=layout), a, b)
        _check(run(a, b, c=c, alpha=0.5, beta=-1.0, layout=layout), a, b, 0.5, -1.0, c)


@pytest.mark.gpu
def test_chunks_is_level63_bits():
    """Same inputs, the MMA kernel at levels 63 (pair / 2-byte stores) and 319 (chunks): the same mma and
    roundings: equal bits."""
    rng = np.random.default_rng(9)
    for dtype in DTYPES:
        for shape in [(1001, 777, 13), (333, 1234, 30)]:
            a, b, _ = _ops(rng, *shape, dtype)
            d63, d319 = run(a, b, level=63, alpha=0.75), run(a, b, alpha=0.75)
            assert np.array_equal(d63.view(np.int16), d319.view(np.int16)), shape


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_chunks_device_out_offsets(poison, dtype):
    """out= a dense device D at 0 .. 9 elements past a 16-byte boundary: every element written, nothing
    outside D touched."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    from test_gemm import _from_torch, _to_torch
    rng = np.random.default_rng(21)
    tdt = torch.bfloat16 if np.dtype(dtype) != np.float16 else torch.float16
    for (M, N, K), off in [((70, 301, 9), 1), ((33, 256, 16), 3), ((129, 517, 5), 0), ((17, 1000, 12), 7),
                           ((41, 19, 3), 5), ((300, 263, 15), 9), ((50, 99, 27), 2)]:
        a, b, _ = _ops(rng, M, N, K, dtype)
        flat = torch.full((M * N + 32,), float("nan"), device="cuda", dtype=tdt)
        out = flat[off:off + M * N].view(M, N)
        with _testing.knobs(gemm16_mv_level=LEVEL, gemm16_matvec=4):
            d = smemkit.gemm(_to_torch(a, torch), _to_torch(b, torch), alpha=-1.25, out=out)
        assert d.data_ptr() == out.data_ptr()
        _check(_from_torch(out, np.dtype(dtype)), a, b, -1.25)
        rest = torch.cat([flat[:off], flat[off + M * N:]])
        assert bool(torch.isnan(rest).all()), "an element outside D was written"
