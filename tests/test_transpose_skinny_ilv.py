"""Mode 14 of the knob transpose_skinny (session 58, issue 26; the default): case A (rows = S <= 16 <= cols) of 1- and
2-byte matrices on csrc/transpose/ilv.cu's interleave: a lane builds the 16 S output bytes of 16 / esz columns from
16 bytes of each row with byte permutes, stages them through a layout.h tile of 16-byte units and stores whole
16-byte chunks (csrc/transpose/skinny_ilv.h).  CPU: the choice, the staging tile's maps (conflict-free stores and
loads for pad on S = 2^k and every odd S, for swizzle on every S; naive S = 8 / 16 8-way), the plan against an
independent replay.  GPU: bit-exact against NumPy on every S and width, odd long sides, partial warps, batches whose
outputs start off 16 bytes, device views (odd bases, strided rows and matrices, out= inside a 0xFF buffer), NumPy
views, fp16 specials, and modes 13 / 14 agreeing."""
import numpy as np
import pytest

import smemkit
from smemkit import bank_model
from _shared import check_device_views, check_fp16_specials, check_host_views, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped

LAYOUTS = ["naive", "pad", "swizzle"]
WARPS = 4


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def ctz(s):
    return (s & -s).bit_length() - 1


def log2_cols(layout, s):
    """skinny_ilv.h ilv_log2_cols, retyped from its comment's rule."""
    if layout == "swizzle":
        return ctz(s)
    if layout == "pad":
        if s % 2:
            return (WARPS * 32 * s - 1).bit_length()
        return max(ctz(s), 3) if s & (s - 1) == 0 else ctz(s)
    return 0


def unit(layout, s, q):
    """layout.h's map of 16-byte unit q (smk_tile_linear of a tile of 16-byte elements, vec 1), in numpy."""
    q = np.asarray(q)
    lc = log2_cols(layout, s)
    if layout == "pad":
        return q + (q >> lc)
    if layout == "swizzle":
        b = min(lc, 3)
        sh = lc if lc >= 3 else 3
        return q ^ ((q & (((1 << b) - 1) << sh)) >> sh) if b else q
    return q


def warp_accesses(layout, s, w):
    """Warp w's S chunk stores (lane l's chunk i at unit 32 S w + S l + i) and S in-order loads, byte addresses."""
    lanes = np.arange(32)
    st = np.array([16 * unit(layout, s, 32 * s * w + s * lanes + i) for i in range(s)])
    ld = np.array([16 * unit(layout, s, 32 * s * w + 32 * k + lanes) for k in range(s)])
    return st, ld


# ---- CPU: the choice and the maps --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "float32"])
def test_ilv_choice(dtype, set_knobs):
    """Mode 14 sends case A of 2 <= S <= 16 (1- and 2-byte) to the interleave and every other shape where mode 13 does."""
    esz = np.dtype(dtype).itemsize
    for s in range(1, 40):
        for shape in [(s, 4099 + 2 * s), (s, 40000 + s), (s, s), (3, s, 999), (4099, s)]:
            set_knobs(transpose_skinny=13)
            old = config(shape, dtype)
            set_knobs(transpose_skinny=14)
            new = config(shape, dtype)
            ilv = esz <= 2 and 2 <= shape[-2] <= 16 and shape[-2] <= shape[-1]
            assert new.startswith("skinny-ilv ") if ilv else new == old, (shape, dtype, old, new)


@pytest.mark.parametrize("s", range(1, 17))
def test_ilv_maps_are_conflict_free(s):
    """The bank model on every warp's accesses: swizzle never conflicts; pad not on S = 2^k or odd S and at most 2-way
    on the loads elsewhere; naive conflicts where S is even (8-way stores at S = 8, 16: the A/B's point)."""
    for w in range(WARPS):
        got = {}
        for layout in LAYOUTS:
            st, ld = warp_accesses(layout, s, w)
            got[layout] = (bank_model.replay(st, 16, "store")[0].sum(), bank_model.replay(ld, 16, "load")[0].sum())
        ideal = 4 * s
        assert got["swizzle"] == (ideal, ideal)
        assert got["naive"] == ((1 << min(ctz(s), 3)) * ideal, ideal)
        if s % 2 or s & (s - 1) == 0:
            assert got["pad"] == (ideal, ideal)
        else:
            assert got["pad"][0] == ideal and got["pad"][1] <= 2 * ideal


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(2, 9999), (5, 412893), (9, 41374), (16, 513), (7, 17), (3, 5, 9001), (27, 7, 8706),
                                   (16, 16, 16), (19, 10, 5349)], ids=lambda s: "x".join(map(str, s)))
def test_ilv_plan_is_the_replay(layout, dtype, shape):
    """explain()'s instructions and wavefronts are this file's replay: per matrix (heads on a fresh output) every warp's
    S stores, a whole warp's S loads, the last warp's loads of the units holding its bytes only."""
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.config.startswith("skinny-ilv ")
    esz = np.dtype(dtype).itemsize
    batch, s, n = (1, *shape) if len(shape) == 2 else shape
    cw = 32 * 16 // esz
    want = {"store": [0, 0], "load": [0, 0]}

    def add(kind, a):
        want[kind][0] += len(a)
        want[kind][1] += int(bank_model.replay(a, 16, kind)[0].sum())

    for b in range(batch):
        h = next(h for h in range(16) if (b * s * n * esz + h * s * esz) % 16 == 0)
        body = max(n - h, 0)
        for v in range(-(-body // cw)):
            st, ld = warp_accesses(layout, s, v % WARPS)
            add("store", st)
            nbytes = min(body - v * cw, cw) * s * esz
            add("load", np.array([np.where(16 * (32 * k + np.arange(32)) < nbytes, row, -1)
                                  for k, row in enumerate(ld) if 512 * k < nbytes]))
    got = {"store": [0, 0], "load": [0, 0]}
    for a in e.accesses:
        kind = "store" if "store" in a.name else "load"
        got[kind][0] += a.instructions
        got[kind][1] += a.wavefronts
    assert got == want
    assert e.blocks == batch * -(-n // (WARPS * cw))


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_ilv_every_short_side(layout, dtype, rng, poison):
    """Every S in 2..16 (the default mode): long sides of whole warps, odd ones, one partial warp, S = cols."""
    for s in range(2, 17):
        for shape in [(s, 4096), (s, 4099 + 2 * s), (s, 40000 + s), (s, 17), (s, s + 1), (s, s)]:
            assert config(shape, dtype, layout).startswith("skinny-ilv "), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool"])
@pytest.mark.parametrize("shape", [(5, 4128923), (9, 902362), (3, 2698105), (16, 65537), (11, 1241673), (2, 58757),
                                   (52, 9, 41374), (27, 7, 87006), (59, 5, 13211), (38, 9, 12112), (3, 16, 4097),
                                   (5, 6, 1001), (64, 2, 333), (4, 13, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_ilv_bit_exact(layout, dtype, shape, rng, poison):
    """The law's worst case-A draws of sessions 56-57 (cut), batches whose matrices' outputs start off 16 bytes (their
    heads), NaN payloads as bits."""
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_ilv_fp16_specials(layout, poison):
    check_fp16_specials(layout, (2, 3, 7, 8, 16))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "row-slice", "batch-step", "padded-cols", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [2, 3, 5, 8, 13, 16])
def test_ilv_device_views(layout, dtype, view, short, rng, torch):
    """torch views: an input base off by one element (every row off 16 bytes by its own amount), every other
    row, every other matrix, padded rows; out= off by 1 / 3 elements inside a 0xFF buffer (S esz even there: the
    lean kernel's, the launcher's rule)."""
    check_device_views(torch, rng, layout, dtype, view, short)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("short", [2, 7, 16])
def test_ilv_host_views(layout, dtype, short, rng, poison):
    check_host_views(rng, layout, dtype, short)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(9, 41374), (16, 77777), (5, 7, 9999), (13, 3, 4097)], ids=lambda s: "x".join(map(str, s)))
def test_ilv_modes_agree(dtype, shape, rng, set_knobs):
    """Mode 14 bit-equal to mode 13 (skinny_lean) and NumPy, every layout."""
    check_modes_agree(set_knobs, random_bits(shape, np_dtype(dtype), rng), 13, (14,))
