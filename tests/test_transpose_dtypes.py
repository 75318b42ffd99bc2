"""Transpose of every fixed-size dtype (1, 2, 4, 8, 16 bytes) and batches of matrices, on the GPU.

Bit-exact against NumPy for every dtype x layout x shape: NaN payloads, signalling NaNs and -0.0
survive, as do non-contiguous, byte-swapped and misaligned inputs (host arrays) and strided views at
odd element offsets (device arrays, which take the kernel's element-wise fallback).  Written against
the public API: smemkit.transpose(a, layout=...) and smemkit.matrix_transpose(a, layout=...).
"""
import numpy as np
import pytest

import smemkit

pytestmark = pytest.mark.gpu

LAYOUTS = smemkit.LAYOUTS
DTYPES = ["bool", "int8", "uint8", "float8_e4m3fn", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
          "float32", "int64", "uint64", "float64", "complex64", "complex128"]
# the shapes, then tile multiples with ragged edges (interior tiles on the whole-word path)
SHAPES = [(0, 5), (1, 1), (1, 7919), (7919, 1), (33, 31), (1023, 517), (2049, 4097), (256, 384), (260, 1032),
          (4100, 136)]
BATCHES = [(3, 33, 31), (2, 3, 1, 7), (5, 129, 65), (7, 64, 128), (0, 4, 5), (4, 0, 3), (1, 1, 1), (3, 260, 1031)]

# raw bit patterns put at the start of every array: NaN payloads (quiet and signalling, both signs),
# -0.0, Inf, for each element width (16 bytes: complex128 = two float64 patterns)
SPECIALS = {1: [0x7F, 0xFF, 0x80, 0x01, 0x79],
            2: [0x7E01, 0x7C01, 0x8000, 0xFE55, 0x7C00, 0x7FC1],
            4: [0x7FC00001, 0x7F800001, 0x80000000, 0xFFC12345, 0x7F800000],
            8: [0x7FF8000000000001, 0x7FF0000000000001, 0x8000000000000000, 0xFFF8DEAD0000BEEF,
                0x7FF0000000000000]}


def np_dtype(name):
    if name in ("bfloat16", "float8_e4m3fn"):
        ml_dtypes = pytest.importorskip("ml_dtypes")
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def random_bits(shape, dtype, rng):
    """Random bit patterns viewed as `dtype`, the special patterns first."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    raw = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8)
    if n:
        w = min(dtype.itemsize, 8)
        words = raw.view(f"<u{w}")
        sp = np.array(SPECIALS[w], dtype=np.uint64).astype(f"<u{w}")
        k = min(len(sp), len(words))
        words[:k] = sp[:k]
    return raw.view(dtype).reshape(shape)


def swapped(a):
    """a.mT (NumPy >= 2: np.matrix_transpose)."""
    mt = getattr(np, "matrix_transpose", None)
    return mt(a) if mt is not None else np.swapaxes(a, -1, -2)


def assert_bits_equal(got, want):
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.flags.c_contiguous
    g = got.reshape(-1).view(np.uint8)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8)
    if not np.array_equal(g, w):
        bad = np.flatnonzero(g != w)
        raise AssertionError(f"{bad.size} of {g.size} bytes differ, first at byte {bad[0]} "
                             f"(element {bad[0] // got.dtype.itemsize}): got {g[bad[0]]:#x}, want {w[bad[0]]:#x}")


# ---- host arrays, 2-D ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_transpose_every_dtype_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    out = smemkit.transpose(a, layout=layout)
    assert_bits_equal(out, a.T)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "bfloat16", "float32", "complex64", "complex128"])
@pytest.mark.parametrize("view", ["F-order", "a.T", "slice", "neg-stride", "byteswapped", "unaligned", "readonly"])
def test_transpose_strided_and_odd_inputs(layout, dtype, view, rng, poison):
    dt = np_dtype(dtype)
    base = random_bits((301, 257), dt, rng)
    if view == "F-order":
        a = np.asfortranarray(base)
    elif view == "a.T":
        a = base.T
    elif view == "slice":
        a = base[3:290:2, 1::3]
    elif view == "neg-stride":
        a = base[::-1, ::-2]
    elif view == "byteswapped":
        if dt.itemsize == 1 or dt.kind == "V":
            pytest.skip("no byte order for this dtype")
        a = base.astype(dt.newbyteorder(">"))
        assert not a.dtype.isnative
    elif view == "readonly":
        a = base.copy()
        a.flags.writeable = False
    else:  # elements at an odd byte offset
        if dt.itemsize == 1:
            pytest.skip("1-byte elements are always aligned")
        buf = np.zeros(base.nbytes + 1, np.uint8)
        a = np.frombuffer(buf[1:].data, dtype=dt).reshape(base.shape)
        assert not a.flags.aligned
        buf[1:] = base.view(np.uint8).reshape(-1)
    out = smemkit.transpose(a, layout=layout)
    assert out.dtype == a.dtype
    assert_bits_equal(out, a.T)
    if view == "byteswapped":
        assert_bits_equal(out.astype(dt), base.T)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,shape", [("uint8", (8192, 8192)), ("float16", (8192, 8192)),
                                         ("complex128", (4096, 4096)), ("int8", (8190, 8194))])
def test_transpose_large(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


# ---- host arrays, batches (smemkit.matrix_transpose == a.mT, one launch) --------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_matrix_transpose_batches_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,shape", [("uint8", (70000, 2, 3)), ("complex128", (66000, 1, 2)),
                                         ("float16", (64, 1024, 1024)), ("float32", (2, 4096, 4096 + 4))])
def test_matrix_transpose_large_batches(layout, dtype, shape, rng, poison):
    # more than 65535 matrices: the grid's z dimension carries the batch beyond y's limit
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float64"])
def test_matrix_transpose_2d_equals_transpose(dtype, rng, poison):
    a = random_bits((37, 91), np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a), smemkit.transpose(a))


@pytest.mark.parametrize("view", ["batch-slice", "batch-step", "inner-slice", "F-order"])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "complex128"])
def test_matrix_transpose_strided_batches(view, dtype, rng, poison):
    base = random_bits((6, 67, 45), np_dtype(dtype), rng)
    a = {"batch-slice": base[1:5], "batch-step": base[::2], "inner-slice": base[:, 1:, 2:],
         "F-order": np.asfortranarray(base)}[view]
    assert_bits_equal(smemkit.matrix_transpose(a), swapped(a))


# ---- device arrays (PyTorch): strided views at odd offsets take the element-wise path -----------------------

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "float16", "float32", "float64", "complex64", "complex128"]


def torch_tensor(a):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("view", ["contiguous", "col-offset-1", "row-step-2", "transposed", "row-offset-1"])
def test_device_transpose_views(layout, dtype, view, rng, poison):
    base = random_bits((131, 203), np.dtype(dtype), rng)
    x = torch_tensor(base)
    xv, bv = {"contiguous": (x, base), "col-offset-1": (x[:, 1:], base[:, 1:]),
              "row-step-2": (x[::2], base[::2]), "transposed": (x.t(), base.T),
              "row-offset-1": (x[1:, 3:], base[1:, 3:])}[view]
    out = smemkit.transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), bv.T)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("view", ["contiguous", "inner-offset", "batch-step", "transposed-inner"])
def test_device_matrix_transpose_views(layout, dtype, view, rng, poison):
    base = random_bits((5, 66, 35), np.dtype(dtype), rng)
    x = torch_tensor(base)
    xv, bv = {"contiguous": (x, base), "inner-offset": (x[:, 1:, 1:], base[:, 1:, 1:]),
              "batch-step": (x[::2], base[::2]),
              "transposed-inner": (x.transpose(1, 2), np.swapaxes(base, 1, 2))}[view]
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


@pytest.mark.gpu
def test_device_batch_whose_axes_do_not_collapse():
    """Leading axes with no common stride (a permuted view): one launch per matrix, each of ONE matrix."""
    torch = pytest.importorskip("torch")
    base = torch.arange(3 * 4 * 5 * 6, dtype=torch.float32, device="cuda").reshape(3, 4, 5, 6)
    x = base.permute(1, 0, 2, 3)  # shape (4, 3, 5, 6), strides (30, 120, 6, 1): no single batch stride
    y = smemkit.matrix_transpose(x)
    torch.cuda.synchronize()
    assert torch.equal(y, x.mT.contiguous())
