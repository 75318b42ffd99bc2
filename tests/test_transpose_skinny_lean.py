"""Mode 8 of the knob transpose_skinny (session 43, issue 26): case A (rows <= cols) of the skinny sub-word class
(S = rows <= 64, 1- and 2-byte elements, any pitch and output base) on csrc/transpose/skinny_lean.cuh's
skinny_lean_a_kernel: skinny_vec.cuh's tile, grid and shared accesses with the arithmetic around them hoisted
(configs.h's skinny_lean_a_fits).

CPU: the choice per knob value (mode 8 moves exactly case A of skinny_vec's class, every other shape keeps mode 7's
path) on fixed shapes and on 3000 draws of the law; the plan (explain()'s accesses are skinny_vec's, mode 2, in every
layout); a Python replay of the lean kernel's own index arithmetic (items, the vote-free warp tests, the flat phase's
predicates) on a byte memory with odd bases, odd pitches, strided rows and batches, against NumPy -- which also checks
that every test the kernel takes as warp-uniform is uniform, that every load stays inside the words holding the input,
and that the instructions it issues are the plan's.  GPU (marked): bit-exact against NumPy at mode 8 (and 9: mode 8
only where mode 7 runs skinny_vec) for every S in 1..64, both widths (and bool / bfloat16 / int16 as bits), batches,
torch views (offsets, strided rows and matrices, padded rows, out= off a word inside a 0xFF buffer), NumPy views
(negative row strides), fp16 NaN payloads and -0.0, and modes 7 / 8 / 9 agreeing.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from _shared import check_device_views, check_fp16_specials, check_host_views, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_prmt import SUBWORD
from test_transpose_skinny_vec import STEPS, THREADS, lt_of, slot, vec_log2_cols
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _vectors_on_the_kernels():
    """This module's 1 x n and n x 1 shapes test the skinny kernels (strided vectors still take them): the copy
    route (knob transpose_copy, tests/test_transpose_copy.py) off."""
    with _knobs(transpose_copy=0):
        yield


LAYOUTS = smemkit.LAYOUTS
SHORT = [1, 2, 3, 4, 5, 7, 9, 13, 31, 32, 33, 34, 36, 54, 63, 64]
LONG = [1, 2, 64, 999, 4097, 16385, 40001]


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def in_class(shape, esz):
    rows, cols = shape[-2:]
    return esz <= 2 and rows <= cols and rows <= 64


# ---- CPU: the choice ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "float32"])
def test_lean_choice(dtype, set_knobs):
    esz = np.dtype(dtype).itemsize
    for sh in [(s, n) for s in SHORT + [65, 100, 128] for n in LONG] + [(n, s) for s in (3, 36, 80) for n in LONG]:
        set_knobs(transpose_skinny=7)
        was = config(sh, dtype)
        set_knobs(transpose_skinny=2)
        vec = config(sh, dtype)
        set_knobs(transpose_skinny=8)
        now = config(sh, dtype)
        set_knobs(transpose_skinny=9)
        nine = config(sh, dtype)
        if in_class(sh, esz):
            assert vec.startswith("skinny-vec ") and now == "skinny-lean " + vec[len("skinny-vec "):], sh
            assert nine == (now if was.startswith("skinny-vec ") else was), sh  # 9: mode 7's skinny_vec part
        else:
            assert now == was and nine == was, sh


def test_lean_choice_on_draws():
    """3000 draws of #26's law (2-D and batched, seeds 3400 / 3401): mode 8 moves exactly case A of the class to
    skinny-lean and leaves every other draw's path as mode 7's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    from smemkit import _testing
    seen = 0
    for seed in (3400, 3401):
        for d in transpose_draws(1500, seed):
            got = []
            for mode in (7, 8, 9):
                with _testing.knobs(transpose_skinny=mode):
                    got.append(smemkit.explain("transpose", d.shape, "pad", d.dtype).config)
            if in_class(d.shape, d.itemsize):
                seen += 1
                assert got[1].startswith("skinny-lean ") and not got[0].startswith("skinny-lean"), d
                assert got[2] == (got[1] if got[0].startswith("skinny-vec ") else got[0]), d
            else:
                assert got[1] == got[0] and got[2] == got[0], d
    assert seen >= 100


# ---- CPU: the plan ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 40001), (2, 9999), (5, 4128923), (9, 333), (31, 2943), (34, 25317),
                                   (33, 999), (63, 64), (64, 1001)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_plan_is_skinny_vec(layout, esz, shape, set_knobs):
    """The lean kernel issues skinny_vec's shared instructions: explain() at mode 8 replays skinny_vec_block."""
    dtype = "uint8" if esz == 1 else "float16"
    set_knobs(transpose_skinny=2)
    vec = smemkit.explain("transpose", shape, layout, dtype)
    set_knobs(transpose_skinny=8)
    lean = smemkit.explain("transpose", shape, layout, dtype)
    assert lean.config.startswith("skinny-lean ") and lean.blocks == vec.blocks
    if layout != "naive":
        assert [(a.name, a.instructions, a.wavefronts) for a in lean.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in vec.accesses]
        return
    # naive (SASS, sm_90): LeanA::put's interior and edge stores are predicated, so a warp step that reaches put
    # issues all E interior ones and, past an edge, all E edge ones (plan.cu skinny_vec_block's lean_naive):
    # the same lanes' stores, more instructions, never fewer; everything else as skinny_vec's
    assert [a.name for a in lean.accesses] == [a.name for a in vec.accesses]
    for a, b in zip(lean.accesses, vec.accesses):
        if "run scatter" in a.name:
            assert a.instructions >= b.instructions and a.wavefronts == b.wavefronts, (a, b)
        else:
            assert (a.instructions, a.wavefronts) == (b.instructions, b.wavefronts)


# ---- CPU: the kernel's arithmetic, replayed -------------------------------------------------------------------

def lean_slot(layout, sh, x):
    """skinny_lean.cuh's lean_slot (plan.cu static_asserts it equals skinny_vec_slot)."""
    return x + ((x >> sh) << 2) if layout == "pad" else x ^ (((x >> sh) & 31) << 2) if layout == "swizzle" else x


def replay_block(mem, g, layout, esz, rec=None):
    """One block of skinny_lean_a_kernel on a byte memory, as the kernel computes it (g: the block's globals)."""
    S, lt, ib, ob, cols, b, bx, in_rs, in_bs = (g[k] for k in "S lt ib ob cols b bx in_rs in_bs".split())
    E, LE, SE, T = 4 // esz, esz // 2, S * esz, 1 << lt
    p0 = bx << lt
    n = min(cols - p0, T)
    rbase, rp = ib + (b * in_bs + p0) * esz, in_rs * esz
    fb = ob + (b * S * cols + p0 * S) * esz
    mis, nb, lw = fb & 3, n * esz, lt + LE - 2
    fa, fend, W = fb - mis, mis + n * SE, 1 << lw
    sh = vec_log2_cols(layout, S) + 2
    sm = {}
    for k in range(STEPS + 1):  # phase 1, per warp and item
        for wp in range(THREADS // 32):
            fast, lanes = set(), []
            for lane in range(32):
                t = 32 * wp + lane
                q = t + THREADS * k
                s, j = (q >> lw, q & (W - 1)) if k < STEPS else (t, W)
                ra = rbase + s * rp
                ms = ra & 3
                ro = 4 * j - ms
                x = mis + s * esz + (ro >> LE) * SE
                ok = s < S and ro < nb
                fast.add(ok and ro >= 4 * lane and ro + 128 - 4 * lane <= nb)
                lanes.append((ok, ro, x, ra - ms + 4 * j))
            assert len(fast) == 1  # the kernel's vote-free test is warp-uniform
            fast = fast.pop()
            for e in range(E):
                act = []
                for ok, ro, x, gw in lanes:
                    m = ok and 0 <= ro + e * esz < nb
                    assert m or not fast  # the fast path's stores need no predicate
                    if m:
                        assert g["lo"] <= gw and gw + 4 <= g["hi"]  # the word holding a run byte, inside the input
                        a = lean_slot(layout, sh, x + e * SE)
                        for i in range(esz):  # element e of the word: its bytes e * esz ..
                            sm[a + i] = mem[gw + e * esz + i]
                        act.append(a)
                if act and rec is not None:
                    rec.setdefault("skinny-vec run scatter", []).extend(act)
    for k in range(STEPS + 1):  # phase 2: flat_out's expressions (fw, fl, head, d)
        for wp in range(THREADS // 32):
            fw, d = fend - 4 * 32 * wp, 4 * THREADS * k
            head = wp == 0 and mis > 0
            if fw <= d:
                continue
            words, cut, some = [], {e: [] for e in range(E)}, fw >= d + (8 if k == 0 and head else 4)
            for lane in range(32):
                t = 32 * wp + lane
                fl, x = fend - 4 * t, 4 * t + d
                whole = (k > 0 or x >= mis) and fl >= d + 4
                assert whole == (x >= mis and x + 4 <= fend) and (some or not whole)
                if some and whole:
                    a = lean_slot(layout, sh, x)
                    mem[fa + x: fa + x + 4] = bytes(sm[a + i] for i in range(4))  # every byte stored in phase 1
                    words.append(a)
                if (k == 0 and head) or fw < d + 128:
                    for e in range(E):
                        if not whole and mis <= x + e * esz < fend:
                            a = lean_slot(layout, sh, x + e * esz)
                            mem[fa + x + e * esz: fa + x + e * esz + esz] = bytes(sm[a + i] for i in range(esz))
                            cut[e].append(a)
                else:
                    assert whole  # no cut word in a warp step the kernel skips
            if rec is not None:
                rec.setdefault("skinny-vec flat load", []).extend(words)
                for e in range(E):
                    rec.setdefault("skinny-vec flat load, cut word", []).extend(cut[e])


def replay(a, ioff, ooff, layout, in_rs=None):
    """The lean kernel over every block of a batch (B, S, cols) on a byte memory; returns the output matrices."""
    B, S, cols = a.shape
    esz = a.itemsize
    in_rs = cols if in_rs is None else in_rs
    in_bs = S * in_rs
    mem = bytearray(b"\xee" * (B * in_bs * esz + a.nbytes + 96))
    ib = 16 + ioff
    src = np.zeros((B, S, in_rs), dtype=a.dtype)
    src[:, :, :cols] = a
    mem[ib:ib + src.nbytes] = src.tobytes()
    ob = ib + src.nbytes + 16 + (-(ib + src.nbytes)) % 16 + ooff
    lt = lt_of(S, cols, esz)
    for b in range(B):
        for bx in range(-(-cols // (1 << lt))):
            g = dict(S=S, lt=lt, ib=ib, ob=ob, cols=cols, b=b, bx=bx, in_rs=in_rs, in_bs=in_bs,
                     lo=ib - ib % 4, hi=ib + src.nbytes + (-(ib + src.nbytes)) % 4)
            replay_block(mem, g, layout, esz)
    out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=a.dtype).reshape(B, cols, S)
    assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 1, 300), (2, 1, 77), (1, 3, 301), (2, 5, 150), (1, 7, 99), (2, 13, 257),
                                   (1, 31, 130), (1, 33, 67), (1, 34, 99), (1, 63, 70), (1, 64, 65), (3, 5, 7)],
                         ids=lambda s: "x".join(map(str, s)))
def test_lean_index_replay(layout, esz, shape):
    """Bases on and off words (input and output), a padded input pitch; the second matrix of a batch off a word."""
    rng = np.random.default_rng(43)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=shape).astype(dt)
    for ioff, ooff, pad in [(0, 0, 0), (esz, 0, 1), (0, esz, 0), (3 * esz % 4 or 2, 2 * esz % 4 or esz, 3)]:
        out = replay(a, ioff, ooff, layout, shape[2] + pad)
        assert np.array_equal(out, swapped(a)), (ioff, ooff, pad)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 300), (3, 301), (5, 2100), (13, 257), (33, 67), (64, 70)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_issues_the_plan(layout, esz, shape, set_knobs):
    """explain()'s plan at mode 8 and the replay's issued shared instructions: the same lane addresses per access
    (the first block, aligned bases)."""
    set_knobs(transpose_skinny=8)
    S, cols = shape
    lt = lt_of(S, cols, esz)
    rec = {}
    g = dict(S=S, lt=lt, ib=16, ob=1 << 20, cols=cols, b=0, bx=0, in_rs=cols, in_bs=0, lo=0, hi=1 << 30)
    mem = bytearray(2 << 20)
    replay_block(mem, g, layout, esz, rec)
    last = cols < 1 << lt
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
           if a[0].endswith("(last block)") == last}
    assert set(got) == {k for k, v in rec.items() if v}
    for name, v in got.items():
        assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name
    assert all(slot(layout, x, S, esz) == lean_slot(layout, vec_log2_cols(layout, S) + 2, x)
               for x in range(0, 1 << 15, 3))


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_lean_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Every S in 1..64, long sides odd and even, one and several tiles, a partial last tile, S = cols."""
    set_knobs(transpose_skinny=8)
    for s in range(1, 65):
        for shape in [(s, 4099 + 2 * s), (s, 40000 + s), (s, s + 1), (s, s)]:
            assert config(shape, dtype, layout).startswith("skinny-lean "), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD + ["int16"])
@pytest.mark.parametrize("shape", [(5, 4128923), (34, 25317), (9, 902362), (62, 31), (31, 294359), (1, 300007),
                                   (2, 58757), (3, 2698105), (36, 99999), (64, 65537), (1, 1), (5, 5)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_lean_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """ncu's two shapes (as single matrices) and the class's worst draws of earlier seeds; NaN payloads as bits."""
    set_knobs(transpose_skinny=8)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(9, 5, 412893), (54, 34, 2531), (62, 31, 2943), (35, 18, 19678), (39, 7, 24744),
                                   (53, 3, 5833), (17, 18, 23177), (58, 2, 10356), (36, 6, 28870), (3, 1, 9999),
                                   (5, 63, 1001), (7, 33, 777), (4, 64, 4097), (4, 5, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_lean_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Batches (long sides cut): odd matrix sizes put each matrix's output off a word."""
    set_knobs(transpose_skinny=8)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_lean_fp16_specials(layout, poison, set_knobs):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    set_knobs(transpose_skinny=8)
    check_fp16_specials(layout, (3, 7, 34, 64))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "row-slice", "batch-step", "padded-cols", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [1, 3, 5, 13, 33, 63, 4, 34, 64])
@pytest.mark.parametrize("mode", [8, 9])
def test_lean_device_views(layout, dtype, view, short, mode, rng, torch, set_knobs):
    """torch views: input base off by one element, every other row (S halves), every other matrix, padded rows
    (in_rs > cols); out= off a word inside a 0xFF-filled buffer whose other bytes must stay 0xFF (mode 9: word-multiple
    rows there go to the lean kernel, the launcher's rule)."""
    set_knobs(transpose_skinny=mode)
    check_device_views(torch, rng, layout, dtype, view, short)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("short", [1, 3, 13, 33, 64])
def test_lean_host_views(layout, dtype, short, rng, poison, set_knobs):
    """NumPy views: rows reversed (a negative row stride), an odd column offset, every other row."""
    set_knobs(transpose_skinny=8)
    check_host_views(rng, layout, dtype, short)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(31, 21813), (1, 77777), (5, 412893), (63, 2589), (13, 7, 7777), (4, 34, 3001),
                                   (6, 7, 9999), (2, 64, 5000)], ids=lambda s: "x".join(map(str, s)))
def test_lean_modes_agree(dtype, shape, rng, poison, set_knobs):
    """Modes 8 / 9 (skinny_lean; 9 where 7 runs skinny_vec) and mode 7 (skinny_vec / skinny_prmt_a) on the same
    tensors, every layout."""
    a = random_bits(shape, np_dtype(dtype), rng)
    check_modes_agree(set_knobs, a, 7, (8, 9))
