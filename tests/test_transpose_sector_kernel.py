"""The sector store's own kernel for 1- and 2-byte elements (csrc/transpose/sector_kernel.cuh; knob
transpose_sector 5, 6 and 7): transpose_kernel<.., SEC>'s accesses with the band's unit loaded after the main
units are parked, 64 registers without spilling.

GPU: every result bit for bit on poisoned outputs under level 7 (every pitch, every batch) -- shapes whose
band passes the matrix's end, fewer rows than a shift, ragged edges, odd input pitches (re-aligning and
element-wise loads of the band), device views at odd offsets, float16 NaN payloads / -0.0 / Inf spread over
the matrix -- and the size gate's launches of levels 5 and 6 (float16, batches).  CPU: levels 5 and 6 against
their rule on random shapes (through explain), and the plan of the new kernel against the old one's (the same
shared accesses, counted the same).
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets as torch_odd_offsets  # not collected twice
from test_transpose_sector import BATCHES, SHAPES

SUB = ["uint8", "float16"]
MIB = 1 << 20
FP16_SPECIALS = np.array([0x8000, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFE37, 0x7FFF, 0x0001, 0x8001], np.uint16)


pytestmark = pytest.mark.usefixtures("tiled_kernel")  # the tiled kernel's own paths: the gather kernel off


def sprinkled(shape, dtype, rng):
    """random_bits, with float16 specials (-0.0, +-Inf, NaN payloads, subnormals) over 1% of the elements."""
    a = random_bits(shape, np_dtype(dtype), rng)
    if dtype == "float16":
        flat = a.reshape(-1).view(np.uint16)
        at = rng.choice(flat.size, size=max(flat.size // 100, len(FP16_SPECIALS)), replace=False)
        flat[at] = FP16_SPECIALS[np.arange(at.size) % len(FP16_SPECIALS)]
    return a


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUB)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_sector_kernel_bit_exact(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_sector=7, transpose_flat=0, transpose_skinny=8)  # 70x100 uint8 is the strips' (11, the default) otherwise
    a = sprinkled(shape, dtype, rng)
    assert "band loaded last" in smemkit.explain("transpose", shape, layout, dtype).config or shape[0] * np.dtype(
        dtype).itemsize % 32 == 0
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUB)
@pytest.mark.parametrize("shape", BATCHES + [(3, 257, 1029), (2, 1031, 2053)], ids=lambda s: "x".join(map(str, s)))
def test_sector_kernel_batches(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_sector=7, transpose_flat=0)
    a = sprinkled(shape, dtype, rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("odd", [1, 0])
@pytest.mark.parametrize("dtype", SUB)
@pytest.mark.parametrize("shape", [(1031, 2053), (257, 259), (4099, 4093), (129, 1001)], ids=lambda s: "x".join(map(str, s)))
def test_sector_kernel_odd_input_pitch(shape, dtype, odd, rng, poison, set_knobs):
    """Input rows off words: the band's rows through the re-aligning path (odd 1) or element by element (0)."""
    set_knobs(transpose_sector=7, transpose_flat=0, transpose_odd_path=odd)
    a = sprinkled((shape[0], shape[1] + 3), dtype, rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", SUB)
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 1023), (1031, 2053), (256, 257)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_sector_kernel_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views and out= one element past an aligned base: the shift is taken from the real address."""
    set_knobs(transpose_sector=7, transpose_flat=0)
    torch_odd_offsets(torch, layout, dtype, view, shape, None)


GATED = [("float16", (1541, 5447)), ("uint8", (1541, 10891)), ("uint8", (2, 1541, 5447)),
         ("float16", (3, 801, 3500)), ("float16", (2, 4099, 1031)), ("float16", (1, 2049, 4099))]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [5, 6])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype,shape", GATED, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_sector_kernel_gate_bit_exact(shape, dtype, layout, mode, rng, poison, set_knobs):
    """Levels 5 and 6 take these calls (6: the batches too), and every call stays exact."""
    set_knobs(transpose_sector=mode, transpose_flat=0)
    a = sprinkled(shape, dtype, rng)
    batched = a.ndim == 3 and shape[0] > 1
    cfg = smemkit.explain("transpose", shape, layout, dtype).config
    assert ("band loaded last" in cfg) == (not batched or mode == 6), cfg
    out = smemkit.matrix_transpose(a, layout=layout) if a.ndim == 3 else smemkit.transpose(a, layout=layout)
    assert_bits_equal(out, swapped(a) if a.ndim == 3 else a.T)


# ---- CPU: the gate and the plan ----------------------------------------------------------------------------

def gate_rule(batch, rows, cols, esz, mode):
    """Levels 5 / 6 (configs.h sector_fits) on a fresh output (base on a sector)."""
    return (esz <= 2 and (batch == 1 or mode == 6) and rows * esz >= 1536 and cols * esz >= 1536
            and batch * rows * cols * esz >= 16 * MIB and rows * esz % 32 != 0)


def draw_shapes(rng, n):
    """Shapes around the gate's edges: sides log-uniform in [64, 2^17] elements, batches 1..8, calls up to
    ~64 MiB of uint8 / ~128 MiB of float16 (explain replays no more than the gate needs)."""
    out = []
    while len(out) < n:
        rows, cols = (int(x) for x in np.exp(rng.uniform(np.log(64), np.log(1 << 17), 2)))
        batch = int(rng.choice([1, 1, 1, 2, 3, 8]))
        if batch * rows * cols <= 64 * MIB:
            out.append((batch, rows, cols))
    return out


@pytest.mark.parametrize("mode", [5, 6])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
def test_sector_kernel_gate(dtype, mode):
    """Levels 5 and 6 on 300 random shapes per width: exactly the rule; 1- and 2-byte on the new kernel,
    float32 and wider never (level 4 is float32's)."""
    esz = np.dtype(dtype).itemsize
    rng = np.random.default_rng(3900 + esz + 10 * mode)
    with knobs(transpose_sector=mode, transpose_flat=0):
        for batch, rows, cols in draw_shapes(rng, 300):
            shape = (rows, cols) if batch == 1 else (batch, rows, cols)
            cfg = smemkit.explain("transpose", shape, "pad", dtype).config
            want = gate_rule(batch, rows, cols, esz, mode)
            assert ("sector store" in cfg) == want, (shape, cfg)
            assert ("band loaded last" in cfg) == want, (shape, cfg)


def test_sector_kernel_gate_edges():
    """The rule's edges, both widths: each side at 1536 bytes and one element under, 16 MiB a call, batches
    by the whole call (6) or never (5), output pitches on sectors never; level 3 (default) untouched."""
    for dtype in SUB:
        esz = np.dtype(dtype).itemsize
        side = 1536 // esz + 1 if (1536 // esz * esz) % 32 == 0 else 1536 // esz  # rows: off a sector

        def taken(shape, m):
            with knobs(transpose_sector=m, transpose_flat=0):
                return "band loaded last" in smemkit.explain("transpose", shape, "pad", dtype).config

        cols = -(-16 * MIB // (side * esz))
        assert taken((side, cols), 5) and taken((side, cols), 6)
        assert not taken((side, cols - 1), 5) and not taken((side, cols), 3) and not taken((side, cols), 4)
        assert not taken((side - 2, cols * 2), 5)  # output pitch under 1536 bytes
        assert not taken((cols, 1536 // esz - 1), 5)  # input rows under 1536 bytes
        half = (side, -(-cols // 2))
        assert taken((2,) + half, 6) and not taken((2,) + half, 5)
        assert not taken((2, side, -(-cols // 4)), 6)  # 8 MiB a call
        assert not taken((2048 // esz, cols), 6)  # output rows on sectors


@pytest.mark.parametrize("dtype", SUB)
@pytest.mark.parametrize("shape", [(5752, 7560), (1001, 999), (4954, 15232), (3, 1101, 1907), (5, 129, 130),
                                   (2, 4099, 1031)], ids=lambda s: "x".join(map(str, s)))
def test_sector_kernel_plan_is_the_sector_plan(dtype, shape):
    """Level 7 (the new kernel) counts what level 2 (transpose_kernel<.., SEC>) counts, access by access,
    batches included: only the order of the band's row store differs."""
    for lay in smemkit.LAYOUTS:
        with knobs(transpose_sector=2, transpose_flat=0):
            old = smemkit.explain("transpose", shape, lay, dtype)
        with knobs(transpose_sector=7, transpose_flat=0):
            new = smemkit.explain("transpose", shape, lay, dtype)
        if "sector" not in old.config:
            assert "sector" not in new.config
            continue
        assert new.config == old.config + ", band loaded last"
        assert [(a.name, a.instructions, a.worst_ways) for a in new.accesses] == \
               [(a.name, a.instructions, a.worst_ways) for a in old.accesses]
