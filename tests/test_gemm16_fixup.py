"""Split-K's fused reduction in the tensor-core GEMM's mma.sync kernel (csrc/gemm16/fixup.cuh, knob
splitk_fixup: 0 gemm16_reduce.cu's separate kernel, 1 fused where gemm16_launch.cu's gate says, 2 fused on
every split launch whose tiles fit the counters, 3 on sm_90 the S <= 8 blocks of a tile as one cluster
that sums it together).  The last block of a tile, or the cluster, sums with the reduction kernel's
per-element order and stores through its reduce_store, so knobs 2 and 3 equal knob 0 bit for bit.
CPU: the gate against its model on drawn shapes.  GPU: the chooser's split shapes, fp16 / bf16, every
layout, alpha / beta / C, float32 out, out=, C aliasing D, unaligned device views, NaN-poisoned outputs,
20 repeated calls and two streams at once."""
import ctypes
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, _from_torch, _to_torch, _views, check, operands
from test_gemm16_choose import Choice
from test_sgemm_tinyk import draws

COUNTERS = 4096  # csrc/counters.h SMK_RT_COUNTERS


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_variant_geometry.argtypes = [ctypes.c_int] + [ctypes.POINTER(ctypes.c_int)] * 4
    return so


def geometry(so, v):
    bm, bn = ctypes.c_int(), ctypes.c_int()
    assert so.smk_gemm16_variant_geometry(v, ctypes.byref(bm), ctypes.byref(bn), None, None) == 0
    return bm.value, bn.value


def model(M, N, S, bm, bn):
    """common/splitk_fixup.cuh fixup_gate_model at knob 1 (256 threads, kFixupBatches 4)."""
    G = 2 if S >= 16 else 4 if S >= 8 else 8
    L = 32 // G
    rows, cols = min(M, bm), min(N, bn)
    rounds = math.ceil(rows * ((cols + 3) // 4) / (8 * G * 4))
    return rounds * math.ceil(S / (2 * L)) <= 8 and S * rows * cols * 4 <= 192 << 10


@pytest.mark.parametrize("sms", [132, 114])
def test_the_gate_on_the_choosers_splits(lib, sms):
    seen = 0
    for M, N, K in draws(3000, 11 + sms):
        ch = Choice()
        lib.smk_gemm16_choose(M, N, K, sms, 1, 1, ctypes.byref(ch))
        if ch.splits <= 1:
            continue
        seen += 1
        bm, bn = geometry(lib, ch.variant)
        g = [_C._gemm16_fixup_gate(M, N, ch.splits, ch.variant, k) for k in (0, 1, 2, 3)]
        tiles = math.ceil(M / bm) * math.ceil(N / bn)
        assert g == [0, int(tiles <= COUNTERS and model(M, N, ch.splits, bm, bn)), int(tiles <= COUNTERS),
                     2 if ch.splits <= 8 else 0], (M, N, K, ch.variant, ch.splits)  # 3: the tile's cluster
    assert seen > 50
    assert _C._gemm16_fixup_gate(100, 100, 4, 0, 2) == 0  # no such variant: 0 is resolved before the gate
    assert _C._gemm16_fixup_gate(100, 100, 0, 3, 2) == 0


SPLIT_SHAPES = [(256, 256, 16384), (74, 6, 13105), (381, 29, 5523), (16, 520, 4096), (9, 349, 546),
                (2594, 44, 39428)]


def both(set_knobs, call):
    """call() under splitk_fixup 0 and 2; the fused arm also under splitk_fence 0 (a fence per thread),
    whose bytes must equal the default protocol's (one fence per block)."""
    out = []
    for v in (0, 2):
        set_knobs(splitk_fixup=v, splitk_fence=1)
        out.append(call())
    set_knobs(splitk_fixup=2, splitk_fence=0)
    d = call()
    np.testing.assert_array_equal(np.asarray(d).view(np.uint8), np.asarray(out[1]).view(np.uint8))
    set_knobs(splitk_fixup=3, splitk_fence=1)  # clusters where S <= 8 (sm_90), else knob 0's kernels
    d = call()
    np.testing.assert_array_equal(np.asarray(d).view(np.uint8), np.asarray(out[0]).view(np.uint8))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", SPLIT_SHAPES, ids=["x".join(map(str, s)) for s in SPLIT_SHAPES])
def test_fused_equals_the_reduction_kernel(poison, lib, set_knobs, shape, layout, dtype):
    ch = Choice()
    lib.smk_gemm16_choose(*shape, _C._device_info()["sms"], 1, 1, ctypes.byref(ch))
    if ch.splits <= 1:
        pytest.skip("this device's chooser does not split the shape")
    a, b, c, _, _ = operands(shape, dtype)
    for alpha, beta, out in ((1.0, 0.0, None), (2.0, -0.75, None), (0.5, -1.5, np.float32)):
        cc = None if not beta else (c.astype(np.float32) if out else c)
        d0, d2 = both(set_knobs, lambda: smemkit.gemm(a, b, cc, alpha=alpha, beta=beta, layout=layout,
                                                      out_dtype=out))
        assert d0.dtype == d2.dtype
        np.testing.assert_array_equal(d0.view(np.uint8), d2.view(np.uint8))
        if out is None:
            check(d2, shape, dtype, dtype, alpha, beta)
        else:
            check(d2, shape, dtype, np.dtype(np.float32), alpha, beta, c=cc)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("how", ["odd-pitch", "odd-base", "a-only", "b-only"])
def test_unaligned_views_out_and_c_aliasing_d(poison, torch, set_knobs, how, dtype, rng):
    shape = (129, 45, 6001)
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    res = []
    for v in (0, 2, 3):
        set_knobs(splitk_fixup=v)
        d = smemkit.gemm(da, db, dc, alpha=-1.0, beta=0.5)
        out = torch.full(tuple(d.shape), float("nan"), dtype=d.dtype, device="cuda")
        smemkit.gemm(da, db, dc, alpha=-1.0, beta=0.5, out=out)
        cd = dc.contiguous()
        smemkit.gemm(da, db, cd, alpha=-1.0, beta=0.5, out=cd)  # C is D
        res.append([_from_torch(x, np.dtype(dtype)) for x in (d, out, cd)])
    for x0, x2, x3 in zip(*res):
        np.testing.assert_array_equal(x0.view(np.uint16), x2.view(np.uint16))
        np.testing.assert_array_equal(x0.view(np.uint16), x3.view(np.uint16))
    np.testing.assert_array_equal(res[1][0].view(np.uint16), res[1][1].view(np.uint16))
    np.testing.assert_array_equal(res[1][0].view(np.uint16), res[1][2].view(np.uint16))


@pytest.mark.gpu
def test_twenty_calls_and_two_streams(torch, set_knobs, rng):
    set_knobs(splitk_fixup=2)
    ops = [(_to_torch(rng.uniform(-1, 1, (64, 30000)).astype(np.float16), torch),
            _to_torch(rng.uniform(-1, 1, (30000, 64 + 8 * i)).astype(np.float16), torch)) for i in range(2)]
    d0 = smemkit.gemm(*ops[0], out_dtype=np.float32)
    for _ in range(19):
        assert torch.equal(smemkit.gemm(*ops[0], out_dtype=np.float32), d0)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    torch.cuda.synchronize()
    outs = [[], []]
    for _ in range(10):
        for i, st in enumerate(streams):
            with torch.cuda.stream(st):
                outs[i].append(smemkit.gemm(*ops[i], out_dtype=np.float32))
    torch.cuda.synchronize()
    set_knobs(splitk_fixup=0)
    for i in range(2):
        want = smemkit.gemm(*ops[i], out_dtype=np.float32)
        for d in outs[i]:
            assert torch.equal(d, want)
