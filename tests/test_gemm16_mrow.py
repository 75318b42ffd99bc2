"""MROW: the fp16 / bf16 GEMM's M <= 8 calls on tensor cores over a whole wave (gemm16_mv_level bit 9, value 512,
opt-in as 831 = 319 + it: the M <= 8 calls whose ROWS route pays a reduce launch; bit 10, value 1024 with 512, 1855:
every M <= 8 call; gemm16_matvec=8 forces it on every M <= 8).  csrc/gemm16/matvec_mrow.h routes and splits,
gemm16_mrow.cu computes D^T = B^T A^T with mma.sync from 16-byte B row chunks (no shared memory).

CPU: the route and geometry explain() reports against a Python mirror on thousands of law shapes and small-M shapes;
every shape the bits do not take routes exactly as under the default; the workspace query counts the partials.
GPU: forced and automatic, fp16 / bf16, M = 1 .. 8, N from 1 to 12336, split and unsplit, every row offset of B mod
8 elements (N = 8 q + r, views at two bases), odd A / C pitches, alpha / beta with C, NaN-poisoned and NaN-filled
outputs, float32 output, every layout, against the float64 product with the gamma_K bound; determinism."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402

COLS, BLOCKS, GRAN, MAX_GROUPS, SMALL = 64, 528, 32, 256, 8 << 20  # matvec_mrow.h SMK_MV_MROW_*, matvec.h
BASE = 319  # session 42's level: every bit below MROW's
TAKE_SPLIT, TAKE_ALL = BASE | 512, BASE | 512 | 1024  # 831, 1855 (the default since session 45)


def mrow_geometry(M, N, K):
    """(kc, G, blocks) of matvec_mrow.h smk_mv_mrow: G groups of 4 slices of kc k per strip of 64 columns."""
    strips, small = cdiv(N, COLS), K * N * 2 <= SMALL
    g = max(1, min(BLOCKS // strips, cdiv(K, 4 * GRAN), K // ((4 if small else 8) * M), MAX_GROUPS))
    kc = cdiv(cdiv(K, 4 * g), GRAN) * GRAN
    g = cdiv(cdiv(K, kc), 4)
    return kc, g, strips * g


def config(M, N, K, dtype="float16", **knobs):
    with _testing.knobs(**knobs):
        return smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype=dtype)


def old_splits(cfg):
    """The K groups a ROWS config string reports (1 for the one-launch clusters)."""
    if "clusters" in cfg:
        return 1
    words = cfg.split()
    return int(words[words.index("K") - 1].rstrip(","))


def _assert_mrow(e, M, N, K):
    kc, g, blocks = mrow_geometry(M, N, K)
    assert e.config == f"memory-bound MROW {M} rows x {COLS} columns per warp, {g} K groups of 4 x {kc} k; no shared memory"
    assert e.accesses == () and e.blocks == blocks
    assert kc % GRAN == 0 and 4 * g * kc >= K > 4 * (g - 1) * kc and g <= MAX_GROUPS
    assert g == 1 or blocks <= BLOCKS  # one wave of 4 blocks of 4 warps per SM
    if g > 1:  # the partials: at most a quarter of B's bytes, half on a small B
        assert g * M * N * 4 <= K * N * 2 // (2 if K * N * 2 <= SMALL else 4)


def _testing_lib():
    from smemkit import _C
    return _C.__file__


def _law(rng):
    M = int(rng.integers(1, 9)) if rng.uniform() < 0.7 else int(round(math.exp(rng.uniform(0, math.log(16384)))))
    N = int(round(math.exp(rng.uniform(0, math.log(16384)))))
    K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
    return M, N, K


@pytest.mark.parametrize("seed", [3490, 3491])
def test_route_on_random_shapes(seed):
    """831: MROW exactly where level 319's ROWS route splits K into a reduce; 1855: every M <= 8; else unchanged."""
    rng = np.random.default_rng(seed)
    took = [0, 0]
    for _ in range(1500):
        M, N, K = _law(rng)
        if M * N * K < 1 << 20 or M * N < 64:
            continue
        old, split, every = config(M, N, K, gemm16_mv_level=BASE), config(M, N, K, gemm16_mv_level=TAKE_SPLIT), \
            config(M, N, K, gemm16_mv_level=TAKE_ALL)
        if M > 8:
            assert (split.config, split.blocks) == (old.config, old.blocks) == (every.config, every.blocks)
            continue
        assert "ROWS" in old.config, (M, N, K, old.config)
        _assert_mrow(every, M, N, K)
        took[1] += 1
        if old_splits(old.config) > 1:
            _assert_mrow(split, M, N, K)
            took[0] += 1
        else:
            assert (split.config, split.blocks) == (old.config, old.blocks), (M, N, K)
    assert took[0] > 100 and took[1] > took[0]


def test_forced_mode_and_knob_values():
    rng = np.random.default_rng(3492)
    for _ in range(500):
        M, N, K = int(rng.integers(1, 9)), int(rng.integers(1, 20000)), int(rng.integers(1, 70000))
        _assert_mrow(config(M, N, K, gemm16_matvec=8), M, N, K)
    assert "MROW" not in config(9, 3000, 500, gemm16_matvec=8).config
    assert _testing.current()["gemm16_mv_level"] == TAKE_ALL
    for ok in (TAKE_SPLIT, TAKE_ALL, 2047, 512):
        with _testing.knobs(gemm16_mv_level=ok):
            assert _testing.current()["gemm16_mv_level"] == ok
    for bad in (-1, 2048):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_level=bad):
                pass
    assert "MROW" in config(8, 12336, 2700).config  # the default since session 45
    assert "MROW" not in config(8, 12336, 2700, gemm16_mv_level=BASE).config
    assert "MROW" not in config(8, 12336, 2700, gemm16_mv_level=1024).config  # 1024 needs 512


def test_issue_draws():
    """Seed 203's worst M <= 8 draws: every one pays a reduce at level 319 except 6x9573x147 (one launch)."""
    for (M, N, K), g in [((8, 12336, 2700), 2), ((6, 30, 57969), 227), ((6, 137, 1288), 11), ((6, 729, 1579), 13),
                         ((2, 14509, 521), 2), ((7, 79, 22120), 173), ((6, 9573, 147), 2)]:
        e = config(M, N, K, gemm16_mv_level=TAKE_ALL)
        _assert_mrow(e, M, N, K)
        assert f" {g} K groups" in e.config, (M, N, K, e.config)
        assert ("MROW" in config(M, N, K, gemm16_mv_level=TAKE_SPLIT).config) == (old_splits(config(M, N, K, gemm16_mv_level=BASE).config) > 1)


def test_workspace_query_counts_the_partials():
    import ctypes
    so = ctypes.CDLL(_testing_lib())
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    for M, N, K in [(8, 12336, 2700), (6, 30, 57969), (3, 100, 40), (1, 5000, 64)]:
        _, g, blocks = mrow_geometry(M, N, K)
        with _testing.knobs(gemm16_mv_level=TAKE_ALL):
            got = so.smk_gemm16_temp_bytes_shape(M, N, K, 0, 0, 0, 132)
        assert got == (g * M * N * 4 if g > 1 else 0) + blocks * 4 * 16 * 32 * 4, (M, N, K, got)  # + the blocks' scratch


# ---- GPU ----------------------------------------------------------------------------------------

# S == 1 (short K) and split; N narrow (1 .. 64: one strip, most lanes idle), odd, a multiple of 64, wide
SHAPES = [(8, 12336, 2700), (6, 30, 5797), (6, 137, 1288), (6, 729, 1579), (2, 14509, 521), (7, 79, 2212),
          (6, 9573, 147), (1, 1, 1), (8, 64, 32), (3, 1, 40000), (5, 65, 33), (4, 4096, 16), (1, 300, 7),
          (8, 127, 4099), (2, 8, 100000), (7, 1000, 31)]
MODES = [(8, BASE), (1, TAKE_ALL), (1, TAKE_SPLIT)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode,level", MODES, ids=["forced", "auto1855", "auto831"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_mrow_shapes(poison, shape, dtype, mode, level):
    """Dense operands, alpha / beta with C, out= NaN-filled."""
    M, N, K = shape
    rng = np.random.default_rng(sum(shape) + 45)
    a, b, c = _ops(rng, M, N, K, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_level=level):
        if mode == 8 or (level == TAKE_ALL and not (N <= 8 and M >= N)):  # N <= 8 <= ... M >= N: COLS / SKINNY's
            assert "MROW" in smemkit.explain("gemm", shape, dtype=str(np.dtype(dtype))).config
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        assert smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=out) is out
        _check(out, a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_mrow_every_row_offset(poison, dtype, r):
    """N or K = 8 q + r, B's rows of pitch r mod 8 from base offsets r and r + 3 (every 16-byte offset of every B
    row, the chunk pairs and their funnel shifts), A off 4 bytes (2-byte pairs), C off any offset, float32 out."""
    rng = np.random.default_rng(3490 + r)
    for M, N, K in [(8, 8 * 31 + r, 8 * 300 + r), (3, 8 * 8 + r, 40 + r), (5, 8 * 700 + r, 8 * 20 + r),
                    (1, 1 + r, 8 * 500 + r), (7, 8 * 9 + r, 17 + r)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
            with _testing.knobs(gemm16_matvec=8):
                _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
                c32 = rng.uniform(-1, 1, (M, N + 3)).astype(np.float32)[:, 1:N + 1]
                _check(smemkit.gemm(a, b, c32, beta=2.0, out_dtype=np.float32), a, b, 1.0, 2.0, c32, np.float32)
                ad, bd = np.ascontiguousarray(a), np.ascontiguousarray(b)
                _check(smemkit.gemm(ad, bd), ad, bd)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_mrow_layouts_and_f32_out(poison, layout, dtype):
    """Every layout runs the same kernel (no shared memory); float32 output."""
    rng = np.random.default_rng(3493)
    for shape in [(7, 300, 1000), (8, 2048, 64), (2, 99, 5000)]:
        a, b, c = _ops(rng, *shape, dtype)
        c32 = c.astype(np.float32)
        with _testing.knobs(gemm16_mv_level=TAKE_ALL):
            e = smemkit.explain("gemm", shape, layout=layout, dtype=str(np.dtype(dtype)))
            assert e.accesses == () and "memory-bound MROW" in e.config
            d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
            _check(d, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
            _check(smemkit.gemm(a, b, layout=layout), a, b)


@pytest.mark.gpu
def test_mrow_specials_and_determinism(poison):
    """Inf / NaN in A or B reach only their own outputs (rows past K and A's pairs past a slice are zeros, not
    garbage times a zero); the same call twice is bit-identical (fixed split, fixed reduce order)."""
    rng = np.random.default_rng(3494)
    for dtype in DTYPES:
        a, b, _ = _ops(rng, 5, 333, 1000, dtype)
        a[2, 500] = np.inf
        b[700, 10] = np.nan
        with _testing.knobs(gemm16_matvec=8):
            d = smemkit.gemm(a, b).astype(np.float64)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            assert np.array_equal(np.isnan(d), np.isnan(ref)) and np.array_equal(np.isinf(d), np.isinf(ref))
            a2, b2, _ = _ops(rng, 8, 4096, 4096, dtype)
            d0 = smemkit.gemm(a2, b2)
            assert np.array_equal(smemkit.gemm(a2, b2).view(np.int16), d0.view(np.int16))
