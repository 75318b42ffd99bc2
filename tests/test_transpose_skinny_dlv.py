"""Mode 16 of the knob transpose_skinny (session 61, issue 26; the default): case B (rows = R > cols = S = 2..4 uint8,
2..8 2-byte) with packed rows on csrc/transpose/ilv.cu's de-interleave (skinny_dlv_kernel): a warp loads 32 C
input rows (C = 16 / esz) as one contiguous run of 16-byte chunks, stages them through the interleave's layout.h tile,
reads back the 16 S bytes of its own C rows, forms S output chunks with byte permutes and stores each on its output
row's own 16-byte grid.  CPU: the choice, the plan against the warp's accesses and against the interleave's (stores
and loads swapped), and a replay of the kernel's global arithmetic on a byte memory (input bases off 16 bytes, output
rows off 16 bytes, partial warps, batches) against NumPy.  GPU: bit-exact against NumPy on every S and width, partial
warps, batches, device views, fp16 specials, and modes 15 / 16 agreeing."""
import numpy as np
import pytest

import smemkit
from smemkit import bank_model
from _shared import check_device_views, check_fp16_specials, check_level_on_draws, check_modes_agree
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_skinny_ilv import unit

LAYOUTS = ["naive", "pad", "swizzle"]
WARPS = 4


def config(shape, dtype, layout="pad"):
    return smemkit.explain("transpose", shape, layout, dtype).config


MAX_S = {1: 4, 2: 8}  # configs.h kDlvMaxShort1 / 2


def in_class(shape, esz):
    rows, cols = shape[-2:]
    return esz <= 2 and rows > cols and 2 <= cols <= MAX_S[esz]


# ---- CPU: the choice ----------------------------------------------------------------------------------------

def test_default_is_mode_16():
    from smemkit import _testing
    assert _testing.KNOBS["transpose_skinny"] == 16  # 15 (session 61): case B of S <= 8 on skinny_prmt


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "float32"])
def test_dlv_choice(dtype, set_knobs):
    esz = np.dtype(dtype).itemsize
    for s in range(1, 20):
        for shape in [(4099 + 2 * s, s), (40000 + s, s), (s, s), (3, 999, s), (s, 4099), (s + 1, s)]:
            set_knobs(transpose_skinny=15)
            old = config(shape, dtype)
            set_knobs(transpose_skinny=16)
            new = config(shape, dtype)
            if in_class(shape, esz):
                assert new.startswith(f"skinny-dlv {512 // esz}x{s} per warp"), (shape, dtype, new)
            else:
                assert new == old, (shape, dtype, old, new)


def test_dlv_choice_on_draws():
    """3000 draws of #26's law (seeds 3470 / 3471): mode 16 moves exactly the class and leaves every other path."""
    check_level_on_draws((3470, 3471), 1500, 15, 16, in_class, "skinny-dlv ", 20)


# ---- CPU: the plan ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(9999, 2), (412893, 4), (41374, 3), (513, 8), (17, 7), (3, 9001, 4), (27, 8706, 6),
                                   (1000, 5), (5000, 3)], ids=lambda s: "x".join(map(str, s)))
def test_dlv_plan_is_the_warps(layout, dtype, shape, set_knobs):
    """explain()'s plan: every warp of a matrix issues S in-order chunk stores and S lane-strided chunk loads, warp j at
    index j mod 4 of its block, repeated over the batch: the lane addresses, instructions and the bank model's
    wavefronts of each access."""
    set_knobs(transpose_skinny=16)
    esz = np.dtype(dtype).itemsize
    R, S = shape[-2:]
    if not in_class(shape, esz):
        pytest.skip("outside the uint8 class")
    B = shape[0] if len(shape) == 3 else 1
    plan = {a[0]: np.asarray(a[4]).reshape(-1) for a in smemkit._C._plan("transpose", shape[-2:], layout, esz)["accesses"]}
    e = smemkit.explain("transpose", shape, layout, dtype)
    nw = -(-R // (512 // esz))
    lanes = np.arange(32)
    want = {}
    for w in range(min(WARPS, nw)):
        reps = (nw - w + WARPS - 1) // WARPS * B
        st = np.array([16 * unit(layout, S, 32 * S * w + 32 * k + lanes) for k in range(S)])
        ld = np.array([16 * unit(layout, S, 32 * S * w + S * lanes + k) for k in range(S)])
        for kind, addr in (("store", st), ("load", ld)):
            name = f"skinny-dlv chunk {kind} (warp {w})"
            assert np.array_equal(plan[name], addr.reshape(-1)), name
            want[name] = (S * reps, int(bank_model.replay(addr, 16, kind)[0].sum()) * reps)
    assert {a.name: (a.instructions, a.wavefronts) for a in e.accesses} == want
    assert e.blocks == B * -(-R // (WARPS * 512 // esz))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("s", range(2, 9))
def test_dlv_banks_are_the_interleaves(layout, s, set_knobs):
    """The bank model: a full warp's de-interleave stores cost what the interleave's loads do and its loads what the
    interleave's stores do (the same tile, the accesses swapped)."""
    set_knobs(transpose_skinny=16)
    dt = "uint8" if s <= MAX_S[1] else "float16"
    d = {a.name: a for a in smemkit.explain("transpose", (4 * 512 * 7, s), layout, dt).accesses}
    i = {a.name: a for a in smemkit.explain("transpose", (s, 4 * 512 * 7), layout, dt).accesses}
    for w in range(WARPS):
        st, ld = d[f"skinny-dlv chunk store (warp {w})"], d[f"skinny-dlv chunk load (warp {w})"]
        ist, ild = i[f"skinny-ilv chunk store (warp {w})"], i[f"skinny-ilv chunk load (warp {w})"]
        assert st.wavefronts * ild.instructions == ild.wavefronts * st.instructions
        assert ld.wavefronts * ist.instructions == ist.wavefronts * ld.instructions


# ---- CPU: the kernel's global arithmetic, replayed ------------------------------------------------------------

def _put(mem, written, g, val, b0, b1):
    for o in range(b0, b1):
        assert g + o not in written, "a byte stored twice"
        written.add(g + o)
        mem[g + o] = val[o]


def replay(a, ib_off, ob_off, bstride=None):
    """skinny_dlv_kernel's steps on a byte memory: a (B, R, S) at byte ib_off (matrix stride bstride elements), the
    output at a 16-byte boundary + ob_off.  Returns the output; asserts that the fast warps' chunks lie in the matrix,
    every store lands in the output and no byte is stored twice."""
    B, R, S = a.shape
    E = a.itemsize
    bstride = bstride or R * S
    raw = a.view(np.uint8).reshape(B, R * S * E)
    ob = (ib_off + (B - 1) * bstride * E + R * S * E + 64) // 16 * 16 + 16 + ob_off
    mem = bytearray(b"\xee" * (ob + B * S * R * E + 64))
    for b in range(B):
        o = ib_off + b * bstride * E
        mem[o:o + R * S * E] = raw[b].tobytes()
    written = set()
    CW = 512 // E
    for b in range(B):
        lo = ib_off + b * bstride * E
        hi = lo + R * S * E
        chunk = lambda q: bytes(mem[x] if lo <= x < hi else 0 for x in range(q, q + 16))  # load_chunk_in
        for c0 in range(0, R, CW):
            Rw = min(R - c0, CW)
            V = Rw * E
            A0 = lo + c0 * S * E
            mi = A0 % 16
            G = A0 - mi
            fast = Rw == CW and G >= lo and G + 16 * (32 * S + 1) <= hi
            v = [[chunk(G + 16 * (32 * k + l)) for l in range(32)] for k in range(S)]
            if fast:
                assert all(lo <= G + 16 * u and G + 16 * u + 16 <= hi for u in range(32 * S + 1))
            if mi:
                ex = chunk(G + 16 * 32 * S)
                nv = []
                for k in range(S):
                    row = []
                    for l in range(32):
                        nx = v[k][l + 1] if l < 31 else (v[k + 1][0] if k + 1 < S else ex)
                        row.append((v[k][l] + nx)[mi:mi + 16])
                    nv.append(row)
                v = nv
            tile = {32 * k + l: v[k][l] for k in range(S) for l in range(32)}
            lane_bytes = [b"".join(tile[S * l + i] for i in range(S)) for l in range(32)]
            for r in range(S):
                chunks = [bytes(lb[(o // E * S + r) * E + o % E] for o in range(16)) for lb in lane_bytes]
                d = ob + b * S * R * E + (r * R + c0) * E
                mo = d % 16
                g = d - mo
                for l in range(32):
                    c = chunks[l]
                    if mo == 0:
                        if 16 * l < V:
                            _put(mem, written, g + 16 * l, c, 0, min(16, V - 16 * l))
                        continue
                    nx = chunks[l + 1] if l < 31 else c  # shfl_down: lane 31 its own
                    if l == 0:
                        _put(mem, written, g, (bytes(16) + c)[16 - mo:32 - mo], mo, min(16, mo + V))
                    p0 = 16 * (l + 1) - mo
                    if p0 < V:
                        _put(mem, written, g + 16 * (l + 1), (c + nx)[16 - mo:32 - mo], 0, min(16, V - p0))
    assert written == set(range(ob, ob + B * S * R * E)), "stores outside the output or bytes missed"
    return np.frombuffer(bytes(mem[ob:ob + B * S * R * E]), dtype=a.dtype).reshape(B, S, R)


@pytest.mark.parametrize("esz", [1, 2])
@pytest.mark.parametrize("case", [((1, 600, 2), 0, 0, None), ((2, 333, 3), 5, 7, None), ((1, 1100, 16), 3, 1, None),
                                  ((3, 70, 5), 1, 9, 70 * 5 + 3), ((1, 512, 7), 0, 4, None), ((2, 257, 13), 7, 15, None),
                                  ((1, 9, 8), 2, 2, None), ((1, 2048, 9), 1, 0, None)],
                         ids=lambda c: "x".join(map(str, c[0])) + f"-i{c[1]}-o{c[2]}-b{c[3]}")
def test_dlv_replay(esz, case):
    """Input bases off 16 bytes, output rows off 16 bytes, whole and partial warps, batches (a matrix stride off the
    packed one): the replayed kernel writes exactly the transpose, each output byte once and nothing else."""
    shape, ib_off, ob_off, bstride = case
    rng = np.random.default_rng(3472)
    a = rng.integers(0, 256 ** esz, size=shape, dtype=np.uint8 if esz == 1 else np.uint16)
    assert np.array_equal(replay(a, ib_off * esz, ob_off * esz, bstride), swapped(a))


# ---- GPU: bit-exact ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_dlv_every_short_side(layout, dtype, rng, poison, set_knobs):
    """Every S, long sides of whole warps, partial warps, one partial warp, and odd ones (output rows off 16 bytes)."""
    set_knobs(transpose_skinny=16)  # whatever the default
    w = 512 // np.dtype(dtype).itemsize
    for s in range(2, MAX_S[np.dtype(dtype).itemsize] + 1):
        for rows in (4 * w * 3, 4099 + 2 * s, 40000 + s, s + 1, w - 1, w + 1):
            shape = (rows, s)
            assert config(shape, dtype, layout).startswith("skinny-dlv "), shape
            a = random_bits(shape, np.dtype(dtype), rng)
            assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "bool", "bfloat16"])
@pytest.mark.parametrize("shape", [(2237203, 3), (3547603, 2), (1813901, 5), (2973515, 3), (147969, 2), (32401, 8),
                                   (59, 14797, 2), (26, 23890, 2), (38, 3240, 7), (7, 1001, 4), (64, 513, 3)],
                         ids=lambda s: "x".join(map(str, s)))
def test_dlv_bit_exact(layout, dtype, shape, rng, poison, set_knobs):
    """The issue's and the law's worst draws (long sides cut in batches), batches whose matrices start off 16 bytes."""
    set_knobs(transpose_skinny=16)  # whatever the default
    if not in_class(shape, np_dtype(dtype).itemsize):
        pytest.skip("outside the 1-byte class")
    a = random_bits(shape, np_dtype(dtype), rng)
    got = smemkit.matrix_transpose(a, layout=layout) if len(shape) == 3 else smemkit.transpose(a, layout=layout)
    assert_bits_equal(got, swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_dlv_fp16_specials(layout, poison, set_knobs):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits."""
    set_knobs(transpose_skinny=16)  # whatever the default
    check_fp16_specials(layout, (2, 3, 5, 8), case_b=True)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("view", ["offset-1", "offset-3", "row-slice", "batch-step", "padded-cols", "out-offset",
                                  "out-offset-3"])
@pytest.mark.parametrize("short", [2, 3, 4, 5, 8])
def test_dlv_device_views(layout, dtype, view, short, rng, torch, set_knobs):
    """torch views: input bases off by one / three elements, every other row, every other matrix, padded rows; out= off
    by one / three elements inside a 0xFF-filled buffer whose other bytes must stay 0xFF."""
    set_knobs(transpose_skinny=16)  # whatever the default
    if not in_class((short + 1, short), np.dtype(dtype).itemsize):
        pytest.skip("outside the 1-byte class")
    check_device_views(torch, rng, layout, dtype, view, short, case_b=True)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_dlv_host_views(layout, dtype, rng, poison, set_knobs):
    """NumPy views: rows reversed (a negative row stride), an odd row offset (packed rows from a base off 16 bytes), a
    column slice (rows not packed), a row range."""
    set_knobs(transpose_skinny=16)  # whatever the default
    a = random_bits((40001, MAX_S[np.dtype(dtype).itemsize]), np_dtype(dtype), rng)
    for v in (a[::-1], a[3:], a[1:, 1:], a[7:30007, :2], a[5:]):
        assert_bits_equal(smemkit.transpose(v, layout=layout), v.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(41374, 4), (77777, 8), (5, 9999, 4), (13, 4097, 3)], ids=lambda s: "x".join(map(str, s)))
def test_dlv_modes_agree(dtype, shape, rng, set_knobs):
    a = random_bits(shape if len(shape) == 3 else (1, *shape), np_dtype(dtype), rng)
    check_modes_agree(set_knobs, a, 15, (16,))
