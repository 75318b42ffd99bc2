"""out= on transpose, matrix_transpose and sgemm: NumPy's semantics, errors before any device work."""
import numpy as np
import pytest

import smemkit


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


# ---- CPU: every argument error comes before the GPU is touched (these run without one) ----------------

@pytest.mark.parametrize("make_out,exc,match", [
    (lambda: np.empty((4, 3), np.float32), ValueError, r"out has shape \(4, 3\); the result has shape \(5, 3\)"),
    (lambda: np.empty((5, 3), np.float64), TypeError, "out has dtype float64"),
    (lambda: np.empty((5, 3), ">f4"), TypeError, "dtype byte-swapped"),
    (lambda: np.empty((3, 5), np.float32).T, ValueError, "C-contiguous"),
    (lambda: np.empty((5, 6), np.float32)[:, ::2], ValueError, "C-contiguous"),
    (lambda: np.lib.stride_tricks.as_strided(np.empty(15, np.float32), (5, 3), (12, 4), writeable=False),
     ValueError, "read-only"),
    (lambda: [[0.0] * 3] * 5, TypeError, "out must be a numpy.ndarray"),
])
def test_transpose_out_errors(make_out, exc, match):
    a = np.zeros((3, 5), np.float32)
    with pytest.raises(exc, match=match):
        smemkit.transpose(a, out=make_out())


def test_transpose_out_overlapping_the_input_is_an_error():
    buf = np.zeros(64, np.float32)
    a = buf[:16].reshape(4, 4)
    with pytest.raises(ValueError, match="out shares memory with a"):
        smemkit.transpose(a, out=buf[8:24].reshape(4, 4))
    with pytest.raises(ValueError, match="out shares memory with a"):
        smemkit.transpose(a, out=a)


def test_matrix_transpose_out_shape():
    a = np.zeros((2, 3, 5), np.int32)
    with pytest.raises(ValueError, match=r"\(2, 5, 3\)"):
        smemkit.matrix_transpose(a, out=np.empty((2, 3, 5), np.int32))


@pytest.mark.parametrize("make_out,exc,match", [
    (lambda a, c: np.empty((4, 7), np.float32), ValueError, r"out has shape \(4, 7\); the result has shape \(4, 6\)"),
    (lambda a, c: np.empty((4, 6), np.float16), TypeError, "out has dtype float16"),
    (lambda a, c: a[:, :6] if a.shape[1] >= 6 else np.empty((6, 4), np.float32).T, ValueError, "C-contiguous"),
    (lambda a, c: c[:, :], None, None),                    # out is c itself: allowed (BLAS)
    (lambda a, c: np.zeros((4, 6), np.float32), None, None),
])
def test_sgemm_out_errors_and_aliasing_rules(make_out, exc, match):
    a = np.zeros((4, 5), np.float32)
    b = np.zeros((5, 6), np.float32)
    c = np.zeros((4, 6), np.float32)
    out = make_out(a, c)
    if exc is None:
        if smemkit.is_available():
            assert smemkit.sgemm(a, b, c, beta=1.0, out=out) is out
        return
    with pytest.raises(exc, match=match):
        smemkit.sgemm(a, b, c, beta=1.0, out=out)


def test_sgemm_out_overlapping_an_input_is_an_error():
    buf = np.zeros((8, 6), np.float32)
    a, b = buf[:4, :5], np.zeros((5, 6), np.float32)
    with pytest.raises(ValueError, match="out shares memory with a"):
        smemkit.sgemm(a, b, out=buf[2:6])
    cbuf = np.zeros((5, 6), np.float32)
    with pytest.raises(ValueError, match="out may be c itself"):  # a view overlapping c, not c
        smemkit.sgemm(np.zeros((4, 5), np.float32), b, cbuf[:4], beta=1.0, out=cbuf[1:5])


# ---- GPU: correctness, reuse ----------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
def test_transpose_into_out_many_times(layout, rng, poison):
    a = rng.integers(0, 2**32, (333, 517), dtype=np.uint32).view(np.float32)
    out = np.full((517, 333), np.nan, np.float32)
    for _ in range(20):
        assert smemkit.transpose(a, layout, out=out) is out
        assert np.array_equal(bits(out), bits(a.T))
    batch = rng.integers(0, 2**31, (3, 17, 9), dtype=np.int32)
    out3 = np.empty((3, 9, 17), np.int32)
    assert smemkit.matrix_transpose(batch, layout, out=out3) is out3
    assert np.array_equal(out3, np.swapaxes(batch, -1, -2))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
def test_sgemm_into_out_and_into_c(layout, rng, poison):
    a = rng.standard_normal((70, 33), dtype=np.float32)
    b = rng.standard_normal((33, 45), dtype=np.float32)
    c = rng.standard_normal((70, 45), dtype=np.float32)
    ref = 2.0 * (a.astype(np.float64) @ b) + 0.5 * c
    out = np.empty((70, 45), np.float32)
    for _ in range(5):
        assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, layout=layout, out=out) is out
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, layout=layout, out=c) is c  # out = c: BLAS
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_device_out(rng):
    torch = pytest.importorskip("torch")
    x = torch.randn(300, 200, device="cuda")
    out = torch.empty(200, 300, device="cuda")
    assert smemkit.transpose(x, out=out) is out
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())
    with pytest.raises(TypeError, match="on the same side"):
        smemkit.transpose(x, out=np.empty((200, 300), np.float32))
    with pytest.raises(ValueError, match="out shares memory"):
        smemkit.transpose(x, out=x.view(200, 300))
    y = torch.randn(200, 50, device="cuda")
    d = torch.empty(300, 50, device="cuda")
    assert smemkit.sgemm(x, y, out=d) is d
    torch.cuda.synchronize()
    assert torch.allclose(d, x @ y, rtol=1e-4, atol=1e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_device_out_of_empty_result_is_contiguous_whatever_its_strides(lib, request):
    """An empty out= is C-contiguous by NumPy's rule even where its library reports other strides
    (torch.empty(64, 0) has strides (1, 1)); it used to be refused as non-contiguous."""
    xp = request.getfixturevalue(lib)
    if lib == "torch":
        x, out = xp.empty(0, 64, device="cuda"), xp.empty(64, 0, device="cuda")
        xb, outb = xp.empty(3, 0, 5, device="cuda"), xp.empty(3, 5, 0, device="cuda")
    else:
        x, out = xp.empty((0, 64), xp.float32), xp.empty((64, 0), xp.float32)
        xb, outb = xp.empty((3, 0, 5), xp.float32), xp.empty((3, 5, 0), xp.float32)
    for layout in smemkit.LAYOUTS:
        assert smemkit.transpose(x, layout=layout, out=out) is out
        assert smemkit.matrix_transpose(xb, layout=layout, out=outb) is outb
    assert tuple(smemkit.transpose(x).shape) == (64, 0)
