"""The fp16 / bf16 GEMM's SKINNY kernels (csrc/gemm16/gemm16_skinny.cu, routed by matvec.h smk_mv_skinny(_m),
smk_mv_skinny(_m)_takes): SKINNY for N <= 32 (A streamed once with 16-byte loads at any row offset) and
SKINNY_M for M <= 32 (B streamed likewise, D^T = B^T A^T), tensor cores fed from registers, K split across
blocks (fp32 partials summed by the matvec reduce).  Off by default (gemm16_mv_skinny=0); its bits: 1
SKINNY for 9 <= N <= 32, 2 SKINNY for N <= 8 (COLS's), 4 SKINNY_M for 9 <= M <= 32 (all with M > 8, K >
16, where ROWS and the MMA kernel do not take the shape); gemm16_matvec=5 / 6 force SKINNY on every
variant-0 shape with N <= 32 / SKINNY_M with M <= 32.  Bit 8: SKINNY's B fragments by 4-byte loads
transposed with movmatrix (where B's rows start on 4 bytes; no routing change).

CPU: the route and the geometry as explain() reports them, against a Python mirror, on thousands of random
shapes under several settings; the workspace bound.  GPU: forced and automatic, fp16 / bf16, every layout,
float32 output, alpha / beta with C, NaN-poisoned and NaN-filled outputs, every row offset mod 8 of the
stream (K or N = 8 q + r, bases r and r + 3), odd pitches of the other operand and C, split and unsplit,
against the float64 product with the gamma_K bound (test_gemm16_matvec._check).
"""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import KMAX, SEG, _check, _ops, cdiv, mma_takes, rows_splits  # noqa: E402

ROWS, COLS, WARPS, KMIN, MAX_SPLITS = 32, 64, 4224, 128, 2048  # matvec.h SMK_MV_SKINNY_*, SMK_MV_MAX_SPLITS


def skinny_geometry(M, N, K, side="N"):
    """(n-tiles, splits, kc, blocks) of matvec.h smk_mv_skinny (side N: A streamed, 32 rows a warp) or
    smk_mv_skinny_m (side M: B streamed, 64 columns a warp), both through smk_mv_skinny_split."""
    units, stream, nt = (cdiv(M, ROWS), M * K, cdiv(N, 8)) if side == "N" else (cdiv(N, COLS), N * K, cdiv(M, 8))
    ws_cap = max(stream // 4, 4 << 20)
    s = max(1, min(cdiv(WARPS, units), K // KMIN, ws_cap // (M * N * 4), MAX_SPLITS))
    kc = cdiv(cdiv(K, s), 32) * 32
    s = cdiv(K, kc)
    return nt, s, kc, cdiv(units, 4) * s


def skinny_takes(M, N, K, level):
    """smk_mv_skinny_takes: bit 0 for 9 <= N <= 32, bit 1 for N <= 8 (M > 8, K > 16)."""
    return M > 8 and N <= 32 and K > 16 and bool(level & (1 if N > 8 else 2))


def skinny_m_takes(M, N, K, level):
    return bool(level & 4) and 8 < M <= 32 and N > 32 and K > 16


def mirror(M, N, K, mode=1, kmax=KMAX, skinny=0):
    """(kind, splits) of matvec.h smk_mv_route_of with the SKINNY level, or None (the tiles)."""
    if mode <= 0 or min(M, N, K) <= 0:
        return None
    if mode == 2:
        return ("ROWS", rows_splits(M, N, K, kmax))
    if mode == 3:
        return ("COLS", cdiv(K, SEG))
    if mode == 4 and K <= 128:
        return ("MMA", 1)
    if mode == 5 and N <= 32:
        return ("SKINNY", skinny_geometry(M, N, K)[1])
    if mode == 6 and M <= 32:
        return ("SKINNY_M", skinny_geometry(M, N, K, "M")[1])
    if N <= 8 and skinny_takes(M, N, K, skinny):
        return ("SKINNY", skinny_geometry(M, N, K)[1])
    if N <= 8 and M >= N:
        return ("COLS", cdiv(K, SEG))
    if M <= 8:
        return ("ROWS", rows_splits(M, N, K, kmax))
    if mma_takes(M, N, K, kmax):
        return ("MMA", 1)
    if skinny_takes(M, N, K, skinny):
        return ("SKINNY", skinny_geometry(M, N, K)[1])
    if skinny_m_takes(M, N, K, skinny):
        return ("SKINNY_M", skinny_geometry(M, N, K, "M")[1])
    return ("TINYK", 1) if K <= 16 else None


def reported(M, N, K, mode=1, skinny=0):
    # gemm16_mv_level 0: the ROWS / TINYK rules mirror() knows (test_gemm16_mv_level.py mirrors level 3's)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_skinny=skinny, gemm16_mv_level=0):
        e = smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype="float16")
    if not e.config.startswith("memory-bound"):
        return None, e
    words = e.config.split()
    return (words[1], int(words[words.index("K") - 1].rstrip(","))), e


def _law(rng):
    M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
    K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
    u = rng.uniform()
    if u < 0.3:  # more of the shapes the kernels take
        N = int(rng.integers(1, 33))
    elif u < 0.6:
        M = int(rng.integers(1, 33))
    return M, N, K


@pytest.mark.parametrize("mode,skinny", [(1, 0), (1, 1), (1, 3), (1, 4), (1, 7), (5, 0), (6, 0)])
def test_route_matches_the_rule_on_random_shapes(mode, skinny):
    rng = np.random.default_rng(37 + 3 * mode + skinny)
    took = 0
    for _ in range(2500):
        M, N, K = _law(rng)
        got, e = reported(M, N, K, mode=mode, skinny=skinny)
        assert got == mirror(M, N, K, mode=mode, skinny=skinny), (M, N, K, e.config)
        if not got or not got[0].startswith("SKINNY"):
            continue
        took += 1
        side = "N" if got[0] == "SKINNY" else "M"
        nt, s, kc, blocks = skinny_geometry(M, N, K, side)
        assert e.accesses == () and "no shared memory" in e.config and e.blocks == blocks < 2**31
        small, per = (N, f"{ROWS} rows per warp") if side == "N" else (M, f"{COLS} columns per warp")
        assert f"{got[0]} {nt} n-tiles, {per}" in e.config and 8 * nt >= small > 8 * nt - 8
        assert kc % 32 == 0 and (s - 1) * kc < K <= s * kc and s <= MAX_SPLITS
        if s > 1:  # slices of >= 128 k; partials <= max(A / 8, 4 MiB); the warps reach the target or a bound stops them
            stream, units = (M * K, cdiv(M, ROWS)) if side == "N" else (N * K, cdiv(N, COLS))
            assert kc >= KMIN and s * M * N * 4 <= max(stream // 4, 4 << 20)
            warps = units * s
            bound = min(K // KMIN, max(stream // 4, 4 << 20) // (M * N * 4), MAX_SPLITS)
            assert 2 * warps >= WARPS or 2 * s >= bound  # (kc rounds up to 32 k)
    assert (took > 100) == (skinny > 0 or mode >= 5)


def test_route_classes():
    assert mirror(7819, 24, 30630) is None and mirror(7819, 24, 30630, skinny=1)[0] == "SKINNY"
    assert mirror(163, 11, 19937, skinny=1)[0] == "SKINNY" and mirror(6964, 6, 40324, skinny=1)[0] == "COLS"
    assert mirror(6964, 6, 40324, skinny=2)[0] == "SKINNY" and mirror(8, 6, 40324, skinny=2)[0] == "COLS"
    assert mirror(7, 20, 5000, skinny=2)[0] == "ROWS" and mirror(300, 33, 5000, skinny=2) is None
    # K 17..32: the MMA kernel wants M N >= 2^21, never so for N <= 32; K <= 16 stays with it
    assert mirror(2000, 32, 24, skinny=1)[0] == "SKINNY" and mirror(2000, 31, 24, skinny=1)[0] == "SKINNY"
    assert mirror(2000, 31, 16, skinny=1) == ("MMA", 1) and mirror(12047, 12, 10, skinny=1) == ("MMA", 1)
    assert mirror(1, 1, 1, mode=5) == ("SKINNY", 1) and mirror(1, 33, 1, mode=5)[0] == "ROWS"
    assert mirror(6964, 6, 40324, skinny=1 | 4)[0] == "COLS" and mirror(13, 485, 12998, skinny=3) is None
    assert mirror(13, 485, 12998, skinny=4)[0] == "SKINNY_M" and mirror(21, 3559, 44, skinny=4)[0] == "SKINNY_M"
    assert mirror(30, 26, 11606, skinny=5)[0] == "SKINNY" and mirror(30, 26, 11606, skinny=4) is None
    assert mirror(33, 485, 12998, skinny=7) is None and mirror(8, 485, 12998, skinny=7)[0] == "ROWS"
    assert mirror(40, 30, 100, mode=6) is None and mirror(32, 3000, 100, mode=6)[0] == "SKINNY_M"


def test_knob():
    assert _testing.current()["gemm16_mv_skinny"] == 82  # bit 2 (SKINNY for N <= 8) since session 37, TALL bits 16 + 64 since 44
    for bad in (128, -1):  # bits 4, 5, 6 (16, 32, 64): TALL, session 44 (tests/test_gemm16_tall.py)
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_skinny=bad):
                pass
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_matvec=9):  # 7: forced TALL, 8: forced MROW
            pass
    with _testing.knobs(gemm16_mv_skinny=1):
        assert "SKINNY" in smemkit.explain("gemm", (7819, 24, 30630), dtype="float16").config
    assert "SKINNY" not in smemkit.explain("gemm", (7819, 24, 30630), dtype="float16").config


# ---- GPU ----------------------------------------------------------------------------------------

SHAPES = [(9, 9, 17), (1, 1, 1), (163, 11, 19937), (215, 14, 15440), (1819, 24, 3063), (1000, 32, 33),
          (33, 31, 4000), (30, 26, 11606), (6188, 11, 100), (100, 17, 1), (64, 25, 129), (2000, 8, 1000),
          (70, 5, 60000), (3000, 1, 300), (17, 3, 7), (4, 20, 300), (1026, 30, 257),
          (9, 33, 17), (13, 485, 12998), (21, 3559, 44), (32, 64, 1000), (17, 1000, 300), (5, 70, 100),
          (24, 20000, 50), (11, 131, 30000), (3, 9, 40)]
MODES = [(5, 0), (5, 8), (6, 0), (1, 15)]  # 8: SKINNY's movmatrix B fragments (B's rows on 4 bytes)
MODE_IDS = ["forced_n", "forced_n_movm", "forced_m", "auto15"]


@pytest.mark.gpu
@pytest.mark.parametrize("mode,skinny", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_skinny_shapes(poison, shape, dtype, mode, skinny):
    """Dense operands, alpha / beta with C, out= NaN-filled; the route is the mirror's."""
    rng = np.random.default_rng(sum(shape) + 41)
    a, b, c = _ops(rng, *shape, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_skinny=skinny):
        assert reported(*shape, mode=mode, skinny=skinny)[0] == mirror(*shape, mode=mode, skinny=skinny)
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        assert smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=out) is out
        _check(out, a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_skinny_layouts_and_f32_out(poison, layout, dtype):
    """Every layout runs the same kernel (no shared memory); float32 output, split and unsplit."""
    rng = np.random.default_rng(19)
    for shape in [(600, 20, 5000), (301, 9, 40), (1500, 32, 700), (20, 700, 3000), (9, 100, 33)]:
        a, b, c = _ops(rng, *shape, dtype)
        c32 = c.astype(np.float32)
        with _testing.knobs(gemm16_mv_skinny=15 if shape[1] % 2 == 0 else 7):  # 8: movmatrix where B allows
            kind = reported(*shape, skinny=7)[0][0]
            assert kind.startswith("SKINNY")
            for od in (np.float32, "float32"):
                d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=od)
                _check(d, a, b, 0.5, -1.5, c32, out_dtype=np.float32)
            _check(smemkit.gemm(a, b, layout=layout), a, b)
            e = smemkit.explain("gemm", shape, layout=layout, dtype=str(np.dtype(dtype)))
        assert e.accesses == () and f"memory-bound {kind} " in e.config


@pytest.mark.gpu
@pytest.mark.parametrize("mode,skinny", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_skinny_every_row_offset(poison, dtype, r, mode, skinny):
    """The stream's rows at every offset mod 8 elements (A's for SKINNY: K = 8 q + r; B's for SKINNY_M: N =
    8 q + r; pitch + 8, bases r and r + 3: the second chunk and the funnel shift; SKINNY's last group's
    elements past K zeroed, SKINNY_M's columns past N never stored), odd pitches of the other operand and
    C, split (K >= 256) and not, float32 output with an odd C pitch."""
    rng = np.random.default_rng(300 + r)
    for M, N, K in [(8 * 40 + r, 9 + r, 8 * 300 + r), (8 * 9 + r, 17 + r, 8 * 5 + r), (200 + r, 25 + r, 8 * 70 + r),
                    (33 + r, 8 + r, 8 * 2 + r + 1), (300 + r, 32 - r, 8 * 300 + r), (9 + r, 8 * 40 + r, 8 * 30 + r),
                    (32 - r, 8 * 17 + r, 8 * 700 + r), (17 + r, 33 + r, 17 + r)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
            with _testing.knobs(gemm16_matvec=mode, gemm16_mv_skinny=skinny):
                _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
                out = np.full((M, N), np.nan, dtype)
                assert smemkit.gemm(a, b, out=out) is out
                _check(out, a, b)
                c32 = rng.uniform(-1, 1, (M, N + 3)).astype(np.float32)[:, 1:N + 1]
                _check(smemkit.gemm(a, b, c32, beta=2.0, out_dtype=np.float32), a, b, 1.0, 2.0, c32, np.float32)


@pytest.mark.gpu
def test_skinny_is_deterministic(poison):
    rng = np.random.default_rng(23)
    a, b, _ = _ops(rng, 300, 20, 30000, np.float16)
    for level in (1, 9):
        with _testing.knobs(gemm16_mv_skinny=level):
            assert reported(300, 20, 30000, skinny=level)[0][1] > 1
            d0 = smemkit.gemm(a, b)
            assert all(np.array_equal(smemkit.gemm(a, b).view(np.int16), d0.view(np.int16)) for _ in range(3))


@pytest.mark.gpu
def test_skinny_random_law_draws(poison):
    """Shapes from #28's law with N <= 32 or M <= 32 (bounded in size), forced and automatic."""
    rng = np.random.default_rng(43)
    done = 0
    while done < 24:
        M = int(round(math.exp(rng.uniform(0, math.log(4000)))))
        N, K = int(rng.integers(1, 33)), int(round(math.exp(rng.uniform(0, math.log(20000)))))
        if done % 2:
            M, N = N, M
        if M * N < 64 or M * K > 1 << 24:
            continue
        dtype = DTYPES[done % 2]
        a, b, c = _ops(rng, M, N, K, dtype)
        with _testing.knobs(gemm16_matvec=(5, 6, 1)[done % 3], gemm16_mv_skinny=(7, 15)[done % 2]):
            _check(smemkit.gemm(a, b, c, alpha=-1.0, beta=0.25), a, b, -1.0, 0.25, c)
        done += 1
