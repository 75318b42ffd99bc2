"""Edge words (knob transpose_mid; configs.h mid_fits, global.cuh's GlobalLoad / GlobalStore::words): the 1- and
2-byte tiled kernel's edge tiles move whole words clipped to the matrix in place of one access per element.

GPU: every result bit for bit (NaN payloads and -0.0 included: random bit patterns) on poisoned outputs, every
layout, short sides across 65..1024 and their edges (65, 127, 128, 129, 255, 256, 257, ...), both orientations,
batches, odd pitches (rows off words on either side), device views at odd offsets, negative row strides, out= at
an odd offset inside a 0xFF buffer, knob 0 / 1 agreeing.  CPU: when the path is taken (through explain), that
explain's shared counts are the plain kernel's, and a replay of words()' lane arithmetic (each output byte
written once, by its own warp, nothing read or written outside the rows).
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets

WIDTHS = ["uint8", "float16"]
SIDES = [65, 70, 95, 127, 128, 129, 147, 187, 255, 256, 257, 463, 1023]
SHAPES = [(s, n) for s in SIDES for n in (1000, 4099)] + [(n, s) for s in SIDES for n in (1001, 4100)]
BATCHES = [(5, 129, 130), (3, 1023, 67), (7, 70, 3140), (4, 3141, 95), (16, 121, 2245), (6, 499, 167)]


pytestmark = pytest.mark.usefixtures("tiled_kernel")  # the tiled kernel's own paths: the gather kernel off


# ---- GPU: bit-exact ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_mid_bit_exact(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_mid=1)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_mid_batches(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_mid=1)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("odd", [1, 0])
@pytest.mark.parametrize("pad", [1, 2, 3])
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(1031, 70), (70, 2053), (257, 259), (4099, 187), (129, 4093)],
                         ids=lambda s: "x".join(map(str, s)))
def test_mid_odd_input_pitch(shape, dtype, pad, odd, rng, poison, set_knobs):
    """Input rows `pad` elements apart past their length (on words or off them), the re-aligning path on and off."""
    set_knobs(transpose_mid=1, transpose_odd_path=odd)
    a = random_bits((shape[0], shape[1] + pad), np_dtype(dtype), rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_mid_strided_columns(dtype, rng, poison, set_knobs):
    """Non-contiguous input columns: not the words path (element by element), still exact."""
    set_knobs(transpose_mid=1)
    a = random_bits((300, 2 * 517), np_dtype(dtype), rng)[:, ::2]
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 95), (70, 1023), (255, 257), (4099, 129)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_mid_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views one or three elements past an aligned base, odd pitches, out= at an odd offset inside 0xFF."""
    set_knobs(transpose_mid=1)
    test_torch_odd_offsets(torch, layout, dtype, view, shape, None)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_mid_cupy_negative_rows(cupy, dtype, poison, set_knobs):
    set_knobs(transpose_mid=1)
    R, C = 1031, 187
    raw = np.random.default_rng(R).integers(0, 256, 4 * R * (C + 2) + 8, dtype=np.uint8)
    flat = cupy.asarray(raw.view(np.dtype(dtype)))
    x = flat[1:1 + R * (C + 2)].reshape(R, C + 2)[::-1, 1:1 + C]
    assert_bits_equal(cupy.asnumpy(smemkit.transpose(x, layout="pad")), cupy.asnumpy(x).T)


@pytest.mark.gpu
def test_mid_fp16_specials(poison, set_knobs):
    """NaN payloads, -0.0, Inf move bit for bit."""
    set_knobs(transpose_mid=1)
    bits = np.array([0x7E01, 0xFE55, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0x0001, 0x3C00], dtype=np.uint16)
    a = np.resize(bits, (3141, 95)).view(np.float16)
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_mid_agrees_with_plain(dtype, rng, poison, set_knobs):
    a = random_bits((12, 517, 173), np_dtype(dtype), rng)
    set_knobs(transpose_mid=0)
    plain = smemkit.matrix_transpose(a, layout="pad")
    set_knobs(transpose_mid=1)
    assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), plain)


# ---- CPU: the choice and the plan ---------------------------------------------------------------------------

def mid_taken_model(shape, dtype):
    """configs.h's mid_fits on the tiled kernel's shipped row (mode 1): 1- and 2-byte elements, some edge tile."""
    rows, cols = shape[-2:]
    esz = np.dtype(dtype).itemsize
    return esz <= 2 and (rows % 128 != 0 or cols % 128 != 0)


@pytest.mark.parametrize("dtype", WIDTHS + ["float32", "float64"])
def test_mid_choice_property(dtype):
    """Over 3000 shapes of the random law's kind: explain names edge words exactly where the tiled kernel runs
    (not the skinny kernels, not the sector store) and mid_fits holds; knob 0 never."""
    r = np.random.default_rng(39)
    for _ in range(3000):
        s = int(r.integers(1, 1100))
        n = int(np.exp(r.uniform(np.log(2), np.log(3e5))))
        shape = (s, n) if r.random() < 0.5 else (n, s)
        if r.random() < 0.3:
            shape = (int(r.integers(2, 60)),) + shape
        with knobs(transpose_mid=1):
            e1 = smemkit.explain("transpose", shape, "pad", dtype)
        with knobs(transpose_mid=0):
            e0 = smemkit.explain("transpose", shape, "pad", dtype)
        assert "edge words" not in e0.config
        tiled = not any(k in e0.config for k in ("skinny", "sector", "copy"))
        assert ("edge words" in e1.config) == (tiled and mid_taken_model(shape, dtype)), (shape, e1.config)


@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(3140, 70), (70, 3140), (4733, 95), (2869, 147), (1029, 233), (36945, 463),
                                   (42, 3140, 70), (16, 137, 2251)])
def test_mid_plan_counts_unchanged(dtype, shape):
    """Edge words change global accesses only: every shared count of every layout is the plain kernel's (skinny
    mode 3: the tiled kernel takes every one of these shapes, as it did when edge words were built)."""
    for lay in smemkit.LAYOUTS:
        with knobs(transpose_mid=0, transpose_skinny=3):
            e0 = smemkit.explain("transpose", shape, lay, dtype)
        with knobs(transpose_mid=1, transpose_skinny=3):
            e1 = smemkit.explain("transpose", shape, lay, dtype)
        assert "edge words" in e1.config and e1.config.replace(", edge words", "") == e0.config
        assert [(a.name, a.instructions, a.wavefronts) for a in e1.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in e0.accesses]


# ---- CPU: a replay of words()' lane arithmetic (global.cuh) ------------------------------------------------

def replay_load(base, col0, rb, esz):
    """GlobalLoad::words for one warp on one row at byte address base (any alignment), lanes' first bytes
    col0 + 4 i: the bytes each lane ends with (None = a zero), and every byte offset read."""
    read = set()

    def clip(q, off):  # the aligned word at q (address), offset off from the row: whole inside, else bytes in
        if off >= 0 and off + 4 <= rb:
            read.update(range(off, off + 4))
            return [off + i for i in range(4)]
        got = [off + i if 0 <= off + i < rb else None for i in range(4)]
        read.update(o for o in got if o is not None)
        return got

    words, ex = [], None
    for lane in range(32):
        col = col0 + 4 * lane
        s = (base + col) % 4
        off = col - s
        words.append(clip(base + off, off) if (off + 4 > 0 and off < rb) else [None] * 4)
        if lane == 31 and s:
            ex = clip(base + off + 4, off + 4) if (off + 8 > 0 and off + 4 < rb) else [None] * 4
    out = []
    for lane in range(32):
        s = (base + col0 + 4 * lane) % 4
        hi = words[lane + 1] if lane < 31 else (ex or [None] * 4)
        out.append((words[lane] + hi)[s:s + 4])  # __funnelshift_r(w, hi, 8 s)
    assert all(0 <= o < rb for o in read)
    return out


def replay_store(base, col0, pitch):
    """GlobalStore::words for one warp on one output row at address base: lane i holds the bytes col0 + 4 i ..;
    returns how often each row offset is written (by this warp)."""
    lo, hi = col0, min(col0 + 128, pitch)
    hits = {}

    def put(off, src):
        for i in range(4):
            if lo <= off + i < hi:
                assert src[i] == off + i, (off, src)
                hits[off + i] = hits.get(off + i, 0) + 1

    vals = [[col0 + 4 * lane + i for i in range(4)] for lane in range(32)]
    for lane in range(32):
        col = col0 + 4 * lane
        s = (base + col) % 4
        prev = vals[lane - 1] if lane else vals[0]
        put(col - s, (prev + vals[lane])[4 - s:8 - s])  # __funnelshift_l(prev, v, 8 s)
        if lane == 31 and s:
            put(col - s + 4, vals[lane][4 - s:] + [None] * (4 - s))
    return hits


@pytest.mark.parametrize("esz", [1, 2])
def test_mid_replay_words(esz):
    r = np.random.default_rng(26)
    for _ in range(4000):
        rb = int(r.integers(1, 700)) * esz
        base = int(r.integers(0, 64)) * esz + int(r.integers(0, 2)) * (esz == 2)  # odd halves: misaligned views
        col0 = int(r.integers(0, rb // 128 + 1)) * 128
        got = replay_load(base, col0, rb, esz)
        for lane, g in enumerate(got):
            for i, o in enumerate(g):
                want = col0 + 4 * lane + i
                assert o == (want if want < rb else o), (rb, base, col0, lane, g)
                if want < rb:
                    assert o == want
        pitch = rb
        hits = {}
        for c0 in range(0, pitch, 128):  # every warp of the row
            for o, n in replay_store(base, c0, pitch).items():
                hits[o] = hits.get(o, 0) + n
        assert sorted(hits) == list(range(pitch)) and set(hits.values()) == {1}
