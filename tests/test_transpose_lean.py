"""Lean paths (knob transpose_mid = 2; configs.h mid_fits, csrc/transpose/lean.cuh): the 1- and 2-byte tiled
kernel's odd-pitch interior tiles and edge tiles move whole aligned words with the per-k work hoisted out of the unit
loop, the word straddling a row's start or end as a byte + a half piece.

GPU: every result bit for bit (NaN payloads and -0.0 included: random bit patterns) on poisoned outputs, every
layout, every short side 1..300 on either side (the skinny kernels off, so that the tiled kernel takes them),
batches, odd pitches on either side, device views at odd offsets, strided columns, negative row strides, out= at an
odd offset inside a 0xFF buffer, knob 0 / 2 agreeing.  CPU: when the path is taken (through explain), that explain's
shared counts are the plain kernel's, and a replay of lean.cuh's lane arithmetic (each output byte written once, by
its own warp, nothing read or written outside the rows).
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import test_torch_odd_offsets

WIDTHS = ["uint8", "float16"]
LEAN = dict(transpose_mid=2, transpose_skinny=0, transpose_sector=0)  # the tiled kernel for every shape
SHAPES = [(71, 3191), (3191, 71), (129, 1001), (1001, 129), (257, 259), (5761, 387), (387, 5761), (128, 384),
          (130, 131), (1, 999), (999, 3), (2, 4097), (127, 255)]
BATCHES = [(5, 129, 130), (3, 1023, 67), (7, 70, 3140), (4, 3141, 95), (16, 121, 2245), (6, 499, 167), (9, 3, 517)]


pytestmark = pytest.mark.usefixtures("tiled_kernel")  # the tiled kernel's own paths: the gather kernel off


# ---- GPU: bit-exact ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("tall", [False, True], ids=["short-rows", "short-cols"])
@pytest.mark.parametrize("dtype", WIDTHS)
def test_lean_every_short_side(dtype, tall, rng, poison, set_knobs):
    """Short sides 1..300 (every tile an edge tile up to the tile's 128 elements, half of them above), long sides
    odd and on words in turn, layout pad."""
    set_knobs(**LEAN)
    for s in range(1, 301):
        n = 389 + 2 * s if s % 2 else 384 + 4 * s
        shape = (n, s) if tall else (s, n)
        a = random_bits(shape, np_dtype(dtype), rng)
        assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_lean_bit_exact(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(**LEAN)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_lean_batches(shape, dtype, layout, rng, poison, set_knobs):
    """Batches: later matrices start off a word where rows * cols * esz is not a multiple of 4."""
    set_knobs(**LEAN)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("odd", [1, 0])
@pytest.mark.parametrize("pad", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(1031, 70), (70, 2053), (257, 259), (4099, 187), (129, 4093), (640, 1280), (5, 300)],
                         ids=lambda s: "x".join(map(str, s)))
def test_lean_odd_input_pitch(shape, dtype, pad, odd, rng, poison, set_knobs):
    """Input rows `pad` elements apart past their length (on words or off them): interior tiles on odd pitches,
    the re-aligning path on (lean) and off (element by element)."""
    set_knobs(transpose_odd_path=odd, **LEAN)
    a = random_bits((shape[0], shape[1] + pad), np_dtype(dtype), rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_lean_strided_columns(dtype, rng, poison, set_knobs):
    """Non-contiguous input columns: not the lean load (element by element), still exact."""
    set_knobs(**LEAN)
    a = random_bits((300, 2 * 517), np_dtype(dtype), rng)[:, ::2]
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 95), (70, 1023), (255, 257), (4099, 129), (1153, 1027), (3, 701), (701, 2)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views one or three elements past an aligned base, odd pitches, out= at an odd offset inside 0xFF."""
    set_knobs(**LEAN)
    test_torch_odd_offsets(torch, layout, dtype, view, shape, None)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(1031, 187), (130, 1029), (77, 93)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_cupy_negative_rows(cupy, dtype, shape, poison, set_knobs):
    set_knobs(**LEAN)
    R, C = shape
    raw = np.random.default_rng(R).integers(0, 256, 4 * R * (C + 2) + 8, dtype=np.uint8)
    flat = cupy.asarray(raw.view(np.dtype(dtype)))
    x = flat[1:1 + R * (C + 2)].reshape(R, C + 2)[::-1, 1:1 + C]
    assert_bits_equal(cupy.asnumpy(smemkit.transpose(x, layout="pad")), cupy.asnumpy(x).T)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3141, 95), (95, 3141), (333, 1001)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_fp16_specials(shape, poison, set_knobs):
    """NaN payloads, -0.0, Inf move bit for bit."""
    set_knobs(**LEAN)
    bits = np.array([0x7E01, 0xFE55, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0x0001, 0x3C00], dtype=np.uint16)
    a = np.resize(bits, shape).view(np.float16)
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_lean_agrees_with_plain(dtype, rng, poison, set_knobs):
    """Defaults (skinny kernels and sector store as shipped) with knob 0 and 2: the same bits."""
    for shape in [(12, 517, 173), (3, 2049, 1031), (4, 77, 3001)]:
        a = random_bits(shape, np_dtype(dtype), rng)
        set_knobs(transpose_mid=0)
        plain = smemkit.matrix_transpose(a, layout="pad")
        set_knobs(transpose_mid=2)
        assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), plain)


# ---- CPU: the choice and the plan ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", WIDTHS + ["float32", "float64"])
def test_lean_choice_property(dtype):
    """Over 3000 shapes of the random law's kind: explain names the lean edges exactly where the tiled kernel runs
    on 1- and 2-byte elements (not the skinny kernels, not the sector store); knob 0 never."""
    r = np.random.default_rng(43)
    esz = np.dtype(dtype).itemsize
    for _ in range(3000):
        s = int(r.integers(1, 1100))
        n = int(np.exp(r.uniform(np.log(2), np.log(3e5))))
        shape = (s, n) if r.random() < 0.5 else (n, s)
        if r.random() < 0.3:
            shape = (int(r.integers(2, 60)),) + shape
        with knobs(transpose_mid=2):
            e2 = smemkit.explain("transpose", shape, "pad", dtype)
        with knobs(transpose_mid=0):
            e0 = smemkit.explain("transpose", shape, "pad", dtype)
        assert "lean edges" not in e0.config and "edge words" not in e2.config
        tiled = not any(k in e0.config for k in ("skinny", "sector", "copy"))
        assert ("lean edges" in e2.config) == (tiled and esz <= 2), (shape, e2.config)


@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(3140, 70), (70, 3140), (4733, 95), (2869, 147), (1029, 233), (36945, 463),
                                   (42, 3140, 70), (16, 137, 2251), (5761, 7560), (256, 384), (3, 517)])
def test_lean_plan_counts_unchanged(dtype, shape):
    """The lean paths change global accesses only: every shared count of every layout is the plain kernel's."""
    for lay in smemkit.LAYOUTS:
        with knobs(transpose_mid=0, transpose_skinny=0):
            e0 = smemkit.explain("transpose", shape, lay, dtype)
        with knobs(transpose_mid=2, transpose_skinny=0):
            e2 = smemkit.explain("transpose", shape, lay, dtype)
        if "sector" in e0.config:
            assert e2.config == e0.config
            continue
        assert "lean edges" in e2.config and e2.config.replace(", lean edges", "") == e0.config
        assert [(a.name, a.instructions, a.wavefronts) for a in e2.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in e0.accesses]


def test_lean_knob_range():
    with pytest.raises(ValueError):
        with knobs(transpose_mid=3):
            pass


# ---- CPU: a replay of lean.cuh's lane arithmetic --------------------------------------------------------------

def piece(a, n):
    """load_piece / store_piece's accesses for n in [1, 3] bytes at word offset a (one end on the word): (byte
    offset or None, half offset or None), both relative to the word."""
    assert 1 <= n <= 3 and (a == 0 or a + n == 4)
    odd = a & 1
    b = 0 if odd else n - 1
    return (a + b if n & 1 else None), (a + odd if n >= 2 else None)


def replay_load(base, col, rb, nrows=1):
    """Lean::load for one warp on one row starting at address base (any alignment), lane i's first byte at col +
    4 i: the row offsets each lane ends up holding (None = zero), asserting every read lies in [0, rb)."""
    assert rb >= 4
    words = {}

    def read(o):
        assert 0 <= o < rb, (o, rb)
        return o

    held = []
    for lane in range(32):
        c = col + 4 * lane
        s = (base + c) % 4
        off = c - s
        if off >= 0 and off + 4 <= rb:
            held.append([read(off + i) for i in range(4)])
        elif off < rb:  # the fix-up: [a0, a1) as a piece
            a0 = s if off < 0 else 0
            a1 = 4 if off + 4 <= rb else rb - off
            got = [None] * 4
            if a0 < a1:
                bo, ho = piece(a0, a1 - a0)
                if bo is not None:
                    got[bo] = read(off + bo)
                if ho is not None:
                    got[ho], got[ho + 1] = read(off + ho), read(off + ho + 1)
            held.append(got)
        else:
            held.append([None] * 4)
    # lane 31's next word (loaded by lane t in the kernel: the same address arithmetic, 4 (31 - t) bytes on)
    c31 = col + 124
    s = (base + c31) % 4
    off = c31 - s
    x = [None] * 4
    if s and off + 4 < rb:
        if off + 8 <= rb:
            x = [read(off + 4 + i) for i in range(4)]
        else:
            bo, ho = piece(0, rb - off - 4)
            if bo is not None:
                x[bo] = read(off + 4 + bo)
            if ho is not None:
                x[ho], x[ho + 1] = read(off + 4 + ho), read(off + 4 + ho + 1)
    out = []
    for lane in range(32):
        s = (base + col + 4 * lane) % 4
        hi = held[lane + 1] if lane < 31 else x
        out.append((held[lane] + hi)[s:s + 4])  # __funnelshift_r(w, hi, 8 s)
    return out


def replay_store(base, col, pitch):
    """Lean::store for one warp on one output row at address base: lane i holds row bytes col + 4 i ..; returns
    how often each row offset is written, checking that each byte written carries its own value."""
    lo, hi = col, min(col + 128, pitch)
    assert not (lo < pitch and pitch - lo < 4)  # store_ok
    hits = {}

    def put(o, val):
        assert lo <= o < hi and val == o, (o, val, lo, hi)
        hits[o] = hits.get(o, 0) + 1

    vals = [[col + 4 * lane + i for i in range(4)] for lane in range(32)]
    for lane in range(32):
        c = col + 4 * lane
        s = (base + c) % 4
        off = c - s
        v = vals[lane]
        prev = vals[lane - 1] if lane else vals[0]
        x = (prev + v)[4 - s:8 - s]  # __funnelshift_l(prev, v, 8 s): byte i of the aligned word at off
        whole = off >= lo and off + 4 <= hi
        a0 = s if off < lo else 0
        a1 = 4 if off + 4 <= hi else hi - off
        mp = not whole and a0 < a1
        xp = lane == 31 and s != 0 and off + 4 < hi
        assert not (mp and xp)
        if whole:
            for i in range(4):
                put(off + i, x[i])
        if mp or xp:
            pa = 4 if xp else a0
            pn = (min(hi - off, 4 + s) - 4) if xp else a1 - a0
            src = (x + v[4 - s:]) if xp else x  # bytes at off + 4 .. are v's last s bytes
            bo, ho = piece(pa % 4 if not xp else 0, pn)
            shift = 4 if xp else 0
            if bo is not None:
                put(off + shift + bo, src[shift + bo])
            if ho is not None:
                put(off + shift + ho, src[shift + ho])
                put(off + shift + ho + 1, src[shift + ho + 1])
    return hits


def replay_row_fast(base, col, pitch):
    """Lean::row_fast for one warp on one output row (lim == 128 or 4 <= lim <= 124): the writes per row offset,
    each checked to carry its own byte, at the fixed piece offsets of the kernel."""
    lo = col
    lim = max(0, min(128, pitch - lo))
    assert lim == 128 or 4 <= lim <= 124
    S = (base + col) % 4
    clip = lim != 128
    hits = {}
    vals = [[col + 4 * lane + i for i in range(4)] for lane in range(32)]

    def put(o, val):  # o: bytes from the warp's first
        assert 0 <= o < lim and val == lo + o, (o, val, lim)
        hits[lo + o] = hits.get(lo + o, 0) + 1

    for lane in range(32):
        o = 4 * lane - S
        v = vals[lane]
        prev = vals[lane - 1] if lane else vals[0]
        x = (prev + v)[4 - S:8 - S]
        l0, l31 = lane == 0, (not clip) and lane == 31
        whole = (S == 0 or not l0) and (not clip or o + 4 <= lim)
        tn = lim - o if clip and 0 <= o < lim < o + 4 else 0
        if whole:
            for i in range(4):
                put(o + i, x[i])
        if tn == 1:
            put(o, x[0])
        if tn >= 2:
            put(o, x[0]), put(o + 1, x[1])
        if tn == 3:
            put(o + 2, x[2])
        pieces = {1: ([(1, 0), (2, 1), (3, 2)], [(4, 3)]), 2: ([(2, 0), (3, 1)], [(4, 2), (5, 3)]),
                  3: ([(3, 0)], [(4, 1), (5, 2), (6, 3)])}.get(S, ([], []))
        if l0:
            for at, byte in pieces[0]:
                put(o + at, v[byte])
        if l31:
            for at, byte in pieces[1]:
                put(o + at, v[byte])
    return hits


@pytest.mark.parametrize("esz", [1, 2])
def test_lean_replay_row_fast(esz):
    """Every output byte of the warps row_fast takes written once, with its own value, nothing outside."""
    r = np.random.default_rng(4303)
    for _ in range(3000):
        pitch = int(r.integers(4, 700)) * esz
        base = int(r.integers(0, 64)) * esz + int(r.integers(0, 2)) * (esz == 2)
        for c0 in range(0, pitch, 128):
            lim = min(128, pitch - c0)
            if lim == 128 or 4 <= lim <= 124:
                hits = replay_row_fast(base, c0, pitch)
                assert sorted(hits) == list(range(c0, c0 + lim)) and set(hits.values()) == {1}


@pytest.mark.parametrize("esz", [1, 2])
def test_lean_replay(esz):
    r = np.random.default_rng(4301)
    for _ in range(4000):
        rb = int(r.integers(2, 700)) * esz
        base = int(r.integers(0, 64)) * esz + int(r.integers(0, 2)) * (esz == 2)  # odd halves: misaligned views
        if rb >= 4:
            col0 = int(r.integers(0, (rb - 1) // 128 + 1)) * 128
            for lane, g in enumerate(replay_load(base, col0, rb)):
                for i, o in enumerate(g):
                    want = col0 + 4 * lane + i
                    if want < rb:
                        assert o == want, (rb, base, col0, lane, g)
        pitch = rb
        hits = {}
        for c0 in range(0, pitch, 128):  # every warp of the row
            if pitch - c0 < 4:
                for o in range(c0, pitch):  # store_ok false: the element path
                    hits[o] = hits.get(o, 0) + 1
                continue
            for o, n in replay_store(base, c0, pitch).items():
                hits[o] = hits.get(o, 0) + n
        assert sorted(hits) == list(range(pitch)) and set(hits.values()) == {1}, (pitch, base)


def test_lean_load_fix_lanes():
    """Lean::load's hand-over of the straddling words: the lane it names for the row's end (tl) and the piece lane
    16 + t loads for it ([ce - s, rb)) are those of the straddling lane of the plain rule (lane c: word [c - s,
    c - s + 4) with c - s < rb < c - s + 4); lane 0's piece at the row's start is [0, 4 - s) as bytes s.. of its word."""
    r = np.random.default_rng(4302)
    for _ in range(20000):
        rb = int(r.integers(4, 2000))
        s = int(r.integers(0, 4))
        lo = int(r.integers(0, (rb - 1) // 128 + 1)) * 128
        ce = rb - 1 - ((rb - 1 + s) & 3) + s
        d = ce - lo
        tl = d >> 2 if ((rb + s) & 3) != 0 and 0 <= d < 128 else -1
        want = [lane for lane in range(32) if (lo + 4 * lane) - s < rb < (lo + 4 * lane) - s + 4]
        assert want == ([tl] if tl >= 0 else []), (rb, s, lo, tl, want)
        if tl >= 0:
            o = lo + 4 * tl - s
            assert (ce - s, rb - ce + s) == (o, rb - o) and 1 <= rb - o <= 3


def _tool(name):
    """A CUDA tool from PATH or CUDA_HOME / CUDA_PATH / /usr/local/cuda, else None."""
    import os
    import shutil
    from pathlib import Path
    found = shutil.which(name)
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if not found and root and (Path(root) / "bin" / name).exists():
            found = str(Path(root) / "bin" / name)
    return found


def test_lean_store_sass(tmp_path):
    """Session 43's device failure (H100: every warp whose output row ends inside its 128 bytes wrote all 128): ptxas
    (nvcc 13.0, sm_90) fused lean.cuh's `min(max(lim, 0), 128) == 128` into the predicate output of a VIMNMX.RELU,
    which the device took the other way round.  The store's branches now test the clamped room itself; this checks
    that no VIMNMX with a predicate output is left in the lean kernels (both widths, every layout)."""
    import re
    import subprocess
    from pathlib import Path
    nvcc, dis = _tool("nvcc"), _tool("nvdisasm") or _tool("cuobjdump")
    if not nvcc or not dis:
        pytest.skip("needs nvcc and nvdisasm / cuobjdump")
    csrc = Path(__file__).resolve().parent.parent / "csrc"
    src = tmp_path / "lean_sass.cu"
    src.write_text('#include "transpose/kernel.cuh"\nvoid go(Args a)\n{\n' + "".join(
        f"    transpose_kernel<{lay}, {esz}, {tile}, 8, false, 2><<<1, dim3({tile}, 8)>>>(a);\n"
        for lay in range(3) for esz, tile in ((1, 32), (2, 64))) + "}\n")
    cubin = tmp_path / "lean_sass.cubin"
    subprocess.run([nvcc, "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-I", str(csrc), "-o", str(cubin), str(src)],
                   check=True, capture_output=True, timeout=600)
    args = [dis, "-c", str(cubin)] if dis.endswith("nvdisasm") else [dis, "-sass", str(cubin)]
    sass = subprocess.run(args, check=True, capture_output=True, text=True, timeout=120).stdout
    assert "transpose_kernel" in sass
    bad = [ln.strip() for ln in sass.splitlines() if re.search(r"\bVIMNMX\S*\s+R\w+\s*,\s*!?P\d", ln)]
    assert not bad, bad
