"""The wgmma kernel on unaligned rows through padded copies (issue 29 on the every-shape draws of issue 28):
the gemm16_kernel knob's levels 3 ("auto_padded"), 4 ("wgmma_padded") and 5 ("cost").  On the CPU: the rule
(api/wgmma.h smk_wgmma_auto_padded / smk_gemm16_kernel_for_ab) against its statement on thousands of
draws of the issue's law, the old 13-argument callers, the temporaries the size checks count
(gemm16_temp.c), explain's config.  On a compute capability 9.0 device: torch operands with rows off 16
bytes (every residue of M, N, K mod 8, K < 256, views at odd element offsets), alpha / beta, C, out=,
out_dtype float32, NaN-poisoned outputs, fp16 and bf16 against the float64 product with the gamma_K
bound, the kernel that ran counted (wgmma_launches), and the forced level against mma.sync."""
import ctypes
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing

ml_dtypes = pytest.importorskip("ml_dtypes")
from test_gemm import BF16, check, operands  # noqa: E402
from test_wgmma import sm90, torch_operands  # noqa: E402,F401  (sm90: the skipif string below)

H100 = dict(cc=(9, 0), sms=132)
SWIZZLE = 2
needs_sm90 = pytest.mark.skipif("not sm90()", reason="the wgmma kernel runs on compute capability 9.0 only")


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    i64 = ctypes.c_int64
    so.smk_wgmma_ns.argtypes = [i64, i64, i64, ctypes.c_int]
    so.smk_wgmma_ns.restype = ctypes.c_double
    so.smk_gemm16_copies_ns.argtypes = [i64, i64, i64, ctypes.c_int, ctypes.c_int]
    so.smk_gemm16_copies_ns.restype = ctypes.c_double
    so.smk_gemm16_dram_ns.argtypes = [i64, i64, i64]
    so.smk_gemm16_dram_ns.restype = ctypes.c_double
    so.smk_gemm16_temp_bytes_shape.argtypes = [i64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    so.smk_gemm16_wgmma_temp_bytes.argtypes = [i64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_wgmma_temp_bytes.restype = ctypes.c_size_t
    return so


class Choice(ctypes.Structure):  # api/gemm16.h smk_gemm16_choice
    _fields_ = [("variant", ctypes.c_int), ("splits", ctypes.c_int), ("k_chunk", ctypes.c_int64),
                ("pad_a", ctypes.c_int), ("pad_b", ctypes.c_int), ("est_ns", ctypes.c_double)]


def mma_est_ns(lib, M, N, K, sms, a_al, b_al):
    ch = Choice()
    lib.smk_gemm16_choose(ctypes.c_int64(M), ctypes.c_int64(N), ctypes.c_int64(K), ctypes.c_int(sms),
                          ctypes.c_int(a_al), ctypes.c_int(b_al), ctypes.byref(ch))
    return ch


def fill_rule(M, N, K, sms):
    tiles = -(-M // 128) * -(-N // 256)
    return K >= 256 and 3 * tiles >= 2 * sms * -(-tiles // sms)


def pad8(n):
    return (n + 7) // 8 * 8


def kernel(shape, knob, aligned=None, layout="swizzle", **kw):
    return _testing.gemm16_kernel_for(shape, layout, knob=knob, rows_aligned=aligned, **{**H100, **kw})


def law_draws(n, seed):
    """M, N, K of issue 28's law (bench/timing/draws.py gemm_draws, restated: no bench import here)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        if M * N >= 64 and M * N * K >= 1 << 20 and M * N * K <= 8192 ** 3:
            out.append((M, N, K))
    return out


def test_knob_levels_and_names():
    with _testing.knobs(gemm16_kernel="auto_padded"):
        assert _testing.current()["gemm16_kernel"] == 3
        assert _testing.gemm16_kernel_for((3001, 2999, 1001), **H100) == "wgmma"
    with _testing.knobs(gemm16_kernel=4):
        assert _testing.gemm16_kernel_for((33, 17, 9), **H100) == "wgmma"
    with _testing.knobs(gemm16_kernel="cost"):
        assert _testing.current()["gemm16_kernel"] == 5
    with pytest.raises(ValueError):
        _C._set_knob("gemm16_kernel", 7)  # 6 is "auto_mid" (test_wgmma_mid.py)
    assert _testing.KNOBS["gemm16_kernel"] == 6  # "auto_mid", the default since session 42 (3 since session 38)


def test_old_callers_and_levels_1_2_unchanged():
    """The 13-argument _gemm16_kernel_for (rows_aligned = both) answers as before: knobs 1 and 2 never
    take unaligned rows; knob 3 on aligned rows is knob 2, knob 4 is knob 1."""
    rng = np.random.default_rng(2901)
    for M, N, K in law_draws(3000, 2901):
        sms = int(rng.choice([78, 114, 132]))
        for al in (0, 1):
            old = [_C._gemm16_kernel_for(k, 0, M, N, K, SWIZZLE, 0, 0, 0, al, 9, 0, sms) for k in range(5)]
            new = [_C._gemm16_kernel_for(k, 0, M, N, K, SWIZZLE, 0, 0, 0, al, 9, 0, sms, al) for k in range(5)]
            assert old == new
            assert old[2] == (al and fill_rule(M, N, K, sms)) and old[1] == al and old[0] == 0
            if al:
                assert (old[3], old[4]) == (old[2], old[1])


def test_auto_padded_matches_its_statement(lib):
    """Knob 3 with unaligned rows: the fill rule, then copies + the wgmma model under the mma.sync choice's
    modelled cost; the wgmma model restated (ceil(tiles / sms) waves of (K + 128) * 128 * 256 / 2900 ns,
    floored by the DRAM pass)."""
    taken = 0
    for M, N, K in law_draws(4000, 2902):
        for a_al, b_al in ((K % 8 == 0, N % 8 == 0), (0, 1), (1, 0), (0, 0)):
            if a_al and b_al:
                continue
            got = _C._gemm16_kernel_for(3, 0, M, N, K, SWIZZLE, 0, 0, 0, int(a_al), 9, 0, 132, int(b_al))
            tiles = -(-M // 128) * -(-N // 256)
            w = max(-(-tiles // 132) * 128 * 256 * (K + 128) / 2900, lib.smk_gemm16_dram_ns(M, N, K))
            assert lib.smk_wgmma_ns(M, N, K, 132) == pytest.approx(w, rel=1e-12)
            copies = lib.smk_gemm16_copies_ns(M, N, K, int(a_al), int(b_al))
            want = fill_rule(M, N, K, 132) and copies + w < mma_est_ns(lib, M, N, K, 132, a_al, b_al).est_ns
            assert got == want, (M, N, K, a_al, b_al)
            taken += got
            for layout in ("naive", "pad", smemkit.Swizzle(2, 3, 3)):  # auto: "swizzle" only
                assert kernel((M, N, K), 3, (bool(a_al), bool(b_al)), layout) == "mma.sync"
    assert taken > 100  # the rule takes a real share of the law's draws


def test_cost_level_matches_its_statement(lib):
    """Knob 5: K >= 128 and copies (none where aligned) + the wgmma model under the mma.sync choice's cost,
    no wave-fill gate; it takes at least what knob 3 takes on unaligned rows."""
    for M, N, K in law_draws(3000, 2904):
        for a_al, b_al in ((K % 8 == 0, N % 8 == 0), (1, 1), (0, 1)):
            got = _C._gemm16_kernel_for(5, 0, M, N, K, SWIZZLE, 0, 0, 0, int(a_al), 9, 0, 132, int(b_al))
            w = lib.smk_wgmma_ns(M, N, K, 132) + lib.smk_gemm16_copies_ns(M, N, K, int(a_al), int(b_al))
            assert got == (K >= 128 and w < mma_est_ns(lib, M, N, K, 132, a_al, b_al).est_ns), (M, N, K, a_al, b_al)
            if not (a_al and b_al):
                assert got >= _C._gemm16_kernel_for(3, 0, M, N, K, SWIZZLE, 0, 0, 0, int(a_al), 9, 0, 132, int(b_al))
            assert kernel((M, N, K), "cost", (bool(a_al), bool(b_al)), "naive") == "mma.sync"


def test_auto_padded_examples():
    for shape in ((3001, 2999, 1001), (7324, 12946, 681), (5776, 10273, 4689), (15856, 7074, 3240)):
        assert kernel(shape, "auto_padded") == "wgmma", shape
        assert kernel(shape, "auto") == "mma.sync", shape
    assert kernel((4096, 4096, 255), "auto_padded") == "mma.sync"  # K < 256: the fill rule's K bound
    assert kernel((1000, 1001, 1000), "auto_padded") == "mma.sync"  # 32 tiles on 132 SMs
    for cc in ((8, 0), (9, 1)):
        assert kernel((3001, 2999, 1001), "auto_padded", cc=cc) == "mma.sync"
    assert kernel((3001, 2999, 1001), "auto_padded", variant=1) == "mma.sync"


def test_forced_padded_level():
    for shape in ((1, 1, 1), (33, 17, 9), (130, 264, 37), (3001, 2999, 1001)):
        for al in ((False, False), (True, False), (False, True)):
            assert kernel(shape, "wgmma_padded", al) == "wgmma"
            assert kernel(shape, "wgmma_padded", al, smemkit.Swizzle(1, 3, 3)) == "wgmma"
            assert kernel(shape, "wgmma_padded", al, "pad") == "mma.sync"
            assert kernel(shape, "wgmma", al) == "mma.sync"


def test_temp_bytes_count_the_copies(lib):
    """gemm16_temp.c: under knobs 3 / 4 the wgmma route's padded copies (A: M x pad8(K), B: K x pad8(N),
    2 bytes each) where the rule takes the shape, the larger of it and the mma.sync route's bytes; knob
    2's answer unchanged."""
    draws = law_draws(600, 2903) + [(3001, 2999, 1001), (33, 17, 9), (7, 5000, 300)]
    for M, N, K in draws:
        for a_al, b_al in ((K % 8 == 0, N % 8 == 0), (0, 1), (1, 0), (0, 0)):
            args = (M, N, K, 0, int(a_al), int(b_al), 132)
            with _testing.knobs(gemm16_kernel="auto"):
                base = lib.smk_gemm16_temp_bytes_shape(*args)
                assert lib.smk_gemm16_wgmma_temp_bytes(*args) == 0
            for knob in (3, 4, 5):
                with _testing.knobs(gemm16_kernel=knob):
                    takes = _C._gemm16_kernel_for(knob, 0, M, N, K, SWIZZLE, 0, 0, 0, int(a_al), 9, 0, 132, int(b_al))
                    copies = (0 if a_al else 2 * M * pad8(K)) + (0 if b_al else 2 * K * pad8(N))
                    want = copies if takes and not (a_al and b_al) else 0
                    assert lib.smk_gemm16_wgmma_temp_bytes(*args) == want
                    assert lib.smk_gemm16_temp_bytes_shape(*args) == max(base, want)
    with _testing.knobs(gemm16_kernel="wgmma_padded"):  # a memory-bound shape: wgmma copies instead
        assert lib.smk_gemm16_temp_bytes_shape(33, 17, 9, 0, 0, 0, 132) >= 2 * 33 * 16 + 2 * 9 * 24


def test_explain_names_the_copies():
    e = smemkit.explain("gemm", (3001, 2999, 1001), "swizzle", kernel="wgmma")
    assert e.config.startswith("wgmma 128x256x64") and "A and B copied" in e.config
    aligned = smemkit.explain("gemm", (3001, 2999, 1008), "swizzle", kernel="wgmma")  # 16 k-tiles either way
    assert "B copied" in aligned.config and "A and B" not in aligned.config
    assert [a.instructions for a in e.accesses] == [a.instructions for a in aligned.accesses]
    assert "copied" not in smemkit.explain("gemm", (3000, 3000, 1008), "swizzle", kernel="wgmma").config


# ---- on a compute capability 9.0 device --------------------------------------------------------------

def _np(torch, t, ndt):
    t = t.cpu()
    return t.numpy() if t.dtype == torch.float32 else t.view(torch.int16).numpy().view(ndt)


def _pairs(torch):
    return ((torch.float16, np.dtype(np.float16)), (torch.bfloat16, BF16))


def run(knob, expect_wgmma, *args, **kw):
    before = _testing.wgmma_launches()
    with _testing.knobs(gemm16_kernel=knob):
        d = smemkit.gemm(*args, **kw)
    assert _testing.wgmma_launches() - before == (1 if expect_wgmma else 0), "not the kernel the test meant"
    return d


# every residue of M, N, K mod 8 (N and K paired so that each shape has some unaligned operand), K < 256,
# K < 64 (one partial k-tile), several tiles and persistent waves
RESIDUES = [(128 + r, 256 + (r + 3) % 8 + 8 * r, 64 * (r + 1) + (r + 5) % 8) for r in range(8)]
SMALL_K = [(200, 131, 37), (97, 300, 9), (129, 257, 255), (1, 1, 1), (300, 1, 100)]
MANY_TILES = [(2113, 1999, 777), (1030, 4099, 300)]


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("shape", RESIDUES + SMALL_K + MANY_TILES, ids=lambda s: "x".join(map(str, s)))
def test_padded_within_bound(poison, torch, shape):
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt)  # dense rows: A off 16 bytes iff K % 8, B iff N % 8
        d = run("wgmma_padded", True, a, b)
        check(_np(torch, d, ndt), shape, ndt, ndt, 1.0, 0.0)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("off", [(1, 0), (0, 1), (3, 5), (8, 7)], ids=["pitch1", "base1", "pitch3_base5", "pitch8_base7"])
def test_padded_views_at_odd_offsets(poison, torch, off):
    shape = (300, 520, 264)  # aligned K and N: only the views make the rows unaligned
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt, *off)
        d = run("wgmma_padded", True, a, b)
        check(_np(torch, d, ndt), shape, ndt, ndt, 1.0, 0.0)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("alpha, beta", [(-0.5, 0.0), (2.0, -0.75), (1.0, 1.0)])
@pytest.mark.parametrize("shape", [(200, 137, 193), (257, 300, 1001)], ids=["200x137x193", "257x300x1001"])
def test_padded_alpha_beta_c_out(torch, shape, alpha, beta):
    """C read, D an out= tensor filled with NaN (odd N: D's rows off 16 bytes, the register epilogue)."""
    M, N, K = shape
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt)
        c_np = operands(shape, ndt)[2]
        c = torch.from_numpy(c_np.view(np.int16)).view(tdt).cuda()
        out = torch.full((M, N), float("nan"), dtype=tdt, device="cuda")
        run("wgmma_padded", True, a, b, c if beta else None, alpha=alpha, beta=beta, out=out)
        check(_np(torch, out, ndt), shape, ndt, ndt, alpha, beta)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("spelling", ["torch", "numpy"])
def test_padded_float32_output(poison, torch, spelling):
    shape = (130, 261, 299)
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt)
        c32 = operands(shape, ndt)[2].astype(np.float32)
        c = torch.from_numpy(c32).cuda()
        od = torch.float32 if spelling == "torch" else np.float32
        d = run("wgmma_padded", True, a, b, c, alpha=0.5, beta=-1.5, out_dtype=od)
        check(_np(torch, d, ndt), shape, ndt, np.dtype(np.float32), 0.5, -1.5, c=c32)
        out = torch.full((shape[0], shape[1]), float("nan"), dtype=torch.float32, device="cuda")
        run("wgmma_padded", True, a, b, out=out, out_dtype=od)
        check(_np(torch, out, ndt), shape, ndt, np.dtype(np.float32), 1.0, 0.0)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("knob", ["auto_padded", "cost"])
def test_auto_levels_run_what_the_rule_names(poison, torch, knob):
    info = _testing.device_info()
    for shape in ((3001, 2999, 1001), (1000, 1001, 1000), (2183, 4001, 450), (212, 10942, 233), (1024, 2048, 512)):
        for tdt, ndt in _pairs(torch):
            a, b = torch_operands(torch, shape, ndt, tdt)
            want = _testing.gemm16_kernel_for(shape, cc=info["cc"], sms=info["sms"], knob=knob)
            d = run(knob, want == "wgmma", a, b)
            check(_np(torch, d, ndt), shape, ndt, ndt, 1.0, 0.0)
    assert _testing.gemm16_kernel_for((3001, 2999, 1001), cc=info["cc"], sms=info["sms"], knob=knob) == "wgmma"


@pytest.mark.gpu
@needs_sm90
def test_forced_padded_against_mma(poison, torch):
    """The same operands through mma.sync (knob "mma") and the wgmma kernel on copies (knob 4): both within
    the bound, and within twice the bound of each other."""
    shape = (777, 1283, 517)
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt, 0, 3)
        dm = _np(torch, run("mma", False, a, b), ndt).astype(np.float64)
        dw = _np(torch, run("wgmma_padded", True, a, b), ndt).astype(np.float64)
        check(dm.astype(ndt), shape, ndt, ndt, 1.0, 0.0)
        check(dw.astype(ndt), shape, ndt, ndt, 1.0, 0.0)
        assert np.max(np.abs(dm - dw)) <= 2 * np.max(np.abs(operands(shape, ndt)[3])) * 2.0 ** -7


@pytest.mark.gpu
@needs_sm90
def test_padded_alpha_zero_and_k0_fall_back(poison, torch):
    """alpha == 0 or K == 0: D = beta * C without tensor cores, nothing copied, mma.sync's launcher."""
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, (65, 33, 17), ndt, tdt)
        z = run("wgmma_padded", False, a, b, alpha=0.0)
        assert np.all(_np(torch, z, ndt).astype(np.float64) == 0)
