"""Mode 4 of the knob transpose_skinny (session 38, issue 26): skinny_prmt.cuh for 1- and 2-byte matrices
whose short side S is 65..256 (configs.h's skinny_wide_fits), both orientations, case A with any S
(skinny_prmt_a_kernel<.., false>: element stores into F, whole-word global stores but for each tile's ends).

CPU: the choice per knob value (and on thousands of draws of bench/timing/draws.py's law: mode 4 changes
exactly the class), the plan (tile, smem, blocks per SM, R / F bijections), the Python replay of the kernel's
phases (test_transpose_skinny_prmt.py's replay / replay_a) for every layout, odd bases, odd S, batches, and
plan == replay.  GPU (marked): bit-exact against NumPy at mode 4 for S = 65..256 in both orientations,
batches, views, NaN payloads, and modes 0 / 4 agreeing.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _testing
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_prmt import SUBWORD, config, fbytes, replay, replay_a, rrows, rslot
from test_transpose_skinny_vec import THREADS, lt_of

LAYOUTS = smemkit.LAYOUTS
WIDE = [65, 66, 67, 77, 93, 96, 99, 107, 108, 123, 127, 128, 129, 141, 149, 162, 200, 255, 256]


def prmt_config(shape, esz):
    S, long_ = min(shape[-2:]), max(shape[-2:])
    T = 1 << lt_of(S, long_, esz)
    rows, cols = shape[-2:]
    tile = f"{S}x{T}" if rows <= cols else f"{T}x{S}"
    return f"skinny-prmt {tile} tile, {THREADS} threads, {esz}-byte elements"


# ---- CPU: the choice ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16"])
def test_wide_choice(dtype, set_knobs):
    esz = np.dtype(dtype).itemsize
    shapes = [(10**5, s) for s in WIDE] + [(s, 10**5 + 3) for s in WIDE] + [(256, 256), (65, 65)]
    for mode in (0, 1, 2, 3):
        set_knobs(transpose_skinny=mode)
        assert not any(config(sh, dtype).startswith("skinny") for sh in shapes)
    set_knobs(transpose_skinny=4)
    for sh in shapes:
        assert config(sh, dtype) == prmt_config(sh, esz), sh
    for sh in [(10**5, 257), (257, 10**5), (257, 257), (64 * 1024, 300)]:
        assert not config(sh, dtype).startswith("skinny"), sh
    for sh, was in [((10**5, 64), "skinny-prmt"), ((63, 10**5), "skinny-vec" if 63 * esz % 4 else "skinny-prmt")]:
        assert config(sh, dtype).startswith(was), sh  # S <= 64: as mode 3
    for wider in ["float32", "float64"]:
        assert not config((10**5, 100), wider).startswith("skinny"), wider


def test_wide_choice_on_draws(set_knobs):
    """Thousands of draws of #26's law (2-D and batched): mode 4 moves exactly the 1- and 2-byte matrices with
    65 <= S <= 256 to skinny-prmt and leaves every other draw's path as mode 3's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    seen = 0
    for seed in (1001, 1002):
        for d in transpose_draws(1500, seed):
            esz = d.itemsize
            rows, cols = d.shape[-2:]
            S = min(rows, cols)
            got = {}
            for mode in (3, 4):
                set_knobs(transpose_skinny=mode)
                got[mode] = smemkit.explain("transpose", d.shape, "swizzle", d.dtype).config
            if esz <= 2 and 65 <= S <= 256:
                seen += 1
                assert got[4] == prmt_config(d.shape, esz), d
                assert not got[3].startswith("skinny"), d
            else:
                assert got[4] == got[3], d
    assert seen > 50


def test_modes_6_and_7(set_knobs):
    """Mode 6 (session 41) is mode 4 where S <= 128 (S' = 128: 128-byte runs) and mode 3 everywhere else; mode 7
    (the default) is mode 6 for 2-byte elements with rows > cols and mode 3 everywhere else: on thousands of
    draws of #26's law and on every S around the cuts."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    cases = [(d.shape, d.dtype) for d in transpose_draws(1500, 1003)]
    cases += [(sh, dt) for s in (64, 65, 100, 127, 128, 129, 200, 256, 257) for dt in ("uint8", "float16", "float32")
              for sh in [(10**5, s), (s, 10**5 + 3), (5, 999, s)]]
    moved = moved7 = moved13 = moved14 = 0
    for shape, dtype in cases:
        got = {}
        for mode in (0, 3, 4, 6, 7, 11, 13, 14):
            set_knobs(transpose_skinny=mode)
            got[mode] = smemkit.explain("transpose", shape, "pad", dtype).config
        S, esz = min(shape[-2:]), np.dtype(dtype).itemsize
        assert got[6] == (got[4] if esz <= 2 and S <= 128 else got[3]), (shape, dtype, got)
        assert got[7] == (got[6] if esz == 2 and shape[-2] > shape[-1] else got[3]), (shape, dtype, got)
        # 13 (session 54): 11 but 2-byte case B of S = 65..128 on the tiled kernel (mode 0's choice)
        wide_b = esz == 2 and shape[-2] > shape[-1] and 65 <= S <= 128
        assert got[13] == (got[0] if wide_b else got[11]), (shape, dtype, got)
        # 14 (session 58): 13 but case A of 2 <= S <= 16 on the interleave (1 x n is a copy in every mode)
        ilv = esz <= 2 and 2 <= shape[-2] <= 16 and shape[-2] <= shape[-1]
        assert got[14].startswith("skinny-ilv ") if ilv else got[14] == got[13], (shape, dtype, got)
        moved += got[6] != got[3]
        moved7 += got[7] != got[3]
        moved13 += got[13] != got[11]
        moved14 += ilv
    assert moved > 40 and moved7 > 10 and moved13 > 10 and moved14 > 10
    assert _testing.KNOBS["transpose_skinny"] == 16  # 15 (session 61); 14 (session 58); 13 (session 54); 11 (session 44): 10 (strips) for uint8 S <= 84


# ---- CPU: the plan ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(3001, 65), (1000, 77), (700, 128), (999, 129), (513, 200), (300, 256),
                                   (65, 3001), (77, 1000), (108, 700), (129, 999), (200, 513), (256, 300),
                                   (93, 129)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_wide_plan(layout, esz, shape, set_knobs):
    """Tile, blocks, smem (no opt-in, >= 4 blocks an SM by shared memory), every access in the buffers,
    the R / F stores bijections onto what the loads read, swizzle's R stores conflict-free."""
    set_knobs(transpose_skinny=4)
    rows, cols = shape
    runs_in = rows <= cols
    S, L = min(shape), max(shape)
    lt = lt_of(rows, cols, esz)
    lw, T, E = lt + (esz == 2) - 2, 1 << lt, 4 // esz
    dtype = "uint8" if esz == 1 else "float16"
    e = smemkit.explain("transpose", shape, layout, dtype)
    assert e.config == prmt_config(shape, esz) and e.blocks == -(-L // T)
    plan = smemkit._C._plan("transpose", shape, layout, esz)
    f0, W = fbytes(layout, S, lt, esz), 1 << lw
    assert plan["smem_bytes"] == f0 + 4 * rrows(S, lw, runs_in) * (W + (layout == "pad"))
    assert plan["smem_bytes"] <= 48 * 1024 and 4 * (plan["smem_bytes"] + 1024) <= 228 * 1024
    rwords = {rslot(layout, f0, lw, s, j, esz) for s in range(S) for j in range(W)}
    for is_last in (False, True):
        acc = {a[0].replace(" (last block)", ""): a for a in plan["accesses"]
               if a[0].endswith("(last block)") == is_last}
        if not acc:
            continue
        n = L % T if is_last else T
        addr = {k: (lambda v: v[v >= 0])(a[4].reshape(-1)) for k, a in acc.items()}
        assert all(np.all(v < plan["smem_bytes"]) for v in addr.values())
        rst = addr["skinny-prmt run store"]
        if not runs_in:
            assert len(rst) == len(set(rst.tolist())) and set(rst.tolist()) == rwords
            assert set(addr["skinny-prmt run load"].tolist()) <= rwords
            continue
        tails = {rslot(layout, f0, lw, S + (S & 1) + s // W, s % W, esz) for s in range(S)}
        assert len(set(rst.tolist())) == len(rst) and set(rst.tolist()) <= rwords | tails
        fst, fld = addr["skinny-prmt flat store"], addr["skinny-prmt flat load"]
        width = acc["skinny-prmt flat store"][1]
        assert width == (4 if S * esz % 4 == 0 else esz)
        assert len(set(fst.tolist())) == len(fst) == T * S * esz // width and np.all(fst < f0)
        assert len(fld) == -(-n * S * esz // 4)
    for a in e.accesses:
        if layout == "swizzle" and ("run store" in a.name or "flat load" in a.name):
            assert a.excess == 0, a
        if "run load" in a.name and not runs_in and layout != "naive":
            assert a.wavefronts <= 4 * a.instructions, a


# ---- CPU: the kernel's phases, replayed -----------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(300, 65), (200, 77), (260, 128), (140, 129), (300, 255), (270, 256)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_wide_index_replay(layout, esz, shape):
    """Case B, two matrices (the second off a word when rows * S * esz is), odd input / output bases."""
    rng = np.random.default_rng(38)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=(2,) + shape).astype(dt)
    for ioff, ooff in [(0, 0), (esz, 3 * esz % 4 or 2)]:
        mem = bytearray(b"\xee" * (2 * a.nbytes + 64))
        ib, ob = 8 + ioff, 24 + a.nbytes + ooff
        mem[ib:ib + a.nbytes] = a.tobytes()
        replay(mem, ib, ob, *shape, 2, esz, layout, rng)
        out = np.frombuffer(bytes(mem[ob:ob + a.nbytes]), dtype=dt).reshape(2, shape[1], shape[0])
        assert np.array_equal(out, swapped(a)), (ioff, ooff)
        assert mem[ob - 1] == 0xEE and mem[ob + a.nbytes] == 0xEE


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("shape", [(65, 300), (77, 200), (96, 150), (128, 260), (129, 140), (255, 300), (256, 270),
                                   (67, 133)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_wide_a_index_replay(layout, esz, shape):
    """Case A: OW (S * esz on words, output on a word) and the element-store variant (odd S, or the output
    off a word), odd input bases, two matrices."""
    rng = np.random.default_rng(39)
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
@pytest.mark.parametrize("shape", [(300, 65), (140, 129), (70, 256), (200, 77), (65, 300), (77, 200), (129, 140),
                                   (256, 70), (255, 150)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_wide_plan_is_the_replay(layout, esz, shape, set_knobs):
    """explain()'s plan (plan.cu) and the replay give the same shared addresses per access (first block)."""
    rows, cols = shape
    set_knobs(transpose_skinny=4)
    rng = np.random.default_rng(6)
    dt = np.uint8 if esz == 1 else np.uint16
    a = rng.integers(0, 1 << (8 * esz), size=shape).astype(dt)
    mem = bytearray(2 * a.nbytes + 96)
    ib, ob = 16, 32 + (a.nbytes + 15) // 16 * 16
    mem[ib:ib + a.nbytes] = a.tobytes()
    rec = {}
    (replay if rows > cols else replay_a)(mem, ib, ob, *shape, 1, esz, layout, rng, rec)
    T = 1 << lt_of(rows, cols, esz)
    last = max(rows, cols) < T
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
def test_wide_every_short_side(layout, dtype, rng, poison, set_knobs):
    """S = 65..256 in both orientations, a long side off every boundary (partial words, a partial tile)."""
    set_knobs(transpose_skinny=4)
    esz = np.dtype(dtype).itemsize
    for s in range(65, 257):
        for shape in [(2053 + 2 * s, s), (s, 2053 + 2 * s)]:
            assert config(shape, dtype, layout) == prmt_config(shape, esz), shape
            a = random_bits(shape, np_dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", [(273484, 77), (194213, 108), (174, 58577), (141, 52079), (149, 109764),
                                   (40001, 65), (65, 40001), (9999, 96), (127, 9999), (4099, 128), (128, 4099),
                                   (3001, 129), (200, 3001), (2053, 255), (256, 2053), (256, 256), (65, 66)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_wide_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """The session's worst draws of the class and the caps' neighbours; NaN payloads through random bits."""
    set_knobs(transpose_skinny=4)
    assert config(shape, dtype, layout).startswith("skinny-prmt ")
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(30011, 65), (97, 30011), (7, 4099, 128), (5, 129, 4001), (40001, 129)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("mode", [6, 7])
def test_modes_6_7_bit_exact(mode, dtype, shape, rng, poison, set_knobs):
    """Modes 6 and 7 on both sides of their cut (S = 129 stays on the tiled kernel, as do case A and uint8 at
    mode 7), every layout, NaN-poisoned output."""
    set_knobs(transpose_skinny=mode)
    a = random_bits(shape, np_dtype(dtype), rng)
    want = swapped(a) if a.ndim == 3 else a.T
    takes = min(shape[-2:]) <= 128 and (mode == 6 or (dtype == "float16" and shape[-2] > shape[-1]))
    for layout in LAYOUTS:
        got = smemkit.matrix_transpose(a, layout=layout)
        assert config(shape, dtype, layout).startswith("skinny-prmt ") == takes
        assert_bits_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(11, 92988, 91), (34, 13715, 93), (27, 5100, 123), (8, 69, 10749), (11, 5907, 99),
                                   (3, 11384, 162), (62, 187, 3511), (7, 186, 15710), (5, 1001, 255), (3, 129, 777)],
                         ids=lambda s: "x".join(map(str, s)))
def test_wide_batches(layout, dtype, shape, rng, poison, set_knobs):
    """Batches (the session's worst draws' shapes, long sides cut): odd matrix sizes put each matrix off a word."""
    set_knobs(transpose_skinny=4)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "offset-1-T", "row-slice", "batch-step", "padded-rows", "out-offset",
                                  "out-offset-T"])
@pytest.mark.parametrize("short", [65, 96, 127, 128, 129, 200, 255, 256])
def test_wide_device_views(layout, dtype, view, short, rng, poison, torch, set_knobs):
    """Bases off by one element (input, and output through out=, both orientations), strided inputs (case B
    with padded rows: the tiled kernel)."""
    set_knobs(transpose_skinny=4)
    n = 3 * 1031 * short
    flat = random_bits((n + 1,), np.dtype(dtype), rng)
    x = torch.from_numpy(flat).cuda()
    xs, bs = x[1:].view(3, 1031, short), flat[1:].reshape(3, 1031, short)
    if view.startswith("out-offset"):
        shp = (3, 1031, short) if view == "out-offset" else (3, short, 1031)
        buf = torch.zeros(n + 1, dtype=x.dtype, device="cuda")
        out = buf[1:].view(shp[0], shp[2], shp[1])
        smemkit.matrix_transpose(x[:n].view(*shp), layout=layout, out=out)
        assert_bits_equal(out.cpu().numpy(), swapped(flat[:n].reshape(*shp)))
        assert not bool(buf[0].view(torch.uint8 if flat.itemsize == 1 else torch.int16).item())
        return
    xv, bv = {"offset-1": (xs, bs), "offset-1-T": (xs.mT.contiguous(), swapped(bs).copy()),
              "row-slice": (xs[:, ::2], bs[:, ::2]), "batch-step": (xs[::2], bs[::2]),
              "padded-rows": (xs[:, :, : short - 1], bs[:, :, : short - 1])}[view]
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(21813, 77), (77, 21813), (2589, 200), (201, 2589), (4, 7777, 129), (4, 255, 777)],
                         ids=lambda s: "x".join(map(str, s)))
def test_wide_modes_agree(dtype, shape, rng, poison, set_knobs):
    """Mode 4 (skinny-prmt) and mode 3 (the tiled kernel) on the same tensors, every layout."""
    a = random_bits(shape, np_dtype(dtype), rng)
    for layout in LAYOUTS:
        got = {}
        for mode in (3, 4):
            set_knobs(transpose_skinny=mode)
            got[mode] = smemkit.matrix_transpose(a, layout=layout)
        assert_bits_equal(got[4], got[3])
        assert_bits_equal(got[4], swapped(a) if a.ndim == 3 else a.T)
