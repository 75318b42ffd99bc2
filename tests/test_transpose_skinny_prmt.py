"""The register-transpose skinny kernel (csrc/transpose/skinny_prmt.cuh): rows > cols, 1- and 2-byte elements,
S = cols <= 64, input rows packed; knob transpose_skinny = 3 (the default 2 keeps skinny_vec.cuh).

CPU: the choice (configs.h's skinny_prmt_fits through explain(), per knob value), the plan (tile, blocks,
accesses, buffers in bounds, the R stores a bijection onto the R words the run loads read, conflict-free
F stores and R accesses), and a Python replay of the kernel's three phases on a byte memory -- the same
expressions as the kernel, garbage in the shared buffers -- for every layout, odd bases, odd matrix
strides in a batch, S = 1..64.
GPU (marked): bit-exact against NumPy at knob 3 for every layout, S = 1..64, tails, n x 1, batches, bases
off by one element, NaN payloads and -0.0, and knob 2 / 3 agreeing on the same tensors.
"""
import numpy as np
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_vec import THREADS, STEPS, lt_of, slot, vec_log2_cols
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _vectors_on_the_kernels():
    """This module's 1 x n and n x 1 shapes test the skinny kernels (strided vectors still take them): the copy
    route (knob transpose_copy, tests/test_transpose_copy.py) off."""
    with _knobs(transpose_copy=0):
        yield


LAYOUTS = smemkit.LAYOUTS


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def narrow_f(s, esz, runs_in=True):
    """skinny_prmt_narrow_f: case A's narrow element-store class (S <= 64 not a power of two, S * esz off words)
    keeps F in one row of 2^12 words."""
    return bool(runs_in and s <= 64 and s * esz % 4 and s & (s - 1))


def flc(layout, s, esz, runs_in=False):
    """log2 words of an F row (skinny_prmt_fgeometry): skinny_vec's, or 12 for the narrow class."""
    return 12 if narrow_f(s, esz, runs_in) else vec_log2_cols(layout, s)


def fbytes(layout, s, lt, esz, runs_in=False):
    """skinny_prmt_fbytes: F's words (the tile, one word of misalignment, one for the funnel) in F's map."""
    lc = flc(layout, s, esz, runs_in)
    words = ((s << lt) * esz + 3) // 4 + 2
    rows = -(-words // (1 << lc))
    return rows * ((1 << lc) + (layout == "pad")) * 4


def rslot(layout, f0, lw, s, j, esz):
    """skinny_prmt_rslot: R word (s, j), 2^lw words a row, after F's bytes (lw = 4, mode 4's S' = 256:
    swizzle is Swizzle<5, 0, log2 E>, skinny_prmt_rgeometry)."""
    w = 1 << lw
    if layout == "swizzle" and lw == 4:
        sh = 2 if esz == 1 else 1
        o = s * w + j
        return f0 + 4 * (o ^ ((o & (31 << sh)) >> sh))
    o = s * (w + 1) + j if layout == "pad" else s * w + (j ^ (s & 31)) if layout == "swizzle" else s * w + j
    return f0 + 4 * o


def rrows(S, lw, runs_in):
    """skinny_prmt_bytes's R rows: S (in case A + S mod 2 + ceil(S / W), the tails), to an even count for lw = 4."""
    r = S + ((S & 1) - (-S >> lw) if runs_in else 0)
    return r + (r & 1 if lw == 4 else 0)


# ---- CPU: the choice --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16"])
def test_prmt_choice(dtype, set_knobs):
    tall = [(2, 1), (10**6, 1), (2237203, 3), (578113, 36), (145291, 48), (65, 64), (1001, 64)]
    esz = np.dtype(dtype).itemsize
    wide = [(s, c) for s, c in [(1, 10**6), (3, 99999), (13, 940434), (36, 2588866), (64, 64), (1, 1), (2, 2), (29, 621477)]
            if s * esz % 4]  # output rows off words: skinny_vec
    wide_prmt = [(s, c) for s, c in [(4, 10**6), (36, 2588866), (64, 64), (2, 2), (8, 999), (12, 12)] if s * esz % 4 == 0]
    for mode in (0, 1, 2):
        set_knobs(transpose_skinny=mode)
        assert not any(config(s, dtype).startswith("skinny-prmt") for s in tall + wide + wide_prmt)
    set_knobs(transpose_skinny=3)
    for shape in tall:
        lt = lt_of(*shape, esz)
        assert config(shape, dtype) == f"skinny-prmt {1 << lt}x{shape[1]} tile, {THREADS} threads, {esz}-byte elements"
    for shape in wide:
        assert config(shape, dtype).startswith("skinny-vec "), shape
    for shape in wide_prmt:
        lt = lt_of(*shape, esz)
        assert config(shape, dtype) == f"skinny-prmt {shape[0]}x{1 << lt} tile, {THREADS} threads, {esz}-byte elements"
    for shape in [(10**5, 65), (1000, 1000)]:
        assert not config(shape, dtype).startswith("skinny"), shape
    for wider in ["float32", "float64"]:
        assert not config((10**5, 3), wider).startswith("skinny-"), wider


# ---- CPU: the plan ------------------------------------------------------------------------------------------

PLAN_SHAPES = [(9, 1), (9999, 3), (218130, 11), (1000, 36), (578113, 36), (145291, 48), (500, 33), (1001, 64),
               (4096, 16), (777, 32), (65, 64), (300, 7)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", PLAN_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_plan(layout, esz, shape, set_knobs):
    set_knobs(transpose_skinny=3)
    rows, S = shape
    lt = lt_of(rows, S, esz)
    lw, T, E = lt + (esz == 2) - 2, 1 << lt, 4 // esz
    dtype = "uint8" if esz == 1 else "float16"
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.blocks == -(-rows // T)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    f0 = fbytes(layout, S, lt, esz)
    assert plan["smem_bytes"] == f0 + 4 * rrows(S, lw, 0) * ((1 << lw) + (layout == "pad"))
    full, last = rows // T, int(rows % T != 0)
    for is_last in (False, True):
        acc = {a[0].replace(" (last block)", ""): a for a in plan["accesses"] if a[0].endswith("(last block)") == is_last}
        if not acc:
            assert (last == 0) if is_last else full == 0
            continue
        n = rows % T if is_last else T
        assert all(a[1] == 4 and a[3] == (last if is_last else full) for a in acc.values())
        addr = {k: a[4].reshape(-1, 32) for k, a in acc.items()}
        for k, v in addr.items():
            on = v[v >= 0]
            assert np.all(on % 4 == 0) and np.all(on < plan["smem_bytes"]), k
        # F: every word holding a tile byte stored once; R: each word (s < S, pb < W) stored once, the run
        # loads read R words only
        fst = addr["skinny-prmt flat store"]
        fst = fst[fst >= 0]
        assert len(fst) == len(set(fst.tolist())) == -(-n * S * esz // 4)
        assert np.all(fst < f0)
        rst = addr["skinny-prmt run store"]
        rst = rst[rst >= 0]
        want = {rslot(layout, f0, lw, s, j, esz) for s in range(S) for j in range(1 << lw)}
        assert len(rst) == len(want) and set(rst.tolist()) == want
        rld = addr["skinny-prmt run load"]
        assert set(rld[rld >= 0].tolist()) <= want
        loads = (1 if S * esz % 4 == 0 else 2) * E  # row loads per unit step
        assert addr["skinny-prmt row load"].shape[0] == loads * (addr["skinny-prmt run store"].shape[0] // E) or S % E
    by = {a.name: a for a in e.accesses}
    for name, a in by.items():  # consecutive words along the lanes: conflict-free in every layout; the run
        # loads, lanes 4 words apart: 4 wavefronts (but for naive's tails, one lane a run, W words apart)
        if "flat store" in name or "run store" in name:
            assert a.excess == 0, (name, a)
        if "run load" in name and layout != "naive":
            assert a.wavefronts <= 4 * a.instructions, (name, a)
    many = smemkit.explain("transpose", (5,) + shape, layout, dtype)
    assert many.blocks == 5 * e.blocks and many.total() == 5 * e.total()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(4, 9), (4, 99999), (12, 218130), (36, 1000), (36, 2588866), (64, 1001),
                                   (16, 4096), (32, 777), (64, 64), (2, 3001), (6, 17)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_plan_a(layout, esz, shape, set_knobs):
    """Case A (rows <= cols, rows * esz a multiple of 4)."""
    S, cols = shape
    if S * esz % 4:
        pytest.skip("output rows off words: skinny_vec")
    set_knobs(transpose_skinny=3)
    lt = lt_of(S, cols, esz)
    lw, T = lt + (esz == 2) - 2, 1 << lt
    dtype = "uint8" if esz == 1 else "float16"
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.config == f"skinny-prmt {S}x{T} tile, {THREADS} threads, {esz}-byte elements"
    assert e.blocks == -(-cols // T)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    f0 = fbytes(layout, S, lt, esz)
    W = 1 << lw
    rwords = {rslot(layout, f0, lw, s, j, esz) for s in range(S) for j in range(W)} | {rslot(layout, f0, lw, S, s, esz) for s in range(S)}
    assert plan["smem_bytes"] == f0 + 4 * rrows(S, lw, 1) * (W + (layout == "pad"))
    for is_last in (False, True):
        acc = {a[0].replace(" (last block)", ""): a for a in plan["accesses"] if a[0].endswith("(last block)") == is_last}
        if not acc:
            continue
        n = cols % T if is_last else T
        addr = {k: (lambda v: v[v >= 0])(a[4].reshape(-1)) for k, a in acc.items()}
        assert all(np.all(v % 4 == 0) and np.all(v < plan["smem_bytes"]) for v in addr.values())
        rst, fst, fld = addr["skinny-prmt run store"], addr["skinny-prmt flat store"], addr["skinny-prmt flat load"]
        assert len(set(rst.tolist())) == len(rst) and set(rst.tolist()) <= rwords
        assert set(addr["skinny-prmt run load"].tolist()) <= rwords
        assert len(set(fst.tolist())) == len(fst) == T * S * esz // 4 and np.all(fst < f0)
        assert len(set(fld.tolist())) == len(fld) == n * S * esz // 4 and set(fld.tolist()) <= set(fst.tolist())
    for a in e.accesses:  # consecutive words along the lanes
        if "run store" in a.name or "flat load" in a.name:
            assert a.excess == 0 or layout == "naive" and "run store" in a.name, a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_prmt_smem_under_default_cap(layout, set_knobs):
    """No opt-in: every shape skinny_prmt takes fits the 48 KB of dynamic shared memory (both cases)."""
    set_knobs(transpose_skinny=3)
    for dtype in ["uint8", "float16"]:
        for s in range(1, 65):
            for shape in [(100003, s), (s, 100003)]:
                e = smemkit.explain("transpose", shape, layout, dtype)
                if e.config.startswith("skinny-prmt"):
                    assert smemkit._C._plan("transpose", shape, layout, np.dtype(dtype).itemsize)["smem_bytes"] <= 48 * 1024


# ---- CPU: the kernel's three phases, replayed ------------------------------------------------------------

def funnel(lo, hi, sh):
    return ((hi << 32 | lo) >> min(sh, 32)) & 0xFFFFFFFF


def replay(mem, ib, ob, rows, S, batch, esz, layout, rng, rec=None):
    """skinny_prmt_kernel, block by block and thread by thread, on a bytearray (input C-contiguous at ib); rec:
    a dict that gets the shared byte addresses of the first block's accesses, by plan name."""
    E, lt = 4 // esz, lt_of(rows, S, esz)
    lw = lt + (esz == 2) - 2
    T, W, SB, SE = 1 << lt, 1 << lw, -(-S // E), S * esz
    f0 = fbytes(layout, S, lt, esz)
    size = f0 + 4 * rrows(S, lw, 0) * (W + (layout == "pad"))
    units = STEPS  # skinny_prmt_units
    assert W * SB <= units * THREADS
    word = lambda sm, o: int.from_bytes(sm[o:o + 4], "little")
    for b in range(batch):
        for tile in range(-(-rows // T)):
            p0 = tile * T
            n = min(rows - p0, T)
            nb, mat = n * esz, b * rows * S
            rbase, rp = ob + (mat + p0) * esz, rows * esz
            fb = ib + (mat + p0 * S) * esz
            mis = fb & 3
            fa, fend = fb - mis, mis + n * SE
            sm = bytearray(rng.integers(0, 256, size=size, dtype=np.uint8).tobytes())  # garbage
            note = (lambda name, *a: rec.setdefault(name, []).extend(a)) if rec is not None and b == tile == 0 else \
                (lambda name, *a: None)
            for x in range(0, fend, 4):  # phase 1
                o = slot(layout, x, S, esz)
                note("skinny-prmt flat store", o)
                assert o + 4 <= f0
                sm[o:o + 4] = mem[fa + x:fa + x + 4]
            for t in range(THREADS):  # phase 2
                for k in range(units):
                    u = t + k * THREADS
                    pb, sb = u & (W - 1), u >> lw
                    if sb >= SB:
                        break
                    x0 = mis + (pb * E * S + sb * E) * esz
                    w = []
                    for r in range(E):
                        x = x0 + r * SE
                        lo, hi = slot(layout, x >> 2 << 2, S, esz), slot(layout, (x >> 2) + 1 << 2, S, esz)
                        note("skinny-prmt row load", *([lo] if (mis | SE) & 3 == 0 else [lo, hi]))
                        if (mis | SE) & 3 == 0:  # rows on words: one load
                            w.append(sm[lo:lo + 4])
                            continue
                        assert hi + 4 <= f0
                        w.append(funnel(word(sm, lo), word(sm, hi), 8 * (x & 3)).to_bytes(4, "little"))
                    for c in range(E):  # column c: element c of each row word
                        if sb * E + c < S:
                            col = b"".join(w[r][c * esz:(c + 1) * esz] for r in range(E))
                            o = rslot(layout, f0, lw, sb * E + c, pb, esz)
                            note("skinny-prmt run store", o)
                            sm[o:o + 4] = col
            C = W // 4  # phase 3: 16-byte chunks
            items = [(q >> (lw - 2), q & (C - 1)) for t in range(THREADS) for k in range(STEPS // 4)
                     for q in [t + k * THREADS] if q >> (lw - 2) < S] + [(t, C) for t in range(min(S, THREADS))]
            assert len(items) == S * (C + 1)
            for s, i in items:
                ra = rbase + s * rp
                bb = 16 * i - (ra & 15)
                if bb >= nb:
                    continue
                ro = [rslot(layout, f0, lw, s, min(max((bb >> 2) + m, 0), W - 1), esz) for m in range(5)]
                note("skinny-prmt run load", *ro)
                r = [word(sm, o) for o in ro]
                v = b"".join(funnel(r[m], r[m + 1], 8 * (bb & 3)).to_bytes(4, "little") for m in range(4))
                assert (ra + bb) % 16 == 0
                for o in range(0, 16, esz):
                    if 0 <= bb + o < nb:
                        mem[ra + bb + o:ra + bb + o + esz] = v[o:o + esz]


def replay_a(mem, ib, ob, S, cols, batch, esz, layout, rng, rec=None):
    """skinny_prmt_a_kernel (case A), block by block and thread by thread, on a bytearray; OW (output rows on
    words: S * esz a multiple of 4, ob on a word) as the launcher picks it, else the element-store variant."""
    E, lt = 4 // esz, lt_of(S, cols, esz)
    lw = lt + (esz == 2) - 2
    T, W, SE, SB = 1 << lt, 1 << lw, S * esz, -(-S // E)
    ow = SE % 4 == 0 and ob % 4 == 0
    f0, lc = fbytes(layout, S, lt, esz, True), flc(layout, S, esz, True)
    size = f0 + 4 * rrows(S, lw, 1) * (W + (layout == "pad"))
    word = lambda sm, o: int.from_bytes(sm[o:o + 4], "little")
    rs = lambda s, j: rslot(layout, f0, lw, s if j < W else S + (S & 1) + s // W, j if j < W else s % W, esz)
    for b in range(batch):
        for tile in range(-(-cols // T)):
            p0 = tile * T
            n = min(cols - p0, T)
            nb, mat = n * esz, b * S * cols
            rbase, rp = ib + (mat + p0) * esz, cols * esz
            fb = ob + (mat + p0 * S) * esz
            mis = 0 if ow else fb & 3
            fa, fend = fb - mis, mis + n * SE
            assert fa % 4 == 0
            sm = bytearray(rng.integers(0, 256, size=size, dtype=np.uint8).tobytes())
            ms = lambda s: (rbase + s * rp) & 3
            note = (lambda name, *a: rec.setdefault(name, []).extend(a)) if rec is not None and b == tile == 0 else \
                (lambda name, *a: None)
            for t in range(THREADS):  # phase 1
                for k in range(STEPS + 1):
                    q = t + k * THREADS
                    s, j = (q >> lw, q & (W - 1)) if k < STEPS else (t, W)
                    if s < S and 4 * j - ms(s) < nb:
                        g = rbase + s * rp - ms(s) + 4 * j
                        note("skinny-prmt run store", rs(s, j))
                        assert rs(s, j) + 4 <= size
                        sm[rs(s, j):rs(s, j) + 4] = mem[g:g + 4]
            for t in range(THREADS):  # phase 2
                for k in range(STEPS):
                    u = t + k * THREADS
                    pb, sb = u & (W - 1), u >> lw
                    if sb >= SB:
                        break
                    live = [r for r in range(E) if sb * E + r < S]
                    note("skinny-prmt run load", *(rs(sb * E + r, pb + d) for r in live for d in (0, 1)))
                    w = [funnel(word(sm, rs(sb * E + r, pb)), word(sm, rs(sb * E + r, pb + 1)), 8 * ms(sb * E + r))
                         .to_bytes(4, "little") if r in live else bytes(4) for r in range(E)]
                    for c in range(E):
                        x = mis + ((pb * E + c) * S + sb * E) * esz
                        col = b"".join(w[r][c * esz:(c + 1) * esz] for r in range(E))
                        if ow:
                            o = slot(layout, x, S, esz, lc)
                            assert o + 4 <= f0
                            note("skinny-prmt flat store", o)
                            sm[o:o + 4] = col
                            continue
                        for e in live:  # element stores
                            o = slot(layout, x + e * esz, S, esz, lc)
                            assert o + esz <= f0
                            note("skinny-prmt flat store", o)
                            sm[o:o + esz] = col[e * esz:(e + 1) * esz]
            for x in range(0, fend, 4):  # phase 3
                o = slot(layout, x, S, esz, lc)
                note("skinny-prmt flat load", o)
                if ow or (x >= mis and x + 4 <= fend):
                    mem[fa + x:fa + x + 4] = sm[o:o + 4]
                    continue
                for e in range(0, 4, esz):
                    if mis <= x + e < fend:
                        mem[fa + x + e:fa + x + e + esz] = sm[o + e:o + e + esz]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(4, 9), (4, 1001), (36, 777), (64, 257), (2, 9000), (12, 3001), (6, 517), (8, 66)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_a_index_replay(layout, esz, shape):
    if shape[0] * esz % 4:
        pytest.skip("output rows off words: skinny_vec")
    rng = np.random.default_rng(27)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=(2,) + shape).astype(dt)
    for ioff in [0, esz, 3 * esz % 4 or 2]:
        mem = bytearray(b"\xee" * (2 * a.nbytes + 64))
        ib, ob = 8 + ioff, 24 + a.nbytes + (-(24 + a.nbytes)) % 4  # output on a word (the launcher's condition)
        mem[ib:ib + a.nbytes] = a.tobytes()
        replay_a(mem, ib, ob, *shape, 2, esz, layout, rng)
        out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=dt).reshape(2, shape[1], shape[0])
        assert np.array_equal(out, swapped(a)), ioff
        assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(9, 1), (1001, 3), (777, 37), (257, 64), (9000, 2), (300, 36), (517, 5),
                                   (130, 63), (2, 1), (66, 33)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_index_replay(layout, esz, shape):
    rng = np.random.default_rng(26)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=(2,) + shape).astype(dt)
    for ioff, ooff in [(0, 0), (esz, 3 * esz % 4 or 2), (3 * esz % 4 or 2, esz)]:
        mem = bytearray(b"\xee" * (2 * a.nbytes + 64))
        ib, ob = 8 + ioff, 24 + a.nbytes + ooff
        mem[ib:ib + a.nbytes] = a.tobytes()
        replay(mem, ib, ob, *shape, 2, esz, layout, rng)
        out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=dt).reshape(2, shape[1], shape[0])
        assert np.array_equal(out, swapped(a)), (ioff, ooff)
        assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE
        assert bytes(mem[ib:ib + a.nbytes]) == a.tobytes()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(9000, 2), (777, 37), (257, 64), (1001, 3), (300, 36), (36, 777), (64, 257),
                                   (4, 1001), (12, 3001)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_plan_is_the_replay(layout, esz, shape, set_knobs):
    """explain()'s plan (plan.cu) and the Python replay of the kernel (above), two codings of the same index
    arithmetic, give the same multiset of shared addresses per access for the first block (aligned bases)."""
    rows, cols = shape
    if rows <= cols and rows * esz % 4:
        pytest.skip("output rows off words: skinny_vec")
    set_knobs(transpose_skinny=3)
    rng = np.random.default_rng(5)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=shape).astype(dt)
    mem = bytearray(2 * a.nbytes + 96)
    ib, ob = 16, 32 + (a.nbytes + 15) // 16 * 16
    mem[ib:ib + a.nbytes] = a.tobytes()
    rec = {}
    (replay if rows > cols else replay_a)(mem, ib, ob, *shape, 1, esz, layout, rng, rec)
    T = 1 << lt_of(rows, cols, esz)
    last = max(rows, cols) < T  # the first block is the last one
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    got = {a[0].replace(" (last block)", ""): a[4].reshape(-1) for a in plan["accesses"]
           if a[0].endswith("(last block)") == last}
    assert set(got) == set(rec)
    for name, v in got.items():
        assert sorted(v[v >= 0].tolist()) == sorted(rec[name]), name


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

SUBWORD = ["uint8", "bool", "float16", "bfloat16"]  # one kernel per element size; the dtypes as bits


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_prmt_every_short_side(layout, dtype, rng, poison, set_knobs):
    """S = 1..64, a row count off every boundary (tails of partial words and a partial last tile)."""
    set_knobs(transpose_skinny=3)
    for s in range(1, 65):
        a = random_bits((4099 + 2 * s, s), np_dtype(dtype), rng)
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", [(2, 1), (7919, 1), (40001, 1), (58757, 2), (20001, 3), (21813, 11),
                                   (4099, 32), (3001, 33), (25889, 36), (145291, 48), (21706, 44), (999, 47),
                                   (4097, 63), (1025, 64), (65, 64), (5, 3)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    set_knobs(transpose_skinny=3)
    assert config(shape, dtype, layout).startswith("skinny-prmt ")
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(60, 2181, 11), (3, 10001, 36), (7, 999, 1), (70000, 3, 2), (2, 4097, 64),
                                   (5, 1001, 37), (3, 333, 7)],
                         ids=lambda s: "x".join(map(str, s)))
def test_prmt_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Odd matrix sizes: each matrix's first element off a word (mis and every run's ms per block)."""
    set_knobs(transpose_skinny=3)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "offset-1-T", "row-slice", "batch-step", "padded-rows", "out-offset"])
@pytest.mark.parametrize("short", [1, 3, 13, 36, 64])
def test_prmt_device_views(layout, dtype, view, short, rng, poison, torch, set_knobs):
    """Bases off by one element (input, and output through out=), strided inputs (other kernels)."""
    set_knobs(transpose_skinny=3)
    n = 3 * 4099 * short
    flat = random_bits((n + 1,), np.dtype(dtype), rng)
    x = torch.from_numpy(flat).cuda()
    xs, bs = x[1:].view(3, 4099, short), flat[1:].reshape(3, 4099, short)
    if view == "out-offset":
        buf = torch.zeros(n + 1, dtype=x.dtype, device="cuda")
        out = buf[1:].view(3, short, 4099)
        smemkit.matrix_transpose(x[:n].view(3, 4099, short), layout=layout, out=out)
        assert_bits_equal(out.cpu().numpy(), swapped(flat[:n].reshape(3, 4099, short)))
        assert not bool(buf[0].view(torch.uint8 if flat.itemsize == 1 else torch.int16).item())
        return
    xv, bv = {"offset-1": (xs, bs), "offset-1-T": (xs.mT.contiguous(), swapped(bs).copy()),
              "row-slice": (xs[:, ::2], bs[:, ::2]), "batch-step": (xs[::2], bs[::2]),
              "padded-rows": (xs[:, :, : short - 1], bs[:, :, : short - 1])}[view]
    if xv.numel() == 0:
        return
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(21813, 11), (2589, 36), (5000, 1), (100003, 64), (3, 7777, 13)],
                         ids=lambda s: "x".join(map(str, s)))
def test_prmt_modes_agree(dtype, shape, rng, poison, set_knobs):
    a = random_bits(shape, np_dtype(dtype), rng)
    for layout in LAYOUTS:
        got = {}
        for mode in (2, 3):
            set_knobs(transpose_skinny=mode)
            got[mode] = smemkit.matrix_transpose(a, layout=layout)
        assert_bits_equal(got[3], got[2])
        assert_bits_equal(got[3], swapped(a) if a.ndim == 3 else a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_prmt_a_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Case A, S = 1..64 (S * esz off a multiple of 4: skinny_vec, the rest skinny_prmt), odd lengths."""
    set_knobs(transpose_skinny=3)
    esz = np.dtype(dtype).itemsize
    for s in range(1, 65):
        shape = (s, 4099 + 2 * s)
        want = "skinny-prmt " if s * esz % 4 == 0 else "skinny-vec "
        assert config(shape, dtype, layout).startswith(want), shape
        a = random_bits(shape, np_dtype(dtype), rng)
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", [(4, 1), (4, 40001), (2, 58757), (12, 21813), (32, 4099), (36, 25889),
                                   (48, 145291), (44, 21706), (64, 1025), (64, 64), (8, 3)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_prmt_a_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    set_knobs(transpose_skinny=3)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(60, 12, 2181), (3, 36, 10001), (7, 4, 999), (70000, 4, 3), (2, 64, 4097),
                                   (5, 8, 1001)],
                         ids=lambda s: "x".join(map(str, s)))
def test_prmt_a_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Case A batches: odd lengths put each matrix's input rows off words (ms per run and block)."""
    set_knobs(transpose_skinny=3)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("short", [4, 12, 36, 64])
@pytest.mark.parametrize("ooff", [0, 1])
def test_prmt_a_offsets(layout, dtype, short, ooff, rng, poison, torch, set_knobs):
    """Case A with the input base off by one element, out= on a word or off it (then skinny_vec)."""
    set_knobs(transpose_skinny=3)
    n = 3 * 4099 * short
    flat = random_bits((n + 1,), np.dtype(dtype), rng)
    x = torch.from_numpy(flat).cuda()[1:].view(3, short, 4099)
    buf = torch.zeros(n + 2, dtype=x.dtype, device="cuda")
    out = buf[ooff:ooff + n].view(3, 4099, short)
    smemkit.matrix_transpose(x, layout=layout, out=out)
    assert_bits_equal(out.cpu().numpy(), swapped(flat[1:].reshape(3, short, 4099)))
