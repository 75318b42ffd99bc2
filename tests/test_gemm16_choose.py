"""csrc/gemm16_choose.c: variant 0's choice (tile, K split, padded copies or unaligned rows in place) as a
pure function of (M, N, K, SMs, row alignment), and what follows it: the temporaries' bytes
(gemm16_temp.c), the explain plan (gemm16_plan.cu).  CPU only, through ctypes on the built extension."""
import ctypes
import math
import random

import pytest

from smemkit import _C, _testing

# BM, BN, BK, per SM: the chooser's table, and 4 (128x128 at 2 per SM), gemm16_shortk's retile of K <= 64
TILES = {1: (128, 256, 64, 1), 6: (128, 128, 64, 1), 8: (64, 128, 64, 2), 9: (64, 64, 64, 3), 4: (128, 128, 64, 2)}
PRE28 = 10
WS_MAX = 1 << 28


class Choice(ctypes.Structure):  # csrc/api/gemm16.h smk_gemm16_choice
    _fields_ = [("variant", ctypes.c_int), ("splits", ctypes.c_int), ("k_chunk", ctypes.c_int64),
                ("pad_a", ctypes.c_int), ("pad_b", ctypes.c_int), ("est_ns", ctypes.c_double)]


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_choose.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 3 + [ctypes.POINTER(Choice)]
    so.smk_gemm16_choose.restype = None
    so.smk_gemm16_choice_bytes.argtypes = [ctypes.c_int64] * 3 + [ctypes.POINTER(Choice)] + \
        [ctypes.POINTER(ctypes.c_size_t)] * 2
    so.smk_gemm16_choice_bytes.restype = ctypes.c_size_t
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    return so


def choose(lib, M, N, K, sms=132, a_al=True, b_al=True):
    ch = Choice()
    lib.smk_gemm16_choose(M, N, K, sms, int(a_al), int(b_al), ctypes.byref(ch))
    return ch


def draws(n, seed):
    """The issue's distribution (M, N log-uniform in [1, 16384], K in [1, 65536], M*N >= 64,
    M*N*K >= 2^20, M*N*K <= 8192^3)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        M = round(math.exp(rng.uniform(0, math.log(16384))))
        N = round(math.exp(rng.uniform(0, math.log(16384))))
        K = round(math.exp(rng.uniform(0, math.log(65536))))
        if M * N >= 64 and M * N * K >= 2**20 and M * N * K <= 8192**3:
            out.append((M, N, K))
    return out


def test_choice_properties_on_random_shapes(lib):
    for M, N, K in draws(3000, 5):
        for sms in (132, 114, 20):
            for a_al, b_al in ((True, True), (K % 8 == 0, N % 8 == 0), (False, False)):
                ch = choose(lib, M, N, K, sms, a_al, b_al)
                assert ch.variant in TILES, (M, N, K, sms)
                bk = TILES[ch.variant][2]
                assert 1 <= ch.splits <= 64
                if ch.splits == 1:
                    assert ch.k_chunk == K
                else:  # slices of whole k-tiles; every slice non-empty; the workspace bounded
                    assert ch.k_chunk % bk == 0 and ch.k_chunk >= 256
                    assert (ch.splits - 1) * ch.k_chunk < K <= ch.splits * ch.k_chunk
                    assert ch.splits * M * ((N + 3) // 4 * 4) * 4 <= WS_MAX
                assert not (ch.pad_a and a_al) and not (ch.pad_b and b_al)  # aligned rows are never copied
                if not (a_al and b_al):  # copies are all-or-nothing: the cp.async kernel needs both aligned
                    assert (ch.pad_a or ch.pad_b) == ((ch.pad_a or a_al) and (ch.pad_b or b_al))
                assert ch.est_ns > 0
                again = choose(lib, M, N, K, sms, a_al, b_al)
                assert (again.variant, again.splits, again.k_chunk) == (ch.variant, ch.splits, ch.k_chunk)


@pytest.mark.parametrize("shape", [(4096, 11008, 4096), (8192, 1024, 8192), (6144, 6144, 6144), (4096, 4096, 4096)])
def test_big_aligned_shapes_keep_the_big_tile_unsplit(lib, shape):
    ch = choose(lib, *shape)
    assert (ch.variant, ch.splits, ch.pad_a, ch.pad_b) == (1, 1, 0, 0)


@pytest.mark.parametrize("shape", [(256, 256, 16384), (74, 6, 13105), (381, 29, 5523), (1245, 208, 8608),
                                   (16, 4096, 4096)])
def test_k_heavy_small_outputs_split(lib, shape):
    M, N, K = shape
    ch = choose(lib, M, N, K)
    bm, bn = TILES[ch.variant][:2]
    assert ch.splits > 1
    assert math.ceil(M / bm) * math.ceil(N / bn) * ch.splits >= 66  # at least half the SMs busy


@pytest.mark.parametrize("shape", [(1000, 1000, 1000), (512, 512, 512), (300, 260, 333)])
def test_mid_sizes_fill_more_sms_than_the_old_tile(lib, shape):
    M, N, K = shape
    ch = choose(lib, M, N, K)
    bm, bn = TILES[ch.variant][:2]
    old = math.ceil(M / 128) * math.ceil(N / 128)  # variant 0 before #28: at best 128x128
    assert math.ceil(M / bm) * math.ceil(N / bn) * ch.splits > old


def test_unaligned_rows_copied_only_when_the_gemm_dwarfs_the_copies(lib):
    big = choose(lib, 4097, 4095, 4093, 132, False, False)  # copies ~0.1 ms, the staged path ~2.5x slower
    assert big.pad_a and big.pad_b
    for shape in [(300, 260, 333), (513, 257, 129), (74, 6, 13105), (381, 29, 5523)]:
        ch = choose(lib, *shape, 132, False, False)
        assert not ch.pad_a and not ch.pad_b, shape  # a few microseconds of GEMM: read in place


def test_full_grids_never_split(lib):
    """Split-K is for outputs under one wave of the chosen tile."""
    for M, N, K in draws(1000, 9):
        for sms in (16, 132):
            ch = choose(lib, M, N, K, sms)
            bm, bn, _, bps = TILES[ch.variant]
            if math.ceil(M / bm) * math.ceil(N / bn) >= sms * bps:
                assert ch.splits == 1, (M, N, K, sms)


@_testing.knobs(gemm16_matvec=0)  # the tile chooser's bytes: shapes the memory-bound path takes are its own
def test_temp_bytes_follow_the_choice(lib):
    for M, N, K in draws(400, 10):
        for a_al, b_al in ((True, True), (False, True), (True, False), (False, False)):
            ch = choose(lib, M, N, K, 132, a_al, b_al)
            pad, ws = ctypes.c_size_t(), ctypes.c_size_t()
            total = lib.smk_gemm16_choice_bytes(M, N, K, ctypes.byref(ch), ctypes.byref(pad), ctypes.byref(ws))
            want_pad = (M * ((K + 7) // 8 * 8) * 2 if ch.pad_a else 0) + (K * ((N + 7) // 8 * 8) * 2 if ch.pad_b else 0)
            want_ws = ch.splits * M * ((N + 3) // 4 * 4) * 4 if ch.splits > 1 else 0
            assert (pad.value, ws.value, total) == (want_pad, want_ws, want_pad + want_ws)
            assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, a_al, b_al, 132) == total
            assert lib.smk_gemm16_temp_bytes_shape(M, N, 0, 0, a_al, b_al, 132) == 0  # K == 0 / alpha == 0
            old = (0 if a_al else M * ((K + 7) // 8 * 8) * 2) + (0 if b_al else K * ((N + 7) // 8 * 8) * 2)
            assert lib.smk_gemm16_temp_bytes_shape(M, N, K, PRE28, a_al, b_al, 132) == old
            assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 1, a_al, b_al, 132) == 0


def test_plan_replays_the_choice(lib):
    for shape, want in (((256, 256, 16384), "split K"), ((4097, 4095, 4093), "unaligned rows padded"),
                        ((300, 260, 333), "unaligned rows in place")):
        M, N, K = shape
        plan = _C._plan("gemm", shape, "swizzle", 2, 132, 0, 0)
        assert want in plan["config"] or (want == "unaligned rows in place" and ("in place, deep x4" in plan["config"] or
                                                                              "half tile, deep x4" in plan["config"])), \
            plan["config"]  # gemm16_staged 1 (the default): the in-place rows with 4 k-tiles of loads in flight;
        # gemm16_small 1 (the default since session 43): on the 32x64 half tile where its grid fits a wave
        ch = choose(lib, M, N, K, 132, K % 8 == 0, N % 8 == 0)
        bm, bn = TILES[ch.variant][:2]
        if "half tile" in plan["config"]:
            bm //= 2  # the 32x64 half tile of a 64x64 choice
        assert plan["blocks"] == math.ceil(M / bm) * math.ceil(N / bn) * ch.splits
    old = _C._plan("gemm", (4097, 4095, 4093), "swizzle", 2, 132, PRE28, 0)
    assert "unaligned rows padded" in old["config"] and old["blocks"] == 33 * 16


@pytest.mark.parametrize("shape", [(3001, 2999, 1001), (7324, 12946, 681), (5776, 10273, 4689)])
def test_big_odd_shapes_keep_the_old_padded_path(lib, shape):
    """Where variant 0 before #28 already beat cuBLAS (issue 28: 1.47x .. 2.42x), the chooser keeps it
    unless its model finds 10% (KEEP): 128x256, unsplit, both operands padded."""
    M, N, K = shape
    ch = choose(lib, M, N, K, 132, K % 8 == 0, N % 8 == 0)
    assert (ch.variant, ch.splits, ch.pad_a, ch.pad_b) == (1, 1, K % 8 != 0, N % 8 != 0)


def test_pick_knob_forces_the_tile_and_split_the_chooser_can_form(lib):
    """Knob gemm16_pick (api/gemm16_pick.h): V * 1000 + S forces chooser tile V with S slices where the chooser
    could form that split (under a wave of the tile, slices of >= 256 columns); elsewhere the choice is what it
    would be without a margin; bad values are refused; 0 gives the cost model's choice back."""
    for v in (-1, 1, 999, 1000, 10001, 5065, 6000, 6065):
        with pytest.raises(ValueError):
            _testing.knobs(gemm16_pick=v).__enter__()
    assert _testing.current()["gemm16_pick"] == 0
    forced = 0
    for M, N, K in draws(300, 4501):
        base = choose(lib, M, N, K)
        for v in (1, 6, 8, 9):
            bm, bn = TILES[v][:2]
            tiles = math.ceil(M / bm) * math.ceil(N / bn)
            for S in (1, 2, 5):
                with _testing.knobs(gemm16_pick=v * 1000 + S):
                    ch = choose(lib, M, N, K)
                kt = math.ceil(K / 64)
                per = math.ceil(kt / S)
                formable = S == 1 or (tiles < 132 * TILES[v][3] and math.ceil(kt / per) == S and per * 64 >= 256
                                      and S * M * ((N + 3) // 4 * 4) * 4 <= WS_MAX)
                if formable:
                    forced += 1
                    assert (ch.variant, ch.splits) == (v, S), (M, N, K, v, S)
                    assert ch.k_chunk == (per * 64 if S > 1 else K)
        assert (choose(lib, M, N, K).variant, choose(lib, M, N, K).splits) == (base.variant, base.splits)
    assert forced > 1000
