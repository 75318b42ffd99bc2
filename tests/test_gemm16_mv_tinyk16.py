"""gemm16_mv_level bit 7 (value 128; 191 = 63 + it): TINYK's shapes (K <= 16, D is the stream) as TINYK16, D
written in aligned 16-byte row chunks, 8 rows x 256 columns per warp (csrc/gemm16/gemm16_tinyk.cu; routing:
csrc/gemm16/matvec.h smk_mv_tinyk).  Where D is fp32 or C is read the launcher runs the 2-byte TINYK kernel.
The class (seeds 151 / 153): 12031x1355x11 fp16 0.43, 12027x379x14 bf16 0.36, 8263x3291x14 bf16 0.51.
Unmeasured: the lead's A/B (level 191 against 63) decides.

CPU: on issue-28 law draws (seeds >= 3100, and their M, N with K = 1 .. 16) level 191 is level 63 except
where level 63 takes TINYK, which explain() reports as TINYK16 with its grid.  GPU: level 191 on TINYK's
shapes (gemm16_mv_kmax = 0 routes every K <= 16 with M, N > 8 there), odd M / N / K, every D row offset
mod 16 bytes (odd N: every row's own), the 256-column segment's edges, fp16 / bf16, alpha, NaN-poisoned
outputs, device views at any 2-byte offset with nothing outside D touched; alpha / beta with C and float32
output (the TINYK fallback); every layout; against the float64 reference with the gamma_K bound.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops  # noqa: E402
from test_gemm16_mv_cluster import explain, law  # noqa: E402

LEVEL = 191
CONFIG = "memory-bound TINYK16 8x256 per warp, 16-byte D row chunks; no shared memory"


def cdiv(a, b):
    return -(-a // b)


def check(shape, dtype="float16", **knobs):
    """Level 191 against level 63: 1 where TINYK16 takes the shape, else 0."""
    e63, e191 = explain(shape, 63, dtype, **knobs), explain(shape, LEVEL, dtype, **knobs)
    if not e63[0].startswith("memory-bound TINYK"):
        assert e191 == e63, (shape, e63, e191)
        return 0
    M, N, _ = shape
    assert e191[0] == CONFIG and e191[1] == cdiv(cdiv(M, 8) * cdiv(N, 256), 4) and not e191[2], (shape, e191)
    return 1


def test_level_values():
    for ok in (128, 191, 255):
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    assert _testing.current()["gemm16_mv_level"] == 1855  # the default since session 45 (319 since 42)
    for bad in (-1, 2048):  # 256: bit 8 (test_gemm16_mv_chunks.py)
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass


def test_route_on_law_draws():
    rng = np.random.default_rng(3140)
    moved = 0
    for (M, N, K), dtype in law(1500, 3140):
        moved += check((M, N, K), dtype)
        moved += check((M, N, int(rng.integers(1, 17))), dtype)
    print(f"3000 draws: {moved} TINYK draws to TINYK16")
    assert moved > 100


def test_route_edges_and_kmax0():
    for shape, want in [((9, 9, 16), 1), ((9, 9, 17), 0), ((8, 300, 5), 0), ((300, 8, 5), 0), ((12031, 1355, 11), 1),
                        ((12027, 379, 14), 1), ((7084, 7577, 14), 1), ((105, 11985, 12), 1)]:
        assert check(shape, "bfloat16", gemm16_mv_kmax=0) == want, shape
    for shape in [(12031, 1355, 11), (12027, 379, 14), (14967, 2412, 8)]:  # the class at the default kmax
        assert check(shape) == 1, shape


# ---- GPU ----------------------------------------------------------------------------------------

GPU_SHAPES = [(9, 9, 1), (17, 255, 3), (40, 256, 16), (33, 257, 7), (100, 511, 11), (1203, 1355, 11),
              (1202, 379, 14), (23, 2049, 5), (261, 1000, 13), (600, 517, 2), (1000, 9, 16)]


def run(a, b, dtype, **kw):
    with _testing.knobs(gemm16_mv_level=LEVEL, gemm16_mv_kmax=0):
        return smemkit.gemm(a, b, **kw)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=["x".join(map(str, s)) for s in GPU_SHAPES])
def test_tinyk16_shapes(poison, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a, b, c = _ops(rng, *shape, dtype)
    assert explain(shape, LEVEL, str(np.dtype(dtype)), gemm16_mv_kmax=0)[0] == CONFIG
    d = np.full(c.shape, np.nan, dtype)
    assert run(a, b, dtype, out=d) is d
    _check(d, a, b)
    _check(run(a, b, dtype, alpha=-0.75), a, b, -0.75)
    _check(run(a, b, dtype, c=c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)  # TINYK: C read
    c32 = c.astype(np.float32)
    _check(run(a, b, dtype, c=c32, alpha=0.5, beta=-1.5, out_dtype=np.float32), a, b, 0.5, -1.5, c32,
           out_dtype=np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_tinyk16_every_row_offset(poison, dtype, r):
    """A, B views at element offsets r and r + 3 with pitches = r mod 8 (B's chunks at every offset), N =
    8 q + r (D's rows at every offset mod 16 bytes for odd N), K = r + 1 .. (odd K)."""
    rng = np.random.default_rng(300 + r)
    for M, N, K in [(8 * 20 + r, 8 * 31 + r, 1 + r), (8 * 3 + r + 1, 8 * 64 + r, 9 + r), (9 + r, 8 * 2 + r + 1, 16 - r)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            _check(run(a, b, dtype), a, b)
            _check(run(a, b, dtype, alpha=1.5), a, b, 1.5)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_tinyk16_layouts(poison, layout, dtype):
    rng = np.random.default_rng(7)
    for shape in [(600, 500, 11), (77, 1001, 4)]:
        a, b, c = _ops(rng, *shape, dtype)
        _check(run(a, b, dtype, layout=layout), a, b)
        _check(run(a, b, dtype, c=c, alpha=0.5, beta=-1.0, layout=layout), a, b, 0.5, -1.0, c)


@pytest.mark.gpu
def test_tinyk16_is_level63_bits():
    """Same inputs, levels 63 and 191: fp32 sums of the same products in the same k order, one rounding: equal."""
    rng = np.random.default_rng(9)
    for dtype in DTYPES:
        a, b, _ = _ops(rng, 1001, 777, 13, dtype)
        with _testing.knobs(gemm16_mv_level=63, gemm16_mv_kmax=0):
            d63 = smemkit.gemm(a, b, alpha=0.75)
        d191 = run(a, b, dtype, alpha=0.75)
        assert np.array_equal(d63.view(np.int16), d191.view(np.int16))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_tinyk16_device_out_offsets(poison, dtype):
    """out= a dense device D at 0 .. 9 elements past a 16-byte boundary: every element written, nothing
    outside D touched."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    from test_gemm import _from_torch, _to_torch
    rng = np.random.default_rng(21)
    tdt = torch.bfloat16 if np.dtype(dtype) != np.float16 else torch.float16
    for (M, N, K), off in [((70, 301, 9), 1), ((33, 256, 16), 3), ((129, 517, 5), 0), ((17, 1000, 12), 7), ((41, 9, 3), 5),
                           ((300, 263, 15), 9)]:
        a, b, _ = _ops(rng, M, N, K, dtype)
        flat = torch.full((M * N + 32,), float("nan"), device="cuda", dtype=tdt)
        out = flat[off:off + M * N].view(M, N)
        with _testing.knobs(gemm16_mv_level=LEVEL, gemm16_mv_kmax=0):
            d = smemkit.gemm(_to_torch(a, torch), _to_torch(b, torch), alpha=-1.25, out=out)
        assert d.data_ptr() == out.data_ptr()
        _check(_from_torch(out, np.dtype(dtype)), a, b, -1.25)
        rest = torch.cat([flat[:off], flat[off + M * N:]])
        assert bool(torch.isnan(rest).all()), "an element outside D was written"
