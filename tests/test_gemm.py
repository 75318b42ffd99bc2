"""smemkit.gemm: the tensor-core GEMM (csrc/gemm16.cu) on float16 / bfloat16, every layout, against
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
