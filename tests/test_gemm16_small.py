"""Knob gemm16_small: variant 0's in-place 64x64 launches (rows not 16-byte aligned, read through registers) on
the 32x64 half tile (csrc/gemm16/small.h VHalf: the same kernel template, 8 warps of 16x16, the deep staged loads
of load_deep.cuh) where its grid, tiles x splits, fits one wave (api/gemm16_small.h
smk_gemm16_small_tile); levels 3 / 4 fill its ring with 16-byte loads funnel-shifted at the store
(load_deep_wide.cuh).  The class: issue 28's tiny calls (2..40 blocks of 64x64, K up to ~1000) at 0.52-0.62 of
cuBLAS, which spreads them over 3-6x more blocks (ncu, session 43).

CPU: the knob's range; the pure rule on issue 28's law (bench/timing/draws.py, seeds >= 3420) at 132 and 78 SMs
against its Python replay; explain() names the half tile exactly there (its blocks, the 32x64 config) and is
otherwise unchanged; the temporaries' bytes never change; an explicit swizzle keeps the 64x64 tile.  GPU: the
class's shapes (split ones included) and forced variant 9 at level 2 (tails in M, N, K; K from 1 to 40 k-tiles),
every layout, fp16 and bf16, NaN-poisoned outputs, alpha / beta with C, float32 output, out=, unaligned device
views: bit-equal to the 64x64 tile (each output's MMAs are the same instructions on the same k chunks in the
same order) and within the float64 gamma_K bound."""
import ctypes

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, _check_views, _from_torch, _to_torch, _views, check, operands
from test_gemm16_choose import Choice
from test_gemm16_deep import _bits, cdiv, choose, law

SMS = 132
SUFFIX = "; half tile, deep x4"
WIDE = "; half tile, wide x4"
# the class (session 43's brief: 64x64 in place, 2..20 blocks), then two split ones (seed 151 / 153)
CLASS = [(68, 92, 214), (69, 59, 343), (126, 303, 335), (236, 164, 176), (265, 43, 108), (121, 556, 82),
         (124, 215, 220), (584, 82, 171), (512, 76, 474), (301, 65, 554)]
# forced variant 9 at level 2: K of 40 k-tiles (the ring wraps), 1 element, 1 k-tile + 1, a 3-row M tail,
# 33 rows (a half tile of one row), a grid past a wave (960 blocks)
FORCED = [(300, 260, 2501), (70, 70, 1), (64, 64, 65), (129, 77, 131), (33, 130, 77), (1000, 1000, 77)]
# deep 64x64 launches the half tile leaves (its grid past a wave): level 3's 16-byte loads on the 64x64 ring
DEEP_WIDE = [(3578, 74, 153), (2492, 90, 96), (59, 2153, 858)]


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_choose.restype = None
    so.smk_gemm16_small_tile.argtypes = [ctypes.c_int] + [ctypes.c_int64] * 2 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    so.smk_gemm16_device_sms.restype = ctypes.c_int
    return so


def half_model(level, M, N, ch, in_place, sms=SMS):
    """Whether the launch runs the half tile, as the rule should answer (api/gemm16_small.h)."""
    if level <= 0 or ch.variant != 9 or not in_place:
        return False
    if level in (2, 4):
        return True
    return cdiv(M, 32) * cdiv(N, 64) * ch.splits <= sms


def test_knob_range():
    for ok in range(5):
        with _testing.knobs(gemm16_small=ok):
            assert _testing.current()["gemm16_small"] == ok
    assert _testing.current()["gemm16_small"] == 1  # the default since session 43's held-out A/B
    for bad in (-1, 5):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_small=bad):
                pass


@pytest.mark.parametrize("seed,sms", [(3420, 132), (3421, 78)])
def test_rule_and_explain_on_the_law(lib, seed, sms):
    """Each draw: the C rule against its replay; explain at level 1 gains the half tile exactly there (the
    32x64 config, 2x.. the blocks), nothing else moves; the temporaries' bytes are the same at every level."""
    moved = 0
    for shape, dtype in law(1500, seed):
        M, N, K = shape
        ch, in_place = choose(lib, M, N, K, sms)
        half = half_model(1, M, N, ch, in_place, sms)
        for level in (1, 3):
            assert lib.smk_gemm16_small_tile(level, M, N, ch.splits, ch.variant, int(in_place), sms) == int(half)
        with _testing.knobs(gemm16_small=0, gemm16_narrow_async=0):  # the half tile's rule alone
            e0 = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype, sms=sms)
            t0 = lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, int(K % 8 == 0), int(N % 8 == 0), sms)
        with _testing.knobs(gemm16_small=1, gemm16_narrow_async=0):  # the half tile's rule alone
            e1 = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype, sms=sms)
            t1 = lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, int(K % 8 == 0), int(N % 8 == 0), sms)
        with _testing.knobs(gemm16_small=3, gemm16_narrow_async=0):  # the half tile's rule alone
            e3 = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype, sms=sms)
        assert t0 == t1, shape
        # level 3: the same launches, every deep ring (the half tile's, the 64x64 tile's) filled by 16-byte loads
        assert e3.config == e1.config.replace(SUFFIX, WIDE).replace("; in place, deep x4", "; in place, wide x4")
        assert e3.blocks == e1.blocks and e3.accesses == e1.accesses
        if e0.config.startswith("memory-bound") or not half:
            assert e1.config == e0.config and e1.blocks == e0.blocks and e1.accesses == e0.accesses, (shape, sms)
            continue
        moved += 1
        assert cdiv(M, 64) * cdiv(N, 64) * ch.splits == e0.blocks and e0.config.startswith("64x64x64")
        assert e1.config.startswith("32x64x64") and e1.config.endswith(SUFFIX), e1.config
        assert e1.blocks == cdiv(M, 32) * cdiv(N, 64) * ch.splits <= sms
        assert ("split K" in e1.config) == (ch.splits > 1)
    assert moved > 0


def test_explicit_swizzle_keeps_the_64x64_tile():
    """Only the automatic swizzle's half tile is compiled: Swizzle(2, 3, 2) keeps 64x64 at level 1."""
    shape = (68, 92, 214)
    for layout, tile in (("swizzle", "32x64x64"), ("naive", "32x64x64"), ("pad", "32x64x64"),
                         (smemkit.Swizzle(2, 3, 2), "64x64x64")):
        with _testing.knobs(gemm16_small=1):
            e = smemkit.explain("gemm", shape, layout=layout, dtype="float16")
        assert e.config.startswith(tile), (layout, e.config)


def test_forced_variant9_level2_explain():
    for level, suffix in ((2, SUFFIX), (4, WIDE)):
        with _testing.knobs(gemm16_small=level):
            e = smemkit.explain("gemm", (70, 70, 1), layout="pad", dtype="float16", config=9)
        assert e.config.startswith("32x64x64") and e.config.endswith(suffix) and e.blocks == 3 * 2


# ---- GPU ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", CLASS, ids=["x".join(map(str, s)) for s in CLASS])
def test_class_half_bit_equal_and_within_bound(lib, poison, shape, layout, dtype):
    M, N, K = shape
    sms = lib.smk_gemm16_device_sms()
    ch, in_place = choose(lib, M, N, K, sms, launch=True)
    assert half_model(1, M, N, ch, in_place, sms), "the shape must take the half tile"
    a, b, c, _, _ = operands(shape, dtype)
    got = {}
    for level in (0, 1, 3):
        with _testing.knobs(gemm16_small=level, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            out = np.full((M, N), np.nan, dtype=dtype)
            assert smemkit.gemm(a, b, layout=layout, out=out) is out
            check(out, shape, dtype, dtype, 1.0, 0.0)
            d = smemkit.gemm(a, b, c, alpha=-1.5, beta=0.75, layout=layout)
            check(d, shape, dtype, dtype, -1.5, 0.75)
            d32 = smemkit.gemm(a, b, c.astype(np.float32), alpha=0.5, beta=-1.0, layout=layout, out_dtype=np.float32)
            check(d32, shape, dtype, np.dtype(np.float32), 0.5, -1.0, c=c.astype(np.float32))
            got[level] = (_bits(out, dtype), _bits(d, dtype), _bits(d32, np.float32))
    for level in (1, 3):
        for x, y in zip(got[0], got[level]):
            assert np.array_equal(x, y), f"the half tile (level {level}) changed the bits"


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", FORCED, ids=["x".join(map(str, s)) for s in FORCED])
def test_forced_variant9_level2(poison, shape, layout, dtype):
    """Variant 9 forced: levels 2 and 4 run the half tile on any grid and K (K = 1: the prologue alone; 2501: the
    ring wraps 10 times), level 3 with gemm16_staged 3 the 64x64 deep tile with 16-byte loads; bit-equal to the
    64x64 tile."""
    a, b, c, _, _ = operands(shape, dtype)
    got = []
    for level, staged in ((0, 1), (2, 1), (4, 1), (3, 3)):
        with _testing.knobs(gemm16_small=level, gemm16_staged=staged, gemm16_variant=9, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            got.append(_bits(d, dtype))
            d = smemkit.gemm(a, b, c, alpha=2.0, beta=-0.5, layout=layout)
            check(d, shape, dtype, dtype, 2.0, -0.5)
            got.append(_bits(d, dtype))
    assert np.array_equal(got[0], got[2]) and np.array_equal(got[1], got[3])
    for i in (4, 6):
        assert np.array_equal(got[0], got[i]) and np.array_equal(got[1], got[i + 1])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", DEEP_WIDE, ids=["x".join(map(str, s)) for s in DEEP_WIDE])
def test_deep_wide_bit_equal_and_within_bound(lib, poison, shape, layout, dtype):
    sms = lib.smk_gemm16_device_sms()
    with _testing.knobs(gemm16_small=3):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype, sms=sms)
    assert e.config.endswith("; in place, wide x4"), e.config
    M, N, K = shape
    a, b, c, _, _ = operands(shape, dtype)
    got = []
    for level in (0, 3):
        with _testing.knobs(gemm16_small=level, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, c, alpha=-1.5, beta=0.75, layout=layout)
            check(d, shape, dtype, dtype, -1.5, 0.75)
            d32 = smemkit.gemm(a, b, layout=layout, out_dtype=np.float32)
            check(d32, shape, dtype, np.dtype(np.float32), 1.0, 0.0)
            got.append((_bits(d, dtype), _bits(d32, np.float32)))
    assert all(np.array_equal(x, y) for x, y in zip(*got))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS[:3], ids=LAYOUT_IDS[:3])
@pytest.mark.parametrize("how", ["odd-pitch", "odd-base", "a-only", "b-only"])
def test_device_views_in_place(poison, torch, how, layout, dtype, rng):
    """Unaligned device views (pitch off 16 bytes, base 2 bytes off, one operand only) on the half tile
    (levels 1 / 3 on the class's 68x92x214, 2 / 4) against the float64 reference; bit-equal to level 0."""
    shape = (68, 92, 214)
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
    a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    got = []
    for level in range(5):
        with _testing.knobs(gemm16_small=level, gemm16_kernel="mma"):
            d = smemkit.gemm(da, db, layout=layout)
            d64 = _from_torch(d, np.dtype(dtype))
            _check_views(d64.astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))
            got.append(_bits(d64, dtype))
            d = smemkit.gemm(da, db, dc, alpha=0.5, beta=1.5, layout=layout)
            _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, 0.5, 1.5, np.dtype(dtype))
    assert all(np.array_equal(got[0], g) for g in got[1:])
