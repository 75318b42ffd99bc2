"""Variant 0's chooser on the GPU (csrc/gemm16_choose.c): split-K (fp32 partials + gemm16_reduce.cu), the
64x128 / 64x64 tiles, and unaligned rows read in place, each against the float64 product with the
gamma_K bound (tests/test_gemm.py's helpers), every layout incl. Swizzle(2,3,2), fp16 and bf16, alpha /
beta with c, out_dtype=float32, out= (device), NaN-poisoned outputs, odd pitches.  Each test first asks
the chooser (ctypes, the device's SM count) that its shape really takes the path it is about."""
import ctypes

import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, _check_views, _from_torch, _to_torch, _views, check, operands
from test_gemm16_choose import PRE28, TILES, Choice

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def chosen():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_device_sms.restype = ctypes.c_int

    def choice(M, N, K, a_al=True, b_al=True):
        sms = so.smk_gemm16_device_sms()
        assert sms > 0
        ch = Choice()
        so.smk_gemm16_choose(M, N, K, sms, int(a_al), int(b_al), ctypes.byref(ch))
        return ch
    return choice


SPLIT_SHAPES = [(256, 256, 16384), (74, 6, 13105), (381, 29, 5523), (16, 520, 4096)]
AB = [(1.0, 0.0), (2.0, -0.75)]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", SPLIT_SHAPES, ids=["x".join(map(str, s)) for s in SPLIT_SHAPES])
def test_split_k_within_bound(poison, chosen, shape, layout, dtype):
    assert chosen(*shape).splits > 1, "the shape must take the split path"
    a, b, c, _, _ = operands(shape, dtype)
    for alpha, beta in AB:
        d = smemkit.gemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout)
        check(d, shape, dtype, dtype, alpha, beta)
    c32 = c.astype(np.float32)
    d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
    check(d, shape, dtype, np.dtype(np.float32), 0.5, -1.5, c=c32)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("how", ["odd-pitch", "odd-base", "a-only", "b-only"])
def test_split_k_device_unaligned_in_place(poison, chosen, torch, how, layout, dtype, rng):
    """Unaligned device views on a split shape: rows read in place (no copies), the slices' A / B
    offsets on the staged path, C read from an odd view, float32 out too."""
    shape = (129, 45, 6001)
    M, N, K = shape
    ch = chosen(M, N, K, how not in ("odd-pitch", "odd-base", "a-only"), how not in ("odd-pitch", "odd-base", "b-only"))
    assert ch.splits > 1 and not ch.pad_a and not ch.pad_b
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
    a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    for alpha, beta in AB:
        d = smemkit.gemm(da, db, dc if beta else None, alpha=alpha, beta=beta, layout=layout)
        _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, alpha, beta, np.dtype(dtype))
    c32_big = c_big.astype(np.float32)
    d = smemkit.gemm(da, db, c_cut(_to_torch(c32_big, torch)), alpha=0.5, beta=1.5, layout=layout,
                     out_dtype=np.float32)
    _check_views(d.cpu().numpy().astype(np.float64), a, b, c_cut(c32_big), 0.5, 1.5, np.dtype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_split_k_beta_c_aliasing_d_and_odd_output_pitch(poison, chosen, torch, dtype, rng):
    """The reduction reads C and writes D element by element: C may be a strided view with an odd pitch
    and offset, D may be C itself, and D's rows may have an odd pitch."""
    M, N, K = 100, 37, 8192
    assert chosen(M, N, K).splits > 1
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    c_big = rng.uniform(-1, 1, (M + 1, N + 3)).astype(dtype)
    dc = _to_torch(c_big, torch)[1:, 2:2 + N]  # pitch N + 3, base off 16 bytes
    c = c_big[1:, 2:2 + N].copy()
    da, db = _to_torch(a, torch), _to_torch(b, torch)
    d = smemkit.gemm(da, db, dc, alpha=-1.0, beta=0.5)
    _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, -1.0, 0.5, np.dtype(dtype))
    # out= must be C-contiguous (the out= rules): N = 37 gives its rows an odd pitch, NaN where nothing is written
    out = torch.full((M, N), float("nan"), dtype=d.dtype, device="cuda")
    assert smemkit.gemm(da, db, dc, alpha=-1.0, beta=0.5, out=out) is out
    _check_views(_from_torch(out, np.dtype(dtype)).astype(np.float64), a, b, c, -1.0, 0.5, np.dtype(dtype))
    cd = dc.contiguous()
    smemkit.gemm(da, db, cd, alpha=-1.0, beta=0.5, out=cd)  # C is D
    _check_views(_from_torch(cd, np.dtype(dtype)).astype(np.float64), a, b, c, -1.0, 0.5, np.dtype(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", [(1000, 1000, 1000), (512, 512, 512), (300, 260, 336), (1, 4096, 4096)], ids=str)
def test_mid_size_tiles_within_bound(poison, chosen, shape, layout, dtype):
    """Variant 0 on mid sizes (on an H100's 132 SMs: 64x128, 64x64, 64x64, 128x128 split 4): the bound,
    every element."""
    assert chosen(*shape).variant in TILES
    a, b, c, _, _ = operands(shape, dtype)
    for alpha, beta in AB:
        d = smemkit.gemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout)
        check(d, shape, dtype, dtype, alpha, beta)


@pytest.mark.parametrize("variant", [0, 8, 9, PRE28])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_variants_on_unaligned_device_views(poison, torch, set_knobs, variant, layout, rng):
    """Forced new tiles (8, 9), variant 0 and the pre-#28 variant on odd pitches / bases, both dtypes."""
    set_knobs(gemm16_variant=variant)
    for dtype in DTYPES:
        for shape, how in (((333, 201, 1111), "odd-pitch"), ((65, 130, 77), "a-only"), ((9, 300, 2050), "b-only")):
            (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
            a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
            d = smemkit.gemm(a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)),
                             c_cut(_to_torch(c_big, torch)), alpha=-1.5, beta=0.5, layout=layout)
            _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, -1.5, 0.5, np.dtype(dtype))


def test_split_k_is_deterministic(chosen, torch, rng):
    """The reduction's shuffle tree is fixed: the same call gives the same bits."""
    M, N, K = 64, 64, 30000
    assert chosen(M, N, K).splits > 1
    a = _to_torch(rng.uniform(-1, 1, (M, K)).astype(np.float16), torch)
    b = _to_torch(rng.uniform(-1, 1, (K, N)).astype(np.float16), torch)
    d0 = smemkit.gemm(a, b, out_dtype=np.float32)
    for _ in range(3):
        assert torch.equal(smemkit.gemm(a, b, out_dtype=np.float32), d0)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("pdl", [0, 1])
def test_split_k_reduction_with_and_without_dependent_launch(poison, chosen, set_knobs, pdl, dtype):
    """Knob 'pdl' moves the reduction's start (after the GEMM, or overlapping its tail on sm_90), never
    its result."""
    set_knobs(pdl=pdl)
    shape = SPLIT_SHAPES[0]
    assert chosen(*shape).splits > 1, "the shape must take the split path"
    a, b, c, _, _ = operands(shape, dtype)
    d = smemkit.gemm(a, b, c, alpha=2.0, beta=-0.75, layout="swizzle")
    check(d, shape, dtype, dtype, 2.0, -0.75)
