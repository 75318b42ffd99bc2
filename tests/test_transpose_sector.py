"""The tiled transpose's sector store (csrc/transpose/sector.cuh; knob transpose_sector): each tile writes its
output rows from their first 32-byte boundary on, as whole aligned words, with a band of input rows loaded
past the tile and the head of each output row written by tile row 0.

GPU: every result bit for bit (NaN payloads included) on poisoned outputs -- shapes whose band passes the
matrix's end, whose rows are fewer than one shift, one tile row, ragged edges; batches; odd input pitches
(the re-aligning load path with its band); device views and out= at odd element offsets (the shift follows
the real address).  CPU: when the path is taken (configs.h's sector_fits through explain) and what its plan
counts.
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets

# tiled shapes (both sides over the skinny caps): a band past the end (rows just over a tile, just under
# two), fewer rows than a shift's worth, aligned pitches (the plain kernel), odd pitches, wide and tall
SHAPES = [(70, 100), (129, 130), (131, 257), (150, 1000), (255, 300), (257, 4099), (1023, 517), (4099, 257),
          (2047, 129), (1000, 1000), (130, 20001), (1024, 1024), (1029, 4096), (4096, 1029), (96, 5000)]
BATCHES = [(5, 129, 130), (3, 1023, 67), (2, 131, 129), (4, 257, 300)]
WIDTHS = ["uint8", "float16", "float32"]


pytestmark = pytest.mark.usefixtures("tiled_kernel")  # the tiled kernel's own paths: the gather kernel off


@pytest.mark.gpu
@pytest.mark.parametrize("group", [8, 0])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS + ["float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_sector_bit_exact(shape, dtype, layout, group, rng, poison, set_knobs):
    set_knobs(transpose_sector=2, transpose_flat=0, transpose_group=group)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_sector_batches(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_sector=2, transpose_flat=0)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [3, 4])
@pytest.mark.parametrize("dtype,shape", [("float32", (2, 1101, 1907)), ("float32", (1029, 4099)), ("float32", (263, 16001)),
                                         ("uint8", (1541, 10891)), ("uint8", (2, 1541, 5447)), ("float16", (1541, 5447))],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_sector_size_gate_bit_exact(shape, dtype, mode, rng, poison, set_knobs):
    """The size gate's launches (modes 3 and 4) take the single uint8 (and, mode 4, float32) matrices, and
    every call stays exact whichever kernel the gate picks."""
    set_knobs(transpose_sector=mode, transpose_flat=0)
    a = random_bits(shape, np_dtype(dtype), rng)
    want = a.ndim == 2 and (dtype == "uint8" or (dtype == "float32" and mode == 4))
    assert ("sector store" in smemkit.explain("transpose", shape, "pad", dtype).config) == want
    out = smemkit.matrix_transpose(a, layout="pad") if a.ndim == 3 else smemkit.transpose(a, layout="pad")
    assert_bits_equal(out, swapped(a) if a.ndim == 3 else a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("odd", [1, 0])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(1031, 2053), (257, 259), (4099, 4093)], ids=lambda s: "x".join(map(str, s)))
def test_sector_odd_input_pitch(shape, dtype, odd, rng, poison, set_knobs):
    """Input rows off words: the re-aligning load path (odd 1) and the element-wise one (odd 0) load the band too."""
    set_knobs(transpose_sector=2, transpose_flat=0, transpose_odd_path=odd)
    a = random_bits((shape[0], shape[1] + 3), np_dtype(dtype), rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 1023), (1031, 2053), (256, 257)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_sector_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views and out= one element past an aligned base: the shift is taken from the real address."""
    set_knobs(transpose_sector=2, transpose_flat=0)
    test_torch_odd_offsets(torch, layout, dtype, view, shape, None)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32"])
def test_sector_float32_device_out_offset(torch, dtype, poison, set_knobs):
    set_knobs(transpose_sector=2, transpose_flat=0)
    x = torch.randn(1001, 999, device="cuda")
    raw = torch.full((1001 * 999 + 3,), float("nan"), device="cuda")
    out = raw[3:].view(999, 1001)  # 12 bytes past a sector
    assert smemkit.transpose(x, layout="swizzle", out=out) is out
    assert torch.equal(out, x.t())
    assert bool(raw[:3].isnan().all())


# ---- CPU: the choice and the plan -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,rows,want", [
    ("uint8", 5752, True), ("uint8", 5760, False), ("uint8", 5761, True), ("float16", 4952, True),
    ("float16", 4960, False), ("float32", 2876, True), ("float32", 2880, False), ("float64", 2877, False),
    ("complex128", 1001, False)])
def test_sector_fits_by_output_pitch(dtype, rows, want):
    """Taken for 1-, 2- and 4-byte elements whose output rows (pitch rows * esz) are off 32-byte sectors."""
    with knobs(transpose_sector=2, transpose_flat=0):
        cfg = smemkit.explain("transpose", (rows, 3000), "pad", dtype).config
    assert ("sector store" in cfg) == want, cfg
    with knobs(transpose_sector=1):  # the default rule: 4-byte elements, at least 2 KB of output row
        cfg = smemkit.explain("transpose", (rows, 3000), "pad", dtype).config
    assert ("sector store" in cfg) == (want and dtype == "float32" and rows * 4 >= 2048), cfg
    with knobs(transpose_sector=1):
        assert "sector store" not in smemkit.explain("transpose", (501, 3000), "pad", "float32").config
    with knobs(transpose_sector=0):
        assert "sector store" not in smemkit.explain("transpose", (2877, 3000), "pad", "float32").config


@pytest.mark.parametrize("mode", [3, 4])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
def test_sector_size_gate(dtype, mode):
    """Modes 3 (uint8) and 4 (the default since session 50: uint8 and float32): a single matrix of >= 16 MiB whose sides both
    span >= 1.5 KB (uint8; output pitch rows * esz, input row cols * esz) or >= 1 KB (float32); float16
    never (its sector kernel spills), 8-byte and wider never, batches never; output rows off sectors only."""
    esz = np.dtype(dtype).itemsize
    mib = 1 << 20

    def taken(shape, m=mode):
        with knobs(transpose_sector=m, transpose_flat=0):
            return "sector store" in smemkit.explain("transpose", shape, "pad", dtype).config

    side = {1: 1536, 4: 1024}.get(esz, 1024) // esz
    rows = side + 1  # an output pitch of >= side bytes, off a sector
    assert rows * esz % 32
    cols = max(-(-16 * mib // (rows * esz)), side)  # the call reaches 16 MiB
    want = esz == 1 or (esz == 4 and mode == 4)
    assert taken((rows, cols)) == want
    default = "sector store" in smemkit.explain("transpose", (rows, cols), "pad", dtype).config
    assert default == (esz in (1, 4))  # the default, 4 since session 50
    assert not taken((rows, cols), m=0)
    assert not taken((rows - 2, cols * 2))  # output pitch under the side
    assert not taken((cols, side - 1))  # input row under the side (its output pitch: big)
    small = (rows, side + 8)  # both sides long enough, a few MiB
    assert small[0] * small[1] * esz < 16 * mib and not taken(small)
    batch = -(-16 * mib // (small[0] * small[1] * esz))
    assert not taken((batch,) + small) and not taken((2, rows, cols))  # batches: the plain kernel
    aligned = 2048 // esz  # output rows on sectors: the plain kernel whatever the size
    assert not taken((aligned, -(-16 * mib // 2048)))


@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(5752, 7560), (100, 130), (1001, 999), (4954, 15232)])
def test_sector_plan_counts(dtype, shape):
    """Per block the band's row store and the shifted column read(s) (pad / swizzle: one wavefront per
    phase, naive 32); the head reads, one per output row of a tile column whose shift is not 0."""
    rows, cols = shape
    esz = np.dtype(dtype).itemsize
    E = {1: 4, 2: 2, 4: 1}[esz]
    with knobs(transpose_sector=2, transpose_flat=0):
        plans = {lay: smemkit.explain("transpose", shape, lay, dtype) for lay in smemkit.LAYOUTS}
    if rows * esz % 32 == 0:  # every output row on a sector: the plain kernel
        assert all("sector" not in e.config for e in plans.values())
        return
    te = {1: 128, 2: 128, 4: 64}[esz]
    tiles_x = -(-cols // te)
    heads = sum(1 for o in range(tiles_x * te) if (-(o * rows * esz)) % 32) * (2 if E > 1 else 1)
    for lay, e in plans.items():
        names = [a.name for a in e.accesses]
        assert names[:2] == ["sector tile row store", "sector column load"]
        assert ("sector column load, second word" in names) == (E > 1)
        head = [a for a in e.accesses if a.name.startswith("sector head loads")]
        assert sum(a.instructions for a in head) == heads
        loads = [a for a in e.accesses if a.name.startswith("sector column load")]
        assert all(a.worst_ways == (32 if lay == "naive" else 1) for a in loads)
