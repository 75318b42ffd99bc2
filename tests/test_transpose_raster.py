"""The tiled transpose's raster on the GPU (csrc/transpose/global.cuh's tile_place): groups of G tile rows
walked column by column (the knob transpose_group, 8 by default) or row-major (0).  The order of the blocks
must not change a bit: every result is compared bit for bit (NaN payloads included) on poisoned outputs, for
groups that divide the tile rows, that leave a short last group, and that exceed them.
"""
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped

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
    for bad in (-1, 65537):
        with pytest.raises(ValueError):
            smemkit._C._set_knob("transpose_group", bad)
