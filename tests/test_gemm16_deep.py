"""Knob gemm16_staged: the 64x64 tile's staged loads (rows read in place) with 4 k-tiles of global loads in
flight per thread (csrc/gemm16/load_deep.cuh, tiles.h Deep / VDeep) where the grid is within a wave, and at
level 2 the chooser's short K splits dropped there (api/gemm16.h smk_gemm16_staged_deep / _unsplit).  The
class: issue 28's small odd-K calls on the 64x64 in-place tile (666x12x372 fp16 10.4 us against cuBLAS's
3.6: a block's K loop of ~430 instructions per warp per k-tile, one k-tile of loads in flight).

CPU: the knob's range; the pure gate on issue 28's law (bench/timing/draws.py gemm_draws, seeds >= 3100)
against a Python replay of the chooser's answer; explain() names the deep path exactly where the gate
takes it and is otherwise unchanged (same blocks, same accesses); level 2's dropped split in explain and
the temporaries' bytes.  GPU: the class's shapes and forced variant 9 (level 3: any grid, K from 1 k-tile
to 40), every layout, fp16 and bf16, odd M / N / K, NaN-poisoned outputs, alpha / beta with C, float32
output, unaligned device views: bit-equal to the one-ahead staged path (the same shared tiles, the same
MMA order) and within the float64 gamma_K bound."""
import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, _check_views, _from_torch, _to_torch, _views, check, operands
from test_gemm16_choose import Choice

SMS, DEEP, NOSPLIT = 132, 4, 8  # api/gemm16.h SMK_G16_DEEP, SMK_G16_DEEP_NOSPLIT
# the class (issue 28, seeds 151 / 153: 64x64 in place, 4..40 blocks), the split ones last
CLASS = [(666, 12, 372), (347, 13, 349), (37, 205, 343), (165, 200, 102), (366, 241, 361), (1109, 23, 190),
         (512, 76, 474), (301, 65, 554), (119, 10, 900)]
# forced variant 9 at level 3: KT = 40 (the ring wraps 10 times), 1, 2, 3; 48 blocks; a one-row tile
FORCED = [(300, 260, 2501), (70, 70, 1), (64, 64, 65), (129, 77, 131), (1000, 130, 77), (1, 9, 511)]


def cdiv(a, b):
    return -(-a // b)


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_choose.restype = None
    so.smk_gemm16_staged_deep.argtypes = [ctypes.c_int] + [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_staged_unsplit.argtypes = [ctypes.c_int] + [ctypes.c_int64] * 3 + [ctypes.c_int] * 2 + \
        [ctypes.POINTER(Choice)]
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    so.smk_gemm16_device_sms.restype = ctypes.c_int
    return so


def choose(lib, M, N, K, sms=SMS, launch=False):
    """Variant 0's choice for dense operands and whether its rows are read in place, as the launcher decides
    for dense host operands (A's rows aligned iff K % 8 == 0, B's iff N % 8 == 0) and gemm16_plan.cu
    plan_v0 replays it (since session 45; before, both operands unaligned where K or N is off 8).  `launch`
    is kept for the callers: the two agree."""
    a_al, b_al = K % 8 == 0, N % 8 == 0
    ch = Choice()
    lib.smk_gemm16_choose(M, N, K, sms, int(a_al), int(b_al), ctypes.byref(ch))
    return ch, (not a_al and not ch.pad_a) or (not b_al and not ch.pad_b)


def deep_model(level, M, N, K, ch, in_place, sms=SMS):
    """(deep, unsplit) as the gate should answer (api/gemm16.h)."""
    if level <= 0 or ch.variant != 9 or not in_place:
        return False, False
    unsplit = level >= 2 and ch.splits > 1 and cdiv(K, 64) <= NOSPLIT and cdiv(M, 64) * cdiv(N, 64) <= sms
    if level >= 3:
        return True, unsplit
    S, kc = (1, K) if unsplit or ch.splits == 1 else (ch.splits, ch.k_chunk)
    return cdiv(kc, 64) >= 2 and cdiv(M, 64) * cdiv(N, 64) * S <= sms, unsplit


def explain(shape, level, dtype="float16"):
    # the 64x64 tile's deep loads alone: gemm16_small (the half tile, test_gemm16_small.py) and the narrow cp.async
    # (test_gemm16_narrow.py, which takes the deep slices of 8 k-tiles and more by default) off
    with _testing.knobs(gemm16_staged=level, gemm16_small=0, gemm16_narrow_async=0):
        e = smemkit.explain("gemm", shape, layout="swizzle", dtype=dtype)
    return e


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [(d.shape, d.dtype) for d in gemm_draws(n, seed)]


def test_knob_range():
    for ok in range(4):
        with _testing.knobs(gemm16_staged=ok):
            assert _testing.current()["gemm16_staged"] == ok
    assert _testing.current()["gemm16_staged"] == 1  # the default since session 41's A/B
    for bad in (-1, 4):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_staged=bad):
                pass


@pytest.mark.parametrize("seed", [3100, 3101])
def test_gate_and_explain_on_the_law(lib, seed):
    """Each draw at levels 0..2: explain's text gains the deep suffix exactly where the gate (and its
    Python replay) says, nothing else moves at level 1; level 2 drops exactly the modelled splits."""
    moved = {1: 0, 2: 0}
    for shape, dtype in law(1500, seed):
        M, N, K = shape
        ch, in_place = choose(lib, M, N, K)
        e0 = explain(shape, 0, dtype)
        assert "deep" not in e0.config
        for level in (1, 2):
            deep, unsplit = deep_model(level, M, N, K, ch, in_place)
            e = explain(shape, level, dtype)
            if e0.config.startswith("memory-bound"):  # the matvec path: the knob does not reach it
                assert e.config == e0.config and e.blocks == e0.blocks
                continue
            c = Choice.from_buffer_copy(ch)  # the C gate against its replay: the split dropped, then deep
            assert lib.smk_gemm16_staged_unsplit(level, M, N, K, int(in_place), SMS, ctypes.byref(c)) == int(unsplit)
            kc = c.k_chunk if c.splits > 1 else K
            assert lib.smk_gemm16_staged_deep(level, M, N, kc, c.splits, c.variant, int(in_place), SMS) == int(deep)
            if not deep:
                assert e.config == e0.config and e.blocks == e0.blocks, (shape, level)
                continue
            moved[level] += 1
            # "; unaligned rows in place" (the 95-character text may cut it) becomes "; in place, deep x4"
            head = e0.config.split("; unaligned rows")[0]
            assert e.config.endswith(f"; in place, deep x{DEEP}" + (", no split" if unsplit else "")), e.config
            if unsplit:
                assert "split K" in e0.config and "split K" not in e.config
                assert e.config.startswith(head.split("; split K")[0] + "; in place")
                assert e.blocks == cdiv(M, 64) * cdiv(N, 64)
            else:
                assert e.config == head + f"; in place, deep x{DEEP}" and e.blocks == e0.blocks
                assert e.accesses == e0.accesses  # the same stores and ldmatrix: only the loads' depth
    assert moved[1] > 0 and moved[2] >= moved[1]


def test_unsplit_and_temp_bytes(lib):
    """Level 2 on a split in-place 64x64 shape of <= 8 k-tiles: one slice, no workspace."""
    M, N, K = 512, 76, 474
    ch, in_place = choose(lib, M, N, K)
    assert ch.variant == 9 and ch.splits > 1 and in_place
    for level, drops in ((0, False), (1, False), (2, True), (3, True)):
        c = Choice.from_buffer_copy(ch)
        assert lib.smk_gemm16_staged_unsplit(level, M, N, K, int(in_place), SMS, ctypes.byref(c)) == int(drops)
        assert (c.splits, c.k_chunk) == ((1, K) if drops else (ch.splits, ch.k_chunk))
        with _testing.knobs(gemm16_staged=level):
            t = lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, 0, 0, SMS)
        assert (t == 0) == drops
    c = Choice.from_buffer_copy(ch)  # rows aligned (copies, or none needed): nothing to drop
    assert lib.smk_gemm16_staged_unsplit(2, M, N, K, 0, SMS, ctypes.byref(c)) == 0


# ---- GPU ------------------------------------------------------------------------------------------------

def _bits(d, dtype):
    return np.ascontiguousarray(d).view(np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", CLASS, ids=["x".join(map(str, s)) for s in CLASS])
def test_class_deep_bit_equal_and_within_bound(lib, poison, shape, layout, dtype):
    M, N, K = shape
    ch, in_place = choose(lib, M, N, K, lib.smk_gemm16_device_sms(), launch=True)
    assert deep_model(2, M, N, K, ch, in_place, lib.smk_gemm16_device_sms())[0], "the shape must take the deep path"
    a, b, c, _, _ = operands(shape, dtype)
    got = {}
    for level in (0, 1, 2):
        with _testing.knobs(gemm16_staged=level, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            got[level] = _bits(d, dtype)
            d = smemkit.gemm(a, b, c, alpha=-1.5, beta=0.75, layout=layout)
            check(d, shape, dtype, dtype, -1.5, 0.75)
            d32 = smemkit.gemm(a, b, c.astype(np.float32), alpha=0.5, beta=-1.0, layout=layout, out_dtype=np.float32)
            check(d32, shape, dtype, np.dtype(np.float32), 0.5, -1.0, c=c.astype(np.float32))
    assert np.array_equal(got[0], got[1]), "deep loads changed the bits"
    if ch.splits == 1:
        assert np.array_equal(got[0], got[2])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", FORCED, ids=["x".join(map(str, s)) for s in FORCED])
def test_forced_variant9_level3(poison, shape, layout, dtype):
    """Variant 9 forced: level 3 runs VDeep on any grid and K (K = 1: the prologue alone; 2501: the ring
    wraps), bit-equal to the one-ahead path."""
    a, b, c, _, _ = operands(shape, dtype)
    got = []
    for level in (0, 3):
        with _testing.knobs(gemm16_staged=level, gemm16_variant=9, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            got.append(_bits(d, dtype))
            d = smemkit.gemm(a, b, c, alpha=2.0, beta=-0.5, layout=layout)
            check(d, shape, dtype, dtype, 2.0, -0.5)
    assert np.array_equal(got[0], got[1])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("how", ["odd-pitch", "odd-base", "a-only", "b-only"])
def test_device_views_in_place(poison, torch, how, layout, dtype, rng):
    """Unaligned device views (pitch off 16 bytes, base 2 bytes off, one operand only): rows read in place
    by the deep path (levels 1 and 3) against the float64 reference; bit-equal to level 0."""
    shape = (347, 13, 349)
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
    a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    got = []
    for level in (0, 1, 3):
        with _testing.knobs(gemm16_staged=level, gemm16_kernel="mma"):
            d = smemkit.gemm(da, db, layout=layout)
            d64 = _from_torch(d, np.dtype(dtype))
            _check_views(d64.astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))
            got.append(_bits(d64, dtype))
            d = smemkit.gemm(da, db, dc, alpha=0.5, beta=1.5, layout=layout)
            _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, 0.5, 1.5, np.dtype(dtype))
    assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])
