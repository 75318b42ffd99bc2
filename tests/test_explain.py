"""explain(): the kernels' shared-memory accesses and their predicted wavefronts (CPU)."""
import pytest

import smemkit


# (dtype, element bytes, shared access width, wavefronts of a conflict-free warp instruction)
WIDTHS = [("bool", 1, 4, 1), ("uint8", 1, 4, 1), ("int8", 1, 4, 1), ("float16", 2, 4, 1), ("bfloat16", 2, 4, 1),
          ("int16", 2, 4, 1), ("float32", 4, 4, 1), ("int32", 4, 4, 1), ("float64", 8, 8, 2),
          ("complex64", 8, 8, 2), ("complex128", 16, 16, 4)]


def _tile_elems(e):
    """Tile edge in elements, from the kernel's own configuration string."""
    tile = int(e.config.split("x")[0])
    itemsize = dict((d, s) for d, s, _, _ in WIDTHS)[e.dtype]
    return tile * (4 // itemsize if itemsize < 4 else 1)


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype,itemsize,width,phase_cost", WIDTHS)
# the tiled kernel; a side of at most 32 elements (16 for 16-byte ones, 64 for 1- and 2-byte ones, 84 rows <= cols for
# 1- and 2-byte ones and 129..144 for 2-byte ones, 64 rows <= cols for 4- and 8-byte ones) goes skinny:
# test_transpose_skinny.py, test_transpose_skinny_vec.py, test_transpose_skinny_strip*.py, test_transpose_flat.py
@pytest.mark.parametrize("shape", [(1000, 1000), (8192, 8192), (145, 7919), (145, 145)])
def test_transpose_accesses(layout, dtype, itemsize, width, phase_cost, shape):
    e = smemkit.explain("transpose", shape, layout, dtype)
    names = [a.name for a in e.accesses]
    assert names == ["tile row store", "tile column load"]
    te = _tile_elems(e)
    blocks = (-(-shape[0] // te)) * (-(-shape[1] // te))
    assert e.blocks == blocks
    for a in e.accesses:
        # shared memory is touched in whole words: 1- and 2-byte elements move as 4-byte words
        assert a.width == width
        # one warp instruction moves 32 lanes x width bytes of the tile (te*te elements)
        assert a.instructions == blocks * te * te * itemsize // (32 * width)
        assert a.ideal == a.instructions * phase_cost
    store, load = e.accesses
    assert store.excess == 0 and store.worst_ways == 1.0
    if layout == "naive":
        # every lane of a phase in one bank: 32 / 16 / 8-way, 32 wavefronts per instruction for every width
        assert load.worst_ways == 128 // width
        assert load.wavefronts == 32 * load.instructions
    else:
        assert load.excess == 0 and load.worst_ways == 1.0


def test_shipped_4_byte_tile_is_variant_0():
    tile, _ = smemkit._C._configs("transpose")[0]
    assert smemkit.explain("transpose", (256, 256), "pad", "float32").config.startswith(f"{tile}x{tile} tile")


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
def test_batch_scales_every_count(dtype, layout):
    from smemkit._testing import knobs
    # the same kernel for one matrix and the batch (the sector store's size gate sees the batch); the gather kernel's
    # tile-row-0 heads follow each matrix's base phase, so a batch is not 15 copies of one matrix there
    with knobs(transpose_sector=0, transpose_gather=0):
        one = smemkit.explain("transpose", (1023, 517), layout, dtype)
        many = smemkit.explain("transpose", (3, 5, 1023, 517), layout, dtype)
    assert many.blocks == 15 * one.blocks
    assert many.shape == (3, 5, 1023, 517)
    for a, b in zip(one.accesses, many.accesses):
        assert (b.instructions, b.wavefronts, b.ideal) == (15 * a.instructions, 15 * a.wavefronts, 15 * a.ideal)
    assert smemkit.explain("transpose", (0, 1023, 517), layout, dtype).total() == 0



def test_batch_too_large_to_count_is_refused():
    """A batch past 2^62 elements (the counts would wrap int64) is a ValueError, not a wrapped count."""
    with pytest.raises(ValueError):
        smemkit.explain("transpose", (2**40, 2**20, 2**10), "pad", "uint8")
    with pytest.raises(ValueError):
        smemkit.explain("transpose", (5, 2**31 - 1, 2**31 - 1), "pad", "uint8")
    assert smemkit.explain("transpose", (2**20, 2**20, 2**20), "pad", "uint8").total() > 0  # 2^60 elements: counted

def test_dtype_objects_and_ml_dtypes():
    import numpy as np
    assert smemkit.explain("transpose", (128, 128), "pad", np.dtype(">f2")).dtype == "float16"
    if np.dtype(np.longdouble).itemsize == 16:  # x86-64 Linux: 80-bit extended in 16 bytes
        assert smemkit.explain("transpose", (64, 64), "pad", np.longdouble).accesses[0].width == 16
    ml_dtypes = pytest.importorskip("ml_dtypes")
    e = smemkit.explain("transpose", (128, 128), "pad", ml_dtypes.bfloat16)  # tiled (64 and below: skinny)
    assert e.dtype == "bfloat16" and e.accesses[0].width == 4
    fp8 = smemkit.explain("transpose", (128, 128), "pad", ml_dtypes.float8_e4m3fn)
    assert fp8.config.startswith("32x32 tile of 4x4")


@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("mnk", [(512, 512, 512), (4096, 4096, 4096), (1000, 777, 555)])
def test_sgemm_a_store_is_the_only_conflict_and_only_in_naive(layout, mnk):
    e = smemkit.explain("sgemm", mnk, layout)
    a_store = e.accesses[0]
    assert a_store.name.startswith("A-tile store")
    assert a_store.width == 4 and a_store.kind == "store"
    if layout == "naive":
        assert a_store.worst_ways == 2.0
        assert a_store.wavefronts == 2 * a_store.instructions  # the article's 2-way conflict
    else:
        assert a_store.excess == 0
    assert all(a.excess == 0 for a in e.accesses[1:])


def test_sgemm_instruction_counts_scale_with_k():
    # one config, unsplit: BK fragment rows per k-tile plus one after the last (the cross-barrier
    # prefetch), stores once per k-tile plus once after the last one
    e1 = smemkit.explain("sgemm", (1024, 1024, 512), "pad", config=1, splits=1)
    e2 = smemkit.explain("sgemm", (1024, 1024, 1024), "pad", config=1, splits=1)
    kt1, kt2 = 512 // 8, 1024 // 8
    assert e2.total("load", "instructions") * (8 * kt1 + 1) == e1.total("load", "instructions") * (8 * kt2 + 1)
    assert e2.total("store", "instructions") * (kt1 + 1) == e1.total("store", "instructions") * (kt2 + 1)
    assert smemkit.explain("sgemm", (64, 64, 0), "pad").total() == 0


def test_result_object():
    from smemkit._testing import knobs
    with knobs(sgemm_deep=0):  # the register-staged tile kernel, whose A-tile store conflicts
        e = smemkit.explain("sgemm", (256, 256, 256), "naive")
    d = e.to_dict()
    assert d["totals"]["store"]["excess"] == e.total("store", "excess") > 0
    assert d["accesses"][0]["name"] == e.accesses[0].name
    text = repr(e)
    assert "A-tile store" in text and "total stores" in text and "naive" in text


@pytest.mark.parametrize("args,exc", [
    (("gemm", (2, 2)), ValueError),
    (("transpose", (2,)), ValueError),
    (("transpose", (-1, 2, 2)), ValueError),
    (("sgemm", (2, 2)), ValueError),
    (("transpose", (2, 2), "xor"), ValueError),
    (("transpose", (2, 2), "pad", "object"), TypeError),
    (("transpose", (2, 2), "pad", "U3"), TypeError),
    (("transpose", (2, 2), "pad", "V8"), TypeError),
    (("transpose", (2, 2), "pad", "datetime64[s]"), TypeError),
    (("sgemm", (2, 2, 2), "pad", "float64"), TypeError),
    (("transpose", (-1, 2)), ValueError),
])
def test_errors(args, exc):
    with pytest.raises(exc):
        smemkit.explain(*args)
