"""smemkit.transpose: argument errors (CPU, run in CI) and bit-exact results on the GPU."""
import numpy as np
import pytest

import smemkit

LAYOUTS = smemkit.LAYOUTS
DTYPES = ["float32", "int32", "uint32", "float64", "int64", "complex64"]
SHAPES = [(0, 5), (5, 0), (0, 0), (1, 1), (1, 7919), (7919, 1), (33, 31), (31, 33), (32, 32), (64, 64),
          (65, 63), (1023, 517), (3, 70001), (70001, 3)]


def random_bits(shape, dtype, rng):
    """Random bit patterns viewed as `dtype`: NaNs with payloads, infs, signed zeros, denormals."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = rng.integers(0, 256, size=n, dtype=np.uint8)
    a = raw.view(dtype).reshape(shape)
    if dtype.kind == "f" and a.size >= 4:
        flat = a.reshape(-1)
        flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return a


def assert_bits_equal(got, want):
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.flags.c_contiguous
    u = np.dtype(f"u{got.dtype.itemsize}") if got.dtype.itemsize in (4, 8) else np.uint8
    np.testing.assert_array_equal(got.view(u), np.ascontiguousarray(want).view(u))


# ---- argument errors: these run everywhere, before any device work ----------------------------------

@pytest.mark.parametrize("obj", [[[1.0, 2.0]], (1, 2), 3.0, "abc", None, np.float32(1)])
def test_non_arrays_are_type_errors(obj):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        smemkit.transpose(obj)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_wrong_ndim_names_the_shape(shape):
    with pytest.raises(ValueError, match=r"2-D.*shape \(" if shape else r"2-D.*shape \(\)"):
        smemkit.transpose(np.zeros(shape, np.float32))


@pytest.mark.parametrize("dtype", ["object", "U3", "S4", "datetime64[s]", "V8", [("x", "i4"), ("y", "f4")]])
def test_unsupported_dtypes_are_type_errors(dtype):
    a = np.zeros((2, 3), dtype=dtype)
    with pytest.raises(TypeError, match="unsupported dtype") as ei:
        smemkit.transpose(a)
    assert "float32" in str(ei.value)  # says what is supported


@pytest.mark.parametrize("layout", ["Naive", "xor", "", "swizzled"])
def test_unknown_layout_lists_the_layouts(layout):
    with pytest.raises(ValueError, match="'naive', 'pad', 'swizzle'"):
        smemkit.transpose(np.zeros((2, 2), np.float32), layout=layout)


@pytest.mark.parametrize("layout", [0, 1.0, b"pad", ["pad"]])
def test_layout_of_wrong_type(layout):
    with pytest.raises(TypeError, match="layout"):
        smemkit.transpose(np.zeros((2, 2), np.float32), layout=layout)


def test_missing_or_extra_arguments():
    with pytest.raises(TypeError):
        smemkit.transpose()
    with pytest.raises(TypeError):
        smemkit.transpose(np.zeros((2, 2), np.float32), layout="pad", bogus=1)


@pytest.mark.skipif(smemkit.is_available(), reason="this machine has a GPU")
def test_no_gpu_is_a_clear_cuda_error():
    with pytest.raises(smemkit.CudaError, match="no usable GPU was found") as ei:
        smemkit.transpose(np.ones((4, 4), np.float32))
    assert isinstance(ei.value, RuntimeError)
    assert isinstance(ei.value.status, int) and ei.value.status != 0
    # argument errors still win over the missing device
    with pytest.raises(TypeError):
        smemkit.transpose(np.ones((4, 4), object))


def test_signature_and_docstring():
    import inspect
    assert str(inspect.signature(smemkit.transpose)) == "(a, layout='swizzle', *, out=None)"
    assert "bit for bit" in smemkit.transpose.__doc__


# ---- GPU: bit-exact against NumPy -----------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_transpose_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, dtype, rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_transpose_8192_square(layout, dtype, rng, poison):
    a = random_bits((8192, 8192), dtype, rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
def test_default_layout_is_swizzle_and_positional_layout(rng):
    a = random_bits((40, 70), "int32", rng)
    assert_bits_equal(smemkit.transpose(a), a.T)
    assert_bits_equal(smemkit.transpose(a, "pad"), a.T)


@pytest.mark.gpu
def test_device_out_of_memory_is_memory_error_and_next_call_works(rng):
    huge = 1 << 38  # 256 GiB per buffer: more than any current GPU holds
    with pytest.raises(MemoryError, match=str(huge)):
        smemkit._C._bench("transpose", (1 << 19, 1 << 17), ["pad"], warmup=0, reps=1)
    a = random_bits((100, 100), "float32", rng)
    assert_bits_equal(smemkit.transpose(a), a.T)


@pytest.mark.gpu
def test_device_name_and_bench_engine():
    assert smemkit.device_name()
    r = smemkit._C._bench("transpose", (512, 512), smemkit.LAYOUTS, warmup=1, reps=3)
    assert r["ceiling"] == "copy"
    t = r["times"]
    assert set(t) == {"naive", "pad", "swizzle", "copy"}
    assert all(len(v) == 3 and all(x > 0 for x in v) for v in t.values())


@pytest.fixture
def host_mode(set_knobs):
    return lambda mode: set_knobs(host_mode=mode)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("shape,dtype", [((4096, 9000), "float32"), ((3000, 4100), "float64"), ((33, 31), "int32"),
                                         ((70001, 3), "float32")])
@pytest.mark.parametrize("readonly", [False, True])
def test_host_transfer_modes_are_bit_exact(mode, shape, dtype, readonly, rng, poison, host_mode):
    host_mode(mode)
    a = random_bits(shape, dtype, rng)
    a.flags.writeable = not readonly
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)
    assert_bits_equal(smemkit.transpose(np.asfortranarray(a[:, : shape[1] // 2]), layout="pad"),
                      a[:, : shape[1] // 2].T)
    with pytest.raises(ValueError):
        smemkit._C._set_knob("host_mode", 4)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2, 3])
@pytest.mark.parametrize("readonly", [False, True])
def test_host_modes_with_input_and_output_on_one_page(mode, readonly, host_mode, poison):
    # many small arrays: some input/output pairs share a host page; page-locking must cope with that
    host_mode(mode)
    rng = np.random.default_rng(7)
    for i in range(300):
        a = random_bits((1 + i % 9, 1 + (i * 7) % 13), "int32", rng)
        a.flags.writeable = not readonly
        assert_bits_equal(smemkit.transpose(a), a.T)
        assert_bits_equal(smemkit.transpose(np.asfortranarray(a)), a.T)
