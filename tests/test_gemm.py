"""smemkit.gemm: the tensor-core GEMM (csrc/gemm16/) on float16 / bfloat16, every layout, against
a float64 reference.

Bound, elementwise (CONVENTIONS.md, fp16/bf16 GEMM):
    |D - ref| <= gamma_K * |alpha| * (|A| @ |B|)       the fp32 accumulation (u = 2**-24)
               + 2u * |beta * C|                       the fp32 scaling of C
               + u_out * |ref| + tiny_out              the output's own rounding (fp16 2**-11, bf16 2**-8,
                                                       float32 out 2**-24; tiny_out: half the smallest
                                                       subnormal, fp16 outputs below 2**-14 round absolutely)
with ref = alpha * (A @ B) + beta * C in float64 from the 2-byte inputs exactly.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

ml_dtypes = pytest.importorskip("ml_dtypes")
if not hasattr(smemkit, "gemm"):
    pytest.skip("smemkit.gemm is not wired yet", allow_module_level=True)

U = 2.0 ** -24
BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float16), BF16]
OUT_U = {np.dtype(np.float16): 2.0 ** -11, BF16: 2.0 ** -8, np.dtype(np.float32): U}
OUT_TINY = {np.dtype(np.float16): 2.0 ** -25, BF16: 2.0 ** -134, np.dtype(np.float32): 2.0 ** -150}
LAYOUTS = ["naive", "pad", "swizzle", smemkit.Swizzle(2, 3, 2)]
LAYOUT_IDS = ["naive", "pad", "swizzle", "swizzle232"]
SHAPES = [(1, 1, 1), (7, 13, 5), (31, 33, 17), (64, 64, 0), (1000, 1000, 1000), (1, 4096, 4096),
          (4097, 4095, 4093)]
BIG = 4097 * 4095 * 4093
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


def gamma(n):
    return n * U / (1 - n * U)


_cache = {}


def operands(shape, dtype):
    """Deterministic A, B, C (C in the input dtype and in float32) and the float64 products, cached:
    the 4097^3 reference is two float64 matmuls."""
    key = (shape, dtype.str if dtype != BF16 else "bf16")
    if key not in _cache:
        M, N, K = shape
        rng = np.random.default_rng(abs(hash(key)) % 2**32)
        a = rng.uniform(-1, 1, (M, K)).astype(dtype)
        b = rng.uniform(-1, 1, (K, N)).astype(dtype)
        c = rng.uniform(-1, 1, (M, N)).astype(dtype)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        _cache[key] = (a, b, c, a64 @ b64, np.abs(a64) @ np.abs(b64))
        if len(_cache) > 4:  # keep the big ones from piling up
            _cache.pop(next(iter(_cache)))
    return _cache[key]


def check(d, shape, dtype, out_dtype, alpha, beta, c=None):
    M, N, K = shape
    a, b, c_in, ab, absab = operands(shape, dtype)
    c = c_in if c is None else c
    assert d.shape == (M, N) and d.dtype == out_dtype
    d64 = d.astype(np.float64)
    assert not np.any(np.isnan(d64)), "NaN in the output: an element the kernel did not write?"
    ref = alpha * ab
    bound = gamma(K) * abs(alpha) * absab
    if beta != 0:
        c64 = c.astype(np.float64)
        ref = ref + beta * c64
        bound = bound + 2 * U * np.abs(beta * c64)
    bound = bound + OUT_U[out_dtype] * np.abs(ref) + OUT_TINY[out_dtype]
    err = np.abs(d64 - ref)
    if err.size:
        worst = int(np.argmax(err - bound))
        assert np.all(err <= bound), (f"error {err.flat[worst]:.3e} > bound {bound.flat[worst]:.3e} at "
                                      f"{np.unravel_index(worst, err.shape)}")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
@pytest.mark.parametrize("alpha, beta", AB)
def test_gemm_within_bound(poison, shape, layout, dtype, alpha, beta):
    if np.prod(shape) >= BIG and (alpha, beta) not in AB[:1] + AB[-1:]:
        pytest.skip("the 4097^3 case runs two alpha/beta combinations")
    a, b, c, _, _ = operands(shape, dtype)
    d = smemkit.gemm(a, b, c if beta != 0 else None, alpha=alpha, beta=beta, layout=layout)
    check(d, shape, dtype, dtype, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", [(7, 13, 5), (64, 64, 0), (300, 700, 333)], ids=str)
def test_gemm_float32_output(poison, shape, layout, dtype):
    a, b, c, _, _ = operands(shape, dtype)
    c32 = c.astype(np.float32)
    d = smemkit.gemm(a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
    check(d, shape, dtype, np.dtype(np.float32), 0.5, -1.5, c=c32)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_gemm_k0_is_beta_c_or_zeros(poison, dtype):
    a = np.ones((5, 0), dtype)
    b = np.ones((0, 6), dtype)
    assert np.all(smemkit.gemm(a, b).astype(np.float64) == 0)
    c = np.full((5, 6), 2.0, dtype)
    assert np.all(smemkit.gemm(a, b, c, beta=0.5).astype(np.float64) == 1.0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_gemm_unaligned_views(poison, layout, dtype):
    """Leading dimensions that are not multiples of 8 elements and bases off 16 bytes: the kernel's
    register-staged path (same shared layout)."""
    big_a, big_b, _, _, _ = operands((301, 703, 335), dtype)
    a, b = big_a[1:, 1:334], big_b[1:334, 3:700]  # row strides 335 / 703 elements, odd offsets
    d = smemkit.gemm(a, b, layout=layout)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = gamma(a.shape[1]) * (np.abs(a64) @ np.abs(b64)) + OUT_U[np.dtype(dtype)] * np.abs(ref) + OUT_TINY[np.dtype(dtype)]
    assert np.all(np.abs(d.astype(np.float64) - ref) <= bound)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_gemm_torch_cuda_tensors(layout):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    for tdt, ndt in ((torch.float16, np.dtype(np.float16)), (torch.bfloat16, BF16)):
        a_np, b_np, _, ab, absab = operands((130, 67, 129), ndt)
        a = torch.from_numpy(a_np.view(np.int16).copy()).view(tdt).cuda()
        b = torch.from_numpy(b_np.view(np.int16).copy()).view(tdt).cuda()
        d = smemkit.gemm(a, b, layout=layout)
        assert isinstance(d, torch.Tensor) and d.is_cuda and d.dtype == tdt
        d64 = d.float().cpu().numpy().astype(np.float64)
        bound = gamma(129) * absab + OUT_U[ndt] * np.abs(ab) + OUT_TINY[ndt]
        assert np.all(np.abs(d64 - ab) <= bound)


def test_gemm_rejects_unsupported_swizzles():
    a = np.ones((4, 4), np.float16)
    with pytest.raises(ValueError):
        smemkit.gemm(a, a, layout=smemkit.Swizzle(1, 2, 3))


def test_gemm_rejects_mismatched_dtypes_and_shapes():
    a = np.ones((4, 5), np.float16)
    with pytest.raises((TypeError, ValueError)):
        smemkit.gemm(a, np.ones((5, 4), BF16))
    with pytest.raises(ValueError):
        smemkit.gemm(a, np.ones((4, 4), np.float16))


# ---- device operands whose rows are not 16-byte aligned: the padded copies of variant 0 --------------
# (csrc/gemm16/gemm16_padcopy.cu, from smk_gemm16_launch: A and / or B copied into stream-ordered
# temporaries with rows padded to 16 bytes; C and D are used in place).  Each case slices a larger device array, so the base
# is off 16 bytes and / or the row pitch is not a multiple of 8 elements; the output starts as NaN.

def _to_torch(x, torch):
    tdt = torch.bfloat16 if x.dtype == BF16 else torch.float16 if x.dtype == np.float16 else torch.float32
    raw = np.ascontiguousarray(x).view({2: np.int16, 4: np.int32}[x.dtype.itemsize])
    return torch.from_numpy(raw.copy()).view(tdt).cuda()


def _from_torch(t, dtype):
    import torch
    raw = t.contiguous().view({2: torch.int16, 4: torch.int32}[dtype.itemsize]).cpu().numpy()
    return raw.view(dtype)


def _views(shape, dtype, how, rng):
    """[(big, cut)] for a, b, c: cut(big) is the operand (host), cut(device copy of big) the same view
    on the device; `how` says which operands' rows are not 16-byte aligned."""
    M, N, K = shape

    def make(rows, cols, unaligned):
        if not unaligned:  # 16-byte-aligned rows: pitch a multiple of 8 elements
            return rng.uniform(-1, 1, (rows, (cols + 7) // 8 * 8)).astype(dtype), lambda x: x[:, :cols]
        if how == "odd-base":  # pitch a multiple of 8 elements, every row 2 bytes off 16
            return (rng.uniform(-1, 1, (rows, (cols + 8) // 8 * 8)).astype(dtype),
                    lambda x: x[:, 1:1 + cols])
        # pitch cols + 5 elements, base one row and 3 elements in
        return rng.uniform(-1, 1, (rows + 1, cols + 5)).astype(dtype), lambda x: x[1:, 3:3 + cols]
    ua = how in ("odd-pitch", "odd-base", "a-only")
    ub = how in ("odd-pitch", "odd-base", "b-only")
    return make(M, K, ua), make(K, N, ub), make(M, N, True)


def _check_views(d64, a, b, c, alpha, beta, out_dtype):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64)
    bound = gamma(a.shape[1]) * abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0:
        c64 = c.astype(np.float64)
        ref = ref + beta * c64
        bound = bound + 2 * U * np.abs(beta * c64)
    bound = bound + OUT_U[out_dtype] * np.abs(ref) + OUT_TINY[out_dtype]
    assert not np.any(np.isnan(d64)), "NaN in the output: an element the kernel did not write?"
    err = np.abs(d64 - ref)
    if err.size:
        worst = int(np.argmax(err - bound))
        assert np.all(err <= bound), (f"error {err.flat[worst]:.3e} > bound {bound.flat[worst]:.3e} at "
                                      f"{np.unravel_index(worst, err.shape)}")


UNALIGNED_SHAPES = [(300, 260, 333), (33, 17, 3), (5, 3, 7), (130, 9, 129), (257, 250, 64)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("how", ["odd-pitch", "odd-base", "a-only", "b-only"])
@pytest.mark.parametrize("shape", UNALIGNED_SHAPES, ids=["x".join(map(str, s)) for s in UNALIGNED_SHAPES])
def test_gemm_device_unaligned_rows(poison, shape, how, layout, dtype, rng):
    """torch views with odd offsets / pitches: padded copies, result within the float64 bound, every
    element written (NaN-poisoned output), beta * c read in place from an unaligned view."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
    a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    for alpha, beta in ((1.0, 0.0), (2.0, -0.75)):
        d = smemkit.gemm(da, db, dc if beta else None, alpha=alpha, beta=beta, layout=layout)
        assert isinstance(d, torch.Tensor) and d.is_cuda and tuple(d.shape) == shape[:2]
        _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, alpha, beta, np.dtype(dtype))
    # float32 output with a float32 c at an odd offset (single-element epilogue)
    c32_big = c_big.astype(np.float32)
    d = smemkit.gemm(da, db, c_cut(_to_torch(c32_big, torch)), alpha=0.5, beta=1.5, layout=layout,
                     out_dtype=np.float32)
    _check_views(d.cpu().numpy().astype(np.float64), a, b, c_cut(c32_big), 0.5, 1.5, np.dtype(np.float32))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_gemm_device_unaligned_4097(poison, dtype):
    """The issue's odd shape on the device (row pitches 4093 / 4095 elements): the padded path, and the
    register-staged variant 2 (the default before), both within the bound."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    shape = (4097, 4095, 4093)
    a, b, c, _, _ = operands(shape, dtype)
    da, db, dc = _to_torch(a, torch), _to_torch(b, torch), _to_torch(c, torch)
    d = smemkit.gemm(da, db, dc, alpha=2.0, beta=-0.75)
    check(_from_torch(d, np.dtype(dtype)), shape, dtype, dtype, 2.0, -0.75)
    d = smemkit.gemm(da, db)
    check(_from_torch(d, np.dtype(dtype)), shape, dtype, dtype, 1.0, 0.0)
    with _testing.knobs(gemm16_variant=2):
        d = smemkit.gemm(da, db)
    check(_from_torch(d, np.dtype(dtype)), shape, dtype, dtype, 1.0, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", range(1, len(smemkit.bench_configs("gemm"))))
@pytest.mark.parametrize("layout", ["naive", "swizzle", smemkit.Swizzle(2, 3, 2)], ids=["naive", "swizzle", "swizzle232"])
def test_gemm_forced_variants(poison, variant, layout, rng, set_knobs):
    """Every tile variant, on aligned host operands (padded by the host path) and on unaligned device
    views (read in place through registers: variants 1..9 do not pad; the last, pre-#28, pads)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    set_knobs(gemm16_variant=variant)
    for dtype in DTYPES:
        for shape, how in (((300, 260, 333), "odd-pitch"), ((129, 200, 136), "b-only"), ((7, 13, 5), "odd-base")):
            (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = _views(shape, dtype, how, rng)
            a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
            d = smemkit.gemm(a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)),
                             c_cut(_to_torch(c_big, torch)), alpha=-1.5, beta=0.5, layout=layout)
            _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, -1.5, 0.5, np.dtype(dtype))
            d = smemkit.gemm(np.ascontiguousarray(a), np.ascontiguousarray(b), layout=layout)
            _check_views(d.astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_gemm_device_fortran_order_and_k0(poison, layout, rng):
    """Transposed (F-order) device views with odd sizes (row-major copy, then padding) and K = 0 on
    unaligned views (D = beta * c, a and b unread)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    for dtype in DTYPES:
        at = rng.uniform(-1, 1, (77, 131)).astype(dtype)  # a = at.T: (131, 77), F-order
        b = rng.uniform(-1, 1, (77, 45)).astype(dtype)
        d = smemkit.gemm(_to_torch(at, torch).t(), _to_torch(b, torch)[:, 1:], layout=layout)
        _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), at.T, b[:, 1:], None, 1.0, 0.0,
                     np.dtype(dtype))
        c = rng.uniform(-1, 1, (9, 12)).astype(dtype)
        a0 = _to_torch(np.ones((10, 3), dtype), torch)[1:, 3:]   # (9, 0), base off 16 bytes
        b0 = _to_torch(np.ones((1, 13), dtype), torch)[1:, 1:]   # (0, 12)
        c0 = _to_torch(np.pad(c, ((0, 0), (1, 0))), torch)[:, 1:]  # pitch 13, base 2 bytes off
        dz = smemkit.gemm(a0, b0, c0, beta=0.5, layout=layout)
        assert np.array_equal(_from_torch(dz, np.dtype(dtype)).astype(np.float64),
                              (0.5 * c.astype(np.float64)).astype(dtype).astype(np.float64))


@pytest.mark.gpu
def test_gemm_device_unaligned_cupy(poison, rng):
    cupy = pytest.importorskip("cupy")
    a = rng.uniform(-1, 1, (201, 140)).astype(np.float16)
    b = rng.uniform(-1, 1, (139, 99)).astype(np.float16)
    d = smemkit.gemm(cupy.asarray(a)[1:, 1:], cupy.asarray(b)[:, 3:])
    assert isinstance(d, cupy.ndarray)
    _check_views(cupy.asnumpy(d).astype(np.float64), a[1:, 1:], b[:, 3:], None, 1.0, 0.0, np.dtype(np.float16))


@pytest.mark.gpu
def test_gemm_device_temporaries_counted_before_allocating():
    """A broadcast device view whose row-major copy (and any padded copy) cannot fit: MemoryError naming
    the bytes of the temporaries, before anything is allocated."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    M, K = 2**20, 2**20 + 3  # K odd: the row-major copy's rows are then padded too
    a = torch.ones(1, 1, dtype=torch.float16, device="cuda").expand(M, K)
    b = torch.ones(K, 8, dtype=torch.float16, device="cuda")
    # the row-major copy, then what variant 0's chooser borrows for its unaligned rows (in place here)
    import ctypes
    so = ctypes.CDLL(smemkit._C.__file__)
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    need = M * K * 2 + so.smk_gemm16_temp_bytes_shape(M, 8, K, 0, 0, 1, so.smk_gemm16_device_sms())
    with pytest.raises(MemoryError, match=f"needs {need} bytes of device memory"):
        smemkit.gemm(a, b)
