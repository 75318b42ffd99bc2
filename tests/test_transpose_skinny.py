"""The skinny transpose (csrc/transpose/skinny.cuh): matrices with one side of at most 32 elements.

CPU: the choice of the path (configs.h's choose(), a pure function of shape, strides and element size,
seen through explain()'s plan, which asks it as the launcher does for a C-contiguous input) and the
skinny kernel's plan (its tile, blocks, instructions, shared bytes and bank behaviour per layout).
GPU (marked): bit-exact against NumPy for every element width and layout, 1 x n and n x 1, short sides
2, 3, 13, 29 and 32 both ways, odd sizes, batches, NaN payloads and -0.0 (random bits with the special
patterns first), byte-swapped, misaligned and non-contiguous inputs, the host path and device views.
"""
import numpy as np
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _vectors_on_the_kernels():
    """This module's 1 x n and n x 1 shapes test the skinny kernels (strided vectors still take them): the copy
    route (knob transpose_copy, tests/test_transpose_copy.py) off."""
    with _knobs(transpose_copy=0):
        yield


LAYOUTS = smemkit.LAYOUTS
# (dtype, itemsize) of every element width
WIDTHS = [("uint8", 1), ("float16", 2), ("float32", 4), ("float64", 8), ("complex128", 16)]
TILE_BYTES = 8192  # skinny.cuh's kSkinnyBytes
THREADS = 256


def cap(itemsize):
    """The longest short side that goes skinny: half the shipped tile's edge in elements, at most 32; 64 for
    1- and 2-byte elements (the word-wise kernel, skinny_vec.cuh: tests/test_transpose_skinny_vec.py)."""
    return 16 if itemsize == 16 else 64 if itemsize <= 2 else 32


@pytest.fixture
def old_skinny(set_knobs):
    """The element-wise skinny kernel alone (knob transpose_skinny=1): what this file's plan tests model."""
    set_knobs(transpose_skinny=1)


def wide_default(shape, itemsize):
    """transpose_skinny 11 (session 44), 13 (session 54's default, which leaves 2-byte rows > cols with a short side of
    65..128 on the tiled kernel again: tests/test_transpose_skinny_wide.py) and 14 (the default since session 58, 13 but
    case A of rows <= 16 interleaved: tests/test_transpose_skinny_ilv.py): 1-byte rows <= cols with
    65..84 rows go to the strips (tests/test_transpose_skinny_strip.py), and since session 61 (15) 2-byte ones with
    65..84 and 129..144 rows (tests/test_transpose_skinny_strip_fp16.py); transpose_flat 1 (session 50): 4- and 8-byte
    matrices with rows = 33..64 <= cols to the flat skinny kernel (tests/test_transpose_flat.py)."""
    flat = itemsize in (4, 8) and shape[-2] <= shape[-1] and 33 <= shape[-2] <= 64
    strip = itemsize in (1, 2) and shape[-2] <= shape[-1] and 65 <= shape[-2] <= 84
    return flat or strip or (itemsize == 2 and shape[-2] <= shape[-1] and 129 <= shape[-2] <= 144)


def is_skinny(shape, dtype):
    return smemkit.explain("transpose", shape, "pad", dtype).config.startswith("skinny")


def skinny_tile(rows, cols, itemsize):
    """skinny.cuh's skinny_shape: the short side to a power of two (at most 32), the long side fills 8 KB."""
    s = min(rows, cols)
    short = 1
    while short < s and short < 32:
        short *= 2
    long_ = TILE_BYTES // itemsize // short
    return (short, long_) if rows <= cols else (long_, short)


# ---- CPU: the choice ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,itemsize", WIDTHS)
def test_choice_on_random_shapes(dtype, itemsize):
    rng = np.random.default_rng(26)
    for _ in range(300):
        short = int(rng.integers(1, 80))
        long_ = int(rng.integers(1, 1 << int(rng.integers(1, 24))))
        shape = (short, long_) if rng.integers(2) else (long_, short)
        assert is_skinny(shape, dtype) == (min(shape) <= cap(itemsize) or wide_default(shape, itemsize)), shape


@pytest.mark.parametrize("dtype,itemsize", WIDTHS)
def test_choice_boundaries(dtype, itemsize):
    c = cap(itemsize)
    for shape in [(1, 1), (1, 10**6), (10**6, 1), (c, 10**5), (10**5, c), (c, c), (3, 2), (2237203, 3)]:
        assert is_skinny(shape, dtype), shape
    for shape in [(c + 1, 10**5), (10**5, c + 1), (c + 1, c + 1), (8192, 8192), (1000, 1000), (10**5, 129)]:
        if wide_default(shape, itemsize):
            assert smemkit.explain("transpose", shape, "pad", dtype).config.startswith(("skinny-prmt ", "skinny-strip ", "skinny-flat ")), shape
            continue
        assert not is_skinny(shape, dtype), shape
        assert "tile" in smemkit.explain("transpose", shape, "pad", dtype).config


def test_bench_names_the_skinny_config():
    names = smemkit.bench_configs("transpose")
    assert names.count("skinny") == 1 and names[0] == "shipped"


# ---- CPU: the plan --------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,itemsize", WIDTHS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 7919), (7919, 1), (3, 2000000), (2000000, 3), (13, 940434),
                                   (2237203, 3), (2, 587572), (29, 621477), (16, 16), (3115923, 1)])
def test_skinny_plan(layout, dtype, itemsize, shape, old_skinny):
    if min(shape) > min(cap(itemsize), 32):
        pytest.skip("tiled at this width")
    e = smemkit.explain("transpose", shape, layout, dtype)
    tr, tc = skinny_tile(*shape, itemsize)
    assert e.config == f"skinny {tr}x{tc} tile, {THREADS} threads, {itemsize}-byte elements"
    blocks = (-(-shape[0] // tr)) * (-(-shape[1] // tc))
    assert e.blocks == blocks
    assert [a.name for a in e.accesses] == ["skinny row store", "skinny column load"]
    for a in e.accesses:
        assert a.width == itemsize  # one element per lane
        assert a.instructions == blocks * TILE_BYTES // itemsize // 32  # every element once per access
    store, load = e.accesses
    if layout != "pad":  # the row store is a contiguous (naive) or permuted (swizzle) run of the tile
        assert store.excess == 0
    if layout == "swizzle":
        assert load.excess == 0 and load.worst_ways == 1.0
    # the batch scales every count
    many = smemkit.explain("transpose", (3,) + shape, layout, dtype)
    assert many.blocks == 3 * blocks and many.total() == 3 * e.total()


@pytest.mark.parametrize("dtype,itemsize", WIDTHS[2:])
def test_skinny_naive_column_read_conflicts(dtype, itemsize, old_skinny):
    # a 16 x 512-byte tile (S x L): the column read steps 512 bytes a lane, every lane of a 16-row run
    # in one bank; the swizzle removes it
    shape = (16, 10**5)
    naive = smemkit.explain("transpose", shape, "naive", dtype).accesses[1]
    swz = smemkit.explain("transpose", shape, "swizzle", dtype).accesses[1]
    assert naive.excess > 0 and swz.excess == 0


# ---- GPU: bit-exact ------------------------------------------------------------------------------------

DTYPES = ["bool", "uint8", "float8_e4m3fn", "float16", "bfloat16", "int16", "float32", "int32", "float64",
          "complex64", "complex128"]
SHAPES = [(1, 1), (1, 2), (1, 7919), (7919, 1), (1, 65537), (65537, 1), (2, 58757), (58757, 2), (3, 20001),
          (20001, 3), (13, 9403), (9403, 13), (29, 6217), (6217, 29), (32, 4099), (4099, 32), (16, 16),
          (3, 5), (31, 33), (5, 3), (17, 2047), (2047, 17)]
BATCHES = [(3, 2, 1031), (3, 1031, 2), (5, 1, 999), (4, 999, 1), (2, 13, 4097), (7, 3, 3), (70000, 3, 2)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_skinny_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(2237203, 3), (3, 2000000), (13, 940434), (3115923, 1), (2, 587572)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_skinny_issue_shapes(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["bool", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_skinny_batches(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("view", ["row-slice", "col-slice", "neg-rows", "neg-cols", "F-order", "a.T",
                                  "byteswapped", "unaligned", "batch-step"])
def test_skinny_strided_and_odd_inputs(layout, dtype, view, rng, poison):
    dt = np_dtype(dtype)
    base = random_bits((4, 3001, 13), dt, rng)
    if view == "byteswapped" and dt.itemsize == 1:
        pytest.skip("no byte order for 1-byte elements")
    if view == "unaligned" and dt.itemsize == 1:
        pytest.skip("1-byte elements are always aligned")
    if view == "unaligned":
        buf = np.zeros(base.nbytes + 1, np.uint8)
        a = np.frombuffer(buf[1:].data, dtype=dt).reshape(base.shape)
        buf[1:] = base.view(np.uint8).reshape(-1)
        assert not a.flags.aligned
    else:
        a = {"row-slice": base[:, 5:2999:3], "col-slice": base[:, :, 1:12], "neg-rows": base[:, ::-1],
             "neg-cols": base[:, :, ::-1], "F-order": np.asfortranarray(base[0]), "a.T": base[1].T,
             "byteswapped": base.astype(dt.newbyteorder(">")) if dt.itemsize > 1 else base,
             "batch-step": base[::2, :, 3:]}[view]
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


def _cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("view", ["contiguous", "short-x-long", "col-offset-1", "row-step-2", "transposed",
                                  "batch-step"])
def test_skinny_device_views(layout, dtype, view, rng, poison):
    torch = _cuda_torch()
    base = random_bits((3, 4099, 29), np.dtype(dtype), rng)
    x = torch.from_numpy(base).cuda()
    xv, bv = {"contiguous": (x, base), "short-x-long": (x.mT.contiguous(), swapped(base)),
              "col-offset-1": (x[:, :, 1:], base[:, :, 1:]), "row-step-2": (x[:, ::2], base[:, ::2]),
              "transposed": (x.mT, swapped(base)), "batch-step": (x[::2], base[::2])}[view]
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,itemsize", WIDTHS)
@pytest.mark.parametrize("shape", [(1, 9), (9, 1), (2, 9), (3, 9), (9, 3), (13, 99), (99, 13), (16, 99), (29, 99),
                                   (99, 29), (32, 99), (99, 32)])
def test_skinny_tile_is_a_bijection(layout, dtype, itemsize, shape, old_skinny):
    """The row store puts every element of the tile in its own slot inside the block's shared bytes, and
    the column read reads exactly those slots: the layout map loses and overlaps nothing."""
    if min(shape) > min(cap(itemsize), 32):
        pytest.skip("tiled at this width")
    plan = smemkit._C._plan("transpose", shape, layout, itemsize)
    (_, _, _, _, store), (_, _, _, _, load) = [a[:5] for a in plan["accesses"]]
    st = store.reshape(-1)
    assert len(np.unique(st)) == st.size == TILE_BYTES // itemsize
    assert st.min() >= 0 and st.max() + itemsize <= plan["smem_bytes"] and np.all(st % itemsize == 0)
    assert np.array_equal(np.sort(st), np.sort(load.reshape(-1)))
