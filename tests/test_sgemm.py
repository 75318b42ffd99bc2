"""smemkit.sgemm: argument errors (CPU) and results within the float32 error bound (GPU).

Hard bound, elementwise:  |D - ref| <= gamma_{K+2} * (|alpha| |A| @ |B| + |beta| |C|)
with ref the float64 result of the float32 inputs, gamma_n = n u / (1 - n u), u = 2**-24 (K products
and sums, plus the alpha and beta scalings).  Regression check: relative Frobenius <= 4 sqrt(K) u.
"""
import numpy as np
import pytest

import smemkit

U = 2.0 ** -24
LAYOUTS = smemkit.LAYOUTS
SHAPES = [(1, 1, 1), (7, 13, 5), (31, 33, 17), (64, 64, 0), (128, 256, 64), (1000, 1000, 1000),
          (1, 4096, 4096), (4096, 1, 4096), (1023, 517, 2049), (0, 5, 3), (5, 0, 3), (130, 67, 129)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


def odd_pitch_view(torch, g, r, c):
    """An r x c float32 CUDA view with an odd row pitch whose base is off 16 bytes: the SGEMM kernels'
    scalar (VEC = false) path, which host arrays never take (their device copies have 16-byte pitches)."""
    pitch = c + 1 if c % 2 == 0 else c + 2  # odd
    flat = torch.randn(r * pitch + 8, device="cuda", generator=g)
    off = next(o for o in range(1, 4) if (flat.data_ptr() + 4 * o) % 16)
    return flat[off:off + r * pitch].view(r, pitch)[:, :c]


def gamma(n):
    return n * U / (1 - n * U)


def reference(a, b, c, alpha, beta):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0:
        ref = ref + beta * c.astype(np.float64)
        scale = scale + abs(beta) * np.abs(c.astype(np.float64))
    return ref, scale


def check(d, a, b, c=None, alpha=1.0, beta=0.0):
    M, K = a.shape
    N = b.shape[1]
    assert d.shape == (M, N) and d.dtype == np.float32 and d.flags.c_contiguous
    ref, scale = reference(a, b, c, alpha, beta)
    assert np.all(np.isfinite(d)), "non-finite output (an element the kernel did not write?)"
    err = np.abs(d.astype(np.float64) - ref)
    bound = gamma(K + 2) * scale + np.finfo(np.float32).tiny
    worst = np.argmax(err - bound) if err.size else 0
    assert np.all(err <= bound), f"error {err.flat[worst]:.3e} > bound {bound.flat[worst]:.3e} at {worst}"
    if ref.size and K:
        rel = np.linalg.norm(d - ref) / max(np.linalg.norm(ref), 1e-300)
        assert rel <= 4 * np.sqrt(K) * U + 1e-30


def check_torch_calls(torch, M, N, K, seed, layout):
    """smemkit.sgemm on dense device tensors (a user's call: whatever the chooser picks), without and with
    alpha / beta, each checked against the float64 reference."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
    for alpha, beta in [(1.0, 0.0), (0.5, -1.5)]:
        d = smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout)
        torch.cuda.synchronize()
        check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(),
              c.cpu().numpy() if beta else None, alpha, beta)


# ---- argument errors (CPU) ---------------------------------------------------------------------------

def f32(*shape):
    return np.ones(shape, np.float32)


def test_signature():
    import inspect
    assert str(inspect.signature(smemkit.sgemm)) == "(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle', out=None)"


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "complex64", "object"])
def test_other_dtypes_are_type_errors_saying_float32(dtype):
    with pytest.raises(TypeError, match="float32"):
        smemkit.sgemm(np.ones((2, 2), dtype), f32(2, 2))
    with pytest.raises(TypeError, match="float32"):
        smemkit.sgemm(f32(2, 2), np.ones((2, 2), dtype))
    with pytest.raises(TypeError, match="float32"):
        smemkit.sgemm(f32(2, 2), f32(2, 2), np.ones((2, 2), dtype), beta=1.0)


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(5, 6\)"):
        smemkit.sgemm(f32(3, 4), f32(5, 6))


def test_c_of_wrong_shape():
    with pytest.raises(ValueError, match=r"\(3, 5\)"):
        smemkit.sgemm(f32(3, 4), f32(4, 6), f32(3, 5), beta=1.0)


def test_beta_without_c():
    with pytest.raises(ValueError, match="beta"):
        smemkit.sgemm(f32(3, 4), f32(4, 6), beta=0.5)


@pytest.mark.parametrize("bad", [[[1.0]], 2.0, None, "x"])
def test_non_arrays(bad):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        smemkit.sgemm(bad, f32(1, 1))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        smemkit.sgemm(f32(1, 1), bad)


@pytest.mark.parametrize("shape", [(), (3,), (2, 2, 2)])
def test_wrong_ndim(shape):
    with pytest.raises(ValueError, match="2-D"):
        smemkit.sgemm(np.ones(shape, np.float32), f32(2, 2))


def test_layout_and_keyword_errors():
    with pytest.raises(ValueError, match="'naive', 'pad', 'swizzle'"):
        smemkit.sgemm(f32(2, 2), f32(2, 2), layout="xor")
    with pytest.raises(TypeError):
        smemkit.sgemm(f32(2, 2), f32(2, 2), None, 1.0)  # alpha is keyword-only
    with pytest.raises(TypeError):
        smemkit.sgemm(f32(2, 2), f32(2, 2), alpha="2")
    with pytest.raises(TypeError):
        smemkit.sgemm(f32(2, 2), f32(2, 2), alpha=1j)


@pytest.mark.skipif(smemkit.is_available(), reason="this machine has a GPU")
def test_no_gpu_is_cuda_error():
    with pytest.raises(smemkit.CudaError, match="no usable GPU"):
        smemkit.sgemm(f32(2, 2), f32(2, 2))


# ---- GPU ----------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_sgemm_within_bound(layout, mnk, alpha, beta, rng, poison):
    M, N, K = mnk
    if M * N * K > 10**9 and (alpha, beta) != (1.0, 0.0):
        pytest.skip("large shapes: alpha=1, beta=0 only (keeps the float64 reference cheap)")
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
    c_before = None if c is None else c.copy()
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    check(d, a, b, c, alpha, beta)
    if c is not None:
        np.testing.assert_array_equal(c, c_before)  # c is not modified


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_k_zero_gives_beta_c_or_zeros(layout, rng, poison):
    c = rng.standard_normal((9, 11)).astype(np.float32)
    np.testing.assert_array_equal(smemkit.sgemm(f32(9, 0), f32(0, 11), layout=layout), np.zeros((9, 11)))
    np.testing.assert_allclose(smemkit.sgemm(f32(9, 0), f32(0, 11), c, beta=-2.0, layout=layout), -2.0 * c,
                               rtol=0, atol=0)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("view", ["F-order", "slices", "neg-stride", "byteswapped", "readonly"])
def test_strided_and_odd_inputs(layout, view, rng, poison):
    a0 = rng.standard_normal((150, 90)).astype(np.float32)
    b0 = rng.standard_normal((90, 70)).astype(np.float32)
    if view == "F-order":
        a, b = np.asfortranarray(a0), np.asfortranarray(b0)
    elif view == "slices":
        a, b = rng.standard_normal((300, 200)).astype(np.float32)[::2, 5:185:2], b0[:, ::1]
    elif view == "neg-stride":
        a, b = a0[::-1], b0[:, ::-1]
    elif view == "byteswapped":
        a, b = a0.astype(">f4"), b0.astype(">f4")
    else:
        a, b = a0.copy(), b0.copy()
        a.flags.writeable = b.flags.writeable = False
    d = smemkit.sgemm(a, b, layout=layout)
    check(d, np.ascontiguousarray(a, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32))


@pytest.mark.gpu
def test_nan_and_inf_propagate_like_numpy():
    a = np.ones((4, 3), np.float32)
    b = np.ones((3, 5), np.float32)
    a[1, 2] = np.nan
    b[0, 4] = np.inf
    d = smemkit.sgemm(a, b)
    want = a @ b
    np.testing.assert_array_equal(np.isnan(d), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))


@pytest.mark.gpu
def test_beta_zero_does_not_read_c():
    c = np.full((3, 3), np.nan, np.float32)
    d = smemkit.sgemm(np.eye(3, dtype=np.float32), np.eye(3, dtype=np.float32), c, beta=0.0)
    np.testing.assert_array_equal(d, np.eye(3))
