"""Mode 10 of the knob transpose_skinny (session 44, issue 26): case A (rows = S <= cols) with S = 17..127 for 1-byte
elements and 17..64 for 2-byte ones on csrc/transpose/skinny_strip.cuh's skinny_strip_kernel: a block takes all S
rows over 256 bytes of the long side, so its output is one contiguous run stored as 16-byte vectors, gathered from a
row-major shared tile with V - 1 "virtual" rows (row S + r = row r one element on) so that each vector's V elements
are one base address and immediate offsets (configs.h's skinny_strip_fits).

CPU: the choice per knob value (mode 10 moves exactly that class, mode 11 -- the default since session 44 -- the class
with 1-byte S <= 84, every other shape keeps mode 8's path) on fixed
shapes and on 3000 draws of the law (seeds 3440 / 3441); a Python replay of the kernel's own arithmetic on a byte
memory (odd input bases and pitches, batches whose outputs start off 16 bytes, partial last strips) against NumPy,
which also checks that every global load is a word holding an input byte of its row and that no output byte outside
the run is written; the replay's shared addresses equal explain()'s plan (every layout); the bank model's wavefronts.
GPU (marked): bit-exact against NumPy at mode 10 for every S of the class, both widths (and their bit-dtypes), every
layout, batches, torch views (offsets, strided rows and matrices, padded rows, out= off 16 bytes inside a 0xFF
buffer), NumPy views, fp16 NaN payloads and -0.0, and modes 8 / 10 agreeing.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from _shared import check_device_views, check_fp16_specials, check_host_views, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_prmt import SUBWORD

LAYOUTS = smemkit.LAYOUTS
THREADS = 256


def strip_lw(S):
    """skinny_strip.cuh's strip_log2_words: R's row in words (512-byte strips for S <= 32, else 256)."""
    return 7 if S <= 32 else 6


def strip_vector(lw, t):
    """skinny_strip.cuh's strip_vector: thread t's first output vector."""
    return 16 * ((t & 31) >> 1) + 2 * (t >> 5) + (t & 1) if lw == 6 else t


def strip_load_at(lw, t):
    """skinny_strip.cuh's strip_load_row / strip_load_window: thread t's first row and 16-byte window of the load."""
    if lw == 6:
        return 4 * (t >> 6) + ((t >> 3) & 3), 8 * ((t >> 5) & 1) + (t & 7)
    return t >> 5, t & 31


def strip_width(S, esz):
    return (4 << strip_lw(S)) // esz


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def in_class(shape, esz, mode=10):
    """configs.h skinny_strip_fits: mode 11 (the default since session 44) caps 1-byte S at 84."""
    rows, cols = shape[-2:]
    return esz <= 2 and rows <= cols and 17 <= rows <= ((127 if mode == 10 else 84) if esz == 1 else 64)


# ---- CPU: the choice ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [10, 11])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "float32"])
def test_strip_choice(dtype, mode, set_knobs):
    esz = np.dtype(dtype).itemsize
    shapes = [(s, n) for s in (1, 5, 16, 17, 18, 31, 34, 62, 63, 64, 65, 67, 100, 127, 128, 129)
              for n in (17, 63, 64, 128, 129, 255, 256, 257, 4097, 3350706)]
    shapes += [(n, s) for s in (17, 36, 80) for n in (999, 40001)] + [(b, s, n) for b in (2, 5) for s, n in
                                                                      [(26, 106412), (41, 40841), (3, 99)]]
    for sh in shapes:
        set_knobs(transpose_skinny=8)
        was = config(sh, dtype)
        set_knobs(transpose_skinny=mode)
        now = config(sh, dtype)
        if in_class(sh, esz, mode):
            assert now == f"skinny-strip {sh[-2]}x{strip_width(sh[-2], esz)} tile, 256 threads, {esz}-byte elements", sh
        else:
            assert now == was, sh


def test_strip_choice_on_draws():
    """3000 draws of #26's law (2-D and batched, seeds 3440 / 3441): mode 10 moves exactly the class to skinny-strip
    and leaves every other draw's path as mode 8's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    from smemkit import _testing
    seen = 0
    for seed in (3440, 3441):
        for d in transpose_draws(1500, seed):
            got = []
            for mode in (8, 10, 11):
                with _testing.knobs(transpose_skinny=mode):
                    got.append(smemkit.explain("transpose", d.shape, "pad", d.dtype).config)
            for m, now in ((10, got[1]), (11, got[2])):
                if in_class(d.shape, d.itemsize, m):
                    seen += 1
                    assert now.startswith("skinny-strip ") and not got[0].startswith("skinny-strip"), d
                else:
                    assert now == got[0], d
    assert seen >= 30


# ---- CPU: the kernel's arithmetic, replayed -------------------------------------------------------------------

def strip_slot(layout, lw, r, cb):
    """skinny_strip.cuh's strip_slot (skinny_strip_plan.h's static_assert holds it to layout.h's map)."""
    row = 4 << lw
    if layout == "pad":
        return r * (row + 4) + cb
    if layout == "swizzle":
        return r * row + (cb ^ ((r & 31) << 2))
    return r * row + cb


def word(mem, a):
    return int.from_bytes(bytes(mem[a:a + 4]), "little")


def replay_block(mem, g, layout, esz, rec=None):
    """One block of skinny_strip_kernel on a byte memory, as the kernel computes it (g: the block's globals).  rec:
    the shared addresses each access issues (per warp instruction, the lanes that take part)."""
    S, ib, ob, rows_total, cols, b, bx, in_rs, in_bs = (g[k] for k in "S ib ob R cols b bx in_rs in_bs".split())
    V, lw = 16 // esz, strip_lw(S)
    W, WPR = (4 << lw) // esz, 1 << (lw - 2)
    RPP = THREADS // WPR
    p0 = bx * W
    n = min(cols - p0, W)
    nb = n * esz
    rbase, rp = ib + (b * in_bs + p0) * esz, in_rs * esz
    full = (cols - p0) * esz >= (4 << lw) + 48
    sm = {}
    # the load: per thread, rows r0 + RPP i < S, then the virtual rows S + r, r = r0 + RPP i < V - 1
    assert sorted(strip_load_at(lw, t) for t in range(THREADS)) == [(r, w) for r in range(RPP) for w in range(WPR)]
    for t in range(THREADS):
        r0, w0 = strip_load_at(lw, t)
        cb = 16 * w0
        items = [(rbase + r * rp, cb, r) for r in range(r0, S, RPP)]
        items += [(rbase + r * rp, cb + esz, S + r) for r in range(r0, V - 1, RPP)]
        for row, go, r in items:
            ga = row + go
            sh, end = ga & 3, row + (cols - p0) * esz
            if lw == 7:  # two 16-byte chunks, each where it holds a row byte (lim: the row's bytes from chunk 0 on)
                c, lim = ga & ~15, nb - go + (ga & 15)
                got = {}
                for i in range(2):
                    if full or 16 * i < lim:
                        assert c + 16 * i + 16 > row and c + 16 * i < end, "a chunk outside the row"
                        got.update({c + 16 * i + 4 * q: word(mem, c + 16 * i + 4 * q) for q in range(4)})
                v = [got.get(ga - sh + 4 * i, 0) for i in range(5)]
            else:
                lim = nb - go + sh
                v = []
                for i in range(5):
                    if full or 4 * i < lim:
                        a = ga - sh + 4 * i
                        assert a + 4 > row and a < end, "a load outside the words holding the row"
                        v.append(word(mem, a))
                    else:
                        v.append(0)
            for i in range(4):
                x = ((v[i + 1] << 32 | v[i]) >> (8 * sh)) & 0xFFFFFFFF
                s = strip_slot(layout, lw, r, cb + 4 * i)
                for k in range(4):
                    sm[s + k] = (x >> (8 * k)) & 0xFF
    if rec is not None:
        steps = (S + RPP - 1) // RPP
        for wp in range(THREADS // 32):
            for i in range(steps + (V - 1 + RPP - 1) // RPP):
                virt = i >= steps
                for q in range(4):
                    # naive: nvcc merges a window's four words into one STS.128 (a real row) or two STS.64 (a
                    # virtual row) (SASS, sm_90; skinny_strip_plan.h strip_load_warp): the lanes' first bytes of those
                    if layout == "naive" and q % (2 if virt else 4):
                        continue
                    lanes = []
                    for lane in range(32):
                        t = 32 * wp + lane
                        r0, w0 = strip_load_at(lw, t)
                        r0 += RPP * (i - steps if virt else i)
                        if (r0 < V - 1) if virt else r0 < S:
                            lanes.append(strip_slot(layout, lw, S + r0 if virt else r0, 16 * w0 + 4 * q))
                    name = "skinny-strip virtual row store" if layout == "naive" and virt else "skinny-strip row store"
                    rec.setdefault(name, []).extend(lanes)
    # the store: thread t the vectors u = t + 256 m; (s0, c0) carried from J = V t - mis / esz + S
    fb = ob + (b * rows_total * cols + p0 * S) * esz
    mis, nbytes = fb & 15, n * S * esz
    nw = (mis + nbytes + 15) >> 4
    magic = ((1 << 32) + S - 1) // S
    dq, dr = V * THREADS // S, V * THREADS % S
    read = lambda r, c: bytes(sm[strip_slot(layout, lw, r, c * esz) + k] for k in range(esz))
    assert sorted(strip_vector(lw, t) for t in range(THREADS)) == list(range(THREADS))
    for t in range(THREADS):
        u0 = strip_vector(lw, t)
        J = V * u0 - mis // esz + S
        q = (J * magic) >> 32
        assert q == J // S
        s0, c0 = J - q * S, q - 1
        for u in range(u0, nw, THREADS):
            y0 = 16 * u - mis
            if y0 >= 0 and y0 + 16 <= nbytes:
                assert 0 <= c0 < n and s0 + V - 1 < S + V - 1
                mem[fb + y0:fb + y0 + 16] = b"".join(read(s0 + k, c0) for k in range(V))
                if rec is not None:
                    rec.setdefault("skinny-strip gather", []).extend(
                        strip_slot(layout, lw, s0 + k, c0 * esz) for k in range(V))
            else:
                for k in range(V):
                    y = y0 + k * esz
                    if 0 <= y < nbytes:
                        r, c = (s0 + k - S, c0 + 1) if s0 + k >= S else (s0 + k, c0)
                        mem[fb + y:fb + y + esz] = read(r, c)
                        if rec is not None:
                            rec.setdefault("skinny-strip gather, cut vector", []).append(
                                strip_slot(layout, lw, r, c * esz))
            s0, c0 = s0 + dr, c0 + dq
            if s0 >= S:
                s0, c0 = s0 - S, c0 + 1


def replay(a, layout, ib_off, ob_off, pitch=None, bstride=None):
    """The whole launch on a byte memory: input a (batch, S, cols) at byte ib_off with row pitch / matrix stride in
    elements; the output at byte ob_off inside 0xEE bytes.  Returns the output and the memory."""
    B, S, cols = a.shape
    esz = a.itemsize
    pitch = pitch or cols
    bstride = bstride or S * pitch
    raw = a.view(np.uint8).reshape(B, S, cols * esz)
    size_in = ib_off + (B - 1) * bstride * esz + (S - 1) * pitch * esz + cols * esz
    ob = (size_in + 64) // 16 * 16 + ob_off
    mem = bytearray(b"\xee" * (ob + B * S * cols * esz + 64))
    for bi in range(B):
        for s in range(S):
            o = ib_off + (bi * bstride + s * pitch) * esz
            mem[o:o + cols * esz] = raw[bi, s].tobytes()
    W = strip_width(S, esz)
    for bi in range(B):
        for bx in range((cols + W - 1) // W):
            g = dict(S=S, ib=ib_off, ob=ob, R=S, cols=cols, b=bi, bx=bx, in_rs=pitch, in_bs=bstride)
            replay_block(mem, g, layout, esz)
    out = np.frombuffer(bytes(mem[ob:ob + B * S * cols * esz]), dtype=a.dtype).reshape(B, cols, S)
    assert set(mem[ob - 16:ob]) == {0xEE} and set(mem[ob + B * S * cols * esz:]) == {0xEE}, "wrote outside the run"
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("case", [((1, 17, 300), 0, 0, None), ((1, 62, 777), 1, 3, None), ((2, 34, 257), 3, 5, 261),
                                  ((3, 21, 129), 2, 7, 131), ((1, 64, 515), 0, 6, 517), ((2, 17, 17), 1, 1, None),
                                  ((1, 127, 300), 3, 9, 303), ((5, 26, 70), 1, 2, None), ((1, 43, 1100), 2, 0, None)],
                         ids=lambda c: "x".join(map(str, c[0])) + f"-i{c[1]}-o{c[2]}-p{c[3]}")
def test_strip_index_replay(layout, esz, case):
    """Odd input bases and pitches, batches whose matrices start off 16 bytes in the output, partial last strips,
    S = cols: the replayed kernel writes exactly a's transpose."""
    shape, ib_off, ob_off, pitch = case
    if esz == 2 and shape[1] > 64:
        pytest.skip("fp16 strips stop at S = 64")
    rng = np.random.default_rng(3440)
    a = rng.integers(0, 256, size=shape[0] * shape[1] * shape[2] * esz, dtype=np.uint8)
    a = a.view(np.uint8 if esz == 1 else np.uint16).reshape(shape)
    out = replay(a, layout, ib_off * esz, ob_off * esz, pitch)
    assert np.array_equal(out, swapped(a))


def test_strip_random_replay():
    """Random draws of the class (seed 3441): S, long side (1-3 strips and a partial one), batch, input base, row pitch
    and matrix stride, output base, layout -- the replayed kernel writes exactly the transpose."""
    rng = np.random.default_rng(3441)
    for _ in range(24):
        esz = int(rng.integers(1, 3))
        S = int(rng.integers(17, (127 if esz == 1 else 64) + 1))
        W = strip_width(S, esz)
        B, cols = int(rng.integers(1, 3)), int(rng.integers(S, 3 * W + 2))
        pitch = cols + int(rng.integers(0, 9))
        layout = LAYOUTS[int(rng.integers(0, 3))]
        a = rng.integers(0, 256, size=B * S * cols * esz, dtype=np.uint8)
        a = a.view(np.uint8 if esz == 1 else np.uint16).reshape(B, S, cols)
        out = replay(a, layout, int(rng.integers(0, 8)) * esz, int(rng.integers(0, 8)) * esz, pitch,
                     S * pitch + int(rng.integers(0, 5)))
        assert np.array_equal(out, swapped(a)), (esz, S, B, cols, pitch, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(17, 300), (34, 513), (62, 256), (64, 1000), (127, 300), (21, 21)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_issues_the_plan(layout, esz, shape, set_knobs):
    """explain()'s plan at mode 10 and the replay's issued shared instructions: the same lane addresses per access
    (the first block, and the last where it is partial; aligned bases)."""
    S, cols = shape
    if esz == 2 and S > 64:
        pytest.skip("fp16 strips stop at S = 64")
    set_knobs(transpose_skinny=10)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    W = strip_width(S, esz)
    nblk = (cols + W - 1) // W
    for last in (False, True):
        bx = nblk - 1 if last else 0
        if last and cols % W == 0 or not last and cols < W:
            continue
        rec = {}
        g = dict(S=S, ib=0, ob=1 << 16, R=S, cols=cols, b=0, bx=bx, in_rs=cols, in_bs=0)
        replay_block(bytearray((1 << 16) + S * cols * esz + 64), g, layout, esz, rec)
        got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
               if a[0].endswith("(last block)") == last}
        assert set(got) == {k for k, v in rec.items() if v}
        for name, v in got.items():
            assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name


@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("S", [17, 31, 34, 43, 62, 64])
def test_strip_pad_wavefronts(esz, S, set_knobs):
    """The bank model on the gather: pad at most 3 wavefronts an LDS on average (strip_vector's lane map)."""
    set_knobs(transpose_skinny=10)
    e = {}
    for layout in LAYOUTS:
        p = smemkit.explain("transpose", (S, 100 * strip_width(S, esz)), layout, "uint8" if esz == 1 else "float16")
        acc = {a.name: a for a in p.accesses}
        e[layout] = acc["skinny-strip gather"].wavefronts / acc["skinny-strip gather"].instructions
    assert e["pad"] <= 3.0, e


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_strip_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Every S of the class, long sides odd and even, one and several strips, a partial last strip, S = cols."""
    set_knobs(transpose_skinny=10)
    top = 127 if dtype == "uint8" else 64
    for s in range(17, top + 1):
        for shape in [(s, 4099 + 2 * s), (s, 40000 + s), (s, s + 1), (s, s)]:
            assert config(shape, dtype, layout).startswith("skinny-strip "), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD + ["int16"])
@pytest.mark.parametrize("shape", [(62, 99991), (34, 147673), (43, 120308), (21, 312713), (67, 84317),
                                   (81, 44848), (27, 228950), (64, 65537), (17, 17), (127, 1001)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """The issue's worst draws' short sides (long sides cut) and the class's edges; NaN payloads as bits."""
    set_knobs(transpose_skinny=10)
    if np.dtype(np_dtype(dtype)).itemsize == 2 and shape[0] > 64:
        pytest.skip("outside the fp16 class")
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(5, 26, 106412), (4, 41, 40841), (44, 63, 2380), (63, 42, 9205), (64, 58, 1087),
                                   (63, 35, 1580), (27, 2, 22895), (3, 17, 17), (7, 19, 333), (2, 100, 999)],
                         ids=lambda s: "x".join(map(str, s)))
def test_strip_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Batches: odd matrix sizes put each matrix's output off 16 bytes (cut vectors at both ends)."""
    set_knobs(transpose_skinny=10)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_strip_fp16_specials(layout, poison, set_knobs):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    set_knobs(transpose_skinny=10)
    check_fp16_specials(layout, (17, 34, 63, 64))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "row-slice", "batch-step", "padded-cols", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [17, 33, 62, 64, 100])
def test_strip_device_views(layout, dtype, view, short, rng, torch, set_knobs):
    """torch views: input base off by one element, every other row, every other matrix, padded rows (in_rs > cols);
    out= off 16 bytes inside a 0xFF-filled buffer whose other bytes must stay 0xFF."""
    if dtype == "float16" and short > 64:
        pytest.skip("outside the fp16 class")
    set_knobs(transpose_skinny=10)
    check_device_views(torch, rng, layout, dtype, view, short)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("short", [17, 33, 64, 99])
def test_strip_host_views(layout, dtype, short, rng, poison, set_knobs):
    """NumPy views: rows reversed (a negative row stride), an odd column offset, every other row."""
    if dtype == "float16" and short > 64:
        pytest.skip("outside the fp16 class")
    set_knobs(transpose_skinny=10)
    check_host_views(rng, layout, dtype, short)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(31, 21813), (62, 2589), (13, 17, 7777), (4, 34, 3001), (6, 64, 9999),
                                   (2, 50, 5000)], ids=lambda s: "x".join(map(str, s)))
def test_strip_modes_agree(dtype, shape, rng, poison, set_knobs):
    """Modes 8 (skinny_lean) and 10 (skinny_strip) on the same tensors, every layout."""
    a = random_bits(shape, np_dtype(dtype), rng)
    check_modes_agree(set_knobs, a, 8, (10,))
