"""CPU tests of csrc/layout.h through smemkit: the maps are bijections, swizzle is the general XOR
map with the documented B/M/S, and the bank claims of the transpose kernel hold."""
import numpy as np
import pytest

import smemkit
from smemkit import Swizzle, bank_map, tile_offsets

TILE, _ = smemkit._C._configs("transpose")[0]


def test_layout_names():
    assert smemkit.LAYOUTS == ("naive", "pad", "swizzle")


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("rows,cols,vec,itemsize", [
    (32, 32, 1, 4), (32, 32, 1, 8), (64, 64, 1, 4), (64, 64, 1, 8), (8, 64, 4, 4), (8, 128, 4, 4),
    (16, 128, 4, 4), (32, 32, 4, 4), (4, 16, 2, 8), (32, 32, 1, 2),
])
def test_map_is_a_bijection_into_storage(layout, rows, cols, vec, itemsize):
    off, storage = tile_offsets(layout, rows, cols, vec=vec, itemsize=itemsize)
    assert off.shape == (rows, cols)
    assert len(np.unique(off)) == rows * cols, "two logical elements share a slot"
    assert off.min() >= 0 and off.max() < storage
    expected_storage = rows * (cols + vec) if layout == "pad" else rows * cols
    assert storage == expected_storage


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("cols,vec,itemsize", [(32, 1, 4), (32, 4, 4), (64, 4, 4), (16, 2, 8)])
def test_vectors_stay_whole(layout, cols, vec, itemsize):
    off, _ = tile_offsets(layout, 8, cols, vec=vec, itemsize=itemsize)
    chunks = off.reshape(8, cols // vec, vec)
    # each access vector is stored contiguously and aligned to its own width
    assert np.all(np.diff(chunks, axis=2) == 1)
    assert np.all(chunks[:, :, 0] % vec == 0)


@pytest.mark.parametrize("rows,cols,vec,itemsize,bms", [
    (32, 32, 1, 4, (5, 0, 5)),
    (32, 32, 1, 8, (4, 0, 5)),
    (64, 64, 1, 4, (5, 0, 6)),
    (8, 32, 4, 4, (3, 2, 3)),
    (8, 64, 4, 4, (3, 2, 4)),
    (8, 128, 4, 4, (3, 2, 5)),
])
def test_swizzle_is_the_general_xor_map(rows, cols, vec, itemsize, bms):
    assert smemkit._C._tile_swizzle(cols, vec, itemsize) == bms
    off, _ = tile_offsets("swizzle", rows, cols, vec=vec, itemsize=itemsize)
    linear = np.arange(rows * cols).reshape(rows, cols)
    np.testing.assert_array_equal(off, Swizzle(*bms)(linear))


def test_swizzle_32x32_fp32_is_col_xor_row():
    off, _ = tile_offsets("swizzle", 32, 32)
    r, c = np.indices((32, 32))
    np.testing.assert_array_equal(off, r * 32 + (c ^ r))


def test_swizzle_table_from_the_article():
    # Swizzle<2,3,2> over 0..127, mod 32 (the ldmatrix article's table)
    got = Swizzle(2, 3, 2)(np.arange(128)) % 32
    rows = [list(range(32)),
            list(range(8, 16)) + list(range(0, 8)) + list(range(24, 32)) + list(range(16, 24)),
            list(range(16, 32)) + list(range(0, 16)),
            list(range(24, 32)) + list(range(16, 24)) + list(range(8, 16)) + list(range(0, 8))]
    np.testing.assert_array_equal(got.reshape(4, 32), np.array(rows))


def test_swizzle_scalar_and_errors():
    assert Swizzle(5, 0, 5)(33) == 32  # row 1, col 1 -> col 0
    assert isinstance(Swizzle(5, 0, 5)(33), int)
    assert repr(Swizzle(3, 2, 3)) == "Swizzle(3, 2, 3)"
    with pytest.raises(ValueError):
        Swizzle(3, 0, 2)  # |s| < b: overlapping fields
    with pytest.raises(ValueError):
        Swizzle(5, 0, 5)(-1)
    with pytest.raises(TypeError):
        Swizzle(5.0, 0, 5)


@pytest.mark.parametrize("layout,banks", [("naive", 1), ("pad", 32), ("swizzle", 32)])
def test_column_read_of_32x32_fp32_tile(layout, banks):
    bm = bank_map(layout, 32, 32, 4)
    for c in range(32):
        assert len(set(bm[:, c])) == banks
    for r in range(32):  # the row store is conflict-free in every layout
        assert len(set(bm[r, :])) == 32


@pytest.mark.parametrize("layout,pairs", [("naive", 1), ("pad", 16), ("swizzle", 16)])
def test_column_read_of_fp64_tile_per_half_warp(layout, pairs):
    # 8-byte accesses are served 16 lanes at a time; each element covers an even/odd bank pair
    bm = bank_map(layout, 32, 32, 8)
    assert np.all(bm % 2 == 0)
    for c in range(32):
        for half in (slice(0, 16), slice(16, 32)):
            assert len(set(bm[half, c])) == pairs


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
def test_shipped_transpose_tile_column_read(layout):
    # the shipped kernel's tile: each warp reads 32 consecutive rows of one column
    bm = bank_map(layout, TILE, TILE, 4)
    want = 1 if layout == "naive" else 32
    for c in range(TILE):
        for w in range(TILE // 32):
            assert len(set(bm[32 * w:32 * w + 32, c])) == want


def test_bad_layout_arguments():
    with pytest.raises(ValueError, match="naive"):
        bank_map("xor")
    with pytest.raises(TypeError):
        bank_map(1)
    with pytest.raises(ValueError):
        tile_offsets("pad", 32, 33)
