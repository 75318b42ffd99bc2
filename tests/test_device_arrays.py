"""CuPy arrays and PyTorch CUDA tensors in and out, zero copy, on the caller's stream (GPU machine)."""
import numpy as np
import pytest

import smemkit

LAYOUTS = smemkit.LAYOUTS
U = 2.0 ** -24


def _bound_ok(d, a, b, c=None, alpha=1.0, beta=0.0):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = alpha * (a64 @ b64)
    scale = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if c is not None and beta != 0:
        ref = ref + beta * c.astype(np.float64)
        scale = scale + abs(beta) * np.abs(c.astype(np.float64))
    K = a.shape[1]
    g = (K + 2) * U / (1 - (K + 2) * U)
    return np.all(np.abs(d - ref) <= g * scale + np.finfo(np.float32).tiny)


# ---- PyTorch -------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "complex64"])
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (33, 31), (1023, 517), (7, 4099)])
@pytest.mark.parametrize("view", ["contiguous", "t", "slice"])
def test_torch_transpose(torch, layout, dtype, shape, view, poison):
    base = torch.randn(shape[0] * 2 + 1, shape[1] * 2 + 1, dtype=torch.float64, device="cuda")
    base = (base * 1000).to(getattr(torch, dtype))
    x = {"contiguous": base[: shape[0], : shape[1]].contiguous(),
         "t": base[: shape[1], : shape[0]].t(),
         "slice": base[1::2, ::2][: shape[0], : shape[1]]}[view]
    y = smemkit.transpose(x, layout=layout)
    assert isinstance(y, torch.Tensor) and y.is_cuda and y.dtype == x.dtype
    assert y.shape == (x.shape[1], x.shape[0]) and y.is_contiguous()
    assert torch.equal(y, x.t().contiguous())


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1, 1, 1), (31, 33, 17), (128, 256, 64), (1000, 999, 1001), (64, 64, 0)])
@pytest.mark.parametrize("view", ["contiguous", "t", "slice"])
def test_torch_sgemm(torch, layout, mnk, view, poison):
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M * 7 + N)

    def mat(r, c):
        if view == "contiguous":
            return torch.randn(r, c, device="cuda", generator=g)
        if view == "t":
            return torch.randn(c, r, device="cuda", generator=g).t()
        return torch.randn(2 * r + 1, 2 * c + 1, device="cuda", generator=g)[1::2, ::2][:r, :c]

    a, b, c = mat(M, K), mat(K, N), mat(M, N)
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    assert isinstance(d, torch.Tensor) and d.is_cuda and d.dtype == torch.float32 and d.shape == (M, N)
    assert _bound_ok(d.cpu().numpy(), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)


@pytest.mark.gpu
def test_torch_runs_on_the_current_stream(torch):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randn(2048, 3000, device="cuda")
        y = smemkit.transpose(x)
        a = torch.randn(300, 200, device="cuda")
        d = smemkit.sgemm(a, a.t().contiguous())
        z = y.t().contiguous()  # ordered after smemkit's kernel on s, with no synchronisation
    s.synchronize()
    assert torch.equal(z, x)
    assert _bound_ok(d.cpu().numpy(), a.cpu().numpy(), a.t().cpu().numpy())


@pytest.mark.gpu
def test_torch_errors(torch):
    with pytest.raises(TypeError, match="CPU torch tensor"):
        smemkit.transpose(torch.ones(3, 3))
    x = torch.ones(3, 3, device="cuda", dtype=torch.float64)
    with pytest.raises(TypeError, match="float32"):
        smemkit.sgemm(x, x)
    with pytest.raises(TypeError, match="torch dtype"):
        smemkit.transpose(torch.ones(3, 3, device="cuda", dtype=torch.complex32))
    with pytest.raises(ValueError, match="2-D"):
        smemkit.transpose(torch.ones(3, device="cuda"))
    y = torch.ones(3, 4, device="cuda")
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(3, 4\)"):
        smemkit.sgemm(y, y)
    with pytest.raises(ValueError, match="beta"):
        smemkit.sgemm(y, y.t(), beta=1.0)
    with pytest.raises(ValueError, match="'naive', 'pad', 'swizzle'"):
        smemkit.transpose(y, layout="xor")
    with pytest.raises(TypeError, match="alpha"):
        smemkit.sgemm(y, y.t(), alpha="2")


# ---- CuPy ----------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint32", "complex64"])
@pytest.mark.parametrize("view", ["contiguous", "T", "slice", "neg"])
def test_cupy_transpose(cupy, layout, dtype, view, poison):
    base = cupy.asarray(np.random.default_rng(1).integers(0, 2**31, (301, 257)).astype(dtype))
    x = {"contiguous": base, "T": base.T, "slice": base[3::2, 1::3], "neg": base[::-1, ::-2]}[view]
    y = smemkit.transpose(x, layout=layout)
    assert isinstance(y, cupy.ndarray) and y.flags.c_contiguous and y.dtype == x.dtype
    assert bool(cupy.all(y == x.T))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cupy_sgemm_on_a_nondefault_stream(cupy, layout, poison):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((517, 301)).astype(np.float32)
    b = rng.standard_normal((301, 255)).astype(np.float32)
    with cupy.cuda.Stream() as s:
        d = smemkit.sgemm(cupy.asarray(a), cupy.asarray(b).T.copy().T, layout=layout)
        host = cupy.asnumpy(d, stream=s)
        s.synchronize()
    assert isinstance(d, cupy.ndarray)
    assert _bound_ok(host, a, b)


@pytest.mark.gpu
def test_generic_cuda_array_interface_and_dlpack_producers(cupy, poison):
    class CAIOnly:  # e.g. a Numba device array: only the interface
        def __init__(self, arr):
            self.arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    class DLPackOnly:  # e.g. a JAX array: only DLPack
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None, **kw):
            return self.arr.__dlpack__(stream=stream, **kw)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    x = cupy.arange(35 * 17, dtype=cupy.float32).reshape(35, 17)[:, 1::2]
    for wrapped in (CAIOnly(x), DLPackOnly(x)):
        y = smemkit.transpose(wrapped)
        assert isinstance(y, cupy.ndarray)
        assert bool(cupy.all(y == x.T))


@pytest.mark.gpu
def test_mixing_libraries_is_a_type_error(cupy):
    torch = pytest.importorskip("torch")
    a = cupy.ones((2, 2), dtype=cupy.float32)
    with pytest.raises(TypeError, match="one library"):
        smemkit.sgemm(a, torch.ones(2, 2, device="cuda"))


@pytest.mark.gpu
def test_host_pointer_through_the_interface_is_rejected(poison):
    host = np.ones((4, 4), np.float32)

    class Fake:
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "<f4", "data": (host.ctypes.data, False),
                                    "version": 3, "strides": None, "stream": None}

    pytest.importorskip("cupy")
    with pytest.raises(ValueError, match="not CUDA device memory"):
        smemkit.transpose(Fake())


@pytest.mark.gpu
def test_unsupported_strides_are_a_clear_error(cupy):
    base = cupy.zeros(64, dtype=cupy.uint8)

    class OddStrides:  # float32 elements 6 bytes apart: not expressible in elements
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "<f4", "data": (base.data.ptr, False),
                                    "version": 3, "strides": (24, 6), "stream": None}

    with pytest.raises(ValueError, match="not multiples of its itemsize"):
        smemkit.transpose(OddStrides())


@pytest.mark.gpu
def test_arrays_on_another_device_are_a_clear_error(torch):
    """CuPy's rule for CuPy and CAI arrays: the current device (PyTorch tensors run on their own device
    instead: tests/test_multi_gpu.py)."""
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    torch.cuda.set_device(0)
    x = torch.ones(8, 8, device="cuda:1")
    assert torch.equal(smemkit.transpose(x), x) and smemkit.sgemm(x, x).device == x.device
    assert torch.cuda.current_device() == 0
    cupy = pytest.importorskip("cupy")
    with cupy.cuda.Device(1):
        y = cupy.ones((8, 8), dtype=cupy.float32)

    class CAI:  # a generic producer: the pointer itself is inspected
        __cuda_array_interface__ = y.__cuda_array_interface__

    with pytest.raises(ValueError, match="on CUDA device 1 but smemkit runs on device 0"):
        smemkit.transpose(CAI())
