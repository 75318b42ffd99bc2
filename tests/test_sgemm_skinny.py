"""The skinny SGEMM configs (csrc/sgemm/skinny_m.cuh, skinny_n.cuh): "skinny-m" (small M: B streamed from global memory,
A's slice in shared memory read as broadcasts) and "skinny-n" (small N: A streamed, B's slice stored
transposed, a shuffle reduce-scatter).  CPU: the plans explain() replays, per layout, against the
kernels' own instruction counts and the bank arithmetic of the header comment.  GPU: every layout,
forced through the sgemm_config knob, against the float64 reference within gamma_{K+2}
(test_sgemm.check), with K splits, C aliasing D, NaN-poisoned outputs and unaligned device views."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C
from _shared import check_numpy_call, operands
from test_sgemm import check, check_torch_calls, odd_pitch_view
from smemkit._testing import knobs as _knobs

@pytest.fixture(autouse=True)
def _chooser_rows_for_small_m():
    """This module tests the chooser's skinny kernels, M <= 4 included: the wide matrix-vector route (sgemm_gemv 4,
    the default since session 44: tests/test_sgemm_gemv_wide.py) off."""
    with _knobs(sgemm_gemv=3):
        yield


LAYOUTS = smemkit.LAYOUTS
CONFIGS = _C._configs("sgemm")
SKINNY = ["skinny-m", "skinny-n"]
MV = ["skinny-m16", "skinny-m32"]  # issue 27's matrix-vector rows: the skinny-m kernel holding 16 / 32 rows of D
ALL = SKINNY + MV
# the kernels' geometry (csrc/sgemm/configs.h: SkinnyM = <MS 8, BK 64, U 8, 128 threads>,
# SkinnyN = <NS 8, R 4, BK 256, 128 threads>)
GEOM = {"skinny-m": dict(tile_m=8, tile_n=512, bk=64, warps=4),
        "skinny-n": dict(tile_m=16, tile_n=8, bk=256, warps=4),
        "skinny-m16": dict(tile_m=16, tile_n=512, bk=64, warps=4),
        "skinny-m32": dict(tile_m=32, tile_n=512, bk=32, warps=4)}


def index(name):
    return CONFIGS.index(name)


def blocks(name, M, N):
    g = GEOM[name]
    return math.ceil(M / g["tile_m"]) * math.ceil(N / g["tile_n"])


# ---- CPU: the table and the plans -----------------------------------------------------------------

def test_skinny_configs_follow_the_shipped_tiles():
    assert CONFIGS[:3] == ["auto", "128x128x8", "64x64x8"]  # BIG and SMALL keep their indices
    assert CONFIGS[7:9] == SKINNY
    assert smemkit.bench_configs("sgemm")[7:9] == SKINNY


@pytest.mark.parametrize("mnk,want", [((1, 4096, 4096), "skinny-m"), ((8, 4096, 4096), "skinny-m"),
                                      ((1, 8192, 8192), "skinny-m"), ((4096, 1, 4096), "skinny-n"),
                                      ((8192, 8, 8192), "skinny-n"), ((64, 4096, 4096), None),
                                      ((4096, 4096, 4096), None)], ids=lambda v: str(v))
def test_the_chooser_picks_skinny_configs_for_matrix_vector_shapes(mnk, want, set_knobs):
    """The cost model's memory-bound branch: the measured wins of docs/SKINNY_RESULTS.md, and tiles
    where the output is wide enough to fill them (level 3's rows: the knob pinned)."""
    set_knobs(sgemm_new_paths=3)
    name, s = _C._sgemm_choose(*mnk, 132)
    if want is None:
        assert name not in SKINNY
    else:
        assert name == want


PLAN_SHAPES = [(1, 4096, 4096), (3, 1000, 517), (16, 777, 2049), (17, 64, 300), (4096, 1, 4096),
               (999, 3, 1025), (1, 1, 5003)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", PLAN_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_skinny_m_plan(layout, mnk):
    M, N, K = mnk
    e = smemkit.explain("sgemm", mnk, layout, config=index("skinny-m"), splits=1)
    assert e.config.startswith("skinny-M 8x512x64 block tile, 128 threads") and e.config.endswith(", splits 1")
    nb, kt = blocks("skinny-m", M, N), math.ceil(K / 64)
    assert e.blocks == nb
    store, load = e.accesses
    assert store.name.startswith("A-slice store") and store.kind == "store" and store.width == 16
    assert load.name.startswith("A broadcast load") and load.kind == "load" and load.width == 16
    # per k-tile: each of 4 warps stores one float4 per thread (8 x 64 floats), and reads
    # As[m][k..k+3] for 8 rows m and 16 groups of 4 k; one more store after the last k-tile
    # (unconditional, as in sgemm_kernel: no predicated-off instruction for ncu to count)
    assert store.instructions == nb * (kt + 1) * 4
    assert load.instructions == nb * kt * 4 * 8 * 16
    # conflict-free in every layout: a quarter warp stores 128 contiguous bytes (4 wavefronts a
    # warp, the 16-byte minimum); a read is one address for the whole warp (2: the broadcast minimum)
    assert store.excess == 0 and load.excess == 0
    assert store.wavefronts == 4 * store.instructions
    assert load.wavefronts == 2 * load.instructions


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", PLAN_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_skinny_n_plan(layout, mnk):
    _skinny_n_plan(layout, mnk)


@pytest.mark.parametrize("name", MV)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", PLAN_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matrix_vector_rows_plan(name, layout, mnk):
    """skinny-m16 / skinny-m32 are the skinny-m kernel with MS = 16 / 32: the same two accesses,
    conflict-free in every layout (a quarter warp stores 128 contiguous bytes; reads are broadcasts)."""
    M, N, K = mnk
    g = GEOM[name]
    e = smemkit.explain("sgemm", mnk, layout, config=index(name), splits=1)
    assert e.config.startswith(f"skinny-M {g['tile_m']}x512x{g['bk']} block tile, 128 threads")
    nb, kt = blocks(name, M, N), math.ceil(K / g["bk"])
    assert e.blocks == nb
    store, load = e.accesses
    a_loads = g["tile_m"] * g["bk"] // 4 // 128  # float4 of A per thread per k-tile
    assert store.instructions == nb * (kt + 1) * 4 * a_loads
    assert load.instructions == nb * kt * 4 * g["tile_m"] * (g["bk"] // 4)
    assert store.excess == 0 and load.excess == 0
    assert store.wavefronts == 4 * store.instructions and load.wavefronts == 2 * load.instructions


@pytest.mark.parametrize("mnk", [(9, 4096, 4096), (16, 777, 20000), (17, 14767, 3978), (30, 3927, 21164),
                                 (32, 2000, 9000), (12, 4766, 43060)], ids=lambda s: "x".join(map(str, s)))
def test_small_m_takes_one_tile_of_the_least_ms_that_holds_it(mnk, set_knobs):
    """From path level 2 a skinny-m launch holds all of M in one tile: B is streamed once, not once per 8
    rows (the 2-4 tiles of 8 rows ran 0.34-0.59 of cuBLAS on the M = 12..30 draws).  Level 3's rule (from
    level 4 on, the default 5 included, 8 < M <= 16 takes the short tile: test_level_four_...)."""
    set_knobs(sgemm_new_paths=3, sgemm_redchain=0)  # level 3 as measured, its splits priced by bytes
    M = mnk[0]
    name, s = _C._sgemm_choose(*mnk, 132)
    if M > 16:  # level 3: the short tile (32 rows, 128 columns) holds M; skinny-m32 ran 0.37-0.87 there
        assert name == "32x128x16", name
        assert _C._plan("sgemm", mnk, "swizzle", 4, 132)["config"].startswith("32x128x16 block tile")
        return
    assert name in ALL[:1] + MV, name
    assert GEOM[name]["tile_m"] >= M and (GEOM[name]["tile_m"] == 8 or GEOM[name]["tile_m"] // 2 < M)
    assert 1 <= s <= math.ceil(mnk[2] / GEOM[name]["bk"])
    plan = _C._plan("sgemm", mnk, "swizzle", 4, 132)
    assert plan["config"].startswith(f"skinny-M {GEOM[name]['tile_m']}x512")


@pytest.mark.parametrize("level", [1, 2])
def test_lower_levels_never_offer_the_newer_rows(level, set_knobs):
    """sgemm_new_paths=1 is the session before the matrix-vector rows (skinny-m in tiles of 8 rows, as
    it was); 2 has skinny-m16 / -m32 but neither the short tile nor tiny-k/rw2."""
    rng = np.random.default_rng(30 + level)
    set_knobs(sgemm_new_paths=level)
    for _ in range(300):
        M, N, K = int(rng.integers(1, 33)), int(rng.integers(64, 20000)), int(rng.integers(1, 60000))
        cfg = _C._plan("sgemm", (M, N, K), "pad", 4, 132)["config"]
        assert not cfg.startswith(("32x128x16", "tiny-K 16x")), (M, N, K, cfg)
        if level == 1:
            assert not cfg.startswith(("skinny-M 16x", "skinny-M 32x")), (M, N, K, cfg)


def test_random_small_m_choices_are_valid(set_knobs):
    """Thousands of matrix-vector shapes (M up to 40, N and K log-uniform): a shipped config, a split in
    range, a skinny-m row only where M fits its tile, its grid within one 1-D launch (level 3 pinned)."""
    set_knobs(sgemm_new_paths=3)
    rng = np.random.default_rng(31)
    for _ in range(4000):
        M = int(rng.integers(1, 41))
        N, K = (int(round(math.exp(rng.uniform(0, math.log(v))))) for v in (16384, 65536))
        for sms in (1, 108, 132):
            name, s = _C._sgemm_choose(M, N, K, sms)
            assert name in CONFIGS[1:]
            if name in GEOM:
                assert 1 <= s <= max(1, math.ceil(K / GEOM[name]["bk"])), (M, N, K, name, s)
            if name.startswith("skinny-m"):
                assert M <= GEOM[name]["tile_m"], (M, N, K, name)
            if name == "32x128x16":
                assert 16 < M <= 32, (M, N, K, name)


def _skinny_n_plan(layout, mnk):
    M, N, K = mnk
    e = smemkit.explain("sgemm", mnk, layout, config=index("skinny-n"), splits=1)
    assert e.config.startswith("skinny-N 16x8x256 block tile, 128 threads")
    nb, kt = blocks("skinny-n", M, N), math.ceil(K / 256)
    assert e.blocks == nb
    store, load = e.accesses
    assert store.name.startswith("B-slice store (transposed") and store.kind == "store" and store.width == 4
    assert load.name.startswith("B load") and load.kind == "load" and load.width == 16
    # per k-tile and warp: 4 float4 of B per thread -> 16 scalar STS (and once more after the last
    # k-tile); 2 steps x 8 columns of LDS.128
    assert store.instructions == nb * (kt + 1) * 4 * 16
    assert load.instructions == nb * kt * 4 * 16
    assert load.excess == 0 and load.wavefronts == 4 * load.instructions
    if layout == "naive":
        # rows n and n+4 of one column k share a bank: the transposed store's 2-way conflict
        assert store.worst_ways == 2.0 and store.wavefronts == 2 * store.instructions
    else:
        assert store.excess == 0 and store.wavefronts == store.instructions


@pytest.mark.parametrize("name", SKINNY)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_plan_replays_one_address_map_per_layout(name, layout):
    """The plan's addresses are the layout's map of the same logical elements: distinct per access,
    inside the stage, and (pad) the naive offsets shifted by 4 floats per row."""
    p = _C._plan("sgemm", (64, 64, 1024), layout, 4, 132, index(name), 1)
    assert p["threads"] == 128
    rows, cols = (8, 64) if name == "skinny-m" else (8, 256)
    assert p["smem_bytes"] == 2 * rows * (cols + (4 if layout == "pad" else 0)) * 4
    store = p["accesses"][0][4]
    assert store.shape[1] == 32 and (store >= 0).all()
    width = p["accesses"][0][1]
    assert len(np.unique(store)) == store.size  # every element of the slice written once
    assert store.size * width == rows * cols * 4
    assert store.max() + width <= p["smem_bytes"] // 2


@pytest.mark.parametrize("name", SKINNY)
@pytest.mark.parametrize("mnk,s", [((1, 4096, 4096), 16), ((4096, 1, 4096), 4), ((17, 64, 300), 3), ((1, 1, 5003), 7)],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_split_plan_counts_every_slice_once(name, mnk, s):
    M, N, K = mnk
    bk = GEOM[name]["bk"]
    split = _C._plan("sgemm", mnk, "swizzle", 4, 132, index(name), s)
    one = _C._plan("sgemm", mnk, "swizzle", 4, 132, index(name), 1)
    got = int(split["config"].rsplit(", splits ", 1)[1])
    assert 1 <= got <= min(s, math.ceil(K / bk))
    assert split["blocks"] == blocks(name, M, N) * got
    kt = math.ceil(K / bk)
    for a1, a2 in zip(split["accesses"], one["accesses"]):
        extra = (got, 1) if a1[2] == "store" else (0, 0)  # a store group after each slice's last k-tile
        assert (a1[3], a2[3]) == (blocks(name, M, N) * (kt + extra[0]), blocks(name, M, N) * (kt + extra[1]))


def test_k_zero_plans_nothing():
    for name in SKINNY:
        assert smemkit.explain("sgemm", (5, 7, 0), "pad", config=index(name)).total() == 0
        assert smemkit.explain("sgemm", (0, 7, 9), "pad", config=index(name)).total() == 0


# ---- GPU ------------------------------------------------------------------------------------------

@pytest.fixture
def force(set_knobs):
    """force(name, splits=0): run smemkit.sgemm with a skinny config (and K split); reset after."""
    def set_(name, splits=0):
        set_knobs(sgemm_config=name, sgemm_splits=splits)
    return set_


SHAPES = [(1, 4096, 4096), (3, 1000, 517), (16, 777, 2049), (17, 64, 300), (4096, 1, 4096), (999, 3, 1025),
          (1, 1, 5003), (0, 5, 7), (5, 0, 7), (9, 11, 0), (8, 8, 1), (100, 100, 100), (33, 9, 257),
          (31, 1001, 4099), (32, 517, 3000)]
AB = [(1.0, 0.0), (-0.5, 0.0), (1.0, 1.0), (2.0, -0.75)]


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("alpha,beta", AB, ids=lambda v: str(v))
def test_forced_skinny_within_bound(name, layout, mnk, alpha, beta, rng, poison, force):
    force(name, 1)
    check_numpy_call(rng, mnk, alpha, beta, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk,s", [((1, 4096, 4096), 16), ((8, 4096, 4096), 7), ((4096, 1, 4096), 5),
                                   ((4096, 16, 4096), 3), ((17, 64, 3000), 11), ((1, 1, 5003), 64),
                                   ((999, 3, 1025), 2)],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.0, -0.75)], ids=lambda v: str(v))
def test_forced_skinny_split_within_bound(name, layout, mnk, s, alpha, beta, rng, poison, force):
    force(name, s)
    a, b, c = operands(rng, *mnk, beta)
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    check(d, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("splits", [1, 4])
def test_c_aliases_d(name, layout, splits, rng, force):
    force(name, splits)
    a, b, c = operands(rng, 13, 21, 1500, 1.0)
    c0 = c.copy()
    assert smemkit.sgemm(a, b, c, alpha=2.0, beta=0.5, layout=layout, out=c) is c
    check(c, a, b, c0, 2.0, 0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("splits", [1, 3])
def test_beta_zero_does_not_read_a_nan_c(name, splits, rng, poison, force):
    force(name, splits)
    a, b, _ = operands(rng, 7, 5, 3001, 0.0)
    c = np.full((7, 5), np.nan, np.float32)
    d = smemkit.sgemm(a, b, c, beta=0.0, alpha=1.5)
    check(d, a, b, None, 1.5, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
def test_nan_and_inf_propagate_like_numpy(name, force):
    force(name, 1)
    a = np.ones((6, 300), np.float32)
    b = np.ones((300, 5), np.float32)
    a[1, 280] = np.nan  # the second k-tile of skinny-m, the second of skinny-n's steps
    b[3, 4] = np.inf
    d = smemkit.sgemm(a, b)
    want = a @ b
    np.testing.assert_array_equal(np.isnan(d), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1, 1030, 777), (5, 9, 1001), (700, 3, 513), (17, 64, 300)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_unaligned_device_views(name, layout, mnk, splits, torch, force):
    """Row-major views with an odd row pitch, starting off 16-byte boundaries: the kernels take their
    scalar (VEC = false) path (host arrays never do: their device copies have 16-byte pitches).  C is
    such a view too (out= must be C-contiguous, so the result is a new tensor)."""
    force(name, splits)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + 31 * N)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    for x in (a, b, c):
        assert x.stride(0) % 2 == 1 and x.stride(1) == 1 and x.data_ptr() % 16
    a_h, b_h, c_h = a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy()
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    assert tuple(d.shape) == (M, N) and d.is_contiguous()
    check(np.ascontiguousarray(d.cpu().numpy()), a_h, b_h, c_h, 0.5, -1.5)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ALL)
def test_bench_runs_a_skinny_config(name):
    r = smemkit.bench("sgemm", (4096, 1, 4096) if name == "skinny-n" else (1, 4096, 4096), layout="pad",
                      config=name, splits=1, reps=3)[0]
    assert r.median_ms > 0


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(30, 3927, 2117), (12, 4766, 4306), (17, 1477, 3978), (13, 2223, 13829),
                                 (23, 1322, 17574), (16, 4096, 4096)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_auto_small_m_calls(mnk, layout, torch, poison):
    """What a user's call runs for small M (the chooser's matrix-vector rows and their K split) on dense
    torch tensors with odd K / N, alpha and beta, against the float64 reference."""
    M, N, K = mnk
    name, _ = _C._sgemm_choose(M, N, K, torch.cuda.get_device_properties(0).multi_processor_count)
    assert name.startswith("skinny-m") or name == "32x128x16"
    check_torch_calls(torch, M, N, K, M * 7 + N, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(17, 300, 1001), (32, 513, 77), (1, 129, 65), (70, 5, 300), (30, 3927, 2117),
                                 (25, 128, 16)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_short_tile_forced_within_bound(layout, mnk, splits, rng, poison, force):
    """The short tile 32x128x16 (the warp-tiled kernel with BM = 32, level 3's choice for 16 < M <= 32)
    forced on edges in M, N and K, alpha / beta, a K split, NaN-poisoned outputs."""
    force("32x128x16", splits)
    for alpha, beta in [(1.0, 0.0), (2.0, -0.75)]:
        a, b, c = operands(rng, *mnk, beta)
        d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
        check(d, a, b, c, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(19, 1031, 777), (31, 130, 1001)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_short_tile_on_unaligned_device_views(layout, mnk, splits, torch, force):
    force("32x128x16", splits)
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + 31 * N)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    a_h, b_h, c_h = a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy()
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    check(np.ascontiguousarray(d.cpu().numpy()), a_h, b_h, c_h, 0.5, -1.5)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_short_tile_plan(layout):
    """explain() replays the short tile as every tile config (the same kernel, BM = 32): one block per 32 x
    128 tile, and the plan's accesses are those of tile.cuh's bank arithmetic."""
    e = smemkit.explain("sgemm", (30, 3927, 2117), layout, config=index("32x128x16"), splits=1)
    assert e.config.startswith("32x128x16 block tile")
    assert e.blocks == math.ceil(3927 / 128)
    assert e.total() > 0


def test_level_four_is_opt_in_and_follows_its_two_rules(set_knobs):
    """sgemm_new_paths=4 (levels 5-11, 11 the default, build on it): the short tile from M = 9 and no skinny-n
    for K <= 16; every choice on random draws is still a row that launches (a plan with blocks), as at level 3."""
    from smemkit import _testing
    assert _testing.KNOBS["sgemm_new_paths"] == 11
    set_knobs(sgemm_new_paths=3)
    assert _C._plan("sgemm", (14344, 21, 13), "pad", 4, 132)["config"].startswith("skinny-N")
    set_knobs(sgemm_new_paths=4)
    assert _C._plan("sgemm", (12, 4766, 43060), "pad", 4, 132)["config"].startswith("32x128x16 block tile")
    assert not _C._plan("sgemm", (14344, 21, 13), "pad", 4, 132)["config"].startswith("skinny-N")
    rng = np.random.default_rng(34)
    for _ in range(1500):
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        if M * N < 64 or M * N * K < 2**20 or M * N * K > 4096**3:
            continue
        p = _C._plan("sgemm", (M, N, K), "swizzle", 4, 132)
        assert p["blocks"] >= 1, (M, N, K, p["config"])
        if K <= 16:
            assert not p["config"].startswith("skinny-N"), (M, N, K, p["config"])
        if p["config"].startswith("32x128x16"):
            assert 8 < M <= 32, (M, N, K)
