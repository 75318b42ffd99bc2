"""The SGEMM tile kernel's deep load pipeline (issue 27's small latency-bound calls; knob sgemm_deep,
csrc/sgemm/tile_deep.cuh, csrc/sgemm/deep.h): 4 shared stages filled by cp.async (3 k-tiles of loads in flight)
for the BK = 16 rows, and (levels 3, 5) 64x64x16's launches on the 32x64x16 half tile.

CPU: the gate (launch.cu sgemm_deep_gate) is the documented rule on thousands of issue-27 draws (bench/timing/draws.py,
seeds 3100..); the class's worst draws of seed 150 are taken; explain() replays the variant (cp.async copies at
tile.cuh's addresses, conflict-free in pad / swizzle, k-tiles store groups, 4 stages of shared memory, the half
tile's blocks).  GPU: every layout x every deep row (and the half tile), the deep launch bit-exact against
tile.cuh's on the same tensors (same FMA order; zero-filled k adds nothing) and within gamma_{K+2} of the float64
reference (test_sgemm.check), NaN-poisoned outputs: odd M / N / K, K under / over the pipeline's depth, alpha / beta
/ C; operands in NaN frames at odd pitches (a copy past K or N would bring a NaN in); forced K splits through it;
NaN in an unread C; level 3's automatic choice on the class's worst draws with torch operands; a cupy call."""
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
TILES = [c for c in CONFIGS[1:] if c[0].isdigit()]
DEEP = [c for c in TILES if c.split("/")[0].split("x")[2] == "16"]  # the BK = 16 rows (deep.h sgemm_has_deep)
HALF_OF = "64x64x16"
# issue 27's class (seed 150, H100): one launch of the tile kernel, a few to ~2.4 blocks of 64x64 per SM
WORST = [(164, 275, 157), (463, 83, 115), (5, 5157, 184), (65, 1050, 144), (560, 408, 279), (9256, 24, 98),
         (923, 107, 68), (1492, 339, 20), (61, 15199, 61), (2164, 194, 59), (923, 903, 79), (215, 35, 141),
         (54, 16343, 67)]


def tile_dims(name):
    return tuple(int(x) for x in name.split("/")[0].split("x")[:3])


def want(M, N, K, splits, config, sms, knob):
    """The documented rule (deep.h): 0 tile.cuh, 1 the deep kernel of the launch's tile, 2 of the half tile."""
    if knob == 0 or config not in DEEP or min(M, N, K) <= 0 or splits < 1:
        return 0
    how = 2 if knob in (3, 5, 6) and config == HALF_OF else 1
    if knob in (4, 5):
        return how
    if knob == 6 and N < 32:
        return 0
    bm, bn, _ = tile_dims(config)
    blocks = math.ceil(M / bm) * math.ceil(N / bn) * splits
    return how if K > 16 and blocks <= (4 if knob == 2 else 2) * sms else 0


# ---- CPU: the gate ------------------------------------------------------------------------------------

@pytest.mark.parametrize("knob", range(7))
def test_gate_is_the_documented_rule(knob):
    rng = np.random.default_rng(3100 + knob)
    for M, N, K in (d.shape for d in D.sgemm_draws(1500, 3100 + knob)):
        config = CONFIGS[int(rng.integers(1, len(CONFIGS)))]
        splits, sms = int(rng.integers(1, 6)), int(rng.choice([1, 8, 132]))
        assert _testing.sgemm_deep_gate(M, N, K, config, splits, sms, knob) == want(M, N, K, splits, config, sms, knob), \
            (M, N, K, config, splits, sms, knob)


def test_gate_counts_on_the_law_and_takes_the_worst_draws():
    """Levels 1 and 3 on the launches the chooser makes (unsplit: K per block; split: one k_chunk, about K / S):
    the share taken is a small class, and the worst one-launch draws of seed 150 are all in it at level 3."""
    taken = {1: 0, 2: 0, 3: 0, 6: 0}
    total = 0
    for seed in range(3100, 3110):
        for M, N, K in (d.shape for d in D.sgemm_draws(300, seed)):
            name, splits = _testing.sgemm_choose(M, N, K, 132)
            total += 1
            kdepth = K if splits == 1 else math.ceil(K / splits / 16) * 16
            for knob in taken:
                taken[knob] += _testing.sgemm_deep_gate(M, N, kdepth, name, splits, 132, knob) != 0
    assert 0.03 * total < taken[1] <= taken[3] == taken[1] < taken[2] < 0.5 * total, (taken, total)
    assert 0.5 * taken[3] < taken[6] < taken[3], taken  # level 6: level 3 less the outputs under 32 columns
    for M, N, K in WORST:
        name, splits = _testing.sgemm_choose(M, N, K, 132)
        assert (name, splits) == (HALF_OF, 1) and _testing.sgemm_deep_gate(M, N, K, name, 1, 132, 3) == 2, (M, N, K)
        assert _testing.sgemm_deep_gate(M, N, K, name, 1, 132, 6) == (2 if N >= 32 else 0), (M, N, K)


def test_knob_range_and_default(set_knobs):
    assert _testing.KNOBS["sgemm_deep"] == 6  # session 41's and 42's A/Bs (SGEMM_NOTES)
    for bad in (-1, 7):
        with pytest.raises(ValueError):
            set_knobs(sgemm_deep=bad)


# ---- CPU: explain() -----------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(164, 275, 157), (164, 276, 156), (5, 5157, 184), (40, 700, 64)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("knob", [1, 3])
def test_explain_replays_the_deep_launch(layout, mnk, knob, set_knobs):
    M, N, K = mnk
    name, splits = _testing.sgemm_choose(M, N, K, 132)
    assert splits == 1 and name in DEEP
    set_knobs(sgemm_deep=0)
    base = smemkit.explain("sgemm", mnk, layout)
    set_knobs(sgemm_deep=knob)
    e = smemkit.explain("sgemm", mnk, layout)
    how = _testing.sgemm_deep_gate(M, N, K, name, 1, 132, knob)
    assert how and "deep: 4 cp.async stages" in e.config and e.config.endswith("splits 1")
    bm, bn, bk = (32, 64, 16) if how == 2 else tile_dims(name)
    assert e.config.startswith(f"{bm}x{bn}x{bk} block tile, 128 threads")
    blocks, ktiles = math.ceil(M / bm) * math.ceil(N / bn), math.ceil(K / bk)
    assert e.blocks == blocks
    a_copies = [a for a in e.accesses if a.name.startswith("A-tile copy")]  # the last block row's apart
    b_copies = [a for a in e.accesses if a.name.startswith("B-tile copy")]  # the last block column's apart
    vec_b = N % 4 == 0 and K % 4 == 0
    # warp instructions: A one 4-byte copy per element, B one 16-byte copy per float4 (or per element); all
    # cp.async with a src-size (LDGSTS.ZFILL), costed by the LDGSTS rule from both sides (session 46)
    assert sum(a.instructions for a in a_copies) == blocks * ktiles * bm * bk // 32
    assert len(a_copies) == (2 if M > bm and M % bm else 1)
    assert len(b_copies) == (2 if N > bn and N % bn else 1)
    assert sum(a.instructions for a in b_copies) == blocks * ktiles * bk * bn // (128 if vec_b else 32)
    assert {a.width for a in b_copies} == {16 if vec_b else 4}
    assert {a.instr for a in a_copies + b_copies} == {"cp.async.zfill"}
    ph = [a for a in e.accesses if a.name.startswith("LDS placeholders")]
    assert len(ph) == 1 and ph[0].instructions == blocks * ktiles * 4 * 3 and ph[0].wavefronts == 0
    if how == 1:  # the fragment loads are tile.cuh's
        assert e.accesses[2:6] == base.accesses[2:6]
    for a in e.accesses[2:6]:  # fragment loads conflict-free in every layout
        assert a.wavefronts == a.ideal, (layout, a)
    # the copies' shared side (the STS rule of their width on the plan's addresses): B conflict-free in every
    # layout; A's, 8 k x 4 m per warp (deep.h SgemmDeepMap): naive 8-way; pad conflict-free; swizzle
    # conflict-free in the deep A tile (deep.h smk_sgemm_deep_tile, Swizzle<3,2,S>; tile.cuh's Swizzle<1,4,S>
    # made them 4-way).  The global side (B's rows rotated; rows past M and float4s past N zero-filled, sources
    # -1: they read nothing) is the LDGSTS rule's.
    ways = {"pad": 1, "swizzle": 1, "naive": 8}[layout]
    for name, w, kind, rep, addr, instr, src in _testing.sgemm_plan(mnk, layout)["accesses"]:
        if instr.startswith("cp.async"):
            wf, ideal = _C._bank_replay(np.ascontiguousarray(addr), w, "store")
            assert (wf == (ways if name.startswith("A-tile") else 1) * ideal).all(), (name, layout)
            assert (src[addr < 0] == -1).all() and src.shape == addr.shape


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(20, 3000, 500), (30, 4100, 256), (164, 276, 156), (684, 187, 266), (4232, 99, 168),
                                 (10, 196, 27558)], ids=lambda s: "x".join(map(str, s)))
def test_edge_copies_read_nothing_past_the_operands(layout, mnk):
    """The copies of rows past M and float4s past N have src-size 0 (source -1): every source explain() replays
    lies inside its operand, and no two lanes of one copy instruction read one chunk (duplicate sources, which the
    LDGSTS rule prices only approximately and the clamped stand-ins of session 46's kernel produced); the edge
    blocks' copies are accesses of their own where the edge block is short."""
    M, N, K = mnk
    e = smemkit.explain("sgemm", mnk, layout, sms=132)
    assert "deep: 4 cp.async stages" in e.config
    bm, bn = (int(x) for x in e.config.split(" ")[0].split("x")[:2])
    names = [a.name for a in e.accesses if a.instr.startswith("cp.async")]
    assert ("A-tile copy (transposed, cp.async 4 B per element), last block row" in names) == (M > bm and M % bm != 0)
    assert any(n.endswith("last block column") for n in names) == (N > bn and N % bn != 0)
    for name, w, kind, rep, addr, instr, src in _testing.sgemm_plan(mnk, layout)["accesses"]:
        if not instr.startswith("cp.async"):
            continue
        size = 4 * (M * K if name.startswith("A-tile") else K * N)
        on = src >= 0
        assert (src[on] % w == 0).all() and (src[on] + w <= size).all(), name
        for row in src.reshape(-1, 32):
            live = row[row >= 0]
            assert len(live) == len(set(live.tolist())), name


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(164, 275, 157), (164, 276, 156), (20, 700, 64)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("knob", [4, 5])
def test_copies_fill_each_stage_once(layout, mnk, knob, set_knobs):
    """Every element of a stage's A tile and B tile is written by exactly one copy of one thread per k-tile
    (deep.h SgemmDeepMap and the VEC float4 map, as explain() replays them): no element left stale, none twice."""
    set_knobs(sgemm_deep=knob)
    M, N, K = mnk
    name, _ = _testing.sgemm_choose(M, N, K, 132)
    p = _C._plan("sgemm", mnk, layout, 4, 132, CONFIGS.index(name))
    bm, bn, bk = (32, 64, 16) if knob == 5 and name == HALF_OF else tile_dims(name)
    assert p["config"].startswith(f"{bm}x{bn}x{bk} ") and "deep" in p["config"]
    (an, aw, _, _, aaddr, *_), (bn_, bw, _, _, baddr, *_) = p["accesses"][:2]
    a = np.sort(aaddr.ravel() // 4)
    assert aw == 4 and a.size == bm * bk and np.unique(a).size == a.size, an
    b = baddr.ravel() // 4
    b = np.sort((b[:, None] + np.arange(bw // 4)).ravel())
    assert b.size == bn * bk and np.unique(b).size == b.size and b.min() > a.max(), bn_
    if knob == 4:  # the same tile: the offsets tile.cuh's stores write (the fragment loads read them)
        set_knobs(sgemm_deep=0)
        t = _C._plan("sgemm", mnk, layout, 4, 132, CONFIGS.index(name))["accesses"]
        ta = np.sort(t[0][4].ravel() // 4)
        tb = np.sort((t[1][4].ravel()[:, None] // 4 + np.arange(4)).ravel())
        np.testing.assert_array_equal(a, ta)
        np.testing.assert_array_equal(b, tb)


def a_logical(off, bm, layout, deep=True):
    """(k, m) of float offsets into an A tile of bm columns: the inverse of smk_tile_offset for the deep A tile
    (deep.h smk_sgemm_deep_tile; swizzle m ^ 4 (k & 7)) or tile.cuh's (configs.h smk_sgemm_tile; m ^ 16 (k bit 2))."""
    pitch = bm + 4 if layout == "pad" else bm
    k, m = off // pitch, off % pitch
    if layout == "swizzle":
        m = m ^ (4 * (k & 7) if deep else 16 * ((k >> 2) & 1))
    return k, m


def deep_a_copies(bm, bk, threads=128):
    """deep.h SgemmDeepMap::a_copy of every copy, in the plan's order (warp, copy i, lane): (k, m)."""
    per_warp = bm * bk // threads
    ks, ms = np.zeros((threads // 32, per_warp, 32), int), np.zeros((threads // 32, per_warp, 32), int)
    for tid in range(threads):
        for i in range(per_warp):
            c, lane = (i * threads + tid) >> 5, tid & 31
            ms[tid // 32, i, lane] = (c % (bm // 4)) * 4 + (lane >> 3)
            ks[tid // 32, i, lane] = (c // (bm // 4)) * 8 + (lane & 7)
    return ks.ravel(), ms.ravel()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(164, 275, 157), (20, 700, 64), (463, 83, 115)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("knob", [4, 5])
def test_deep_a_tile_is_read_where_written(layout, mnk, knob, set_knobs):
    """explain()'s replay of the deep A tile, element by element: every A copy writes logical (k, m) of
    SgemmDeepMap::a_copy at the deep tile's offset, and every A fragment load reads the logical (k, m) that
    the naive layout's (tile.cuh's offsets: row-major) reads -- the layout moves addresses, never elements."""
    set_knobs(sgemm_deep=knob)
    M, N, K = mnk
    name, _ = _testing.sgemm_choose(M, N, K, 132)
    bm, bn, bk = (32, 64, 16) if knob == 5 and name == HALF_OF else tile_dims(name)
    plans = {lay: _C._plan("sgemm", mnk, lay, 4, 132, CONFIGS.index(name))["accesses"] for lay in ("naive", layout)}
    assert [a[0] for a in plans[layout][:5]][2].startswith("A fragment load (LDS.128)")
    k, m = a_logical(plans[layout][0][4].ravel() // 4, bm, layout)
    wk, wm = deep_a_copies(bm, bk)
    np.testing.assert_array_equal(k, wk)
    np.testing.assert_array_equal(m, wm)
    for a in (2, 4):  # the fragment loads of every row k, and row 0's after the last k-tile
        got = a_logical(plans[layout][a][4].ravel() // 4, bm, layout)
        ref = a_logical(plans["naive"][a][4].ravel() // 4, bm, "naive")
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
    if layout != "naive" and knob == 4:  # tile.cuh's own fragment loads read the same elements from its tile
        set_knobs(sgemm_deep=0)
        t = _C._plan("sgemm", mnk, layout, 4, 132, CONFIGS.index(name))["accesses"]
        ref = a_logical(t[2][4].ravel() // 4, bm, layout, deep=False)
        got = a_logical(plans[layout][2][4].ravel() // 4, bm, layout)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])


def shared_side_excess(mnk, layout, config=0):
    """Wavefronts over ideal of every access of the plan by the shared-address rules alone (the copies as STS of
    their width, whatever their global side costs)."""
    total = 0
    for name, w, kind, rep, addr, instr, src in _testing.sgemm_plan(mnk, layout, config=config)["accesses"]:
        wf, ideal = _C._bank_replay(np.ascontiguousarray(addr), w, kind)
        total += int(rep) * int((wf - ideal).sum())
    return total


# test_bench.py::test_bench_all_layouts promises pad and swizzle free of excess wavefronts (512x384x256), and
# level 6 (the candidate default) takes the class's calls: its plans, the half tile's included, must keep that.
@pytest.mark.parametrize("layout", ["pad", "swizzle"])
def test_level6_pad_and_swizzle_have_no_excess(layout, set_knobs):
    shapes = [(512, 384, 256), (164, 275, 157), (463, 83, 115)] + [d.shape for d in D.sgemm_draws(200, 3141)]
    set_knobs(sgemm_deep=6)
    taken = 0
    for mnk in shapes:
        e = smemkit.explain("sgemm", mnk, layout)
        if "deep" not in e.config:
            continue
        taken += 1
        # the shared side: every LDS / STS at its ideal, the copies' shared addresses too (the global side of
        # the cp.async copies is the LDGSTS rule's, which no shared layout removes)
        assert all(a.wavefronts == a.ideal for a in e.accesses if a.instr == "ldst"), (mnk, layout)
        assert shared_side_excess(mnk, layout) == 0, (mnk, layout, e.config)
    assert taken >= 20  # the gate takes the class (seed 3141: about a third of the draws)
    for mnk in shapes[:3]:  # the three named shapes: the deep kernel, and the half tile for 64x64x16's
        assert "deep" in smemkit.explain("sgemm", mnk, layout).config, mnk
    naive = smemkit.explain("sgemm", (512, 384, 256), "naive")
    assert "deep" in naive.config and naive.total(what="excess") > 0
    for knob in (4, 5):  # every deep row forced, the half tile too (level 5: 64x64x16's launches)
        set_knobs(sgemm_deep=knob)
        for name in DEEP:
            for mnk in [(164, 275, 157), (200, 700, 64), (97, 330, 45)]:
                e = smemkit.explain("sgemm", mnk, layout, config=CONFIGS.index(name))
                assert "deep" in e.config and shared_side_excess(mnk, layout, CONFIGS.index(name)) == 0, \
                    (name, mnk, layout, knob)


def test_explain_smem_is_four_stages(set_knobs):
    set_knobs(sgemm_deep=0)
    p0 = _C._plan("sgemm", (164, 275, 157), "pad", 4, 132, CONFIGS.index(HALF_OF))
    set_knobs(sgemm_deep=1)
    p1 = _C._plan("sgemm", (164, 275, 157), "pad", 4, 132, CONFIGS.index(HALF_OF))
    assert p1["smem_bytes"] == 2 * p0["smem_bytes"] == 4 * 2 * 16 * 68 * 4


def test_explain_unchanged_where_the_gate_says_no(set_knobs):
    """A big grid (4096^2 outputs in 64x64x16: 4096 blocks) and a row without the pipeline keep tile.cuh's plan."""
    kw = dict(config=CONFIGS.index(HALF_OF))
    base = smemkit.explain("sgemm", (4096, 4096, 64), "swizzle", **kw)
    set_knobs(sgemm_deep=3)
    assert smemkit.explain("sgemm", (4096, 4096, 64), "swizzle", **kw) == base
    assert "deep" not in smemkit.explain("sgemm", (164, 275, 157), "swizzle", config=CONFIGS.index("64x64x8")).config


# ---- GPU ----------------------------------------------------------------------------------------------

def framed(torch, g, r, c, pitch, shift, fill=True):
    """An r x c float32 CUDA view of pitch `pitch` whose base is `shift` floats past 16 bytes, NaN outside it."""
    full = torch.full(((r + 2) * pitch + shift + 8,), float("nan"), device="cuda")
    v = full[shift:shift + r * pitch].view(r, pitch)[:, :c]
    if fill:
        v.copy_(torch.randn(r, c, device="cuda", generator=g))
    return v, full


def levels(torch, set_knobs, call, deep):
    """call() at sgemm_deep 0 and `deep` on the same operands: the two results as numpy arrays."""
    out = []
    for level in (0, deep):
        set_knobs(sgemm_deep=level)
        out.append(call())
        torch.cuda.synchronize()
    return out


# odd M / N / K; K under one k-tile, under the pipeline's 3 k-tiles, past it; N % 4 != 0 and == 0; edges in M, N
SHAPES = [(77, 131, 9), (130, 68, 33), (65, 256, 64), (200, 301, 17), (33, 97, 157), (5, 300, 184), (164, 275, 49)]
ROUTES = [(c, 4) for c in DEEP] + [(HALF_OF, 5)]  # (forced config, level): every deep row, and the half tile


@pytest.mark.gpu
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r[0]}-L{r[1]}")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_route_bit_exact_and_bounded(route, layout, torch, poison, set_knobs):
    config, deep = route
    set_knobs(sgemm_config=config)
    for M, N, K in SHAPES:
        set_knobs(sgemm_deep=deep)
        assert "deep" in smemkit.explain("sgemm", (M, N, K), layout, config=CONFIGS.index(config)).config
        g = torch.Generator(device="cuda").manual_seed(M * 31 + N * 7 + K)
        a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
        for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
            d0, d1 = levels(torch, set_knobs, lambda: smemkit.sgemm(
                a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout).cpu().numpy(), deep)
            if deep == 4:  # same tile, same FMA order
                np.testing.assert_array_equal(d1, d0)
            check(np.ascontiguousarray(d1), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy() if beta else None,
                  alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r[0]}-L{r[1]}")
@pytest.mark.parametrize("mnk", [(70, 130, 23), (129, 260, 75), (64, 517, 37), (3, 66, 50)],
                         ids=lambda s: "x".join(map(str, s)))
def test_operands_in_nan_frames_at_odd_pitches(layout, route, mnk, torch, set_knobs):
    """A, B, C views at odd pitches and bases off 16 bytes inside NaN frames (every copy element-wise or
    zero-filled; a byte read past K or N would bring a NaN into a stored output), out= a view off 16 bytes:
    bounded, level 4 bit-exact, and not one float written outside out."""
    config, deep = route
    set_knobs(sgemm_config=config)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a, _ = framed(torch, g, M, K, K + 1 if K % 2 == 0 else K + 2, 1)
    b, _ = framed(torch, g, K, N, N + 3, 2)
    c, _ = framed(torch, g, M, N, N, 3)
    for alpha, beta in [(1.0, 0.0), (2.0, -0.75)]:
        res = []
        for level in (0, deep):
            set_knobs(sgemm_deep=level)
            d, full = framed(torch, g, M, N, N, 1, fill=False)
            assert smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout, out=d) is d
            torch.cuda.synchronize()
            assert torch.isnan(torch.cat([full[:1], full[1 + M * N:]])).all(), "a store outside out"
            res.append(d.cpu().numpy())
        if deep == 4:
            np.testing.assert_array_equal(res[1], res[0])
        check(np.ascontiguousarray(res[1]), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy() if beta else None,
              alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r[0]}-L{r[1]}")
@pytest.mark.parametrize("splits", [2, 5])
def test_split_partials_through_the_deep_kernel(layout, route, splits, rng, poison, set_knobs):
    config, deep = route
    set_knobs(sgemm_config=config, sgemm_splits=splits)
    a = rng.standard_normal((141, 333)).astype(np.float32)
    b = rng.standard_normal((333, 203)).astype(np.float32)
    c = rng.standard_normal((141, 203)).astype(np.float32)
    for alpha, beta in [(1.0, 0.0), (0.5, -1.5)]:
        res = []
        for level in (0, deep):
            set_knobs(sgemm_deep=level)
            res.append(smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout))
        if deep == 4:
            np.testing.assert_array_equal(res[1], res[0])
        check(res[1], a, b, c if beta else None, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("deep", [4, 5])
def test_nan_c_is_not_read_when_beta_is_zero(layout, deep, rng, poison, set_knobs):
    set_knobs(sgemm_deep=deep, sgemm_config=HALF_OF)
    a = rng.standard_normal((100, 30)).astype(np.float32)
    b = rng.standard_normal((30, 301)).astype(np.float32)
    d = smemkit.sgemm(a, b, np.full((100, 301), np.nan, np.float32), beta=0.0, alpha=1.5, layout=layout)
    check(d, a, b, None, 1.5, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", WORST, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("knob", [1, 3])
def test_automatic_levels_on_the_worst_draws(mnk, knob, torch, set_knobs):
    """The class's draws as a user's torch call runs them: levels 1 and 3 take them (explain says so); level 1
    matches level 0 bit for bit; both bounded with alpha / beta."""
    M, N, K = mnk
    set_knobs(sgemm_deep=knob, sgemm_epi=0)  # sgemm_epi 1 (the default) takes 61x15199x61 to the staged epilogue
    assert "deep" in smemkit.explain("sgemm", mnk, "swizzle").config
    g = torch.Generator(device="cuda").manual_seed(M + N + K)
    a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
    res = levels(torch, set_knobs, lambda: smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5).cpu().numpy(), knob)
    if knob == 1:
        np.testing.assert_array_equal(res[1], res[0])
    check(np.ascontiguousarray(res[1]), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)


@pytest.mark.gpu
def test_cupy_operands(cupy, set_knobs):
    set_knobs(sgemm_deep=3)
    rs = cupy.random.RandomState(7)
    a, b = rs.standard_normal((463, 115), dtype=cupy.float32), rs.standard_normal((115, 83), dtype=cupy.float32)
    d = smemkit.sgemm(a, b)
    check(np.ascontiguousarray(cupy.asnumpy(d)), cupy.asnumpy(a), cupy.asnumpy(b))
