"""Mode 5 of the knob transpose_skinny (session 40, issue 26): case A (rows <= cols) of the skinny sub-word class,
S = rows <= 64, with rows * esz off words (and word-multiple rows on an output off a word) on
skinny_prmt_a_kernel<.., false> in place of skinny_vec.cuh (configs.h's skinny_narrow_a_fits).

CPU: the choice per knob value, on 3000 draws of bench/timing/draws.py's law (mode 5 moves exactly the class, every
other draw keeps mode 3's path), the plan (tile, smem, the F element stores a bijection onto the run, S = 1's
opt-in size), the Python replay of the kernel's phases (test_transpose_skinny_prmt.py's replay_a) for every
layout, odd bases, batches, and plan == replay.  GPU (marked): bit-exact against NumPy at mode 5 for every S of
the class, both widths (and int16 / bool / bfloat16 as bits), batches, views (odd offsets, strided and
negative-stride inputs, out= inside a 0xFF buffer), NaN payloads and -0.0, and modes 3 / 5 agreeing.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from _shared import check_device_views, check_fp16_specials, check_host_views, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_prmt import SUBWORD, config, fbytes, replay_a, rrows
from test_transpose_skinny_vec import THREADS, lt_of
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _vectors_on_the_kernels():
    """This module's 1 x n and n x 1 shapes test the skinny kernels (strided vectors still take them): the copy
    route (knob transpose_copy, tests/test_transpose_copy.py) off."""
    with _knobs(transpose_copy=0):
        yield


LAYOUTS = smemkit.LAYOUTS
NARROW = [1, 2, 3, 5, 7, 13, 31, 33, 63]
LONG = [1, 2, 999, 4097, 16385, 40001]


def a_config(shape, esz):
    S, long_ = shape[-2], shape[-1]
    return f"skinny-prmt {S}x{1 << lt_of(S, long_, esz)} tile, {THREADS} threads, {esz}-byte elements"


def in_class(shape, esz):
    rows, cols = shape[-2:]
    return esz <= 2 and rows <= cols and rows <= 64 and rows * esz % 4 != 0


# ---- CPU: the choice ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool"])
def test_narrow_choice(dtype, set_knobs):
    esz = np.dtype(dtype).itemsize
    shapes = [(s, n) for s in NARROW + [4, 6, 36, 64] for n in LONG if s <= n]
    for sh in shapes:
        set_knobs(transpose_skinny=3)
        was = config(sh, dtype)
        set_knobs(transpose_skinny=5)
        now = config(sh, dtype)
        if in_class(sh, esz):
            assert was.startswith("skinny-vec ") and now == a_config(sh, esz), sh
        else:
            assert now == was, sh
        set_knobs(transpose_skinny=4)
        assert config(sh, dtype) == was, sh  # mode 4 leaves S <= 64 as mode 3
    set_knobs(transpose_skinny=5)
    for sh in [(10**5, 31), (10**5, 3), (64, 10**5)]:  # case B / on words: mode 3's skinny-prmt
        assert config(sh, dtype).startswith("skinny-prmt "), sh
    for sh in [(65, 10**5), (77, 3001), (10**5, 77)]:  # the wide class is mode 4's alone
        assert not config(sh, dtype).startswith("skinny"), sh
    for wider in ["float32", "float64"]:
        assert config((31, 10**5), wider).startswith("skinny "), wider


def class_of_draws(seeds, n):
    """(draw, path at mode 3, path at mode 5) over n draws a seed of #26's law."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    from smemkit import _testing
    out = []
    for seed in seeds:
        for d in transpose_draws(n, seed):
            got = []
            for mode in (3, 5):
                with _testing.knobs(transpose_skinny=mode):
                    got.append(smemkit.explain("transpose", d.shape, "pad", d.dtype).config)
            out.append((d, *got))
    return out


def test_narrow_choice_on_draws():
    """3000 draws of #26's law (2-D and batched, seeds 3000 / 3001): mode 5 moves exactly the class (1- and
    2-byte, rows <= cols, rows <= 64, rows * esz off words) from skinny-vec to skinny-prmt and leaves every other
    draw's path as mode 3's (a fresh output is on a word: the on-word rows keep <.., true>)."""
    seen = 0
    for d, was, now in class_of_draws((3000, 3001), 1500):
        if in_class(d.shape, d.itemsize):
            seen += 1
            assert was.startswith("skinny-vec ") and now == a_config(d.shape, d.itemsize), d
        else:
            assert now == was, d
    assert seen >= 100  # 153 of 3000 (5.1%) on these seeds


# ---- CPU: the plan ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 40001), (1, 7), (2, 9999), (3, 4097), (5, 333), (7, 24744), (13, 16385),
                                   (31, 2943), (33, 999), (63, 1025), (63, 64)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_narrow_plan(layout, esz, shape, set_knobs):
    """Tile, blocks, smem (S = 1: over 48 KB, opted in, 3 blocks an SM), every access in the buffers, the F
    element stores one per element of the run, the R stores distinct, the F element stores conflict-free in
    every layout for odd S (2-way for S = 2 mod 4: lanes S words apart)."""
    rows, cols = shape
    if rows * esz % 4 == 0:
        pytest.skip("on words: mode 3's <.., true>")
    set_knobs(transpose_skinny=5)
    S, L = shape
    lt = lt_of(S, L, esz)
    lw, T = lt + (esz == 2) - 2, 1 << lt
    dtype = "uint8" if esz == 1 else "float16"
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.config == a_config(shape, esz) and e.blocks == -(-L // T)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    f0, W = fbytes(layout, S, lt, esz, True), 1 << lw
    assert plan["smem_bytes"] == f0 + 4 * rrows(S, lw, 1) * (W + (layout == "pad"))
    assert plan["smem_bytes"] <= (48 if S > 1 else 66) * 1024 and 3 * (plan["smem_bytes"] + 1024) <= 228 * 1024
    for is_last in (False, True):
        acc = {a[0].replace(" (last block)", ""): a for a in plan["accesses"] if a[0].endswith("(last block)") == is_last}
        if not acc:
            continue
        n = L % T if is_last else T
        addr = {k: (lambda v: v[v >= 0])(a[4].reshape(-1)) for k, a in acc.items()}
        assert all(np.all(v < plan["smem_bytes"]) for v in addr.values())
        rst, fst = addr["skinny-prmt run store"], addr["skinny-prmt flat store"]
        assert len(set(rst.tolist())) == len(rst)
        assert acc["skinny-prmt flat store"][1] == esz
        assert len(set(fst.tolist())) == len(fst) == T * S and np.all(fst < f0)  # every unit, tile-wide
        assert len(addr["skinny-prmt flat load"]) == -(-n * S * esz // 4)
    for a in e.accesses:  # F in one row (skinny_prmt_fgeometry): naive's banks in every layout
        if "flat store" in a.name and S & (S - 1):
            assert a.wavefronts <= (1 if S % 2 else 2) * a.instructions, a


# ---- CPU: the kernel's phases, replayed -----------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 300), (2, 77), (3, 301), (5, 150), (7, 99), (13, 257), (31, 130), (33, 67),
                                   (63, 70)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_narrow_index_replay(layout, esz, shape):
    """Two matrices (the second off a word when S * cols * esz is), input and output bases off words."""
    if shape[0] * esz % 4 == 0:
        pytest.skip("on words: mode 3's <.., true>")
    rng = np.random.default_rng(40)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=(2,) + shape).astype(dt)
    for ioff, ooff in [(0, 0), (esz, 0), (0, esz), (3 * esz % 4 or 2, 2 * esz % 4 or esz)]:
        mem = bytearray(b"\xee" * (2 * a.nbytes + 64))
        ib, ob = 8 + ioff, 24 + a.nbytes + (-(24 + a.nbytes)) % 4 + ooff
        mem[ib:ib + a.nbytes] = a.tobytes()
        replay_a(mem, ib, ob, *shape, 2, esz, layout, rng)
        out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=dt).reshape(2, shape[1], shape[0])
        assert np.array_equal(out, swapped(a)), (ioff, ooff)
        assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 300), (3, 301), (7, 99), (31, 130), (63, 70)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_narrow_plan_is_the_replay(layout, esz, shape, set_knobs):
    """explain()'s plan (plan.cu) and the replay give the same shared addresses per access (first block)."""
    set_knobs(transpose_skinny=5)
    rng = np.random.default_rng(7)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=shape).astype(dt)
    mem = bytearray(2 * a.nbytes + 96)
    ib, ob = 16, 32 + (a.nbytes + 15) // 16 * 16
    mem[ib:ib + a.nbytes] = a.tobytes()
    rec = {}
    replay_a(mem, ib, ob, *shape, 1, esz, layout, rng, rec)
    last = shape[1] < 1 << lt_of(*shape, esz)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
           if a[0].endswith("(last block)") == last}
    assert set(got) == set(rec)
    for name, v in got.items():
        assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_narrow_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Every S <= 64 of the class, long sides odd and even, one and several tiles, a partial last tile."""
    set_knobs(transpose_skinny=5)
    esz = np.dtype(dtype).itemsize
    for s in range(1, 65):
        if s * esz % 4 == 0:
            continue
        for shape in [(s, 4099 + 2 * s), (s, 40000 + s), (s, s + 1)]:
            assert config(shape, dtype, layout) == a_config(shape, esz), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD + ["int16"])
@pytest.mark.parametrize("shape", [(34, 276261), (3, 2698105), (33, 250987), (1, 300007), (2, 58757), (7, 24744),
                                   (13, 133527), (31, 29435), (63, 4097), (5, 5), (1, 1)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_narrow_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """Seed 126's worst draws of the class (long sides cut), the ends of the S range; NaN payloads through
    random bits."""
    set_knobs(transpose_skinny=5)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_narrow_fp16_specials(layout, poison, set_knobs):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    set_knobs(transpose_skinny=5)
    check_fp16_specials(layout, (3, 7, 31))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(62, 31, 29435), (35, 18, 19678), (39, 7, 24744), (53, 3, 5833), (17, 18, 23177),
                                   (45, 3, 13417), (13, 7, 13352), (58, 2, 10356), (50, 11, 4599), (36, 6, 28870),
                                   (25, 13, 12184), (3, 1, 9999), (5, 63, 1001), (7, 33, 777), (4, 5, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_narrow_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Seed 126's worst batches (long sides cut): odd matrix sizes put each matrix's output off a word."""
    set_knobs(transpose_skinny=5)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "row-slice", "batch-step", "padded-cols", "out-offset", "out-offset-3"])
@pytest.mark.parametrize("short", [1, 3, 7, 13, 33, 63, 4, 36])
def test_narrow_device_views(layout, dtype, view, short, rng, torch, set_knobs):
    """torch views: input base off by one element, every other row (S halves), every other matrix, padded rows
    (in_rs > cols); out= off a word inside a 0xFF-filled buffer whose other bytes must stay 0xFF."""
    set_knobs(transpose_skinny=5)
    check_device_views(torch, rng, layout, dtype, view, short)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("short", [1, 3, 13, 33])
def test_narrow_host_views(layout, dtype, short, rng, poison, set_knobs):
    """NumPy views: rows reversed (a negative row stride), an odd column offset, every other row."""
    set_knobs(transpose_skinny=5)
    check_host_views(rng, layout, dtype, short)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(31, 21813), (1, 77777), (3, 40001), (63, 2589), (13, 7, 7777),
                                   (4, 33, 3001), (6, 7, 9999)], ids=lambda s: "x".join(map(str, s)))
def test_narrow_modes_agree(dtype, shape, rng, poison, set_knobs):
    """Mode 5 (skinny_prmt_a_kernel<.., false>) and mode 3 (skinny_vec) on the same tensors, every layout."""
    a = random_bits(shape, np_dtype(dtype), rng)
    check_modes_agree(set_knobs, a, 3, (5,))
