"""The SGEMM tile kernel's staged epilogue (issue 27's short-K class; knob sgemm_epi, csrc/sgemm/epilogue_staged.cuh):
the block's output tile through a layout.h tile in shared memory, stored as whole rows of D (float4 on rows on 16
bytes, re-aligned 16-byte chunks on rows off them).

CPU: the gate (csrc/sgemm/launch.h sgemm_epi_gate) on thousands of issue-27 draws (bench/timing/draws.py, seeds
3000..), and explain()'s plan: the staging stores and row loads counted once per block, conflict-free in every
layout, only where the launch stages.  GPU: every layout x every tile config forced, level 2 (staged on every
launch) bit-exact against level 0 (the register epilogue) on the same tensors and within gamma_{K+2} of the
float64 reference (test_sgemm.check): odd M / N / K, N * 4 off 16 and off 128 bytes, alpha / beta / C, out=
views whose base is off 16 bytes inside NaN frames, C aliasing D, forced K splits (the partials through the
same epilogue), NaN in an unread C; and level 1's automatic choice on the class's worst draws."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "timing"))
import draws as D  # noqa: E402

LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
TILES = [c for c in CONFIGS[1:] if c[0].isdigit()]  # the TILE rows: "BMxBNxBK[/...]"
MIN_OUT = 1 << 19
# the draws of issue 27 (seed 124, H100) the gate is for: mid-to-large outputs, K 18..43
WORST = [(300, 6915, 19), (15072, 253, 18), (1599, 4826, 21), (6071, 2788, 23), (3698, 317, 40), (989, 2476, 37),
         (201, 7950, 43)]


def rows_of(n):
    """The gate's alignment fact of a dense row-major D (pitch n floats) from an aligned allocation."""
    return 2 if n % 32 == 0 else 1 if n % 4 == 0 else 0


def want(M, N, K, rows, config, knob):
    if knob == 0 or config not in TILES or M <= 0 or N <= 0:
        return False
    if knob == 2:
        return True
    if knob == 3:
        return M * N >= MIN_OUT and K <= 256
    return M * N >= MIN_OUT and K <= 64 and rows < 2


# ---- CPU: the gate -------------------------------------------------------------------------------------

@pytest.mark.parametrize("knob", [0, 1, 2, 3])
def test_gate_is_the_documented_rule(knob):
    rng = np.random.default_rng(3000 + knob)
    shapes = [d.shape for d in D.sgemm_draws(1500, 3000 + knob)]
    for M, N, K in shapes:
        rows, config = int(rng.integers(0, 3)), CONFIGS[int(rng.integers(1, len(CONFIGS)))]
        assert _testing.sgemm_epi_gate(M, N, K, rows, config, knob) == want(M, N, K, rows, config, knob), \
            (M, N, K, rows, config, knob)


def test_gate_counts_on_the_law_and_takes_the_worst_draws():
    """Level 1 on dense draws as the launch chooses them (config, K per block): the share it takes, and the
    class's worst draws of seed 124 all taken."""
    taken = total = 0
    for seed in range(3000, 3010):
        for M, N, K in (d.shape for d in D.sgemm_draws(300, seed)):
            name, splits = _testing.sgemm_choose(M, N, K, 132)
            total += 1
            if splits == 1 and name in TILES:
                taken += _testing.sgemm_epi_gate(M, N, K, rows_of(N), name, 1)
    assert 0.02 * total < taken < 0.25 * total, (taken, total)  # 151 of 3000 (5.0%) on seeds 3000..3009 (docs/SGEMM_NOTES.md)
    for M, N, K in WORST:
        name, splits = _testing.sgemm_choose(M, N, K, 132)
        assert splits == 1 and name in TILES and _testing.sgemm_epi_gate(M, N, K, rows_of(N), name, 1), (M, N, K)


def test_knob_range_and_default(set_knobs):
    assert _testing.KNOBS["sgemm_epi"] == 1
    for bad in (-1, 4):
        with pytest.raises(ValueError):
            set_knobs(sgemm_epi=bad)


# ---- CPU: explain() ------------------------------------------------------------------------------------

def staged_accesses(e):
    return [a for a in e.accesses if a.name.startswith("C-tile")]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(6071, 2788, 23), (300, 6915, 19), (15072, 253, 18), (2048, 2048, 32)],
                         ids=lambda s: "x".join(map(str, s)))
def test_explain_counts_the_staging_once_per_block(layout, mnk, set_knobs):
    M, N, K = mnk
    set_knobs(sgemm_epi=0)
    base = smemkit.explain("sgemm", mnk, layout)
    assert not staged_accesses(base)
    set_knobs(sgemm_epi=1)
    e = smemkit.explain("sgemm", mnk, layout)
    name, splits = _testing.sgemm_choose(M, N, K, 132)
    staged = _testing.sgemm_epi_gate(M, N, K, rows_of(N), name, 1)
    assert bool(staged_accesses(e)) == staged
    assert e.accesses[:len(base.accesses)] == base.accesses  # the main loop's accesses unchanged
    if not staged:
        return
    BM, BN = (int(x) for x in name.split("/")[0].split("x")[:2])
    threads = int(e.config.split(" threads")[0].split()[-1])
    blocks = math.ceil(M / BM) * math.ceil(N / BN)
    assert e.blocks == blocks
    acc = {}
    for a in staged_accesses(e):  # the block rows' accesses and the short last block row's, summed
        k = a.name.split(" (")[0]
        acc[k] = acc.get(k, 0) + a.instructions
        assert a.wavefronts == a.ideal, (layout, a)  # 16-byte accesses, conflict-free
    outs = BM * BN // 4  # float4 per tile
    assert acc["C-tile staging store"] == blocks * outs // 32
    assert ("C-tile row load of chunk k - 1" in acc) == (N % 4 != 0)
    # the row loads as issued (SASS, sm_90): chunk q = it * threads + tid of tile row q // (BN / 4); a warp issues a
    # load where one of its lanes' rows is < M, the chunk k - 1 load where also sh = (m N) mod 4 != 0
    rows_per = 32 // (BN // 4)  # tile rows a warp instruction spans: 1 (BN 128) or 2 (BN 64)
    want = [0, 0]
    for m0 in range(0, M - M % rows_per + rows_per, rows_per):
        ms = [m for m in range(m0, m0 + rows_per) if m < M]
        want[0] += bool(ms)
        want[1] += any(m * N % 4 for m in ms)
    ncols = math.ceil(N / BN)
    assert acc["C-tile row load"] == ncols * want[0], (layout, mnk)
    assert acc.get("C-tile row load of chunk k - 1", 0) == (ncols * want[1] if N % 4 else 0), (layout, mnk)
    assert threads in (128, 256) and "staged epilogue" in e.config


@pytest.mark.parametrize("layout", LAYOUTS)
def test_explain_split_partials_stage_on_the_workspace(layout, set_knobs):
    """A forced split: the partials (the workspace's pitch N rounded up to 4, aligned) go through the staged
    epilogue of every slice's blocks at level 2, with no re-aligned loads even for N % 4 != 0."""
    set_knobs(sgemm_epi=2)
    kw = dict(config=CONFIGS.index("64x64x8"), splits=3)
    e = smemkit.explain("sgemm", (300, 203, 999), layout, **kw)
    acc = staged_accesses(e)  # the block rows' and the short last one's (rows 256..299): staging, row loads
    assert len(acc) == 4 and e.config.endswith("splits 3") and e.blocks == 3 * 5 * 4
    assert sum(a.instructions for a in acc if "staging" in a.name) == e.blocks * (64 * 64 // 4) // 32
    # a warp's row load spans 2 tile rows (BN 64), issued where one is < M: 32 a block, 22 in the last block row
    assert sum(a.instructions for a in acc if "row load" in a.name) == 3 * 4 * (4 * 32 + 22)
    set_knobs(splitk_fixup=2)  # the fused fixup keeps the register epilogue
    assert not staged_accesses(smemkit.explain("sgemm", (300, 203, 999), layout, **kw))


def test_explain_smem_grows_to_the_tile(set_knobs):
    set_knobs(sgemm_config="64x128x8", sgemm_epi=0)
    p0 = _C._plan("sgemm", (6071, 2788, 23), "pad", 4, 132)
    set_knobs(sgemm_epi=1)
    p1 = _C._plan("sgemm", (6071, 2788, 23), "pad", 4, 132)
    assert p0["smem_bytes"] < p1["smem_bytes"] == 64 * 132 * 4


# ---- GPU ----------------------------------------------------------------------------------------------

def framed(torch, g, r, c, pitch, shift, fill=True):
    """An r x c float32 CUDA view of pitch `pitch` whose base is `shift` floats past 16 bytes, NaN outside it
    (and inside it too when fill is False); returns (view, the whole buffer)."""
    full = torch.full(((r + 2) * pitch + shift + 8,), float("nan"), device="cuda")
    v = full[shift:shift + r * pitch].view(r, pitch)[:, :c]
    if fill:
        v.copy_(torch.randn(r, c, device="cuda", generator=g))
    return v, full


def both_levels(torch, set_knobs, call):
    """call() at sgemm_epi 0 and 2 on the same operands: the two results as numpy arrays."""
    out = []
    for level in (0, 2):
        set_knobs(sgemm_epi=level)
        out.append(call())
        torch.cuda.synchronize()
    return out


# odd M / N / K; N * 4 off 16 bytes (N % 4 != 0), on 16 but off 128 (N % 32 != 0), on 128; edges in M and N
SHAPES = [(77, 131, 9), (130, 68, 33), (65, 256, 64), (200, 301, 17), (33, 97, 1)]


@pytest.mark.gpu
@pytest.mark.parametrize("config", TILES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_tile_config_bit_exact_and_bounded(config, layout, torch, poison, set_knobs):
    set_knobs(sgemm_config=config)
    for M, N, K in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(M * 31 + N * 7 + K)
        a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
        for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
            d0, d2 = both_levels(torch, set_knobs, lambda: smemkit.sgemm(
                a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout).cpu().numpy())
            np.testing.assert_array_equal(d2, d0)
            check(np.ascontiguousarray(d2), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy() if beta else None,
                  alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("config", ["64x128x8", "64x64x8", "128x256x8"])
@pytest.mark.parametrize("mnk", [(70, 130, 23), (129, 260, 40), (64, 517, 5)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shift", [1, 2, 3])
def test_out_off_16_bytes_in_nan_frames(layout, config, mnk, shift, torch, set_knobs):
    """out= a contiguous view whose base is 1..3 floats past 16 bytes (every row re-aligned; with N % 4 != 0
    each row by its own shift), C at another shift, A and B at odd pitches: bit-exact, bounded, and not one
    float written outside out."""
    set_knobs(sgemm_config=config)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + N + K + shift)
    a, _ = framed(torch, g, M, K, K + 1 if K % 2 == 0 else K + 2, 1)
    b, _ = framed(torch, g, K, N, N + 3, 2)
    c, _ = framed(torch, g, M, N, N, (shift + 1) % 4)
    for alpha, beta in [(1.0, 0.0), (2.0, -0.75)]:
        res = []
        for level in (0, 2):
            set_knobs(sgemm_epi=level)
            d, full = framed(torch, g, M, N, N, shift, fill=False)
            assert smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout, out=d) is d
            torch.cuda.synchronize()
            frame = torch.cat([full[:shift], full[shift + M * N:]])
            assert torch.isnan(frame).all(), "a store outside out"
            res.append(d.cpu().numpy())
        np.testing.assert_array_equal(res[1], res[0])
        check(np.ascontiguousarray(res[1]), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy() if beta else None,
              alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(150, 203, 37), (96, 256, 20)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shift", [0, 3])
def test_c_aliases_d(layout, mnk, shift, torch, set_knobs):
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M * N + shift)
    a, b = torch.randn(M, K, device="cuda", generator=g), torch.randn(K, N, device="cuda", generator=g)
    c0, _ = framed(torch, g, M, N, N, shift)
    res = []
    for level in (0, 2):
        set_knobs(sgemm_epi=level)
        c, _ = framed(torch, g, M, N, N, shift, fill=False)
        c.copy_(c0)
        assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, layout=layout, out=c) is c
        torch.cuda.synchronize()
        res.append(c.cpu().numpy())
    np.testing.assert_array_equal(res[1], res[0])
    check(np.ascontiguousarray(res[1]), a.cpu().numpy(), b.cpu().numpy(), c0.cpu().numpy(), 2.0, 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("config", ["64x128x8", "128x128x8", "32x128x16"])
@pytest.mark.parametrize("splits", [2, 5])
def test_split_partials_through_the_staged_epilogue(layout, config, splits, rng, poison, set_knobs):
    set_knobs(sgemm_config=config, sgemm_splits=splits)
    a = rng.standard_normal((141, 333)).astype(np.float32)
    b = rng.standard_normal((333, 203)).astype(np.float32)
    c = rng.standard_normal((141, 203)).astype(np.float32)
    for alpha, beta in [(1.0, 0.0), (0.5, -1.5)]:
        res = []
        for level in (0, 2):
            set_knobs(sgemm_epi=level)
            res.append(smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout))
        np.testing.assert_array_equal(res[1], res[0])
        check(res[1], a, b, c if beta else None, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_nan_c_is_not_read_when_beta_is_zero(layout, rng, poison, set_knobs):
    set_knobs(sgemm_epi=2)
    a = rng.standard_normal((100, 30)).astype(np.float32)
    b = rng.standard_normal((30, 301)).astype(np.float32)
    d = smemkit.sgemm(a, b, np.full((100, 301), np.nan, np.float32), beta=0.0, alpha=1.5, layout=layout)
    check(d, a, b, None, 1.5, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", WORST[:4], ids=lambda s: "x".join(map(str, s)))
def test_level_one_on_the_worst_draws(mnk, torch, set_knobs):
    """The class's draws as a user's torch call runs them (dense rows, D off 16 or off 128 bytes): level 1
    takes them (explain says so) and matches level 0 bit for bit; one alpha / beta pair bounded."""
    M, N, K = mnk
    set_knobs(sgemm_epi=1)
    assert staged_accesses(smemkit.explain("sgemm", mnk, "swizzle"))
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
    res = []
    for level in (0, 1):
        set_knobs(sgemm_epi=level)
        res.append(smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5).cpu().numpy())
    np.testing.assert_array_equal(res[1], res[0])
    check(np.ascontiguousarray(res[1]), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)
