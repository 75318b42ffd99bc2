"""Mode 15 of the knob transpose_skinny (the default since session 61, issue 26): 2-byte case A (rows = S <= cols,
contiguous input columns) with S = 65..84 and S = 129..144 on csrc/transpose/skinny_strip.cuh as well as S = 17..64
(configs.h's skinny_strip_fits: kStripMaxShort2Mode15, kStripPastTile2Min..Max).  The tiled kernel's 2-byte tile is 128
elements tall, so those S fill its tile rows 51-66% and 50-56%; S = 85..128 and 145.. stay tiled (measured:
docs/TRANSPOSE_NOTES.md "Session 61").

CPU: the choice (mode 15 moves exactly the class from mode 14's path, on fixed shapes and on 3000 draws of the law);
test_transpose_skinny_strip.py's replay of the kernel's arithmetic on a byte memory for the new S (odd bases, pitches,
batches, partial strips) against NumPy, its shared addresses against explain()'s plan, and the bank model's pad
wavefronts.  GPU (marked): bit-exact against NumPy at the default for every S of the new ranges, the bit-dtypes,
batches, fp16 specials, torch and NumPy views, and modes 14 / 15 agreeing.
"""
import numpy as np
import pytest

import smemkit
from _shared import (check_device_views, check_fp16_specials, check_host_views, check_level_on_draws,
                     check_modes_agree)
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_strip import config, replay, replay_block, strip_width

LAYOUTS = smemkit.LAYOUTS
NEW_S = list(range(65, 85)) + list(range(129, 145))


def new_class(shape, esz):
    """What mode 15 adds to mode 14's strips: 2-byte case A with S = 65..84 or 129..144."""
    rows, cols = shape[-2:]
    return esz == 2 and rows <= cols and (65 <= rows <= 84 or 129 <= rows <= 144)


# ---- CPU: the choice ----------------------------------------------------------------------------------------

def test_default_has_mode_15():
    from smemkit import _testing
    assert _testing.KNOBS["transpose_skinny"] >= 15  # 14 (session 58): fp16 S 65..84 and 129..144 tiled; 16 adds case B


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bfloat16", "float32"])
def test_mode15_choice(dtype, set_knobs):
    esz = np.dtype(np_dtype(dtype)).itemsize
    shapes = [(s, n) for s in (16, 17, 64, 65, 66, 84, 85, 100, 127, 128, 129, 130, 144, 145, 160)
              for n in (63, 64, 144, 145, 255, 257, 4097, 3350706)]
    shapes += [(n, s) for s in (70, 140) for n in (999, 40001)] + [(b, s, n) for b in (2, 5) for s, n in
                                                                   [(70, 106412), (135, 40841), (100, 999)]]
    for sh in shapes:
        set_knobs(transpose_skinny=14)
        was = config(sh, dtype)
        set_knobs(transpose_skinny=15)
        now = config(sh, dtype)
        if new_class(sh, esz):
            assert now == f"skinny-strip {sh[-2]}x{strip_width(sh[-2], esz)} tile, 256 threads, 2-byte elements", sh
            assert not was.startswith("skinny-strip"), sh
        else:
            assert now == was, sh


def test_mode15_choice_on_draws():
    """3000 draws of #26's law (seeds 3460 / 3461): mode 15 moves exactly the class and leaves every other path."""
    check_level_on_draws((3460, 3461), 1500, 14, 15, new_class, "skinny-strip ", 10)


# ---- CPU: the kernel's arithmetic at the new S, replayed ---------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", [((1, 65, 300), 0, 0, None), ((2, 84, 257), 3, 5, 261), ((1, 129, 129), 1, 3, None),
                                  ((2, 144, 300), 2, 7, 303), ((1, 137, 1100), 0, 1, None), ((3, 71, 70 + 66), 1, 2, None)],
                         ids=lambda c: "x".join(map(str, c[0])) + f"-i{c[1]}-o{c[2]}-p{c[3]}")
def test_new_s_replay(layout, case):
    """Odd input bases and pitches, batches whose matrices start off 16 bytes in the output, partial last strips,
    S = cols: the replayed kernel writes exactly a's transpose."""
    shape, ib_off, ob_off, pitch = case
    rng = np.random.default_rng(3462)
    a = rng.integers(0, 1 << 16, size=shape, dtype=np.uint16)
    assert np.array_equal(replay(a, layout, 2 * ib_off, 2 * ob_off, pitch), swapped(a))


def test_new_s_random_replay():
    """Random draws of the new class (seed 3463): S, long side, batch, bases, pitch, matrix stride, layout."""
    rng = np.random.default_rng(3463)
    for _ in range(10):
        S = int(rng.choice(NEW_S))
        W = strip_width(S, 2)
        B, cols = int(rng.integers(1, 3)), int(rng.integers(S, 2 * W + 2))
        pitch = cols + int(rng.integers(0, 9))
        layout = LAYOUTS[int(rng.integers(0, 3))]
        a = rng.integers(0, 1 << 16, size=(B, S, cols), dtype=np.uint16)
        out = replay(a, layout, 2 * int(rng.integers(0, 8)), 2 * int(rng.integers(0, 8)), pitch,
                     S * pitch + int(rng.integers(0, 5)))
        assert np.array_equal(out, swapped(a)), (S, B, cols, pitch, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(65, 300), (84, 513), (129, 256), (144, 1000), (137, 137)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_new_s_issues_the_plan(layout, shape):
    """explain()'s plan at the default and the replay's issued shared instructions: the same lane addresses per access
    (the first block, and the last where it is partial)."""
    S, cols = shape
    plan = smemkit._C._plan("transpose", shape, layout, 2)
    W = strip_width(S, 2)
    nblk = (cols + W - 1) // W
    for last in (False, True):
        if last and cols % W == 0 or not last and cols < W:
            continue
        rec = {}
        g = dict(S=S, ib=0, ob=1 << 16, R=S, cols=cols, b=0, bx=nblk - 1 if last else 0, in_rs=cols, in_bs=0)
        replay_block(bytearray((1 << 16) + S * cols * 2 + 64), g, layout, 2, rec)
        got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
               if a[0].endswith("(last block)") == last}
        assert set(got) == {k for k, v in rec.items() if v}
        for name, v in got.items():
            assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name


@pytest.mark.parametrize("S", [65, 70, 77, 84, 129, 135, 144])
def test_new_s_pad_wavefronts(S):
    """The bank model on the gather: pad at most 3 wavefronts an LDS on average; naive (every row in one bank) more."""
    e = {}
    for layout in LAYOUTS:
        acc = {a.name: a for a in smemkit.explain("transpose", (S, 100 * 128), layout, "float16").accesses}
        e[layout] = acc["skinny-strip gather"].wavefronts / acc["skinny-strip gather"].instructions
    assert e["pad"] <= 3.0 and e["naive"] > e["pad"], e


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_new_s_every_short_side(layout, rng, poison):
    """Every S of the new ranges at the default: long sides odd and even, one and several strips, S = cols."""
    for s in NEW_S:
        for shape in [(s, 4099 + 2 * s), (s, 40000 + s), (s, s + 1), (s, s)]:
            assert config(shape, "float16", layout).startswith("skinny-strip "), shape
            a = random_bits(shape, np.float16, rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int16", "uint16"])
@pytest.mark.parametrize("shape", [(65, 46259), (80, 23979), (84, 74396), (133, 64253), (141, 25788),
                                   (144, 4651), (2, 135, 36999), (5, 70, 9001), (3, 129, 130)],
                         ids=lambda s: "x".join(map(str, s)))
def test_new_s_bit_exact(layout, dtype, shape, rng, poison):
    """Measured draws' shapes (long sides cut where large), batches, and the ranges' edges; NaN payloads as bits."""
    a = random_bits(shape, np_dtype(dtype), rng)
    got = smemkit.matrix_transpose(a, layout=layout) if len(shape) == 3 else smemkit.transpose(a, layout=layout)
    assert_bits_equal(got, swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_new_s_fp16_specials(layout, poison):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    check_fp16_specials(layout, (65, 84, 129, 144))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("view", ["offset-1", "row-slice", "batch-step", "padded-cols", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [65, 84, 129, 144])
def test_new_s_device_views(layout, view, short, rng, torch):
    """torch views: input base off by one element, every other row, every other matrix, padded rows (in_rs > cols);
    out= off 16 bytes inside a 0xFF-filled buffer whose other bytes must stay 0xFF."""
    check_device_views(torch, rng, layout, "float16", view, short)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("short", [66, 83, 130, 143])
def test_new_s_host_views(layout, short, rng, poison):
    """NumPy views: rows reversed (a negative row stride), an odd column offset, every other row."""
    check_host_views(rng, layout, "float16", short)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(70, 21813), (13, 84, 7777), (4, 131, 3001), (2, 144, 5000)],
                         ids=lambda s: "x".join(map(str, s)))
def test_modes_14_15_agree(shape, rng, poison, set_knobs):
    """Modes 14 (the tiled kernel) and 15 (the strip) on the same tensors, every layout."""
    a = random_bits(shape if len(shape) == 3 else (1, *shape), np.float16, rng)
    check_modes_agree(set_knobs, a, 14, (15,))
