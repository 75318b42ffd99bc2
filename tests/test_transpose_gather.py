"""The gather kernel (knob transpose_gather; configs.h gather_fits, csrc/transpose/gather.cuh): the 1- and 2-byte
tiled transpose as a byte gather from raw rows -- whole aligned words on both global sides at any pitch, the
re-alignment in the shared-memory addresses.

GPU: every result bit for bit (random bit patterns: NaN payloads and -0.0 included) on poisoned outputs, in every
layout: the 16 classes of (rows, cols) mod 4, sides on and around the tile's 128 rows / 128 bytes and its E - 1 halo
rows, bases off words (a word straddling the matrix's first or last byte), batches whose matrices start off words,
torch views, every knob level, the kernel's name in the profile; the 256-row tile (session 55) likewise and where
the default takes it.  CPU: the knob's range, explain()'s route to the gather, its tile's rows and its plan
(instructions a block, the layouts' ways).
"""
import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets

GATHER = dict(transpose_gather=1, transpose_skinny=0, transpose_sector=0, transpose_copy=0)
WIDTHS = ["uint8", "float16", "int16"]
SIDES = [128, 129, 130, 131, 132, 255, 256, 257, 259, 383, 1001]


def _np(dtype):
    return np_dtype(dtype)


# ---- CPU ----------------------------------------------------------------------------------------------------

def test_gather_knob_range():
    from smemkit._testing import KNOBS, knobs
    assert KNOBS["transpose_gather"] == 3  # the default since session 53
    assert smemkit.explain("transpose", (1031, 2053), "pad", "uint8").config.startswith("gather from raw rows")
    for bad in (-1, 5, 10, 15, 20, 25, 31):
        with pytest.raises(ValueError):
            _C._set_knob("transpose_gather", bad)
    for level in (1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24):
        with knobs(transpose_gather=level):
            pass


def test_gather_narrow_case_b():
    """The narrow case B (session 59): rows > cols with input rows of 64..127 bytes goes to the gather at levels 3 (the
    default, with its rule for output rows of >= 1024 bytes) and 4, on 256-row tiles; case A, rows under 64 bytes and
    small output rows stay off it, and levels 1-2 keep to input rows of >= 128 bytes."""
    cases = [((200000, 67), {3, 4}), ((3, 90001, 127), {3, 4}), ((2355678, 96), {3, 4}), ((200000, 63), set()),
             ((67, 200000), set()), ((1000, 67), {4}), ((1031, 2053), {1, 2, 3, 4})]
    for shape, levels in cases:
        for level in range(5):
            e = _explain(shape, "uint8", level=level)
            assert e.config.startswith("gather from raw rows") == (level in levels), (shape, level)
            if level in levels and shape[-1] < 128:
                assert e.config.startswith("gather from raw rows: 256-row"), (shape, e.config)


@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_tile_rows(dtype):
    """The tile's rows (configs.h gather_tile_rows), as explain() names them: 256 where the call moves >= 128 MiB at
    the default level, 128 below (the cut to the byte), whatever the size at 11-13 (256) / 21-23 (128)."""
    esz = np.dtype(dtype).itemsize
    cut = 128 << 20
    big, small = (16384 // esz, 8193), (16384 // esz, 8191)  # 16384 x 8193 bytes: 16 KiB over the cut; 8191: under
    assert big[0] * big[1] * esz >= cut > small[0] * small[1] * esz
    rows = lambda shape, level=3: _explain(shape, dtype, level=level).config.split(":")[1].split("-row")[0].strip()
    assert rows(big) == "256" and rows(small) == "128"
    assert rows((2, big[0] // 2, 8193)) == "256"  # a batch counts all its bytes
    assert rows((1031, 2053), 13) == "256" and rows((1031, 2053), 11) == "256"
    assert rows(big, 23) == "128" and rows(big, 21) == "128"
    assert rows((500, 2053), 12) == "256"  # level 2's class, 256 rows
    assert not _explain((500, 2053), dtype, level=13).config.startswith("gather")  # level 3's class only


def _explain(shape, dtype, layout="pad", level=3):
    from smemkit._testing import knobs
    with knobs(transpose_gather=level):
        return smemkit.explain("transpose", shape, layout, dtype)


@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_route(dtype):
    """explain() names the gather where the launcher takes it: level 3 for off-word pitches with output rows of
    >= 1024 bytes, level 2 below that too, level 1 on words too, never at level 0 or on aligned pitches below 1."""
    esz = np.dtype(dtype).itemsize
    r = 1031 if esz == 1 else 515  # output rows of 1031 / 1030 bytes
    narrow = {3} if esz == 1 else set()  # rows of 100 bytes, rows > cols: level 3's narrow case B (fp16's 50 columns: skinny)
    for shape, levels in [((r, 2053), {1, 2, 3}), ((500, 2053), {1, 2}), ((1024, 2048), {1}), ((4, 1031, 2053), {1, 2, 3}),
                          ((100, 2053), set()), ((2053, 100 // esz), narrow)]:
        for level in range(4):
            got = _explain(shape, dtype, level=level).config.startswith("gather from raw rows")
            assert got == (level in levels), (shape, level)


@pytest.mark.parametrize("tr", [128, 256])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(1031, 2053), (1153, 1000), (2, 1031, 2053), (1025, 2053)], ids=lambda s: "x".join(map(str, s)))
def test_gather_plan_counts(shape, dtype, layout, tr):
    """A block stores tr + E - 1 raw rows and zero rows to the next multiple of 8 (one instruction each) and loads E
    words' elements a lane for each of its 128 / esz output rows (NW = tr esz / 128 words a lane), the last tile column
    only its own rows; the loads are 32-way in naive (every lane one bank) and 1-way in pad and swizzle, the stores
    1-way in all three; the heads of tile row 0 at most 3 instructions an output row; a matrix's end rows off words
    are stored once more in each tile that loads them."""
    esz = np.dtype(dtype).itemsize
    E, tc = 4 // esz, 128 // esz
    R, C = shape[-2], shape[-1]
    batch = shape[0] if len(shape) == 3 else 1
    tx, ty = -(-C // tc), -(-R // tr)
    e = _explain(shape, dtype, layout, level=1 if tr == 128 else 11)
    assert e.config.startswith(f"gather from raw rows: {tr}-row"), e.config
    assert e.blocks == tx * ty * batch
    acc = {a.name: a for a in e.accesses if not a.name.startswith("gather head")}
    rows = 8 * -(-(tr + E - 1) // 8)  # every warp stores the same rows, those past the halo zeros (none issued idle)
    assert acc["gather raw row store"].instructions == rows * e.blocks
    assert acc["gather raw row store"].wavefronts == rows * e.blocks
    last = C - (tx - 1) * tc
    full, part = (tx, 0) if last == tc else (tx - 1, last)
    loads = sum(a.instructions for n, a in acc.items() if n.startswith("gather byte load"))
    assert loads == (full * tc + part) * esz * E * (tr // 128) * ty * batch
    assert max(a.worst_ways for n, a in acc.items() if "load" in n) == (32 if layout == "naive" else 1)
    assert acc["gather raw row store"].worst_ways == 1
    heads = sum(a.instructions for a in e.accesses if a.name.startswith("gather head"))
    assert 0 < heads <= 3 * C * batch * esz
    # rows 0 and R - 1 of a matrix whose first or last byte is off words (a fresh, aligned input: matrix b starts at
    # byte b R C esz) are stored again in each tile that loads them: row 0 in tile row 0, row R - 1 in the tile rows
    # whose rows and halo (tr + E - 1) reach it
    per = 1 + sum(0 <= R - 1 - t * tr < tr + E - 1 for t in range(ty))
    nb = R * C * esz
    want = sum(tx * per for b in range(batch) if (b * nb) % 4 or ((b + 1) * nb) % 4)
    ends = acc.get("gather end row store (matrix rows 0 and R - 1 off words)")
    assert (ends.instructions if ends else 0) == want
    assert not ends or ends.worst_ways == 1


# ---- GPU: bit-exact -----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
def test_gather_pitch_classes(dtype, layout, rng, poison, set_knobs):
    """(rows, cols) mod 4 in all 16 classes, a few tiles each way and partial last tiles."""
    set_knobs(**GATHER)
    for i in range(4):
        for j in range(4):
            a = random_bits((640 + 97 * i + 1 + i, 520 + 61 * j + j), _np(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_sides_around_tiles(dtype, rng, poison, set_knobs):
    """Sides on the tile (128 rows, 128 bytes of columns), one to four past it (the halo rows, the last words of
    the output rows), and the next tiles; layout pad."""
    set_knobs(**GATHER)
    for r in SIDES:
        for c in SIDES:
            a = random_bits((r, c), _np(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("off", [1, 2, 3])
def test_gather_base_off_words(off, dtype, layout, level, rng, poison, set_knobs):
    """A matrix starting `off` elements past a word (and so ending off one): the words straddling its first and
    last byte are read byte by byte; the output base off words too."""
    set_knobs(**dict(GATHER, transpose_gather=level))
    for shape in [(257, 259), (1031, 515), (130, 4099)]:
        flat = random_bits((shape[0] * shape[1] + off,), _np(dtype), rng)
        a = flat[off:].reshape(shape)
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(3, 129, 131), (5, 257, 1001), (2, 1031, 130), (7, 131, 385)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gather_batches(shape, dtype, layout, rng, poison, set_knobs):
    """Batches: later matrices start off a word where rows * cols * esz is not a multiple of 4."""
    set_knobs(**GATHER)
    a = random_bits(shape, _np(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("tens", [1, 2])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_clipped_tiles_untested_loads(dtype, layout, tens, rng, poison, set_knobs):
    """Tiles clipped on the right load with no test a row where every row is inside and none is an end row, their lanes
    past the tile re-reading the last lane's word (session 60): the last tile row's rows at, one under and one past the
    tile's rows + halo (plain / tested), clipped columns of a wide matrix and the narrow case B, bases on and off words."""
    set_knobs(**dict(GATHER, transpose_gather=10 * tens + 4))
    tr = 256 if tens == 1 else 128
    esz = np.dtype(_np(dtype)).itemsize
    nrow = tr + 4 // esz - 1
    for cols in (200 // esz, 70 // esz):
        for rows in (tr + nrow - 1, tr + nrow, tr + nrow + 1):
            for off in (0, 1):
                flat = random_bits((rows * cols + off,), _np(dtype), rng)
                a = flat[off:].reshape(rows, cols)
                assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("shape", [(1030, 65), (3001, 67), (2, 2999, 127), (3, 1100, 99), (1025, 101)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gather_narrow_case_b_exact(shape, layout, rng, poison):
    """The narrow case B at the default knobs (one partial tile column, 256-row tiles; session 59): bit-exact, and the
    same through a base one byte off words (the matrix's ends off words)."""
    assert _explain(shape, "uint8", layout).config.startswith("gather from raw rows: 256-row")
    a = random_bits(shape, np.uint8, rng)
    f = smemkit.matrix_transpose if len(shape) == 3 else smemkit.transpose
    assert_bits_equal(f(a, layout=layout), swapped(a))
    buf = random_bits((a.size + 1,), np.uint8, rng)
    b = buf[1:].reshape(shape)
    assert_bits_equal(f(b, layout=layout), swapped(b))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset", "batch"])
def test_gather_torch_views(torch, layout, dtype, view, poison, set_knobs):
    """Device tensors at odd element offsets (packed rows: the gather's class), out= inside a 0xFF buffer."""
    set_knobs(**GATHER)
    test_torch_odd_offsets(torch, layout, dtype, view, (1031, 2053), None)


TALL_SIDES = [255, 256, 257, 258, 259, 260, 383, 511, 513, 1031]


@pytest.mark.gpu
@pytest.mark.parametrize("level", [11, 12, 13])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
def test_gather_tall_tile(dtype, layout, level, rng, poison, set_knobs):
    """The 256-row tile (levels 11-13): rows on and around its 256 and its E - 1 halo rows, the 16 pitch classes,
    bases off words and batches, bit for bit."""
    set_knobs(**dict(GATHER, transpose_gather=level))
    for r in TALL_SIDES:
        a = random_bits((r, 1031 + r % 4), _np(dtype), rng)
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)
    for i in range(4):
        for j in range(4):
            a = random_bits((600 + 5 * i, 301 + 5 * j), _np(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)
    for off in (1, 2, 3):
        flat = random_bits((517 * 1029 + off,), _np(dtype), rng)
        a = flat[off:].reshape(517, 1029)
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)
    a = random_bits((3, 259, 1031), _np(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_tall_is_what_runs(torch, dtype, set_knobs):
    """At the default level the 256-row tile runs a call of >= 128 MiB (kernel template <.., 256>), the 128-row one
    a smaller call; the result is exact either way."""
    from torch.profiler import ProfilerActivity, profile
    esz = 2 if dtype == "float16" else 1
    x = torch.randint(0, 255, (16384 // esz, 8193), dtype=torch.uint8, device="cuda")
    x = x.to(torch.float16) if dtype == "float16" else x

    def names(t):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            y = smemkit.transpose(t, layout="pad")
            torch.cuda.synchronize()
        assert torch.equal(y, t.T)
        return " ".join(e.name for e in prof.events() if "transpose_gather_kernel" in e.name)

    set_knobs(transpose_gather=3)
    assert ", 256>" in names(x)
    assert ", 128>" in names(x[:1031].contiguous())
    set_knobs(transpose_gather=23)
    assert ", 128>" in names(x)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_gather_is_what_runs(torch, dtype, set_knobs):
    """The knob routes a 1- / 2-byte tiled matrix to transpose_gather_kernel (level 2: only off words; level 3: and
    output rows of >= 1024 bytes)."""
    from torch.profiler import ProfilerActivity, profile
    x = torch.randint(0, 255, (1031, 2053), dtype=torch.uint8, device="cuda")
    if dtype == "float16":
        x = x.to(torch.float16)

    def kernels(**kn):
        set_knobs(**kn)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            smemkit.transpose(x, layout="pad")
            torch.cuda.synchronize()
        return " ".join(e.name for e in prof.events())

    assert "transpose_gather_kernel" in kernels(**GATHER)
    assert "transpose_gather_kernel" in kernels(**dict(GATHER, transpose_gather=2))
    assert "transpose_gather_kernel" not in kernels(**dict(GATHER, transpose_gather=0))
    assert "transpose_gather_kernel" in kernels(**dict(GATHER, transpose_gather=3))  # output rows >= 1024 bytes
    x = x[:500].contiguous()  # output rows of 500 (1000) bytes: level 3 leaves them to the tiled kernel
    assert "transpose_gather_kernel" not in kernels(**dict(GATHER, transpose_gather=3))
    assert "transpose_gather_kernel" in kernels(**dict(GATHER, transpose_gather=2))
    y = x[:1024, :2048].contiguous()  # every pitch on words: level 2 leaves it to the tiled kernel
    set_knobs(**dict(GATHER, transpose_gather=2))
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        smemkit.transpose(y, layout="pad")
        torch.cuda.synchronize()
    assert "transpose_gather_kernel" not in " ".join(e.name for e in prof.events())
