"""sgemm_new_paths levels 6 and 7 (issue 27, the skinny-n tail).  Level 6: skinny-n priced by waves of latency-bound blocks
(csrc/sgemm/choose.cu sgemm_skinny_n6_ns): a block costs a fixed prologue / epilogue plus its A bytes at its
share of the row's rate, a grid runs in whole waves (a tail wave of r blocks per SM at least half a full one),
every N tile of 8 columns streams its rows of A again (level 4's no skinny-n for K <= 16 stays).  Its split is
the least priced S from a floor (the least S that fills one wave, as far as slices of 4 k-tiles allow) to the
deepest (no slice under one k-tile) or eight waves.  Level 7: level 6,
and the skinny-n "/pf" rows load A's rows off 16 bytes with scalar loads that allocate in L1 (skinny_n.cuh RA 2).
CPU: the rule's properties on thousands of draws of the law (only skinny-n choices move; what they move to;
the split's bounds and a mirror of its price; forced rows; the knob).  GPU: level 6's choices on dense calls and on odd pitches in NaN
frames, the skinny-n/pf row forced at level 6's splits in every layout, alpha / beta, NaN-poisoned outputs; level 7's
loads (skinny-n/pf and skinny-n/pf2 forced, splits 1 / 3, every layout, ragged rows and k-tiles, odd pitches in NaN
frames, C aliasing D); all against the float64 reference within gamma_{K+2} (test_sgemm.check)."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check, check_torch_calls
from test_sgemm_realign import run as run_framed

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
SMS = 132
BK = 256  # skinny-n's k-tile
PER_WAVE = SMS * 3  # skinny-n/pf: 3 blocks per SM


def law(rng, n, nmax=32):
    """n draws of issue 27's law with N <= nmax (bench/timing/draws.py's sgemm law, N redrawn small)."""
    out = []
    while len(out) < n:
        N = int(rng.integers(1, nmax + 1))
        M, K = (int(round(math.exp(rng.uniform(0, math.log(v))))) for v in (16384, 65536))
        if M * N >= 64 and M * N * K >= 2**20 and M * N * K <= 4096**3:
            out.append((M, N, K))
    return out


def plan(mnk, level, config=0, splits=0):
    with _testing.knobs(sgemm_new_paths=level):
        p = _C._plan("sgemm", mnk, "swizzle", 4, SMS, config, splits)
    return p["config"], p["blocks"], int(p["config"].rsplit(" ", 1)[1])


def shapes():
    rng = np.random.default_rng(606)
    return law(rng, 2500) + law(rng, 500, nmax=64)


# ---- CPU ----------------------------------------------------------------------------------------------

def test_knob_takes_six_and_seven(set_knobs):
    set_knobs(sgemm_new_paths=6)
    set_knobs(sgemm_new_paths=7)  # 8 (the matvec rows) and the bound: tests/test_sgemm_matvec.py
    assert _testing.KNOBS["sgemm_new_paths"] == 11  # the default since session 39's A/B (7 in session 38)


def test_level_seven_chooses_as_level_six():
    """Level 7 changes how skinny-n/pf loads A's rows off 16 bytes (scalar loads through L1), not what is
    chosen nor any shared access: explain() is level 6's (its config string has no room for the load path,
    which it does not describe for any row: alignment is the call's, not the plan's)."""
    for s in shapes()[:1500]:
        assert plan(s, 7) == plan(s, 6), s
    idx = CONFIGS.index("skinny-n/pf")
    with _testing.knobs(sgemm_new_paths=7):
        e7 = smemkit.explain("sgemm", (999, 7, 1025), "pad", config=idx, splits=2)
    with _testing.knobs(sgemm_new_paths=6):
        e6 = smemkit.explain("sgemm", (999, 7, 1025), "pad", config=idx, splits=2)
    assert e7.config == e6.config and e7.total() == e6.total()


def test_only_skinny_n_choices_move():
    """Level 6 re-prices skinny-n alone: a draw that level 5 gives another row keeps it (config, split and
    grid), unless level 6 gives it skinny-n -- which it never does where level 5 did not."""
    moved = 0
    for s in shapes():
        c5, b5, _ = plan(s, 5)
        c6, b6, _ = plan(s, 6)
        if not c5.startswith("skinny-N"):
            assert (c5, b5) == (c6, b6), (s, c5, c6)
        moved += (c5, b5) != (c6, b6)
    assert moved > 100, moved


def test_no_skinny_n_for_k_to_16_nor_past_32_columns():
    for M, N, K in shapes():
        c6, _, _ = plan((M, N, K), 6)
        if c6.startswith("skinny-N"):
            assert K > 16 and N <= 32, (M, N, K, c6)


def test_split_bounds():
    """The split: whole k-tiles, none empty (at most ceil(K / 256) slices), and at most eight waves of blocks
    unless one slice is already more; it is the prefetching row (level 5's offer) with its model split."""
    seen = 0
    for M, N, K in shapes():
        c6, blocks, S = plan((M, N, K), 6)
        if not c6.startswith("skinny-N"):
            continue
        seen += 1
        assert "next A tile prefetched" in c6, c6
        tiles = math.ceil(M / 16) * math.ceil(N / 8)
        assert blocks == tiles * S and 1 <= S <= math.ceil(K / BK), (M, N, K, S)
        assert S == 1 or tiles * S <= 8 * PER_WAVE + tiles, (M, N, K, S, tiles)
        chunk = math.ceil(math.ceil(K / S) / BK) * BK
        assert math.ceil(K / chunk) == S, (M, N, K, S)
    assert seen > 300, seen


def exact(K, S):
    """choose.cu sgemm_exact_split for 256-deep k-tiles: (slices, k_chunk)."""
    kt = math.ceil(K / BK)
    w = min(S, kt, 65535)
    if w <= 1:
        return 1, K
    chunk = math.ceil(math.ceil(K / w) / BK) * BK
    n = math.ceil(K / chunk)
    return (n, chunk) if n > 1 else (1, K)


def price(M, N, K, S):
    """A mirror of choose.cu sgemm_skinny_n6_ns for skinny-n/pf (16 x 8 tiles, 3 blocks per SM, 1800 B/ns)."""
    tiles = math.ceil(M / 16) * math.ceil(N / 8)
    s, chunk = exact(K, S)
    block = 2000.0 + 16 * chunk * 4.0 * PER_WAVE / 1800.0
    blocks = tiles * s
    t = (blocks // PER_WAVE) * block
    if blocks % PER_WAVE:
        r = math.ceil((blocks % PER_WAVE) / SMS)
        t += block * (0.2 + 0.8 * r / 3)
    split = 2500.0 + (2.0 * s * M * (N + 3) // 4 * 4 + M * N) * 4.0 / 6000.0 if s > 1 else 0.0
    if s > 1 and _testing.current()["sgemm_redchain"]:  # sgemm_reduce_chain_ns: round trips past the first
        lanes = 32 // (2 if s >= 16 else 4 if s >= 8 else 8)
        split += (math.ceil(math.ceil(s / lanes) / 4) - 1) * 1800.0
    return 3000.0 + split + t


def test_split_is_the_least_priced():
    """Where level 6 keeps skinny-n, its split is the least priced S (the mirror above) from the floor (the least
    S that fills one wave, as far as slices of 4 k-tiles allow) to the deepest or eight waves, ties to the
    smaller S."""
    seen = 0
    for M, N, K in shapes():
        c6, blocks, S = plan((M, N, K), 6)
        if not c6.startswith("skinny-N"):
            continue
        seen += 1
        tiles = math.ceil(M / 16) * math.ceil(N / 8)
        hi = min(math.ceil(K / BK), math.ceil(8 * PER_WAVE / tiles))
        lo = min(hi, math.ceil(PER_WAVE / tiles), max(1, math.ceil(K / BK) // 4))  # fills a wave, slices >= 4 k-tiles
        prices = [price(M, N, K, s) for s in range(lo, hi + 1)]
        want = exact(K, lo + min(range(len(prices)), key=lambda i: (prices[i], i)))[0]
        assert S >= exact(K, lo)[0], (M, N, K, S, blocks)  # a wave filled, as far as whole k-tiles allow
        assert S == want, (M, N, K, S, want)
    assert seen > 300, seen


# Issue 27's worst skinny-n draws (seed 83, H100): those whose N tiles or K-short blocks the wave price puts above
# a tile's leave skinny-n; the one-tile ones keep it, split as deep or deeper (10211x4x53: priced 4.8 us + launch
# as skinny-n, 5.5 as 64x64x16: kept).
LEAVE = [(11789, 20, 40), (10365, 16, 471), (4012, 27, 123), (3397, 11, 4372)]
KEEP = [(1822, 2, 57078), (4851, 2, 3618), (6787, 7, 1853), (3808, 4, 63729), (10211, 4, 53)]


@pytest.mark.parametrize("mnk", LEAVE + KEEP, ids=lambda s: "x".join(map(str, s)))
def test_seed_83_draws(mnk):
    c5, _, _ = plan(mnk, 5)
    c6, blocks, S = plan(mnk, 6)
    assert c5.startswith("skinny-N")
    assert c6.startswith("skinny-N") == (mnk in KEEP), c6
    if mnk in KEEP:  # 1.07-1.54 waves at level 5: priced by waves, split as deep or deeper
        assert blocks >= PER_WAVE and S >= plan(mnk, 5)[2], (blocks, S)


def test_forced_row_takes_the_wave_split_at_level_six():
    """Forced with splits 0 (the probe's arm), skinny-n/pf gets level 6's split at level 6 -- the automatic
    choice's -- and level 5's below."""
    idx = CONFIGS.index("skinny-n/pf")
    for mnk in KEEP + [(999, 7, 1025), (4096, 1, 4096)]:
        auto = plan(mnk, 6)
        forced = plan(mnk, 6, idx)
        if auto[0].startswith("skinny-N"):
            assert forced == auto, (mnk, forced, auto)
        assert plan(mnk, 5, idx) == plan(mnk, 5, idx)  # pure
    assert plan((3397, 11, 4372), 6, idx)[2] > 1  # 426 blocks on 396 slots: split


def test_pure():
    for s in shapes()[:200]:
        assert plan(s, 6) == plan(s, 6)


# ---- GPU ----------------------------------------------------------------------------------------------

# shapes of the class with level 6's choice, small enough for the suite: skinny-n at deep splits, tiles
# where skinny-n left
GPU_SHAPES = [(1822, 2, 9001), (999, 7, 1025), (4851, 2, 3618), (1001, 5, 2049), (333, 13, 2047),
              (3397, 11, 4372), (1201, 16, 471), (2011, 27, 123), (1500, 20, 40), (2011, 4, 53), (517, 1, 5003)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_level_six_choice_within_bound(layout, mnk, rng, poison, set_knobs):
    set_knobs(sgemm_new_paths=6)
    M, N, K = mnk
    for alpha, beta in AB:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
        check(smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout), a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1822, 2, 9001), (517, 8, 4099), (333, 13, 2047), (3397, 11, 4372)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1)], ids=lambda s: "shift" + "".join(map(str, s)))
def test_level_six_odd_pitches_in_nan_frames(layout, mnk, shifts, torch, poison, set_knobs):
    """skinny-n/pf forced at level 6's split (its scalar path on rows off 16 bytes), the bytes outside every
    operand NaN."""
    set_knobs(sgemm_new_paths=6, sgemm_config="skinny-n/pf")
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_level_six_automatic_calls(layout, torch, poison, set_knobs):
    """Seeded draws of the N <= 32 class as a user's torch call runs them at level 6 (dense rows, alpha / beta
    through check_torch_calls), at most 2^27 MACs each for time."""
    set_knobs(sgemm_new_paths=6)
    todo = [s for s in law(np.random.default_rng(607), 400) if s[0] * s[1] * s[2] <= 2**27][:14]
    for M, N, K in todo:
        check_torch_calls(torch, M, N, K, M * 7 + N, layout)


# level 7: the "/pf" rows' scalar A path through L1 (RA 2).  Shapes: K across whole and ragged 256-deep k-tiles,
# rows of the last block past M, N of 1..13 (one and two tiles), K % 4 != 0 (A's rows off 16 bytes)
L7_SHAPES = [(1000, 1, 301), (517, 8, 1029), (129, 5, 513), (333, 13, 2047), (2049, 3, 999), (64, 7, 255)]


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["skinny-n/pf", "skinny-n/pf2"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", L7_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_level_seven_forced_within_bound(name, layout, mnk, splits, rng, poison, set_knobs):
    set_knobs(sgemm_new_paths=7, sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    for alpha, beta in AB:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
        check(smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout), a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["skinny-n/pf", "skinny-n/pf2"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1000, 1, 301), (517, 8, 1029), (333, 7, 2047)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1), (1, 3, 3)], ids=lambda s: "shift" + "".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_level_seven_odd_pitches_in_nan_frames(name, layout, mnk, shifts, splits, torch, poison, set_knobs):
    set_knobs(sgemm_new_paths=7, sgemm_config=name, sgemm_splits=splits)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("splits", [1, 4])
def test_level_seven_c_aliases_d(splits, rng, set_knobs):
    set_knobs(sgemm_new_paths=7, sgemm_config="skinny-n/pf", sgemm_splits=splits)
    a = rng.standard_normal((1021, 1501)).astype(np.float32)
    b = rng.standard_normal((1501, 7)).astype(np.float32)
    c = rng.standard_normal((1021, 7)).astype(np.float32)
    c0 = c.copy()
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, out=c) is c
    check(c, a, b, c0, 2.0, 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_level_seven_automatic_calls(layout, torch, poison, set_knobs):
    set_knobs(sgemm_new_paths=7)
    todo = [s for s in law(np.random.default_rng(608), 400) if s[0] * s[1] * s[2] <= 2**27][:10]
    for M, N, K in todo:
        check_torch_calls(torch, M, N, K, M * 5 + N, layout)
