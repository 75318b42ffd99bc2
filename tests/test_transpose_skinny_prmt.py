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
from test_transpose_skinny_vec import THREADS, STEPS, lt_of, slot

LAYOUTS = smemkit.LAYOUTS


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


def fbytes(layout, s, lt, esz):
    """skinny_prmt_fbytes: F's words (the tile, one word of misalignment, one for the funnel) in F's map."""
    lc = 5 + max(0, (4 * s).bit_length() - 1 - 7)
    words = ((s << lt) * esz + 3) // 4 + 2
    rows = -(-words // (1 << lc))
    return rows * ((1 << lc) + (layout == "pad")) * 4


def rslot(layout, f0, lw, s, j):
    """skinny_prmt_rslot: R word (s, j), 2^lw words a row, after F's bytes."""
    w = 1 << lw
    o = s * (w + 1) + j if layout == "pad" else s * w + (j ^ (s & 31)) if layout == "swizzle" else s * w + j
    return f0 + 4 * o


# ---- CPU: the choice --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16"])
def test_prmt_choice(dtype, set_knobs):
    tall = [(2, 1), (10**6, 1), (2237203, 3), (578113, 36), (145291, 48), (65, 64), (1001, 64)]
    wide = [(1, 10**6), (36, 2588866), (64, 64), (1, 1)]
    for mode in (0, 1, 2):
        set_knobs(transpose_skinny=mode)
        assert not any(config(s, dtype).startswith("skinny-prmt") for s in tall + wide)
    set_knobs(transpose_skinny=3)
    esz = np.dtype(dtype).itemsize
    for shape in tall:
        lt = lt_of(*shape, esz)
        assert config(shape, dtype) == f"skinny-prmt {1 << lt}x{shape[1]} tile, {THREADS} threads, {esz}-byte elements"
    for shape in wide:
        assert config(shape, dtype).startswith("skinny-vec "), shape
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
    assert plan["smem_bytes"] == f0 + 4 * S * ((1 << lw) + (layout == "pad"))
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
        want = {rslot(layout, f0, lw, s, j) for s in range(S) for j in range(1 << lw)}
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


# ---- CPU: the kernel's three phases, replayed ------------------------------------------------------------

def funnel(lo, hi, sh):
    return ((hi << 32 | lo) >> min(sh, 32)) & 0xFFFFFFFF


def replay(mem, ib, ob, rows, S, batch, esz, layout, rng):
    """skinny_prmt_kernel, block by block and thread by thread, on a bytearray (input C-contiguous at ib)."""
    E, lt = 4 // esz, lt_of(rows, S, esz)
    lw = lt + (esz == 2) - 2
    T, W, SB, SE = 1 << lt, 1 << lw, -(-S // E), S * esz
    f0 = fbytes(layout, S, lt, esz)
    size = f0 + 4 * S * (W + (layout == "pad"))
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
            for x in range(0, fend, 4):  # phase 1
                o = slot(layout, x, S, esz)
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
                        if (mis | SE) & 3 == 0:  # rows on words: one load
                            w.append(sm[lo:lo + 4])
                            continue
                        assert hi + 4 <= f0
                        w.append(funnel(word(sm, lo), word(sm, hi), 8 * (x & 3)).to_bytes(4, "little"))
                    for c in range(E):  # column c: element c of each row word
                        if sb * E + c < S:
                            col = b"".join(w[r][c * esz:(c + 1) * esz] for r in range(E))
                            o = rslot(layout, f0, lw, sb * E + c, pb)
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
                r = [word(sm, rslot(layout, f0, lw, s, min(max((bb >> 2) + m, 0), W - 1))) for m in range(5)]
                v = b"".join(funnel(r[m], r[m + 1], 8 * (bb & 3)).to_bytes(4, "little") for m in range(4))
                assert (ra + bb) % 16 == 0
                for o in range(0, 16, esz):
                    if 0 <= bb + o < nb:
                        mem[ra + bb + o:ra + bb + o + esz] = v[o:o + esz]


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


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

SUBWORD = ["uint8", "bool", "int8", "float16", "bfloat16", "int16"]


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
                                   (4099, 32), (3001, 33), (25889, 36), (578113, 36), (145291, 48),
                                   (217061, 44), (999, 47), (4097, 63), (1025, 64), (65, 64), (5, 3)],
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
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float16"])
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
