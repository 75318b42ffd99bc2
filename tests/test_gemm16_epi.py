"""The mma.sync kernel's staged row epilogue (csrc/gemm16/epilogue_rows.cuh, knob gemm16_epi, issue #28).

GPU: D through the staged epilogue is bit-identical to the register epilogue's (same accumulators, same
alpha scaling and rounding) for every layout, every tile (forced variants: 128x256 with BK 64 / 32,
128x128, 64x128, 64x64, and variant 0's choice), fp16 and bf16, odd N (odd ldd), out= starting 1 or 3
elements into a buffer (rows off their 4- and 16-byte boundaries), M and N not tile multiples; within
the float64 gamma_K bound; every element written (NaN-filled out=) and nothing outside D touched (the
buffer's sentinels around it).  beta != 0 and float32 output keep the register epilogue under the knob: same
bits, within the bound.
CPU: the knob's plumbing, the pure rule smk_gemm16_epi_staged (ctypes), and explain()'s D-tile accesses
(the fragment stores conflict-free under pad / swizzle, 8-way under naive; the 16-byte row reads at the
minimum 4 wavefronts per instruction in every layout)."""
import ctypes

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_gemm import BF16, DTYPES, LAYOUT_IDS, LAYOUTS, _check_views, _from_torch, _to_torch

# variant -> block tile: 1 128x256x64, 2 128x256x32, 3 128x128x32, 4 128x128x64, 8 64x128, 9 64x64; 0 chosen
VARIANTS = [0, 1, 2, 3, 4, 8, 9]
SHAPES = [(300, 259, 33), (131, 67, 46), (200, 513, 17), (17, 29, 64), (257, 250, 20)]
# out= (C-contiguous, so ldd = N): the view's first element 0, 1 or 3 elements into a buffer of sentinels
# (odd N: the rows' shift alternates; even N and offset 1: every row 2 bytes off its 4-byte boundary)
VIEWS = {"dense": 0, "off1": 1, "off3": 3}
SENTINEL = {np.dtype(np.float16): 0x7E01, BF16: 0x7FC1}  # NaNs with a payload no kernel writes


def _run(torch, da, db, shape, dtype, view, layout, epi, variant, **kw):
    """D's bits from a gemm into out= at offset VIEWS[view] of a sentinel buffer, after checking that
    nothing outside the view was written."""
    M, N, _ = shape
    off = VIEWS[view]
    buf = torch.full((M * N + 16,), SENTINEL[np.dtype(dtype)], dtype=torch.int16, device="cuda")
    out = buf.view(torch.bfloat16 if np.dtype(dtype) == BF16 else torch.float16)[off:off + M * N].view(M, N)
    with _testing.knobs(gemm16_epi=epi, gemm16_variant=variant, gemm16_kernel="mma"):
        d = smemkit.gemm(da, db, layout=layout, out=out, **kw)
    assert d.data_ptr() == out.data_ptr()
    bits = buf.cpu().numpy().view(np.uint16)
    assert np.all(bits[:off] == SENTINEL[np.dtype(dtype)]) and np.all(bits[off + M * N:] == SENTINEL[np.dtype(dtype)]), \
        "a store outside D"
    return bits[off:off + M * N].reshape(M, N)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_staged_epilogue_bit_identical(torch, shape, layout, dtype, rng):
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    da, db = _to_torch(a, torch), _to_torch(b, torch)
    for variant in VARIANTS:
        for view in VIEWS:
            alpha = -1.5 if view == "off1" else 1.0
            reg = _run(torch, da, db, shape, dtype, view, layout, 0, variant, alpha=alpha)
            stg = _run(torch, da, db, shape, dtype, view, layout, 2, variant, alpha=alpha)
            assert np.array_equal(reg, stg), f"variant {variant}, {view}: staged != register epilogue"
            _check_views(stg.view(dtype).astype(np.float64), a, b, None, alpha, 0.0, np.dtype(dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_register_epilogue_kept_for_beta_and_float32(torch, layout, dtype, rng):
    """beta != 0 (C read) and float32 D run the register epilogue whatever the knob: the same bits."""
    shape = (131, 67, 46)
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    c = rng.uniform(-1, 1, (M, N)).astype(dtype)
    da, db, dc = _to_torch(a, torch), _to_torch(b, torch), _to_torch(c, torch)
    for variant in (0, 1, 9):
        got = []
        for epi in (0, 1, 2):
            with _testing.knobs(poison=True, gemm16_epi=epi, gemm16_variant=variant, gemm16_kernel="mma"):
                d = smemkit.gemm(da, db, dc, alpha=2.0, beta=-0.75, layout=layout)
                d32 = smemkit.gemm(da, db, layout=layout, out_dtype=np.float32)
            got.append((_from_torch(d, np.dtype(dtype)).view(np.uint16), d32.cpu().numpy()))
        for g in got[1:]:
            assert np.array_equal(g[0], got[0][0]) and np.array_equal(g[1].view(np.uint32), got[0][1].view(np.uint32))
        _check_views(got[2][0].view(dtype).astype(np.float64), a, b, c, 2.0, -0.75, np.dtype(dtype))
        _check_views(got[2][1].astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(np.float32))


ISSUE_DRAWS = [(973, 6479, 37), (3849, 1697, 17)]
TINYK_DRAWS = [(3690, 613, 15), (1100, 999, 9), (1024, 1025, 4)]  # K >= 4, M N >= 2^20: level 3 takes them


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", ISSUE_DRAWS, ids=["x".join(map(str, s)) for s in ISSUE_DRAWS])
def test_issue_draws_level_1(torch, shape, dtype, rng):
    """The measured write-bound draws (odd N, K 17..64) under level 1, variant 0 as shipped: the same
    bits as the register epilogue, within the bound, NaN-poisoned output fully written."""
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    da, db = _to_torch(a, torch), _to_torch(b, torch)
    outs = []
    for epi in (0, 1):
        with _testing.knobs(poison=True, gemm16_epi=epi):
            outs.append(_from_torch(smemkit.gemm(da, db), np.dtype(dtype)).view(np.uint16))
    assert np.array_equal(outs[0], outs[1])
    _check_views(outs[1].view(dtype).astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", TINYK_DRAWS, ids=["x".join(map(str, s)) for s in TINYK_DRAWS])
def test_level_3_tinyk_draws_on_tiles(torch, shape, dtype, rng):
    """Level 3 moves TINYK's big outputs to the tiles (another kernel: within the bound, not bit-equal)."""
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    for layout in ("naive", "pad", "swizzle"):
        with _testing.knobs(poison=True, gemm16_epi=3):
            d = smemkit.gemm(_to_torch(a, torch), _to_torch(b, torch), layout=layout)
        _check_views(_from_torch(d, np.dtype(dtype)).astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))


# ---- CPU ----------------------------------------------------------------------------------------------
def test_knob_levels():
    assert _testing.KNOBS["gemm16_epi"] == 4  # the default since session 42 (1 since session 38)
    for v in (0, 1, 2, 3, 4):
        with _testing.knobs(gemm16_epi=v):
            assert _testing.current()["gemm16_epi"] == v
    for bad in (-1, 5):
        with pytest.raises(ValueError):
            with _testing.knobs(gemm16_epi=bad):
                pass


def test_staged_rule():
    so = ctypes.CDLL(_C.__file__)
    f = so.smk_gemm16_epi_staged
    f.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    for K in (0, 17, 64, 65, 4096):
        for pairs in (0, 1):
            assert f(0, K, pairs, 0, 0) == 0
            assert f(2, K, pairs, 0, 0) == 1
            assert f(1, K, pairs, 0, 0) == f(3, K, pairs, 0, 0) == int(not pairs or K <= 64)
            for mode in (1, 2, 3):  # fp32 D, a C term: the register epilogue
                assert f(mode, K, pairs, 1, 0) == 0 and f(mode, K, pairs, 0, 1) == 0


def test_staged_rule_with_the_width():
    """Level 4 (api/gemm16_epi.h): level 1, and K <= 256 with N >= 512; levels 0..3 as smk_gemm16_epi_staged."""
    so = ctypes.CDLL(_C.__file__)
    f, g = so.smk_gemm16_epi_staged, so.smk_gemm16_epi_staged_n
    f.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    g.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    for N in (1, 116, 511, 512, 5324):
        for K in (0, 17, 64, 65, 256, 257, 4096):
            for pairs in (0, 1):
                for o32, beta in ((0, 0), (1, 0), (0, 1)):
                    for mode in (0, 1, 2, 3):
                        assert g(mode, N, K, pairs, o32, beta) == f(mode, K, pairs, o32, beta)
                    want = f(1, K, pairs, o32, beta) or (not o32 and not beta and K <= 256 and N >= 512)
                    assert g(4, N, K, pairs, o32, beta) == int(want), (N, K, pairs, o32, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("shape", [(4206, 2548, 79), (1341, 5324, 130), (700, 1030, 256), (300, 514, 200)],
                         ids=lambda s: "x".join(map(str, s)))
def test_level_4_bit_identical_to_registers(torch, shape, layout, dtype, rng):
    """Level 4's wider rule (even N, K 65..256, N >= 512): the staged rows and the register epilogue give the same
    bits, within the bound, the NaN-poisoned output fully written; explain() stages D at level 4 only."""
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    b = rng.uniform(-1, 1, (K, N)).astype(dtype)
    da, db = _to_torch(a, torch), _to_torch(b, torch)
    outs = []
    for epi in (0, 4):
        with _testing.knobs(poison=True, gemm16_epi=epi, gemm16_kernel="mma"):
            outs.append(_from_torch(smemkit.gemm(da, db, layout=layout), np.dtype(dtype)).view(np.uint16))
    assert np.array_equal(outs[0], outs[1])
    _check_views(outs[1].view(dtype).astype(np.float64), a, b, None, 1.0, 0.0, np.dtype(dtype))


@pytest.mark.parametrize("shape", [(4206, 2548, 79), (1341, 5324, 130), (300, 514, 200)], ids=lambda s: "x".join(map(str, s)))
def test_level_4_in_explain(shape):
    rows = {}
    for epi in (1, 4):
        with _testing.knobs(gemm16_epi=epi, gemm16_kernel="mma"):
            e = smemkit.explain("gemm", shape, layout="swizzle", dtype="float16")
        rows[epi] = [r for r in e.accesses if r.name.startswith("D-tile")]
    assert not rows[1] and rows[4], rows


def _epi_rows(shape, layout, epi, config=0):
    with _testing.knobs(gemm16_epi=epi):
        e = smemkit.explain("gemm", shape, layout=layout, dtype="float16", config=config)
    return e, [r for r in e.accesses if r.name.startswith("D-tile")]


# config -> (BM, BN, MI, NI of a warp)
TILE_OF = {1: (128, 256, 4, 8), 3: (128, 128, 4, 4), 8: (64, 128, 2, 4), 9: (64, 64, 2, 2)}


@pytest.mark.parametrize("config", sorted(TILE_OF))
@pytest.mark.parametrize("layout, sts_wf", [("naive", 8), ("pad", 1), ("swizzle", 1), (smemkit.Swizzle(2, 3, 2), 1)],
                         ids=["naive", "pad", "swizzle", "swizzle232"])
def test_explain_models_the_staged_epilogue(config, layout, sts_wf):
    BM, BN, MI, NI = TILE_OF[config]
    shape = (1000, 999, 40)  # odd N: level 1 stages
    _, none = _epi_rows(shape, layout, 0, config)
    assert none == []
    e, rows = _epi_rows(shape, layout, 1, config)
    sts, lds = rows
    blocks = -(-1000 // BM) * -(-999 // BN)
    assert (sts.width, sts.kind, sts.instructions) == (4, "store", 8 * MI * NI * 2 * blocks)
    assert sts.wavefronts == sts_wf * sts.instructions and sts.ideal == sts.instructions
    iters = BM // (8 * (32 // (BN // 8)))
    assert (lds.width, lds.kind, lds.instructions) == (16, "load", 8 * iters * blocks)
    assert lds.wavefronts == 4 * lds.instructions == lds.ideal
    _, rows2 = _epi_rows((1000, 1000, 4096), layout, 1, config)  # aligned pairs, big K: registers
    assert rows2 == []
    _, rows3 = _epi_rows((1000, 1000, 4096), layout, 2, config)
    assert len(rows3) == 2


@pytest.mark.parametrize("shape", TINYK_DRAWS, ids=["x".join(map(str, s)) for s in TINYK_DRAWS])
@_testing.knobs(gemm16_mv_level=63)  # TINYK as routed before bit 256 (which sends these shapes to the MMA kernel)
def test_level_3_routes_tinyk_outputs_to_the_tiles(shape):
    with _testing.knobs(gemm16_epi=1):
        assert "TINYK" in smemkit.explain("gemm", shape, layout="swizzle", dtype="float16").config
    e, rows = _epi_rows(shape, "swizzle", 3)
    assert "memory-bound" not in e.config and len(rows) == 2
    with _testing.knobs(gemm16_epi=3):  # K < 4 stays with TINYK, small outputs with the memory-bound path
        assert "TINYK" in smemkit.explain("gemm", (1024, 1025, 3), layout="swizzle", dtype="float16").config
        assert "memory-bound" in smemkit.explain("gemm", (1000, 1001, 9), layout="swizzle", dtype="float16").config


# ---- the row store's arithmetic (epilogue_rows.cuh shift_window / store_chunk), replayed in Python -----
def _shift_window(prev, cur, sh):
    x = prev + cur  # 8 words
    s = 8 - sh
    q, shift = s >> 1, (s & 1) * 16
    t = [x[i + 2] if q & 2 else x[i] for i in range(6)] if sh else None
    if sh == 0:
        return list(cur)
    y = [t[i + 1] if q & 1 else t[i] for i in range(5)]
    return [((y[j] | (y[j + 1] << 32)) >> shift) & 0xFFFFFFFF for j in range(4)]


def _store_chunk(mem, ga, k, nc, prev, cur, sh, cpr):
    """mem: {element address: (value, store width)}; returns the store widths used."""
    o = _shift_window(prev, cur, sh)
    t0 = 8 * k - sh
    if t0 >= 0 and t0 + 8 <= nc:
        for e in range(8):
            mem.setdefault(ga + 8 * k + e, []).append(((o[e >> 1] >> (16 * (e & 1))) & 0xFFFF, 16))
        assert (ga + 8 * k) % 8 == 0
        return
    for j in range(4):
        e = 2 * j
        w0, w1 = t0 + e < 0, t0 + e + 1 < 0
        in0 = (t0 + e + 8 * cpr if w0 else t0 + e) < nc
        in1 = (t0 + e + 1 + 8 * cpr if w1 else t0 + e + 1) < nc
        d0 = ga + 8 * k + e + (8 * cpr if w0 else 0)
        if in0 and in1 and w0 == w1:
            assert d0 % 2 == 0  # 4-byte aligned (elements of 2 bytes)
            mem.setdefault(d0, []).append((o[j] & 0xFFFF, 4))
            mem.setdefault(d0 + 1, []).append((o[j] >> 16, 4))
        else:
            if in0:
                mem.setdefault(d0, []).append((o[j] & 0xFFFF, 2))
            if in1:
                mem.setdefault(ga + 8 * k + e + 1 + (8 * cpr if w1 else 0), []).append((o[j] >> 16, 2))


@pytest.mark.parametrize("bn", [64, 128, 256])
def test_row_store_writes_each_element_once_in_place(bn):
    """Every row start (sh = 0..7 elements past 16 bytes) and every column count nc: the lanes' chunks
    write tile element t (value 1000 + t) exactly once, at the row's start + t, and nothing else."""
    cpr = bn // 8
    tile = [1000 + t for t in range(bn)]
    slots = [[tile[8 * k + 2 * i] | (tile[8 * k + 2 * i + 1] << 16) for i in range(4)] for k in range(cpr)]
    for sh in range(8):
        ga = 64  # the 16-byte boundary before the row, in elements; the row starts at ga + sh
        for nc in list(range(1, 18)) + list(range(bn - 17, bn + 1)):
            if nc < 1:
                continue
            mem = {}
            for k in range(cpr):
                _store_chunk(mem, ga, k, nc, slots[(k - 1) % cpr], slots[k], sh, cpr)
            assert sorted(mem) == [ga + sh + t for t in range(nc)], (sh, nc)
            for t in range(nc):
                (value, _), = mem[ga + sh + t]
                assert value == tile[t], (sh, nc, t)
