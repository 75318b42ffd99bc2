"""The word-wise skinny transpose (csrc/transpose/skinny_vec.cuh): 1- and 2-byte elements, short side <= 64.

CPU: the choice (configs.h's skinny_cap / skinny_vec_fits, seen through explain(), in each mode of the knob
transpose_skinny), the plan (tile, blocks, instructions, the buffer map a bijection on the flat phase and
the run phase covering exactly the flat bytes), and a Python replay of the kernel's index arithmetic on a
byte memory (misaligned pitches and bases, tails, batches) -- the same expressions as the kernel.
GPU (marked): bit-exact against NumPy for every width (the 4-, 8- and 16-byte ones through skinny.cuh and
the tiled kernel at the new caps), every layout, 1 x n and n x 1, short sides 33-64, odd pitches, bases
off by one element, batches, NaN payloads and -0.0, the old paths (knob) agreeing with the new.
"""
import numpy as np
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _vectors_on_the_kernels():
    """This module's 1 x n and n x 1 shapes test the skinny kernels (strided vectors still take them): the copy
    route (knob transpose_copy, tests/test_transpose_copy.py) off."""
    with _knobs(transpose_copy=0):
        yield


LAYOUTS = smemkit.LAYOUTS
THREADS, LOG2_BYTES, STEPS = 256, 14, 16  # skinny_vec.cuh: kVecThreads, kVecLog2Bytes, kVecSteps


def lt_of(rows, cols, esz):
    """skinny_vec_lt: log2 of the tile's long side, 2^14 bytes over the short side to a power of two."""
    ls = max(0, (min(rows, cols) - 1).bit_length())
    return LOG2_BYTES - ls - (esz.bit_length() - 1)


def vec_log2_cols(layout, s):
    """skinny_vec_geometry's row: 2^5 words, or the lanes' step 4*S bytes in words when that is longer, or 2^6 where
    skinny_vec_long_row says 2^5 folds the lanes together (S < 64: pad S = 31 k, swizzle S = 11 k and 31 k)."""
    m = max(0, (4 * s).bit_length() - 1 - 7)
    if m == 0 and s < 64 and ((layout == "pad" and s % 31 == 0) or (layout == "swizzle" and (s % 11 == 0 or s % 31 == 0))):
        m = 1
    return 5 + m


def slot(layout, x, s, esz, lc=None):
    """skinny_vec_slot: buffer byte x -> shared byte (words 2^lc to a row through layout.h: vec_log2_cols; lc given:
    skinny_prmt_fgeometry's narrow row)."""
    lc = vec_log2_cols(layout, s) if lc is None else lc
    w = x >> 2
    r, c = w >> lc, w & ((1 << lc) - 1)
    o = r * ((1 << lc) + 1) + c if layout == "pad" else (w ^ (r & 31)) if layout == "swizzle" else w
    return o * 4 + (x & 3)


def config(shape, dtype):
    return smemkit.explain("transpose", shape, "pad", dtype).config


# ---- CPU: the choice ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "bfloat16", "int16"])
def test_vec_choice(dtype, set_knobs):
    shapes = [(1, 1), (1, 10**6), (10**6, 1), (3, 2237203), (2237203, 3), (36, 2588866), (2588866, 36),
              (64, 10**5), (10**5, 64), (33, 33), (64, 64), (11, 218130)]
    for shape in shapes:  # the default (16): skinny_prmt where it fits, case A interleaved (S <= 16), lean or in strips,
        # case B of S <= 4 / 8 de-interleaved
        assert config(shape, dtype).startswith(("skinny-vec ", "skinny-prmt ", "skinny-lean ", "skinny-strip ",
                                                "skinny-ilv ", "skinny-dlv ")), shape
    assert config((2237203, 3), dtype).startswith("skinny-dlv ")  # case B of S <= 4 de-interleaved (mode 16)
    assert config((2237203, 9), dtype).startswith("skinny-prmt ")  # above 8: skinny_prmt
    set_knobs(transpose_skinny=2)
    for shape in shapes:
        assert config(shape, dtype).startswith("skinny-vec "), shape
    for shape in [(65, 10**5), (10**5, 65), (65, 65), (1000, 1000)]:
        assert "tile" in config(shape, dtype) and not config(shape, dtype).startswith("skinny"), shape


@pytest.mark.parametrize("dtype,cap", [("float32", 32), ("float64", 32), ("complex128", 16)])
def test_wider_elements_unchanged(dtype, cap):
    assert config((cap, 10**5), dtype).startswith("skinny ") and config((10**5, cap), dtype).startswith("skinny ")
    above = config((cap + 1, 10**5), dtype)  # 4- and 8-byte: the flat skinny kernel to 128 (test_transpose_flat.py)
    assert above.startswith("skinny-flat ") if cap == 32 else not above.startswith("skinny")
    assert not config((129, 10**5), dtype).startswith("skinny")


def test_knob_modes(set_knobs):
    shape = (2237203, 3)
    set_knobs(transpose_skinny=1)
    assert config(shape, "float16").startswith("skinny 1024x4 ")  # skinny.cuh: 8 KB tile, S to 4
    assert not config((36, 10**5), "float16").startswith("skinny")  # above 32: tiled, as before
    set_knobs(transpose_skinny=0)
    assert not config(shape, "float16").startswith("skinny")
    set_knobs(transpose_skinny=2)
    assert config(shape, "float16").startswith("skinny-vec 2048x3 ")
    smemkit._C._set_knob("transpose_skinny", 4)  # the wide class (tests/test_transpose_skinny_wide.py)
    smemkit._C._set_knob("transpose_skinny", 5)  # the narrow case A (tests/test_transpose_skinny_narrow.py)
    smemkit._C._set_knob("transpose_skinny", 6)  # mode 4 up to S = 128 (tests/test_transpose_skinny_wide.py)
    smemkit._C._set_knob("transpose_skinny", 7)  # the default: 6 for 2-byte rows > cols
    smemkit._C._set_knob("transpose_skinny", 8)  # 7 and the lean case A (tests/test_transpose_skinny_lean.py)
    smemkit._C._set_knob("transpose_skinny", 9)  # 8 where 7 runs skinny_vec only
    smemkit._C._set_knob("transpose_skinny", 10)  # 8 and the strips (tests/test_transpose_skinny_strip.py)
    smemkit._C._set_knob("transpose_skinny", 11)  # 10 with uint8 S <= 84, session 44's default
    smemkit._C._set_knob("transpose_skinny", 12)  # 11 and case B strips (tests/test_transpose_skinny_strip_b.py)
    smemkit._C._set_knob("transpose_skinny", 13)  # 11 with 2-byte case B S = 65..128 tiled, session 54's default
    smemkit._C._set_knob("transpose_skinny", 14)  # 13 and case A S <= 16 interleaved (ilv.cu), session 58's default
    smemkit._C._set_knob("transpose_skinny", 15)  # 14 and fp16 strips S = 65..84, 129..144 (session 61)
    smemkit._C._set_knob("transpose_skinny", 16)  # 15 and case B S <= 4 / 8 de-interleaved, the default since session 61
    smemkit._C._set_knob("transpose_skinny", 7)
    with pytest.raises(ValueError):
        smemkit._C._set_knob("transpose_skinny", 17)


# ---- CPU: the plan --------------------------------------------------------------------------------------

SHAPES = [(1, 9), (9, 1), (3, 9999), (9999, 3), (11, 218130), (218130, 11), (36, 2588866), (2588866, 36),
          (33, 500), (500, 33), (64, 1001), (1001, 64), (16, 4096), (4096, 16), (32, 777), (777, 32)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype,esz", [("uint8", 1), ("float16", 2)])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_vec_plan(layout, dtype, esz, shape, set_knobs):
    set_knobs(transpose_skinny=2)  # skinny_vec's own plan (the default takes skinny_prmt where it fits)
    rows, cols = shape
    s, lt = min(shape), lt_of(rows, cols, esz)
    e = smemkit.explain("transpose", shape, layout, dtype)
    tile = f"{s}x{1 << lt}" if rows <= cols else f"{1 << lt}x{s}"
    assert e.config == f"skinny-vec {tile} tile, {THREADS} threads, {esz}-byte elements"
    long_ = cols if rows <= cols else rows
    assert e.blocks == -(-long_ // (1 << lt))
    names = [a.name for a in e.accesses]
    whole = (["skinny-vec run scatter", "skinny-vec flat load"] if rows <= cols
             else ["skinny-vec flat store", "skinny-vec run gather"])
    assert names[:2] == whole or long_ < (1 << lt) and names[0].endswith("(last block)"), names
    # the blocks of a whole tile, then the last one (its own accesses, " (last block)"), each as often as
    # such blocks run; a word the block's end cuts moves element by element ("cut word")
    full, last = long_ // (1 << lt), int(long_ % (1 << lt) != 0)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    assert all(a[3] == (last if a[0].endswith("(last block)") else full) for a in plan["accesses"])
    for flat in [a for a in e.accesses if "flat" in a.name]:  # consecutive words: conflict-free
        assert flat.width == (esz if "cut word" in flat.name else 4) and flat.excess == 0
    if layout == "swizzle" and s & (s - 1) == 0:
        run = e.accesses[0] if rows <= cols else e.accesses[1]
        # power-of-two S: the XOR spreads the lanes' rows (the tail words of misaligned runs, one lane a
        # run, may still meet: 8 of 2072 instructions 2-way at 64 x 1001)
        assert run.excess <= 0.01 * run.instructions, run
    many = smemkit.explain("transpose", (5,) + shape, layout, dtype)
    assert many.blocks == 5 * e.blocks and many.total() == 5 * e.total()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_vec_plan_bijection(layout, esz, shape, set_knobs):
    """Per block class (a whole tile; the last, partial block): the flat phase covers every byte of the
    block's buffer once -- whole words, and a word the block's end cuts element by element -- at the
    shared bytes the layout map gives; the run phase touches exactly those bytes, every element once."""
    set_knobs(transpose_skinny=2)  # skinny_vec's own plan
    rows, cols = shape
    S, lt = min(shape), lt_of(rows, cols, esz)
    long_ = cols if rows <= cols else rows
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    for last in (False, True):
        acc = [a for a in plan["accesses"] if a[0].endswith("(last block)") == last]
        n = long_ % (1 << lt) if last else 1 << lt
        if not acc:
            assert (n == 0) if last else long_ < (1 << lt)
            continue
        flat_bytes, run_bytes = [], []
        for name, width, _, _, addr in (a[:5] for a in acc):
            v = addr.reshape(-1)
            v = v[v >= 0]
            if "flat" in name:
                assert np.all(v % width == 0)
                flat_bytes += [int(x) + i for x in v for i in range(width)]
            else:
                assert width == esz
                run_bytes += [int(x) + i for x in v for i in range(esz)]
        assert len(set(flat_bytes)) == len(flat_bytes) == n * S * esz
        assert len(set(run_bytes)) == len(run_bytes) and sorted(run_bytes) == sorted(flat_bytes)
        want = [slot(layout, x // 4 * 4, S, esz) + x % 4 for x in range(n * S * esz)]
        assert sorted(want) == sorted(flat_bytes)
        assert max(flat_bytes) < plan["smem_bytes"]


def run_ways(layout, s, lc):
    """The run phase's worst bank ways: 32 lanes S words apart from every start word of a row of 2^lc words."""
    worst = 0
    for o in range(1 << lc):
        words = {slot(layout, 4 * (o + i * s), s, 1, lc) // 4 for i in range(32)}
        worst = max(worst, max(np.bincount([w % 32 for w in words], minlength=32)))
    return worst


@pytest.mark.parametrize("layout", ["pad", "swizzle"])
def test_vec_long_rows(layout):
    """skinny_vec_geometry's 2^6-word rows (session 56) go where 2^5 words put the run phase's lanes in 7 or more
    ways of a bank (pad: S = 31, 62 at 32 / 16 ways; swizzle: 11 k and 31 k, up to 32), and take them to 4 or
    fewer; every other S keeps its 2^5 (or 2^(5+m)) words, at 5 ways or fewer."""
    for s in range(1, 64):
        lc = vec_log2_cols(layout, s)
        if lc == 6:
            assert run_ways(layout, s, 5) >= 7 and run_ways(layout, s, 6) <= 4, s
        else:
            assert lc == 5 and run_ways(layout, s, 5) <= 5, s


@pytest.mark.parametrize("layout", ["pad", "swizzle"])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_vec_family_ways(layout, dtype):
    """explain() over the skinny kernels of every short side S = 1..64 (both cases, a batch): no shared access of a
    conflict-free layout over 6 ways (before session 56: 32 at S = 31 in pad, S = 31 / 33 in swizzle)."""
    for s in range(1, 65):
        for shape in [(100003, s), (s, 100003), (3, 20001, s)]:
            e = smemkit.explain("transpose", shape, layout, dtype)
            assert max(a.worst_ways for a in e.accesses) <= 6, (shape, e.config)


# ---- CPU: the kernel's index arithmetic, replayed -------------------------------------------------------

def replay(mem, ib, ob, rows, cols, batch, esz, layout):
    """skinny_vec_kernel, thread by thread, on a bytearray (input C-contiguous at ib, output at ob)."""
    E, S, lt = 4 // esz, min(rows, cols), lt_of(rows, cols, esz)
    runs_in = rows <= cols
    n_long = cols if runs_in else rows
    lw = lt + (esz == 2) - 2
    for b in range(batch):
        for tile in range(-(-n_long // (1 << lt))):
            p0 = tile << lt
            n = min(n_long - p0, 1 << lt)
            nb, mat = n * esz, b * rows * cols
            rbase, rp = (ib + (mat + p0) * esz, cols * esz) if runs_in else (ob + (mat + p0) * esz, rows * esz)
            fb = ob + (mat + p0 * S) * esz if runs_in else ib + (mat + p0 * cols) * esz
            mis = fb & 3
            fend, fa, smem = mis + n * S * esz, fb - mis, bytearray(1 << 15)
            words = []  # (global word, run byte of its byte 0, buffer byte of its element 0)
            for t in range(THREADS):
                for k in range(STEPS + 1):
                    q = t + k * THREADS
                    s, j = (q >> lw, q & ((1 << lw) - 1)) if k < STEPS else (t, 1 << lw)
                    ra = rbase + s * rp
                    ro0 = 4 * j - (ra & 3)
                    if s < S and ro0 < nb:
                        words.append((ra - (ra & 3) + 4 * j, ro0, mis + s * esz + ro0 // esz * S * esz))
            elems = [(g + e * esz, slot(layout, x0 + e * S * esz, S, esz)) for g, ro0, x0 in words for e in range(E)
                     if 0 <= ro0 + e * esz < nb]
            flat = [(fa + x, slot(layout, x, S, esz)) for x in range(mis, fend, esz)]
            src, dst = (elems, flat) if runs_in else (flat, elems)
            for g, sl in src:
                smem[sl:sl + esz] = mem[g:g + esz]
            for g, sl in dst:
                mem[g:g + esz] = smem[sl:sl + esz]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(1, 9), (9, 1), (3, 1001), (1001, 3), (37, 777), (777, 37), (64, 257),
                                   (257, 64), (2, 9000), (9000, 2), (1, 17000), (17000, 1)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_vec_index_replay(layout, esz, shape):
    rng = np.random.default_rng(26)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=(2,) + shape).astype(dt)
    for ioff, ooff in [(0, 0), (esz, 3 * esz % 4 or 2)]:
        mem = bytearray(b"\xee" * (2 * a.nbytes + 64))
        ib, ob = 8 + ioff, 24 + a.nbytes + ooff
        mem[ib:ib + a.nbytes] = a.tobytes()
        replay(mem, ib, ob, *shape, 2, esz, layout)
        out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=dt).reshape(2, shape[1], shape[0])
        assert np.array_equal(out, swapped(a)), (ioff, ooff)
        assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE


# ---- GPU: bit-exact ------------------------------------------------------------------------------------

GPU_SHAPES = [(1, 1), (1, 7919), (7919, 1), (1, 40001), (40001, 1), (2, 58757), (58757, 2), (3, 20001),
              (20001, 3), (11, 21813), (21813, 11), (32, 4099), (4099, 32), (33, 3001), (3001, 33), (36, 25889),
              (25889, 36), (47, 999), (999, 47), (63, 4097), (4097, 63), (64, 1025), (1025, 64), (5, 3), (64, 64)]
ALL = ["uint8", "bool", "int8", "float16", "bfloat16", "int16", "float32", "float64", "complex128"]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", GPU_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_vec_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape", [(60, 11, 2181), (60, 2181, 11), (3, 36, 10001), (3, 10001, 36), (64, 3, 5),
                                   (7, 1, 999), (7, 999, 1), (70000, 3, 2), (2, 64, 4097)],
                         ids=lambda s: "x".join(map(str, s)))
def test_vec_batches(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "offset-1-T", "row-slice", "batch-step", "padded-rows"])
@pytest.mark.parametrize("short", [3, 13, 36, 64])
def test_vec_device_views(layout, dtype, view, short, rng, poison, torch):
    """Bases off by one element (so off a word for 1- and 2-byte elements), strided inputs (which take
    skinny.cuh or the tiled kernel), on device tensors."""
    n = 3 * 4099 * short
    flat = random_bits((n + 1,), np.dtype(dtype), rng)
    x = torch.from_numpy(flat).cuda()
    xs, bs = x[1:].view(3, 4099, short), flat[1:].reshape(3, 4099, short)
    xv, bv = {"offset-1": (xs, bs), "offset-1-T": (xs.mT.contiguous(), swapped(bs).copy()),
              "row-slice": (xs[:, ::2], bs[:, ::2]), "batch-step": (xs[::2], bs[::2]),
              "padded-rows": (xs[:, :, : short - 1], bs[:, :, : short - 1])}[view]
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("shape", [(11, 21813), (21813, 11), (36, 2589), (2589, 36), (1, 5000), (5000, 1)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_vec_modes_agree(mode, dtype, shape, rng, poison, set_knobs):
    set_knobs(transpose_skinny=mode)
    a = random_bits(shape, np_dtype(dtype), rng)
    for layout in LAYOUTS:
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)
