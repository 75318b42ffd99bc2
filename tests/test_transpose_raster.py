"""The tiled transpose's raster (csrc/transpose/global.cuh's tile_place): groups of G tile rows walked column by
column (the knob transpose_group), row-major (0), or by shape (-1, the default since session 52: configs.h's
raster_group -- bands of 8 tile rows, or every tile row of a matrix where the call leaves L2, a tile column's input
strip stays within 16 MiB and there are at least 4 tile columns and more than one band).

CPU: the choice, replayed in Python over the issue's random law and at each bound, and the binding's errors.
GPU: the order of the blocks must not change a bit: every result is compared bit for bit (NaN payloads included)
on poisoned outputs, for groups that divide the tile rows, that leave a short last group, and that exceed them,
and for the default's whole-column walk on calls big enough to take it.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _C
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped

TE = {1: 128, 2: 128, 4: 64, 8: 64, 16: 32}  # the shipped tiles' edge in elements (configs.h kWidths, unit_edge)
MIB = 1 << 20


def expected_group(rows, cols, esz, batch=1):
    """configs.h raster_group at the knob's default, written again from its comment."""
    te = TE[esz]
    ty, tx = -(-rows // te), -(-cols // te)
    whole = ty > 8 and tx >= 4 and rows * te * esz <= 16 * MIB and batch * rows * cols * esz >= 32 * MIB
    return ty if whole else 8

# tiled shapes (short sides above the skinny caps): one tile row, a few, many; ragged edges
SHAPES = [(70, 100), (1023, 517), (4099, 257), (257, 4099), (2047, 129), (1000, 1000), (130, 20001)]
BATCHES = [(5, 129, 130), (3, 1023, 67)]


@pytest.mark.gpu
@pytest.mark.parametrize("group", [8, 0, 3, 1, 1000])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_raster_bit_exact(shape, dtype, layout, group, rng, poison, set_knobs):
    set_knobs(transpose_group=group)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("group", [8, 0, 3])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_raster_batches(shape, dtype, group, rng, poison, set_knobs):
    set_knobs(transpose_group=group)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), swapped(a))


def test_raster_knob_values():
    for bad in (-2, 65537):
        with pytest.raises(ValueError):
            smemkit._C._set_knob("transpose_group", bad)


def law(rng, n):
    """n shapes of the issue's law (rows, cols log-uniform in [1, 2^22], a batch half the time), kept in 4 MiB..1 GiB."""
    out = []
    while len(out) < n:
        esz = int(rng.choice([1, 2, 4, 8, 16]))
        r, c = (int(round(np.exp(rng.uniform(0, np.log(2 ** 22))))) for _ in range(2))
        b = int(rng.integers(2, 65)) if rng.random() < 0.5 else 1
        if 4 * MIB <= b * r * c * esz <= 1 << 30:
            out.append((r, c, esz, b))
    return out


def test_raster_default_by_shape():
    rng = np.random.default_rng(52)
    shapes = law(rng, 3000)
    got = [_C._transpose_raster_group(r, c, e, b) for r, c, e, b in shapes]
    assert got == [expected_group(r, c, e, b) for r, c, e, b in shapes]
    whole = sum(g != 8 for g in got)
    assert 0.05 * len(shapes) < whole < 0.5 * len(shapes)  # the law reaches both sides of the rule


@pytest.mark.parametrize("esz", [1, 2, 4, 8, 16])
def test_raster_default_bounds(esz):
    te = TE[esz]
    rows = 16 * MIB // (te * esz)  # a tile column's input strip of exactly 16 MiB
    ty = rows // te
    assert _C._transpose_raster_group(rows, 4 * te, esz) == ty               # 64 MiB, four tile columns: whole
    assert _C._transpose_raster_group(rows + 1, 4 * te, esz) == 8            # the strip over 16 MiB
    assert _C._transpose_raster_group(rows, 3 * te, esz) == 8                # three tile columns
    assert _C._transpose_raster_group(rows, 3 * te + 1, esz) == ty           # four
    r9 = 9 * te                                                              # nine tile rows: two bands
    c = -(-32 * MIB // (r9 * esz))                                           # the call just at 32 MiB
    assert _C._transpose_raster_group(r9, c, esz) == 9
    assert _C._transpose_raster_group(r9, c - 1, esz) == 8                   # under 32 MiB
    assert _C._transpose_raster_group(r9, c - 1, esz, 2) == 9                # a batch of two leaves L2
    assert _C._transpose_raster_group(8 * te, 2 * c, esz) == 8               # one band either way


def test_raster_knob_fixes_it():
    for g in (0, 1, 8, 65536):
        with knobs(transpose_group=g):
            assert _C._transpose_raster_group(20262, 11096, 2) == g
    assert _C._transpose_raster_group(20262, 11096, 2) == 159  # back at the default: whole columns
    assert _C._transpose_raster_group(20262, 11096, 2, 1, 5) == -1  # the skinny kernel has no raster
    assert _C._transpose_raster_group(20262, 11096, 2, 1, 1) == 317  # variant 1's 32x32 units: 64-element tiles
    for bad in [(-1, 5, 1), (5, 5, 3), (5, 5, 1, 0), (5, 5, 1, 1, -1)]:
        with pytest.raises(ValueError):
            _C._transpose_raster_group(*bad)


# the default's whole-column walk (>= 32 MiB, strips within 16 MiB, >= 4 tile columns): shape, dtype
WHOLE = [((4099, 8195), "uint8"), ((2305, 7683), "float16"), ((1031, 8200), "float32"), ((3, 1100, 2000), "float64"),
         ((1100, 2000), "complex128")]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("shape,dtype", WHOLE, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_raster_whole_columns_bit_exact(shape, dtype, layout, rng, poison):
    esz = np.dtype(dtype).itemsize
    b = shape[0] if len(shape) == 3 else 1
    assert _C._transpose_raster_group(shape[-2], shape[-1], esz, b) == -(-shape[-2] // TE[esz]) > 8
    a = random_bits(shape, np_dtype(dtype), rng)
    if len(shape) == 3:
        assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))
    else:
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)
