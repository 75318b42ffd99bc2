"""sgemm_new_paths levels 8 and 9 (issue 27).  Level 8 (M <= 8): the matrix-vector rows matvec-m2 / -m4 / -m8 (csrc/sgemm/matvec.cuh):
B streamed once with 16-byte loads, K split across a block's warps and summed through shared memory, priced by
choose.cu sgemm_matvec_ns with its own K split (sgemm_matvec_split).
CPU: the rule's properties on thousands of draws of the law (only M <= 8 choices move; the least MS that holds M;
the split's bounds and workspace; levels 0..7 unchanged; forced rows; explain()'s plan of the cross-warp sum).
GPU: every row forced in every layout at splits 1 / 3, ragged strips and k ranges, alpha / beta, NaN-poisoned
outputs, odd pitches in NaN frames, C aliasing D, and level 8's automatic choice on draws of the class; all
against the float64 reference within gamma_{K+2} (test_sgemm.check).  Level 9: level 8 and the short tile (32x128x16)
past M = 32 where M mod 64 is 1..32 (choose.cu sgemm_short_rows): CPU, only those draws move and only to it;
GPU, automatic calls of the class."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check, check_torch_calls
from test_sgemm_prefetch import law  # issue 27's law with M redrawn in 1..mmax
from test_sgemm_realign import run as run_framed

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
MATVEC = {"matvec-m2": (2, 8, 16), "matvec-m4": (4, 8, 16), "matvec-m8": (8, 4, 8)}  # MS, U (= BK), KW
SMS = 132


def choose(mnk, level):
    with _testing.knobs(sgemm_new_paths=level):
        return _C._sgemm_choose(*mnk, SMS)


def shapes():
    rng = np.random.default_rng(808)
    return law(rng, 2500) + law(rng, 500, mmax=64)


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_takes_eight_and_nine(set_knobs):
    set_knobs(sgemm_new_paths=8)
    set_knobs(sgemm_new_paths=9)  # 10 and the bound: tests/test_sgemm_pad_price.py
    assert _testing.KNOBS["sgemm_new_paths"] == 11  # 11 the default, 8..10 opt-in (seeds 123 / 124: SGEMM_NOTES)


def test_only_m_up_to_eight_moves_and_takes_the_least_ms():
    took = 0
    for s in shapes():
        n7, n8 = choose(s, 7), choose(s, 8)
        if s[0] > 8:
            assert n8 == n7, (s, n7, n8)
            continue
        if n8[0] in MATVEC:
            assert s[1] > 32, (s, n8)  # N <= 32: skinny-n's (level 6)
            took += 1
            ms = MATVEC[n8[0]][0]
            assert s[0] <= ms and all(v[0] < s[0] for n, v in MATVEC.items() if v[0] < ms), (s, n8)
        else:
            assert not n8[0].startswith("matvec"), (s, n8)
    assert took > 1200, took


def test_level_nine_moves_only_short_rows_past_32():
    """Level 9 offers the short tile (32x128x16) past M = 32 where M mod 64 is 1..32; every other draw keeps
    level 8's choice, and a draw that moves goes to the short tile."""
    rng = np.random.default_rng(909)
    moved = 0
    for s in law(rng, 1500, mmax=400):
        n8, n9 = choose(s, 8), choose(s, 9)
        if s[0] <= 32 or not 1 <= s[0] % 64 <= 32:
            assert n9 == n8, (s, n8, n9)
        elif n9 != n8:
            moved += 1
            assert n9[0] == "32x128x16", (s, n8, n9)
    assert moved > 20, moved


def test_level_eleven_is_level_nines_short_tile_without_matvec():
    """Level 11 = 7 plus level 9's short tile: never a matvec row, level 7's choice wherever level 9 did not move
    a draw to the short tile, and the short tile wherever it did (the matvec rows aside, below M = 33)."""
    rng = np.random.default_rng(1111)
    moved = 0
    for s in law(rng, 1500, mmax=400) + shapes()[:500]:
        n7, n9, n11 = choose(s, 7), choose(s, 9), choose(s, 11)
        assert not n11[0].startswith("matvec"), (s, n11)
        if s[0] <= 32 or not 1 <= s[0] % 64 <= 32:
            assert n11 == n7, (s, n7, n11)
        else:
            assert n11 == n9, (s, n9, n11)
            moved += n11 != n7
    assert moved > 20, moved


def test_levels_below_eight_never_take_matvec():
    for level in range(0, 8):
        for s in shapes()[:300]:
            assert not choose(s, level)[0].startswith("matvec"), (level, s)


def test_split_bounds_and_workspace():
    """S >= 1; no warp's range under one batch unless S = 1; the grid within 8 waves; the workspace (S x M x N
    floats) under 2^30 bytes."""
    for s in shapes():
        name, S = choose(s, 8)
        if name not in MATVEC:
            continue
        M, N, K = s
        ms, u, kw = MATVEC[name]
        tiles = math.ceil(N / 128)
        assert 1 <= S <= max(1, math.ceil(K / (u * kw))), (s, name, S)
        if S > 1:
            assert tiles * S <= 8 * SMS * 2 + tiles, (s, name, S)
        assert S * M * N * 4 <= 2**30, (s, name, S)


def test_forced_rows_plan_and_pure():
    for name in MATVEC:
        idx = CONFIGS.index(name)
        for mnk in [(1, 1000, 301), (3, 517, 129), (8, 4099, 2049), (13, 300, 77), (2, 1, 5003)]:
            with _testing.knobs(sgemm_new_paths=8):
                p = _C._plan("sgemm", mnk, "swizzle", 4, SMS, idx, 0)
                q = _C._plan("sgemm", mnk, "swizzle", 4, SMS, idx, 0)
            key = [(x["config"], x["blocks"], x["threads"], x["smem_bytes"]) for x in (p, q)]
            assert key[0] == key[1] and p["config"].startswith("matvec"), (name, mnk, p["config"])
            ms, u, kw = MATVEC[name]
            assert p["threads"] == 32 * kw and p["blocks"] >= math.ceil(mnk[0] / ms) * math.ceil(mnk[1] / 128)


@pytest.mark.parametrize("name", list(MATVEC))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_explain_counts_the_cross_warp_sum(name, layout):
    """One block stores (KW - 1) x MS float4 rows per lane and loads them back, once per block and slice; 512
    contiguous bytes per warp access: 4 wavefronts each in every layout."""
    ms, u, kw = MATVEC[name]
    M, N, K, S = ms, 1000, 4099, 3
    with _testing.knobs(sgemm_new_paths=8):
        e = smemkit.explain("sgemm", (M, N, K), layout, config=CONFIGS.index(name), splits=S)
    blocks = math.ceil(N / 128) * S
    assert e.config.startswith("matvec") and e.config.endswith(f"splits {S}"), e.config
    per = (kw - 1) * ms * blocks  # warp instructions per launch, of each access
    names = [a.name for a in e.accesses]
    assert len(names) == 2 and "partial-sum store" in names[0] and "partial-sum load" in names[1], names
    for a in e.accesses:
        assert a.instructions == per and a.wavefronts == 4 * per, (layout, a)


# ---- GPU ----------------------------------------------------------------------------------------------

# (M, N, K): N whole and ragged strips of 128 columns (N < 128 too), K ragged against the warps' ranges and
# batches, M below and at each MS, more M tiles than one (forced m2 at M = 5)
FORCED = [(1, 1000, 301), (2, 128, 64), (3, 517, 129), (4, 383, 1001), (5, 77, 2049), (8, 2049, 517),
          (7, 1, 33), (6, 4099, 5), (1, 130, 3)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(MATVEC))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", FORCED, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_forced_within_bound(name, layout, mnk, splits, rng, poison, set_knobs):
    set_knobs(sgemm_new_paths=8, sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    for alpha, beta in AB:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
        check(smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout), a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(MATVEC))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1, 1000, 301), (3, 517, 1029), (8, 2049, 255)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1), (1, 3, 3)], ids=lambda s: "shift" + "".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_odd_pitches_in_nan_frames(name, layout, mnk, shifts, splits, torch, poison, set_knobs):
    """Rows of A and B off 16 bytes (odd pitches, shifted bases): A's scalar loads, B's re-aligned stream in
    whole strips and predicated scalars at the edge; every byte outside the operands NaN."""
    set_knobs(sgemm_new_paths=8, sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("splits", [1, 4])
def test_c_aliases_d(splits, rng, set_knobs):
    set_knobs(sgemm_new_paths=8, sgemm_config="matvec-m4", sgemm_splits=splits)
    a = rng.standard_normal((3, 1501)).astype(np.float32)
    b = rng.standard_normal((1501, 1021)).astype(np.float32)
    c = rng.standard_normal((3, 1021)).astype(np.float32)
    c0 = c.copy()
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, out=c) is c
    check(c, a, b, c0, 2.0, 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("level", [9, 11])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_short_tile_automatic_calls(layout, level, torch, poison, set_knobs):
    """Level 9's short tiles past M = 32 (and level 11's, the same tile without the matvec rows) as a user's
    call runs them (the tile kernel's edge rows)."""
    set_knobs(sgemm_new_paths=level)
    todo = [s for s in law(np.random.default_rng(level + 901), 400, mmax=200) if s[0] > 32 and 1 <= s[0] % 64 <= 32]
    todo = [s for s in todo if s[0] * s[1] * s[2] <= 2**27][:7] + [(68, 4282, 230), (92, 1147, 401), (3, 9983, 211)]
    for M, N, K in todo:
        check_torch_calls(torch, M, N, K, M * level + N, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_level_eight_automatic_calls(layout, torch, poison, set_knobs):
    """Seeded draws of the M <= 8 class as a user's torch call runs them at level 8 (whatever is chosen)."""
    set_knobs(sgemm_new_paths=8)
    todo = [s for s in law(np.random.default_rng(809), 400) if s[0] * s[1] * s[2] <= 2**27][:14]
    todo += [(1, 101, 49028), (3, 9983, 211), (2, 9118, 435), (1, 2020, 632)]
    for M, N, K in todo:
        check_torch_calls(torch, M, N, K, M * 11 + N, layout)
