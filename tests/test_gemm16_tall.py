"""The fp16 / bf16 GEMM's TALL schedule (gemm16_mv_skinny bit 4, value 16, opt-in as 18 = 2 + it; gemm16_matvec=7
forces it on every N <= 8; bit 5, value 32: the kernel's second chunks by quad shuffles, 6 groups in flight,
no routing change): csrc/gemm16/matvec_tall.h smk_mv_tall / smk_mv_tall_takes route, gemm16_skinny.cu
mv_tall_kernel computes.  A warp owns one m-tile (16 rows of A) and keeps 4 groups of 32 k in flight; KW (1, 2,
4, 8) warps of a block walk K slices of the same m-tile and sum them in-kernel through a global scratch (no
shared memory, one launch, no reduce kernel).

CPU: the route and geometry explain() reports against a Python mirror on thousands of law shapes; every shape
the rule does not take routes exactly as before.  GPU: forced and automatic, fp16 / bf16, N = 1 .. 8, every row
offset of A mod 8 elements (K = 8 q + r, two bases), KW = 1, 2, 4, 8, alpha / beta with C, NaN-poisoned and
NaN-filled outputs, float32 output, every layout, against the float64 product with the gamma_K bound."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _testing

pytest.importorskip("ml_dtypes")

from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS  # noqa: E402
from test_gemm16_matvec import _check, _ops, cdiv  # noqa: E402

DEPTH, WARPS, MMIN, KWMAX, SPLIT_BYTES = 4, 1056, 1024, 8, 32 << 20  # matvec_tall.h SMK_MV_TALL_*
ON = 18  # gemm16_mv_skinny: 2 (the default, SKINNY for N <= 8) + 16 (TALL)
SH = 32  # + TALL's second chunks by quad shuffles, 6 groups in flight (no routing change): 50


def tall_geometry(M, K):
    """(KW, kc, S, blocks, threads) of matvec_tall.h smk_mv_tall."""
    tiles, groups = cdiv(M, 16), cdiv(K, 32)
    kw = 1
    while kw < KWMAX and tiles * kw < WARPS and cdiv(groups, 2 * kw) >= DEPTH:
        kw *= 2
    s = 1
    if tiles * kw < WARPS and M * K * 2 >= SPLIT_BYTES:
        s = max(1, min(cdiv(WARPS, tiles * kw), groups // (kw * DEPTH)))
    kc = cdiv(groups, kw * s) * 32
    s = cdiv(cdiv(K, kc), kw)
    nw = max(4, kw)
    return kw, kc, s, cdiv(tiles, nw // kw) * s, 32 * nw


def tall_takes(M, N, K, skinny=ON):
    if skinny & 64 and not (M >= 4096 and 40 < K <= 768):  # matvec_tall.h SMK_MV_TALL_SHORT_*
        return False
    return bool(skinny & 16) and N <= 8 and M >= MMIN and K > 16


def config(M, N, K, dtype="float16", **knobs):
    with _testing.knobs(**knobs):
        return smemkit.explain("gemm", (M, N, K), layout="swizzle", dtype=dtype)


def _law(rng):
    M = int(round(math.exp(rng.uniform(0, math.log(16384)))))
    K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
    N = int(rng.integers(1, 9)) if rng.uniform() < 0.7 else int(round(math.exp(rng.uniform(0, math.log(16384)))))
    return M, N, K


def _assert_tall(e, M, K):
    kw, kc, s, blocks, threads = tall_geometry(M, K)
    assert e.config == f"memory-bound TALL 16 rows x {kw} warps, {kc} k per warp, {s} K slices; no shared memory"
    assert e.accesses == () and e.blocks == blocks
    assert kw in (1, 2, 4, 8) and kc % 32 == 0 and s * kw * kc >= K > (s - 1) * kw * kc
    groups, tiles = cdiv(K, 32), cdiv(M, 16)
    assert kw == 1 or s > 1 or cdiv(groups, kw) >= DEPTH  # every warp's slice fills its ring at least once
    assert kw == KWMAX or tiles * kw >= WARPS or cdiv(groups, 2 * kw) < DEPTH  # KW as large as the rule allows
    if s > 1:  # across blocks only where KW = 8 leaves the warps short on a big A; slices still >= a ring
        assert kw == KWMAX and tiles * kw < WARPS and M * K * 2 >= SPLIT_BYTES and kc >= 32 * DEPTH
        assert tiles * kw * (s - 1) < WARPS


@pytest.mark.parametrize("seed", [3440, 3441])
def test_route_on_random_law_shapes(seed):
    """Under 18 the rule's shapes run TALL with the mirror's geometry; every other shape routes as under 2."""
    rng = np.random.default_rng(seed)
    took = 0
    for _ in range(2000):
        M, N, K = _law(rng)
        new, old = config(M, N, K, gemm16_mv_skinny=ON), config(M, N, K)
        if tall_takes(M, N, K):
            _assert_tall(new, M, K)
            took += 1
        else:
            assert (new.config, new.blocks) == (old.config, old.blocks), (M, N, K)
            assert "TALL" not in new.config
    assert took > 150


def test_forced_mode_takes_every_narrow_shape():
    rng = np.random.default_rng(3442)
    for _ in range(500):
        M, N, K = int(rng.integers(1, 5000)), int(rng.integers(1, 9)), int(rng.integers(1, 20000))
        _assert_tall(config(M, N, K, gemm16_matvec=7), M, K)
    assert "TALL" not in config(3000, 9, 500, gemm16_matvec=7).config


def test_route_classes():
    """The seed-194 draws the issue names: one launch, KW from M and K."""
    for (M, N, K), kw, s in [((8206, 4, 228), 2, 1), ((5392, 1, 485), 4, 1), ((11709, 1, 457), 2, 1),
                             ((4588, 2, 510), 4, 1), ((6442, 4, 43), 1, 1), ((1812, 1, 3339), 8, 1),
                             ((14508, 1, 12388), 2, 1), ((15784, 6, 12772), 2, 1), ((11528, 2, 17510), 2, 1),
                             ((1312, 5, 50728), 8, 2), ((2000, 1, 40000), 8, 2), ((2112, 1, 40000), 8, 1)]:
        e = config(M, N, K, gemm16_mv_skinny=ON)
        assert f"TALL 16 rows x {kw} warps" in e.config and f" {s} K slices" in e.config, (M, N, K, e.config)
        assert "SKINNY" in config(M, N, K, gemm16_mv_skinny=2).config  # session 43's default
        assert ("TALL" in config(M, N, K).config) == tall_takes(M, N, K, 82)  # the default: TALL on its short-K class
    assert "TALL" not in config(1023, 4, 5000, gemm16_mv_skinny=ON).config  # M below the rule: SKINNY
    assert "TALL" not in config(5000, 4, 16, gemm16_mv_skinny=ON).config  # K <= 16: the MMA kernel
    assert "TALL" not in config(5000, 9, 500, gemm16_mv_skinny=ON | 1).config
    assert "TALL" in config(5000, 4, 500, gemm16_mv_skinny=16).config  # bit 4 alone


def test_knob_values():
    assert _testing.current()["gemm16_mv_skinny"] == 82
    with _testing.knobs(gemm16_mv_skinny=127, gemm16_matvec=7):
        pass
    assert config(8206, 4, 228, gemm16_mv_skinny=ON | SH).config == config(8206, 4, 228, gemm16_mv_skinny=ON).config
    for bad in (128, -1):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_mv_skinny=bad):
                pass


# ---- GPU ----------------------------------------------------------------------------------------

# KW 1 (short K), 2, 4, 8 (short M, long K); M < 16 and M % 16 != 0 (rows past M), K <= 16 (forced only)
SHAPES = [(8206, 4, 228), (5392, 1, 485), (1812, 1, 3339), (6442, 4, 43), (1030, 8, 9001), (2000, 3, 17),
          (1100, 7, 129), (4099, 5, 1000), (1500, 2, 4096), (3000, 6, 33), (1024, 8, 161), (17, 3, 700), (9, 8, 5),
          (1, 1, 1), (40, 5, 60000), (3001, 1, 31), (1100, 3, 16400)]  # the last: S = 2 across blocks
MODES = [(7, 0), (1, ON), (7, SH), (1, ON | SH)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode,skinny", MODES, ids=["forced", "auto18", "forced_sh", "auto50"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_tall_shapes(poison, shape, dtype, mode, skinny):
    """Dense operands, alpha / beta with C, out= NaN-filled."""
    M, N, K = shape
    rng = np.random.default_rng(sum(shape) + 44)
    a, b, c = _ops(rng, M, N, K, dtype)
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_skinny=skinny):
        if mode == 7 or tall_takes(M, N, K):
            assert "TALL" in smemkit.explain("gemm", shape, dtype=str(np.dtype(dtype))).config
        _check(smemkit.gemm(a, b), a, b)
        _check(smemkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, -0.75, 1.5, c)
        out = np.full(c.shape, np.nan, dtype)
        assert smemkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=out) is out
        _check(out, a, b, 2.0, -1.0, c)


@pytest.mark.gpu
@pytest.mark.parametrize("skinny", [ON, ON | SH], ids=["18", "50"])
@pytest.mark.parametrize("r", range(8))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_tall_every_row_offset(poison, dtype, r, skinny):
    """A's rows at every offset mod 8 elements (K = 8 q + r, pitch K + 8, bases r and r + 3: the second chunk and
    the funnel shift; the last group's elements past K zeroed), N = 1 .. 8, odd pitches of B and C, KW 1 .. 8,
    float32 output with an odd C pitch."""
    rng = np.random.default_rng(440 + r)
    for M, N, K in [(1024 + 3 * r, 1 + r, 8 * 30 + r), (2000 + r, 8 - r, 8 * 3 + r + 1), (1100 + r, 1 + r, 8 * 600 + r),
                    (4000 + r, 1 + (r + 4) % 8, 8 * 60 + r), (1050 + r, 2, 8 * 16 + r)]:
        for off in (r, (r + 3) % 8):
            a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
            b = rng.uniform(-1, 1, (K, N + 8)).astype(dtype)[:, off:off + N]
            c = rng.uniform(-1, 1, (M, N + 8)).astype(dtype)[:, off:off + N]
            with _testing.knobs(gemm16_mv_skinny=skinny):
                assert "TALL" in smemkit.explain("gemm", (M, N, K), dtype=str(np.dtype(dtype))).config
                _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)
                out = np.full((M, N), np.nan, dtype)
                assert smemkit.gemm(a, b, out=out) is out
                _check(out, a, b)
                c32 = rng.uniform(-1, 1, (M, N + 3)).astype(np.float32)[:, 1:N + 1]
                _check(smemkit.gemm(a, b, c32, beta=2.0, out_dtype=np.float32), a, b, 1.0, 2.0, c32, np.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("skinny", [ON, ON | SH], ids=["18", "50"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_tall_layouts_and_determinism(poison, layout, skinny):
    """Every layout runs the same kernel (no shared memory); the in-block sums are in a fixed order."""
    rng = np.random.default_rng(45)
    for shape, dtype in [((1812, 1, 3339), np.float16), ((5392, 3, 485), DTYPES[1]), ((3000, 8, 50), np.float16)]:
        a, b, c = _ops(rng, *shape, dtype)
        with _testing.knobs(gemm16_mv_skinny=skinny):
            e = smemkit.explain("gemm", shape, layout=layout, dtype=str(np.dtype(dtype)))
            assert e.accesses == () and "memory-bound TALL" in e.config
            d0 = smemkit.gemm(a, b, layout=layout)
            _check(d0, a, b)
            assert all(np.array_equal(smemkit.gemm(a, b, layout=layout).view(np.int16), d0.view(np.int16))
                       for _ in range(3))
            c32 = c.astype(np.float32)
            _check(smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32), a, b, 0.5,
                   -1.5, c32, out_dtype=np.float32)


@pytest.mark.gpu
def test_tall_random_law_draws(poison):
    """Law shapes of the class (N <= 8, M >= 1024, bounded in size), automatic under 18."""
    rng = np.random.default_rng(3443)
    done = 0
    while done < 16:
        M, N, K = _law(rng)
        if not tall_takes(M, N, K) or M * K > 1 << 25:
            continue
        dtype = DTYPES[done % 2]
        a, b, c = _ops(rng, M, N, K, dtype)
        with _testing.knobs(gemm16_mv_skinny=ON | (SH if done % 2 else 0)):
            _check(smemkit.gemm(a, b, c, alpha=-1.0, beta=0.25), a, b, -1.0, 0.25, c)
        done += 1


@pytest.mark.gpu
@pytest.mark.parametrize("skinny", [ON, ON | SH], ids=["18", "50"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_tall_split_across_blocks_unaligned(poison, dtype, skinny):
    """S = 2 groups of 8 slices (grid y, partials + the reduce) with A's rows off 16 bytes: the slices' boundaries
    inside a row, the second chunk of a slice's last group from the next slice's first (SH: lane 0 at kend)."""
    rng = np.random.default_rng(446)
    M, N, K = 1100, 3, 16403
    for off in (1, 5):
        a = rng.uniform(-1, 1, (M, K + 8)).astype(dtype)[:, off:off + K]
        b = rng.uniform(-1, 1, (K, N)).astype(dtype)
        c = rng.uniform(-1, 1, (M, N + 2)).astype(dtype)[:, 1:N + 1]
        with _testing.knobs(gemm16_mv_skinny=skinny):
            assert " 2 K slices" in smemkit.explain("gemm", (M, N, K), dtype=str(np.dtype(dtype))).config
            _check(smemkit.gemm(a, b, c, alpha=0.5, beta=-1.0), a, b, 0.5, -1.0, c)


def _replay_sh_row(K, sh, k0, k1, depth=6):
    """mv_tall_kernel's bit-5 ring for one row, replayed: which chunks tl_issue<true> loads (x where it holds an element
    < K, inside the slice, and lane 0's at kend), slot (j + 1) % depth as the next group, tl_next's quad shuffle, and
    sk_words' window; every element < K must arrive, every one past K be zero."""
    kend = k0 + cdiv(k1 - k0, 32) * 32

    def chunk(kg, t):
        k = kg + 8 * t
        if not ((kg < k1 or (t == 0 and kg == kend)) and k - sh < K):
            return [0] * 8
        return [k - sh + i + 1 if 0 <= k - sh + i < K else -1 for i in range(8)]  # -1: another row's bytes

    slots = {j: (k0 + 32 * j, [chunk(k0 + 32 * j, t) for t in range(4)]) for j in range(depth)}
    for kb in range(k0, k1, 32 * depth):
        for j in range(depth):
            kg = kb + 32 * j
            if kg >= k1:
                break
            (g, xs), (gn, xn) = slots[j], slots[(j + 1) % depth]
            assert g == kg and gn == kg + 32
            for t in range(4):
                win, k = xs[t] + (xs[t + 1] if t < 3 else xn[0]), kg + 8 * t
                for i in range(8):
                    got = 0 if kg + 32 > K and k + i >= K else win[sh + i]
                    assert got == (k + i + 1 if k + i < K else 0), (K, sh, k0, k1, kg, t, i)
            slots[j] = (kg + 32 * depth, [chunk(kg + 32 * depth, t) for t in range(4)])


def test_shuffled_chunks_replay():
    rng = np.random.default_rng(3444)
    for _ in range(1500):
        K, sh, kw = int(rng.integers(1, 1500)), int(rng.integers(0, 8)), int(rng.choice([1, 2, 4, 8]))
        kc = cdiv(cdiv(K, 32), kw) * 32
        for s in range(kw):
            k0 = min(K, s * kc)
            _replay_sh_row(K, sh, k0, min(K, k0 + kc))
