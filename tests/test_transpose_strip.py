"""The strip kernel (csrc/transpose/strip.cuh): 1- and 2-byte tiled transposes whose stores are whole
aligned words of whole sectors whatever the output pitch, each output row's partial sector carried in
registers down a walk of tiles, and edge tiles moved as clipped words.

The kernel is an experiment behind the knob transpose_strip (0, the default: the tiled kernel for every
shape; 1: the strip kernel where configs.h's strip_fits says; 2: the same with walks of one tile): it
stores ideal sector counts but runs slower than the tiled kernel on the random draws
(docs/TRANSPOSE_NOTES.md).  Every test here but the default's sets the knob to 1 (autouse fixture).
CPU: the choice (strip_fits, a pure function of shape, strides and element size, seen through explain(),
which asks choose() as the launcher does), the knob's values, and the plan's totals (the tiled kernel's
shared accesses once per 32x32-unit tile).
GPU (marked): bit-exact against NumPy on outputs poisoned with 0xFF bytes, every 1- and 2-byte dtype and
layout: odd pitches (input, output, both), pitches on words but off sectors, edge tiles on either side,
walks of several tiles (large shapes), batches, the host path, device views at odd offsets, non-unit
column strides, out= inside a poisoned buffer; the same shapes with the strip off agree.
"""
import numpy as np
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped

LAYOUTS = smemkit.LAYOUTS
SUBWORD = ["bool", "int8", "uint8", "float16", "bfloat16"]
WIDTHS = [("uint8", 1), ("float16", 2), ("float32", 4), ("float64", 8), ("complex128", 16)]


@pytest.fixture(autouse=True)
def strip_on(set_knobs):
    """The strip kernel on for every test of this file (the knob is off by default)."""
    set_knobs(transpose_strip=1)


def expect_strip(shape, itemsize):
    """configs.h's strip_fits for a shape the skinny kernels do not take."""
    rows, cols = shape[-2:]
    if itemsize > 2:
        return False
    return rows % 128 != 0 or cols % 128 != 0  # a tile multiple has its output rows on sectors too


def is_strip(shape, dtype):
    return smemkit.explain("transpose", shape, "pad", dtype).config.endswith("strip walk")


# ---- CPU: the choice and the plan -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype,itemsize", WIDTHS)
def test_choice_on_random_shapes(dtype, itemsize):
    rng = np.random.default_rng(35)
    n = 0
    for _ in range(1500):
        shape = tuple(int(round(np.exp(rng.uniform(np.log(65), np.log(1 << 16))))) for _ in range(2))
        if rng.integers(4) == 0:  # exact tile multiples, aligned or not
            shape = tuple(128 * max(1, s // 128) + int(rng.integers(2)) * int(rng.integers(1, 3)) for s in shape)
        assert is_strip(shape, dtype) == expect_strip(shape, itemsize), shape
        n += is_strip(shape, dtype)
    assert (n > 0) == (itemsize <= 2)


@pytest.mark.parametrize("dtype,itemsize", WIDTHS[:2])
def test_choice_boundaries(dtype, itemsize):
    for shape in [(8192, 8192), (128, 128), (1024, 4096), (4096, 128)]:
        assert not is_strip(shape, dtype), shape  # covered exactly, output rows on sectors: tiled
    for shape in [(8191, 8191), (8192, 8191), (8191, 8192), (129, 128), (1000, 1000), (65, 7919), (11504, 3568)]:
        assert is_strip(shape, dtype), shape
    # tile multiples with output rows on words but off sectors would need rows % 128 == 0 and
    # rows * itemsize % 32 != 0: impossible for 1 and 2 bytes, so a tile multiple is always on sectors
    assert not is_strip((64, 10**5), dtype)  # skinny first


def test_strip_knob_values(set_knobs):
    assert is_strip((1000, 1000), "uint8")
    set_knobs(transpose_strip=2)  # walks of one tile: the same plan
    assert is_strip((1000, 1000), "uint8")
    set_knobs(transpose_strip=0)
    assert not is_strip((1000, 1000), "uint8")
    assert smemkit.explain("transpose", (1000, 1000), "pad", "uint8").config.startswith("32x32 tile of 4x4")
    assert smemkit.explain("transpose", (1000, 1000), "pad", "float16").config.startswith("64x64 tile of 2x2")
    with pytest.raises(ValueError):
        smemkit._C._set_knob("transpose_strip", 3)


def test_strip_is_off_by_default():
    from smemkit import _testing
    assert _testing.KNOBS["transpose_strip"] == 0
    with _testing.knobs(transpose_strip=0):
        for dtype in ("uint8", "float16"):
            for shape in [(1000, 1000), (8191, 8193), (2455, 204788)]:
                assert not is_strip(shape, dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,itemsize", WIDTHS[:2])
@pytest.mark.parametrize("shape", [(1000, 1000), (8191, 8193), (65, 7919), (3, 257, 259)])
def test_strip_plan_is_the_tile_once_per_tile(layout, dtype, itemsize, shape):
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.config == (f"32x32 tile of {4 // itemsize}x{4 // itemsize} {itemsize}-byte blocks "
                        f"({4 // itemsize} words), 32x8 threads, strip walk")
    te = 32 * (4 // itemsize)
    rows, cols = shape[-2:]
    batch = shape[0] if len(shape) == 3 else 1
    tiles = batch * (-(-rows // te)) * (-(-cols // te))
    assert e.blocks == tiles  # a block walks several; the plan counts tiles
    for a in e.accesses:  # 4-byte words, every tile word once per access
        assert a.width == 4 and a.instructions == tiles * te * te * itemsize // (32 * 4)
    store, load = e.accesses
    assert store.excess == 0
    assert (load.excess == 0) == (layout != "naive")


# ---- GPU: bit-exact -------------------------------------------------------------------------------------

# (rows, cols): output pitch odd / on words off sectors / on sectors; edges on either side; tile multiples
SHAPES = [(1023, 517), (257, 259), (256, 257), (257, 256), (130, 131), (129, 128), (128, 129), (65, 65),
          (1000, 1000), (1004, 1024), (1008, 4096), (4096, 1029), (11504, 356), (333, 4095), (67, 70001),
          (70001, 67), (200, 65), (65, 200)]
# walks of several tiles: more tiles than 2 waves of resident blocks
LARGE = [(8191, 8193), (8197, 4099), (4100, 8191), (2455, 20479), (20480, 2452)]
BATCHES = [(3, 257, 259), (2, 1031, 517), (5, 129, 130), (3, 256, 257), (2, 100, 3000), (4, 65, 67)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", LARGE, ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_long_walks(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_strip_batches(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("on", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(257, 259), (4096, 1029), (3, 131, 129), (8191, 8193), (2455, 20479)],
                         ids=lambda s: "x".join(map(str, s)))
def test_strip_on_and_off_agree(on, dtype, shape, rng, poison, set_knobs):
    set_knobs(transpose_strip=on)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "bool", "float16", "bfloat16"])
@pytest.mark.parametrize("view", ["offset", "offset-slice", "col-stride", "batch-offset", "odd-pitch"])
@pytest.mark.parametrize("shape", [(517, 1023), (1031, 2053), (300, 70)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_torch_views(torch, layout, dtype, view, shape, poison):
    from test_transpose_oddpitch import torch_bits, torch_random
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    R, C = shape
    flat = torch_random(torch, 3 * (R + 3) * (2 * C + 5) + 7, dtype, R * 7 + C)
    if view == "offset":
        x = flat[1:1 + R * C].view(R, C)
    elif view == "offset-slice":
        x = flat[3:3 + R * (C + 5)].view(R, C + 5)[:, :C]
    elif view == "col-stride":  # non-unit column stride: the element-wise loads
        x = flat[1:1 + R * (2 * C + 1)].view(R, 2 * C + 1)[:, :2 * C:2]
    elif view == "odd-pitch":
        x = flat[:R * (C + 3)].view(R, C + 3)[:, :C]
    else:
        x = flat[1:1 + 3 * (R * C + 1)].view(3, R * C + 1)[:, :R * C].reshape(3, R, C)
    want = torch_bits(torch, x.mT)
    try:
        y = smemkit.matrix_transpose(x, layout=layout)
    except (ValueError, TypeError) as e:  # a view the binding does not take as it is
        pytest.skip(f"not taken: {e}")
    assert np.array_equal(torch_bits(torch, y), want)
    n, esz = x.numel(), x.element_size()
    raw = torch.full(((n + 3) * esz,), 0xFF, dtype=torch.uint8, device="cuda")
    out = raw.view(x.dtype)[1:1 + n].view(x.mT.shape)
    assert smemkit.matrix_transpose(x, layout=layout, out=out) is out
    assert np.array_equal(torch_bits(torch, out), want)
    rest = torch.cat([raw[:esz], raw[(n + 1) * esz:]])
    assert bool((rest == 0xFF).all())


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 2, 3])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_strip_host_modes(mode, dtype, rng, poison, set_knobs):
    set_knobs(host_mode=mode)
    a = random_bits((9001, 4099), np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)


def test_bench_names_the_strip_configs():
    names = smemkit.bench_configs("transpose")
    assert len(names) == len(set(names))  # the strip rows share a tiled row's geometry, not its name
    assert [n for n in names if n.startswith("strip")] == ["strip 32x32/32x8", "strip 32x32/32x4"]
