"""Knob gemm16_shortk: variant 0's one-slice, uncopied 128x256 / 128x128 (one block per SM) choices with
K <= 64 retiled to 128x128 at 2 blocks per SM (variant 4), or 64x64 (variant 9) where that grid is within
one block per SM (csrc/gemm16_choose.c shortk_retile).  The class: issue 28's short-K mid outputs, where a
block is one k-tile and the store of its D with no second block on the SM to overlap it (2787x1136x40 bf16
on 128x256: 0.41 of cuBLAS, H200 seed 171).

CPU: the knob's range; on issue 28's law (bench/timing/draws.py gemm_draws, seeds >= 3300) level 1 changes
exactly the choices the rule names and nothing else, the temporaries' bytes do not change (no split, no
copy either way), explain() replays the new tile.  GPU: the class's shapes at levels 0 and 1, every layout,
fp16 and bf16, NaN-poisoned outputs, alpha / beta with C, float32 output: within the float64 gamma_K bound."""
import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, check, operands
from test_gemm16_choose import Choice

SMS, KMAX = 132, 64  # api/gemm16.h SMK_G16_SHORTK_KMAX
# short K on 128x256 / 128x128, rows aligned (cp.async) or in place (seed 171 and 3300 draws)
CLASS = [(2787, 1136, 40), (3786, 826, 46), (251, 4702, 22), (9513, 283, 39), (1261, 8112, 48), (238, 9026, 48),
         (160, 7409, 28), (4100, 1000, 45)]


def cdiv(a, b):
    return -(-a // b)


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_choose.restype = None
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    so.smk_gemm16_device_sms.restype = ctypes.c_int
    return so


def choose(lib, M, N, K, a_al, b_al, level, sms=SMS):
    ch = Choice()
    with _testing.knobs(gemm16_shortk=level):
        lib.smk_gemm16_choose(M, N, K, sms, int(a_al), int(b_al), ctypes.byref(ch))
    return ch


def rule(M, N, K, ch0, sms=SMS):
    """The variant level 1 should answer, given level 0's choice."""
    if K > KMAX or ch0.splits != 1 or ch0.pad_a or ch0.pad_b or ch0.variant not in (1, 6):
        return ch0.variant
    return 9 if cdiv(M, 128) * cdiv(N, 128) <= sms else 4


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [(d.shape, d.dtype) for d in gemm_draws(n, seed)]


def test_knob_range():
    for ok in (0, 1):
        with _testing.knobs(gemm16_shortk=ok):
            assert _testing.current()["gemm16_shortk"] == ok
    assert _testing.current()["gemm16_shortk"] == _testing.KNOBS["gemm16_shortk"] == 1  # session 42's A/B
    for bad in (-1, 2):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_shortk=bad):
                pass


@pytest.mark.parametrize("seed", [3300, 3301])
def test_rule_on_the_law(lib, seed):
    moved = {4: 0, 9: 0}
    for (M, N, K), _ in law(3000, seed):
        for sms in (132, 78):
            for a_al, b_al in ((K % 8 == 0, N % 8 == 0), (False, False), (True, True)):
                ch0, ch1 = choose(lib, M, N, K, a_al, b_al, 0, sms), choose(lib, M, N, K, a_al, b_al, 1, sms)
                want = rule(M, N, K, ch0, sms)
                assert ch1.variant == want, (M, N, K, sms, a_al, b_al)
                assert (ch1.splits, ch1.k_chunk, ch1.pad_a, ch1.pad_b) == (ch0.splits, ch0.k_chunk, ch0.pad_a, ch0.pad_b)
                if want != ch0.variant:
                    moved[want] += 1
                    assert K <= KMAX and ch0.variant in (1, 6)
                    temp = []
                    for level in (0, 1):  # no split, no copy either way: the same temporaries
                        with _testing.knobs(gemm16_shortk=level):
                            temp.append(lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, int(a_al), int(b_al), sms))
                    assert temp[0] == temp[1], (M, N, K)
    assert moved[4] > 0 and moved[9] > 0, moved


@pytest.mark.parametrize("shape", CLASS, ids=["x".join(map(str, s)) for s in CLASS])
def test_explain_replays_the_new_tile(lib, shape):
    M, N, K = shape
    # each operand's own alignment, as the launcher asks and the plan replays (session 45): where one is
    # aligned the chooser may copy the other padded, and the launch then runs the aligned kernel's tile
    ch0 = choose(lib, M, N, K, K % 8 == 0, N % 8 == 0, 0)
    if ch0.pad_a or ch0.pad_b:
        for level in (0, 1):
            with _testing.knobs(gemm16_shortk=level):
                e = smemkit.explain("gemm", shape, layout="swizzle", dtype="float16", sms=SMS)
            assert "unaligned rows padded" in e.config, e.config
        return
    assert ch0.variant in (1, 6) and ch0.splits == 1, "the class's own route"
    want = rule(M, N, K, ch0)
    bm, bn = {4: (128, 128), 9: (64, 64)}[want]
    for level in (0, 1):
        with _testing.knobs(gemm16_shortk=level):
            e = smemkit.explain("gemm", shape, layout="swizzle", dtype="float16", sms=SMS)
        if level == 0:
            b0 = {1: (128, 256), 6: (128, 128)}[ch0.variant]
            assert e.blocks == cdiv(M, b0[0]) * cdiv(N, b0[1]), e.config
        else:
            assert e.blocks == cdiv(M, bm) * cdiv(N, bn), e.config
            assert e.config.startswith(f"{bm}x{bn}x64"), e.config


# ---- GPU ------------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", CLASS, ids=["x".join(map(str, s)) for s in CLASS])
def test_class_within_bound(lib, poison, shape, layout, dtype):
    M, N, K = shape
    a, b, c, _, _ = operands(shape, dtype)
    for level in (0, 1):
        with _testing.knobs(gemm16_shortk=level, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            d = smemkit.gemm(a, b, c, alpha=-1.5, beta=0.75, layout=layout)
            check(d, shape, dtype, dtype, -1.5, 0.75)
            d32 = smemkit.gemm(a, b, c.astype(np.float32), alpha=0.5, beta=-1.0, layout=layout, out_dtype=np.float32)
            check(d32, shape, dtype, np.dtype(np.float32), 0.5, -1.0, c=c.astype(np.float32))
