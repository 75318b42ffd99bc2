"""Knob gemm16_narrow_async: rows read in place that are aligned to 8 bytes (K or N % 4 == 0) or 4 bytes
(% 2 == 0) but not 16, copied by 8- / 4-byte cp.async into the same shared tiles as the aligned path
(csrc/gemm16/load_narrow.cuh, AsyncLoad<C, S, true>) instead of the register-staged loads (load_staged.cuh,
8 LDG.U16 + packing per 16 bytes, one k-tile in flight).  The class: issue 28's K-heavy in-place calls
(73x3140x40720: 128x256 split 10, 0.38 of cuBLAS; docs/GEMM16_NOTES.md "Session 44 (g16align4)").

CPU: the knob's range; the pure gate (api/gemm16.h smk_gemm16_narrow) against a Python model on thousands
of random arguments and on issue 28's law (seeds >= 3450); explain(): the narrow plan is the cp.async
kernel's with each copy of a narrow operand split into 16 / W pieces of W bytes at the same chunks.
GPU: forced variants 1 / 4 / 6 / 8 / 9 at level 2 bit-equal to the staged path (the same shared tiles, the
same MMA order) and within the float64 gamma_K bound; variant 0 split and unsplit at levels 1 / 2; K % 8
and N % 8 in {2, 4, 6}; every layout incl. Swizzle(2,3,2); fp16 / bf16; NaN-poisoned outputs; alpha / beta
with C, float32 output; device views whose base / pitch make 4- and 8-byte (and 2-byte: staged) rows."""
import ctypes
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_gemm import DTYPES, LAYOUT_IDS, LAYOUTS, _check_views, _from_torch, _to_torch, check, operands
from test_gemm16_choose import TILES, Choice

SMS, NARROW_KT, NARROW_KT_SPLIT = 132, 16, 8  # api/gemm16.h SMK_G16_NARROW_KT, SMK_G16_NARROW_KT_SPLIT
NARROW_VARIANTS = (1, 4, 6, 8, 9)  # instantiate.cuh narrow_tile
# forced variants at level 2: K % 8 / N % 8 in {2, 4, 6} (and one operand aligned), K from 1 k-tile to 16
FORCED = [(200, 90, 1002), (130, 260, 516), (70, 198, 334), (129, 64, 86), (257, 130, 64), (33, 12, 6),
          (65, 300, 20)]
# variant 0 on dense host operands: K-heavy split launches (level 1: 128x256, 128x128, 64x128, 64x64), and
# unsplit in-place ones level 2 takes (64x64, in place of the deep / half-tile loads): level 1's K-heavy
# launches are all split on the law (the chooser copies the big outputs' rows padded)
V0 = [(73, 788, 5092), (233, 484, 4382), (300, 12, 6226), (120, 106, 3250), (94, 1046, 1330), (400, 250, 2052),
      (66, 3556, 2854), (700, 500, 334), (300, 262, 334)]


def cdiv(a, b):
    return -(-a // b)


def width(cols):
    return 16 if cols % 8 == 0 else 8 if cols % 4 == 0 else 4 if cols % 2 == 0 else 2


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_narrow.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64] + [ctypes.c_int] * 3
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_choose.restype = None
    so.smk_gemm16_device_sms.restype = ctypes.c_int
    return so


def narrow_model(mode, variant, k_slice, splits, wa, wb):
    ok = (4, 8, 16)
    if mode <= 0 or splits < 1 or k_slice <= 0 or wa not in ok or wb not in ok or (wa, wb) == (16, 16):
        return 0
    if variant not in NARROW_VARIANTS:
        return 0
    if mode in (1, 3) and splits < 2 and cdiv(k_slice, 64) < NARROW_KT:
        return 0
    if mode == 3 and cdiv(k_slice, 64) < NARROW_KT_SPLIT:  # level 3 (the default): split slices >= 8 k-tiles
        return 0
    return wa | wb << 8


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [(d.shape, d.dtype) for d in gemm_draws(n, seed)]


def test_knob_range():
    for ok in range(4):
        with _testing.knobs(gemm16_narrow_async=ok):
            assert _testing.current()["gemm16_narrow_async"] == ok
    assert _testing.current()["gemm16_narrow_async"] == 1  # the default since session 45 (held-out seed 203: level 1 beat 3 on 4 of 4 moved draws)
    for bad in (-1, 4):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_narrow_async=bad):
                pass


def test_gate_against_model(lib):
    r = random.Random(3450)
    widths = (1, 2, 4, 8, 16, 32, 0)
    for _ in range(20000):
        args = (r.randint(-1, 4), r.randint(-1, 11), r.choice([0, 1, 63, 64, 65, 1023, 1024, 1025, r.randint(-5, 1 << 20)]),
                r.randint(-1, 40), r.choice(widths), r.choice(widths))
        assert lib.smk_gemm16_narrow(*args) == narrow_model(*args), args


def explain(shape, level, dtype="float16", layout="swizzle", variant=0):
    with _testing.knobs(gemm16_narrow_async=level):
        return smemkit.explain("gemm", shape, layout=layout, dtype=dtype, config=variant)


def narrow_shared_conflict_free(shape, level, layout="swizzle", variant=0):
    """Every narrow (4- / 8-byte) cp.async instruction of the plan at its STS ideal on the shared side (the
    pieces rotated by row, load_narrow.cuh piece_off); the LDGSTS counter adds the global side (session 46's
    rule), which no shared layout removes.  Returns how many narrow accesses it checked."""
    kw = {}
    if isinstance(layout, smemkit.Swizzle):
        layout, kw = "swizzle", {"swizzle": (layout.b, layout.m, layout.s)}
    with _testing.knobs(gemm16_narrow_async=level):
        plan = _testing.gemm_plan(shape, layout, config=variant, **kw)
    n = 0
    for name, w, kind, rep, addr, instr, src in plan["accesses"]:
        if "cp.async.ca" in name:
            wf, ideal = _C._bank_replay(np.ascontiguousarray(addr), w, "store")
            assert (wf == ideal).all(), (shape, name)
            n += 1
    return n


@pytest.mark.parametrize("seed", [3450, 3451])
def test_gate_and_explain_on_the_law(lib, seed):
    """Each draw with even K and N, one of them off 8: explain at level 1 names the narrow path exactly
    where the gate says for the chooser's (variant, slice, splits) as the plan replays it (each operand's
    own alignment, as launch_v0 asks); otherwise nothing moves.  Where it does, every narrow copy's
    shared side is conflict-free (the pieces rotated by row: the STS rule of the width at its ideal on
    every instruction); the LDGSTS rule adds only the global side (session 46: rows whose pieces share
    word positions of their lines), at most the four rows of a warp instruction."""
    moved = 0
    for shape, dtype in law(1500, seed):
        M, N, K = shape
        if K % 2 or N % 2 or (K % 8 == 0 and N % 8 == 0):
            continue
        e0, e1 = explain(shape, 0, dtype), explain(shape, 1, dtype)
        if e0.config.startswith("memory-bound"):
            assert e1.config == e0.config
            continue
        ch = Choice()
        # each operand's own alignment, as the launcher asks (explain replays it since session 45)
        lib.smk_gemm16_choose(M, N, K, SMS, int(K % 8 == 0), int(N % 8 == 0), ctypes.byref(ch))
        in_place = not ch.pad_a and not ch.pad_b
        n = narrow_model(1, ch.variant, ch.k_chunk if ch.splits > 1 else K, ch.splits, width(K), width(N)) \
            if in_place else 0
        if not n:
            assert e1.config == e0.config and e1.blocks == e0.blocks, shape
            continue
        moved += 1
        # the chooser's tile (the half tile / deep loads of gemm16_small / gemm16_staged give way to it)
        bm, bn = TILES[ch.variant][:2]
        split = f"; split K {ch.splits} x {ch.k_chunk}" if ch.splits > 1 else ""
        assert e1.config.startswith(f"{bm}x{bn}x64") and e1.config.endswith(
            (split + f"; cp.async A{width(K)} B{width(N)}")[:95 - len(e1.config)] if len(e1.config) == 95 else
            split + f"; cp.async A{width(K)} B{width(N)}"), (e0.config, e1.config)
        assert e1.blocks == cdiv(M, bm) * cdiv(N, bn) * ch.splits
        narrow = [a for a in e1.accesses if "cp.async.ca" in a.name]
        assert narrow and all(a.width in (4, 8) and a.wavefronts <= 4 * a.ideal for a in narrow), shape
        assert narrow_shared_conflict_free(shape, 1) == len(narrow)
    assert moved > 0


def ceil8(x):
    return -(-x // 8) * 8


@pytest.mark.parametrize("variant", NARROW_VARIANTS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_explain_forced_is_the_cp_async_plan_split(variant, layout):
    """Forced variants at level 2: the aligned kernel's plan on (M, ceil8(N), ceil8(K)) -- the same blocks,
    k-tiles and chunks in range -- with each copy of a narrow operand split into 16 / W W-byte pieces, and
    every other access (fragments, prefetch, zeros past K, epilogue) the same; the narrow copies' shared side
    conflict-free."""
    for shape in [(200, 90, 1002), (130, 260, 516), (70, 198, 334), (129, 64, 86), (257, 130, 64)]:
        M, N, K = shape
        wa, wb = width(K), width(N)
        e1 = explain(shape, 2, layout=layout, variant=variant)
        e0 = explain((M, ceil8(N), ceil8(K)), 0, layout=layout, variant=variant)
        assert e1.config == (e0.config + f"; cp.async A{wa} B{wb}")[:95] and e1.blocks == e0.blocks
        assert len(e1.accesses) == len(e0.accesses)
        for x, y in zip(e0.accesses, e1.accesses):
            w = wa if x.name.startswith("A-tile") else wb
            # B's last k-tile: rows K .. ceil8(K) - 1 are copied in the reference, zeroed here
            b_tail = K % 8 and x.name.startswith("B-tile") and "last k-tile" in x.name
            if "cp.async" in x.name and w in (4, 8):
                assert y.name == f"{x.name} [cp.async.ca {w} B x{16 // w}]", y.name
                assert (y.width, y.kind, y.instr) == (w, "store", x.instr)  # still LDGSTS (ncu, session 45)
                n = x.instructions * (16 // w)
                assert y.instructions <= n if b_tail else y.instructions == n, (x, y)
                assert y.wavefronts <= 4 * y.ideal, (x, y)  # the global side: at most the 4 rows
            elif b_tail:
                assert (y.name, y.width) == (x.name, x.width)
            else:
                assert (y.name, y.width, y.instructions, y.wavefronts) == (x.name, x.width, x.instructions,
                                                                          x.wavefronts), (x, y)
        assert narrow_shared_conflict_free(shape, 2, layout, variant) > 0  # the rotated pieces


# ---- GPU ------------------------------------------------------------------------------------------------

def _bits(d, dtype):
    return np.ascontiguousarray(d).view(np.uint16 if np.dtype(dtype).itemsize == 2 else np.uint32)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", FORCED, ids=["x".join(map(str, s)) for s in FORCED])
def test_forced_variants_bit_equal_and_within_bound(poison, shape, layout, dtype):
    """Every narrow tile forced at level 2 against level 0 (the staged loads): the same bits, the bound."""
    a, b, c, _, _ = operands(shape, dtype)
    for variant in NARROW_VARIANTS:
        got = []
        for level in (0, 2):
            with _testing.knobs(gemm16_narrow_async=level, gemm16_variant=variant, gemm16_kernel="mma",
                                gemm16_small=0, gemm16_staged=0):
                d = smemkit.gemm(a, b, layout=layout)
                check(d, shape, dtype, dtype, 1.0, 0.0)
                got.append(_bits(d, dtype))
                d = smemkit.gemm(a, b, c, alpha=-1.5, beta=0.75, layout=layout)
                check(d, shape, dtype, dtype, -1.5, 0.75)
                got.append(_bits(d, dtype))
        assert np.array_equal(got[0], got[2]) and np.array_equal(got[1], got[3]), f"variant {variant}"


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", V0, ids=["x".join(map(str, s)) for s in V0])
def test_variant0_split_and_unsplit(lib, poison, shape, layout, dtype):
    """Variant 0 at levels 0, 1, 2 on dense operands (A's rows K, B's N elements): within the bound, every
    element written, alpha / beta with C, float32 output."""
    M, N, K = shape
    a, b, c, _, _ = operands(shape, dtype)
    for level in (0, 1, 2):
        with _testing.knobs(gemm16_narrow_async=level, gemm16_kernel="mma"):
            d = smemkit.gemm(a, b, layout=layout)
            check(d, shape, dtype, dtype, 1.0, 0.0)
            d = smemkit.gemm(a, b, c, alpha=2.0, beta=-0.5, layout=layout)
            check(d, shape, dtype, dtype, 2.0, -0.5)
            d32 = smemkit.gemm(a, b, c.astype(np.float32), alpha=0.5, beta=-1.0, layout=layout,
                               out_dtype=np.float32)
            check(d32, shape, dtype, np.dtype(np.float32), 0.5, -1.0, c=c.astype(np.float32))


def test_v0_shapes_cover_split_and_unsplit(lib):
    """The V0 list holds split launches of every chooser tile the gate takes at level 1, and unsplit ones
    at level 2 (a_al, b_al as the launcher sees dense operands)."""
    kinds = {1: set(), 2: set()}
    for M, N, K in V0:
        ch = Choice()
        lib.smk_gemm16_choose(M, N, K, SMS, int(K % 8 == 0), int(N % 8 == 0), ctypes.byref(ch))
        wa = 16 if ch.pad_a else width(K)
        wb = 16 if ch.pad_b else width(N)
        for level in (1, 2):
            if narrow_model(level, ch.variant, ch.k_chunk if ch.splits > 1 else K, ch.splits, wa, wb):
                kinds[level].add((ch.variant, ch.splits > 1))
    assert {v for v, split in kinds[1] if split} == {1, 6, 8, 9}, kinds
    assert (9, False) in kinds[2], kinds


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("how", ["pitch4", "pitch2", "base4", "base2", "odd"])
def test_device_views(poison, torch, how, layout, dtype, rng):
    """torch views: pitch % 8 == 4 (8-byte rows), == 2 / 6 (4-byte), base 4 / 2 bytes off 16 on an
    aligned pitch, and a 2-byte view (the staged path): level 2 forced variants 1 and 9 and variant 0 at
    level 1 within the bound, bit-equal to level 0 for the forced ones."""
    M, N, K = 150, 140, 1300
    extra = {"pitch4": (4, 0), "pitch2": (2, 0), "base4": (8, 2), "base2": (8, 1), "odd": (5, 3)}[how]

    def make(rows, cols):
        pitch = cols + extra[0] if how.startswith("pitch") or how == "odd" else (cols + 7) // 8 * 8 + 8
        big = rng.uniform(-1, 1, (rows, pitch)).astype(dtype)
        return big, (lambda x: x[:, extra[1]:extra[1] + cols])
    (a_big, a_cut), (b_big, b_cut), (c_big, c_cut) = make(M, K), make(K, N), make(M, N)
    a, b, c = a_cut(a_big), b_cut(b_big), c_cut(c_big)
    da, db, dc = a_cut(_to_torch(a_big, torch)), b_cut(_to_torch(b_big, torch)), c_cut(_to_torch(c_big, torch))
    for variant, levels in ((1, (0, 2)), (9, (0, 2)), (0, (0, 1))):
        got = []
        for level in levels:
            with _testing.knobs(gemm16_narrow_async=level, gemm16_variant=variant, gemm16_kernel="mma",
                                gemm16_small=0, gemm16_staged=0):
                d = smemkit.gemm(da, db, layout=layout)
                d64 = _from_torch(d, np.dtype(dtype))
                _check_views(d64.astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))
                got.append(_bits(d64, dtype))
                d = smemkit.gemm(da, db, dc, alpha=0.5, beta=1.5, layout=layout)
                _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, c, 0.5, 1.5, np.dtype(dtype))
        if variant:
            assert np.array_equal(got[0], got[1]), f"variant {variant}"
