"""Mode 12 of the knob transpose_skinny (session 44, issue 26): case B (rows > cols = S, S = 17..64, 1- and 2-byte
elements, packed input rows) on csrc/transpose/skinny_strip_b.cuh's skinny_strip_b_kernel: a block takes 512 / esz
consecutive input rows -- one contiguous input run, loaded as aligned 16-byte chunks into a linear shared buffer B --
and writes S output row segments of 512 bytes as aligned 16-byte vectors (configs.h's skinny_strip_b_fits).

CPU: the choice per knob value (mode 12 moves exactly that class, every other shape keeps mode 11's path) on fixed
shapes and on 3000 draws of the law (seeds 3450 / 3451); a Python replay of the kernel's own arithmetic on a byte
memory (odd input and output bases, batches, partial last strips) against NumPy, which also checks that every loaded
chunk holds a byte of the run and that no output byte outside the matrix is written; the replay's shared addresses
equal explain()'s plan (every layout); the bank model's wavefronts.
GPU (marked): bit-exact against NumPy at mode 12 for every S of the class, both widths (and their bit-dtypes), every
layout, batches, torch views (odd bases, out= off 16 bytes inside a 0xFF buffer), fp16 NaN payloads, and modes 11 /
12 agreeing.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from _shared import check_device_views, check_fp16_specials, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_prmt import SUBWORD
from test_transpose_skinny_strip import strip_slot

LAYOUTS = smemkit.LAYOUTS
THREADS = 256
SEG = 512  # skinny_strip_b.cuh's kBStripBytes


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def in_class(shape, esz):
    """configs.h skinny_strip_b_fits (mode 12; a C-contiguous input: in_rs == cols)."""
    rows, cols = shape[-2:]
    return esz <= 2 and rows > cols and 17 <= cols <= 64


def want_config(shape, esz):
    return f"skinny-strip-b {SEG // esz}x{shape[-1]} strip, 256 threads, {esz}-byte elements"


# ---- CPU: the choice ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "float32"])
def test_strip_b_choice(dtype, set_knobs):
    esz = np.dtype(dtype).itemsize
    shapes = [(n, s) for s in (1, 5, 16, 17, 18, 25, 31, 34, 62, 63, 64, 65, 77, 128)
              for n in (17, 64, 65, 255, 256, 257, 513, 4097, 1568981)]
    shapes += [(s, n) for s in (17, 36, 80) for n in (999, 40001)] + [(b, n, s) for b in (2, 5) for n, s in
                                                                      [(2613, 31), (40841, 41), (99, 3), (64, 64)]]
    for sh in shapes:
        set_knobs(transpose_skinny=11)
        was = config(sh, dtype)
        set_knobs(transpose_skinny=12)
        now = config(sh, dtype)
        if in_class(sh, esz):
            assert now == want_config(sh, esz), sh
        else:
            assert now == was, sh


def test_strip_b_choice_on_draws():
    """3000 draws of #26's law (seeds 3450 / 3451): mode 12 moves exactly the class and leaves every other draw's
    path as mode 11's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    from smemkit import _testing
    seen = 0
    for seed in (3450, 3451):
        for d in transpose_draws(1500, seed):
            got = []
            for mode in (11, 12):
                with _testing.knobs(transpose_skinny=mode):
                    got.append(smemkit.explain("transpose", d.shape, "pad", d.dtype).config)
            if in_class(d.shape, d.itemsize):
                seen += 1
                assert got[1] == want_config(d.shape, d.itemsize) and got[0] != got[1], d
            else:
                assert got[1] == got[0], d
    assert seen >= 20


# ---- CPU: the kernel's arithmetic, replayed -------------------------------------------------------------------

def bslot(layout, b):
    """skinny_strip_b.cuh's bstrip_slot."""
    return strip_slot(layout, 5, b >> 7, b & 127)


def lane_vectors(t, S):
    """Thread t's (s, u) work items, in its loop's order (bstrip_item / bstrip_group and the constant steps)."""
    q, g = 8 * (t >> 5) + (t & 7), (t >> 3) & 3
    while q < 8 * S:
        yield q, q % S, 4 * (q // S) + g
        q += 64


def replay_block(mem, g, layout, esz, rec=None):
    """One block of skinny_strip_b_kernel on a byte memory (g: the block's globals).  rec: name -> shared addresses."""
    S, R, bx, b = g["S"], g["R"], g["bx"], g["b"]
    W, se = SEG // esz, S * esz
    p0 = bx * W
    n = min(R - p0, W)
    run = g["ib"] + (b * g["in_bs"] + p0 * S) * esz
    imis = run % 16
    nb = n * se
    nchunks = (imis + nb + 15) >> 4
    smem = {}
    for c in range(nchunks):
        a0 = run - imis + 16 * c
        assert a0 + 16 > run and a0 < run + nb, "a chunk without a run byte"
        for i in range(4):
            sl = bslot(layout, 16 * c + 4 * i)
            smem.update({sl + j: mem[a0 + 4 * i + j] for j in range(4)})
            if rec is not None:
                rec.setdefault("skinny-strip-b chunk store", []).append(sl)
    V = 16 // esz
    om = g["ob"] + (b * R * S + p0) * esz
    for t in range(THREADS):
        for _, s, u in lane_vectors(t, S):
            seg = om + s * R * esz
            omis = seg % 16
            A = seg - omis
            b0 = imis + (16 * u - omis) // esz * se + s * esz
            vecs = [u] + ([32] if u == 0 and 16 * 32 < omis + n * esz else [])
            for uu in vecs:
                bb = b0 if uu == u else b0 + 32 * 16 // esz * se
                if not 16 * uu < omis + n * esz:
                    continue
                y0 = 16 * uu - omis
                whole = y0 >= 0 and y0 + 16 <= n * esz
                for k in range(V):
                    y = y0 + k * esz
                    if whole or 0 <= y < n * esz:
                        sl = bslot(layout, bb + k * se)
                        mem[A + 16 * uu + k * esz:A + 16 * uu + (k + 1) * esz] = bytes(smem[sl + j] for j in range(esz))
                        if rec is not None:
                            name = "skinny-strip-b gather" if whole else "skinny-strip-b gather, cut vector"
                            rec.setdefault(name, []).append(sl)


def replay(a, layout, ib_off, ob_off):
    """The whole launch on a byte memory: a (batch, R, S) packed at byte ib_off, the output at byte ob_off inside
    0xEE bytes.  Returns the output."""
    B, R, S = a.shape
    esz = a.itemsize
    size = B * R * S * esz
    ob = (ib_off + size + 64) // 16 * 16 + ob_off
    mem = bytearray(b"\xee" * (ob + size + 64))
    mem[ib_off:ib_off + size] = a.view(np.uint8).tobytes()
    W = SEG // esz
    for bi in range(B):
        for bx in range((R + W - 1) // W):
            replay_block(mem, dict(S=S, R=R, ib=ib_off, ob=ob, b=bi, bx=bx, in_bs=R * S), layout, esz)
    assert set(mem[ob - 16:ob]) == {0xEE} and set(mem[ob + size:]) == {0xEE}, "wrote outside the output"
    return np.frombuffer(bytes(mem[ob:ob + size]), dtype=a.dtype).reshape(B, S, R)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("case", [((1, 300, 17), 0, 0), ((1, 777, 62), 1, 3), ((2, 257, 34), 3, 5), ((3, 129, 21), 2, 7),
                                  ((1, 1100, 64), 0, 6), ((2, 18, 17), 1, 1), ((1, 600, 31), 5, 0), ((4, 70, 25), 1, 2)],
                         ids=lambda c: "x".join(map(str, c[0])) + f"-i{c[1]}-o{c[2]}")
def test_strip_b_index_replay(layout, esz, case):
    """Odd input and output bases, batches whose matrices start off 16 bytes, partial last strips: the replayed kernel
    writes exactly a's transpose."""
    shape, ib_off, ob_off = case
    rng = np.random.default_rng(3450)
    a = rng.integers(0, 256, size=int(np.prod(shape)) * esz, dtype=np.uint8)
    a = a.view(np.uint8 if esz == 1 else np.uint16).reshape(shape)
    assert np.array_equal(replay(a, layout, ib_off * esz, ob_off * esz), swapped(a))


def test_strip_b_random_replay():
    """Random draws of the class (seed 3451): S, long side (1-2 strips and a partial one), batch, bases, layout."""
    rng = np.random.default_rng(3451)
    for _ in range(16):
        esz = int(rng.integers(1, 3))
        S = int(rng.integers(17, 65))
        B, R = int(rng.integers(1, 3)), int(rng.integers(S + 1, 2 * SEG // esz + 2))
        layout = LAYOUTS[int(rng.integers(0, 3))]
        a = rng.integers(0, 256, size=B * R * S * esz, dtype=np.uint8).view(np.uint8 if esz == 1 else np.uint16)
        a = a.reshape(B, R, S)
        out = replay(a, layout, int(rng.integers(0, 8)) * esz, int(rng.integers(0, 8)) * esz)
        assert np.array_equal(out, swapped(a)), (esz, S, B, R, layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(300, 17), (1100, 31), (513, 62), (700, 64), (257, 25)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_b_issues_the_plan(layout, esz, shape, set_knobs):
    """explain()'s plan at mode 12 and the replay's shared addresses: the same multiset per access (first block, and
    the last where it is partial; aligned bases)."""
    R, S = shape
    set_knobs(transpose_skinny=12)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    W = SEG // esz
    nblk = (R + W - 1) // W
    for last in (False, True):
        if last and R % W == 0 or not last and R < W:
            continue
        rec = {}
        g = dict(S=S, R=R, ib=0, ob=1 << 17, b=0, bx=nblk - 1 if last else 0, in_bs=0)
        mem = bytearray((1 << 17) + R * S * esz + 64)
        mem[:R * S * esz] = bytes(R * S * esz)
        replay_block(mem, g, layout, esz, rec)
        got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
               if a[0].endswith("(last block)") == last}
        assert set(got) == {k for k, v in rec.items() if v}
        for name, v in got.items():
            assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name


@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("extra", [0, 7])
def test_strip_b_pad_wavefronts(esz, extra, set_knobs):
    """The bank model on the gather, pad, mean over S = 17..64: at most 2.0 wavefronts an LDS where every output row
    starts on 16 bytes (R a multiple of 16), at most 3.0 where the rows' offsets in their 16 bytes vary (R odd: lanes of
    8 rows then read rows 0..15 apart; skinny_strip_b.cuh's header)."""
    set_knobs(transpose_skinny=12)
    e = []
    for S in range(17, 65):
        p = smemkit.explain("transpose", (20 * SEG // esz + extra, S), "pad", "uint8" if esz == 1 else "float16")
        acc = {a.name: a for a in p.accesses}["skinny-strip-b gather"]
        e.append(acc.wavefronts / acc.instructions)
    assert np.mean(e) <= (2.0 if extra == 0 else 3.0), e


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_strip_b_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Every S of the class; long sides odd and even, one and several strips, a partial last strip, R = S + 1."""
    set_knobs(transpose_skinny=12)
    for s in range(17, 65):
        for shape in [(4099 + 2 * s, s), (40000 + s, s), (s + 1, s), (1024, s)]:
            assert config(shape, dtype, layout) == want_config(shape, np.dtype(dtype).itemsize), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD + ["int16"])
@pytest.mark.parametrize("shape", [(1568981, 31), (579487, 25), (312713, 21), (99991, 62), (65537, 64), (18, 17)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_strip_b_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """The issue's worst draws and the class's edges; NaN payloads as bits."""
    set_knobs(transpose_skinny=12)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(5, 2613, 31), (4, 40841, 41), (44, 2380, 63), (63, 9205, 42), (3, 18, 17),
                                   (7, 333, 19), (2, 999, 64)], ids=lambda s: "x".join(map(str, s)))
def test_strip_b_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Batches: odd matrix sizes put each matrix's input run and output rows off 16 bytes."""
    set_knobs(transpose_skinny=12)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_strip_b_fp16_specials(layout, poison, set_knobs):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    set_knobs(transpose_skinny=12)
    check_fp16_specials(layout, (17, 34, 63, 64), case_b=True)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "offset-3", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [17, 31, 33, 64])
def test_strip_b_device_views(layout, dtype, view, short, rng, torch, set_knobs):
    """torch views: input base off by 1 / 3 elements; out= off 16 bytes inside a 0xFF buffer that must stay 0xFF."""
    set_knobs(transpose_skinny=12)
    check_device_views(torch, rng, layout, dtype, view, short, case_b=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(21813, 31), (2589, 62), (13, 7777, 17), (4, 3001, 34), (6, 9999, 64),
                                   (1813901, 25)], ids=lambda s: "x".join(map(str, s)))
def test_strip_b_modes_agree(dtype, shape, rng, poison, set_knobs):
    """Modes 11 (skinny_prmt) and 12 (skinny_strip_b) on the same tensors, every layout."""
    a = random_bits(shape, np_dtype(dtype), rng)
    check_modes_agree(set_knobs, a, 11, (12,))
