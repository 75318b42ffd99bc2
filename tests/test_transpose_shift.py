"""Edge tiles moved inward (knob transpose_shift; configs.h edge_shift_bits, global.cuh edge_shift): a tiled
launch's tile that would cross the matrix's last row or column starts TE elements before it instead, so it
moves on the interior paths (whole words, the odd-pitch re-alignment) and overlaps its neighbour, which writes
the same values there.

GPU: every result bit for bit (random bit patterns: NaN payloads and -0.0 included) on poisoned outputs, every
layout, sides just past a tile (129, 130, 255, 257, ...) and below one (the short side keeps its edge path),
batches, odd pitches on either side, input rows on words with cols off them (the column shift is refused there),
strided columns, device views at odd offsets with out= inside a 0xFF buffer, mode 2 on every width, knob 0 / 1 / 2
agreeing.  CPU: explain names the shift exactly where the model says, and its shared counts are the plain
kernel's.
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets

SUBWORD = ["uint8", "float16"]
SHAPES = [(129, 130), (255, 1000), (1000, 255), (257, 4099), (4099, 257), (166, 2973), (2973, 166),
          (353, 1531), (128, 129), (129, 128), (70, 1029), (1029, 70), (513, 511), (1023, 1025)]
BATCHES = [(5, 129, 130), (3, 353, 167), (7, 70, 3140), (4, 3141, 189), (2, 1031, 517), (6, 128, 257)]


pytestmark = pytest.mark.usefixtures("tiled_kernel")  # the tiled kernel's own paths: the gather kernel off


# ---- GPU: bit-exact ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_shift_bit_exact(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_shift=1)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_shift_batches(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_shift=1)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("odd", [1, 0])
@pytest.mark.parametrize("pad", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", [(1031, 130), (130, 2053), (257, 259), (4099, 187), (189, 4093), (166, 166)],
                         ids=lambda s: "x".join(map(str, s)))
def test_shift_padded_rows(shape, dtype, pad, odd, rng, poison, set_knobs):
    """Input rows `pad` elements past their length: off words, or on words while cols is off them (a column shift
    would put the tile off words: refused, the edge path stays), the re-aligning path on and off."""
    set_knobs(transpose_shift=1, transpose_odd_path=odd)
    a = random_bits((shape[0], shape[1] + pad), np_dtype(dtype), rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", SUBWORD)
def test_shift_strided_columns(dtype, rng, poison, set_knobs):
    set_knobs(transpose_shift=1)
    a = random_bits((300, 2 * 517), np_dtype(dtype), rng)[:, ::2]
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 195), (170, 1023), (255, 257), (4099, 129)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_shift_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views one or three elements past an aligned base, odd pitches, out= at an odd offset inside 0xFF."""
    set_knobs(transpose_shift=1)
    test_torch_odd_offsets(torch, layout, dtype, view, shape, None)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "bfloat16", "float32", "int64", "complex128"])
@pytest.mark.parametrize("shape", [(257, 131), (1000, 77), (3, 130, 4097)], ids=lambda s: "x".join(map(str, s)))
def test_shift_every_width(shape, dtype, layout, rng, poison, set_knobs):
    """Mode 2: every width's tiles (8- and 16-byte ones are 32 / 64 wide) moved inward."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    set_knobs(transpose_shift=2)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", SUBWORD + ["float32"])
def test_shift_modes_agree(dtype, rng, poison, set_knobs):
    a = random_bits((6, 517, 389), np_dtype(dtype), rng)
    set_knobs(transpose_shift=0)
    plain = smemkit.matrix_transpose(a, layout="pad")
    for mode in (1, 2):
        set_knobs(transpose_shift=mode)
        assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), plain)


@pytest.mark.gpu
def test_shift_fp16_specials(poison, set_knobs):
    """NaN payloads, -0.0, Inf move bit for bit through the overlapped tiles."""
    set_knobs(transpose_shift=1)
    bits = np.array([0x7E01, 0xFE55, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0x0001, 0x3C00], dtype=np.uint16)
    a = np.resize(bits, (3141, 195)).view(np.float16)
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


# ---- CPU: the choice and the plan ---------------------------------------------------------------------------

TE = {"uint8": 128, "float16": 128, "float32": 64, "float64": 64, "complex128": 32}


def shift_model(shape, dtype, mode):
    """configs.h edge_shift_bits for a C-contiguous input on an aligned base (what explain assumes)."""
    rows, cols = shape[-2:]
    esz = np.dtype(dtype).itemsize
    if mode == 0 or (mode == 1 and esz > 2):
        return False
    te = TE[dtype]
    in_vec = esz >= 4 or (cols * esz) % 4 == 0  # contiguous rows: on words iff cols * esz is
    rows_bit = rows >= te and rows % te != 0
    cols_bit = cols >= te and cols % te != 0 and not (in_vec and esz < 4 and (cols * esz) % 4 != 0)
    return rows_bit or cols_bit


@pytest.mark.parametrize("dtype", SUBWORD + ["float32", "float64"])
def test_shift_choice_property(dtype):
    """Over 2000 shapes of the random law's kind: explain names the shift exactly where the tiled kernel runs
    without the sector store and the model holds; knob 0 never, and mode 1 never for 4-byte elements and wider."""
    r = np.random.default_rng(43)
    for _ in range(2000):
        s = int(r.integers(1, 1100))
        n = int(np.exp(r.uniform(np.log(2), np.log(3e5))))
        shape = (s, n) if r.random() < 0.5 else (n, s)
        if r.random() < 0.3:
            shape = (int(r.integers(2, 60)),) + shape
        with knobs(transpose_shift=0):
            e0 = smemkit.explain("transpose", shape, "pad", dtype)
        assert "shifted" not in e0.config
        tiled = "skinny" not in e0.config and "sector" not in e0.config
        for mode in (1, 2):
            with knobs(transpose_shift=mode):
                e = smemkit.explain("transpose", shape, "pad", dtype)
            assert ("edge tiles shifted inward" in e.config) == (tiled and shift_model(shape, dtype, mode)), \
                (shape, mode, e.config)


@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", [(2973, 166), (166, 2973), (4733, 195), (2869, 147), (1029, 233), (36945, 463),
                                   (42, 3140, 170), (16, 147, 2251)])
def test_shift_plan_counts_unchanged(dtype, shape):
    """The shift moves tiles, not accesses: every shared count of every layout is the plain kernel's."""
    for lay in smemkit.LAYOUTS:
        with knobs(transpose_shift=0):
            e0 = smemkit.explain("transpose", shape, lay, dtype)
        with knobs(transpose_shift=1):
            e1 = smemkit.explain("transpose", shape, lay, dtype)
        assert "edge tiles shifted inward" in e1.config
        assert e1.config.replace(", edge tiles shifted inward", "") == e0.config
        assert e1.blocks == e0.blocks
        assert [(a.name, a.instructions, a.wavefronts) for a in e1.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in e0.accesses]


def test_shift_knob_bounds():
    with pytest.raises(ValueError):
        with knobs(transpose_shift=3):
            pass
