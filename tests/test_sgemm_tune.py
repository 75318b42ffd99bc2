"""The SGEMM's measured choice (knob sgemm_tune, csrc/sgemm/tune.cu, smemkit.tuning): the first automatic call of a
shape times the model's best few candidates and the fastest is cached per device.

CPU: the candidates on thousands of draws of issue 27's law and on edges (the model's choice first, no duplicates, at
most ten, every one a config of this build, the rows-n route or the matrix-vector route's K splits (those only
where the route takes the call; matvec rows only for M <= 8), every forced one resolving to a plan explain() can
replay -- i.e. a launch that exists -- pure and deterministic; on the tiny-K route its other row next; none at the
opt-in matvec level or on the column kernel; tile rows only on the mid class); the public switch and the cache without a GPU.  GPU (tuning on, level 2 so that a CUDA tool running the suite
does not switch it off): a seeded draw of the law with NaN-poisoned outputs, alpha / beta and C, against the float64
reference within gamma_{K+2}; every candidate of a dozen shapes pinned and launched; the cached winner's later calls
bit-identical; every layout of a shape the same winner (bit-identical outputs); out=c with beta != 0 (the trials must not overwrite C); odd pitches; torch tensors on a
side stream; the host path; autotune(False) adds nothing to the cache.  (The rest of the suite runs with tuning off:
tests/conftest.py.)"""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check, odd_pitch_view

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
import draws  # noqa: E402  (bench/timing/draws.py: issue 27's law)

SMS = (132, 114, 78)
NAMES = set(smemkit.bench_configs("sgemm")[1:])


def law(n, seed):
    return [d.shape for d in draws.sgemm_draws(n, seed)]


EDGES = [(1, 1, 1), (1, 5000, 300), (5, 8734, 298), (33, 33, 17), (64, 64, 17), (4096, 4096, 8), (4096, 4096, 4096),
         (20000, 2, 60000), (1070, 31, 49833), (2331, 25, 53849), (8192, 8192, 8192), (16384, 3, 16), (3, 16384, 17)]


def kind(name):
    return name.split("/")[0] if name.startswith(("rows-n/", "gemv/")) else name


def routed(M, N):
    """The matrix-vector route (knob sgemm_gemv 4, csrc/sgemm/gemv.h) takes the call before any tile choice."""
    return N == 1 or M <= 4


# ---- CPU: the candidates ------------------------------------------------------------------------------------

@pytest.mark.parametrize("sms", SMS)
def test_candidates_on_the_law(sms):
    for M, N, K in law(1500, 4801) + EDGES:
        c = _C._sgemm_tune_candidates(M, N, K, sms, 2)
        assert c == _C._sgemm_tune_candidates(M, N, K, sms, 2)  # pure
        if not c:
            continue
        assert c[0][0] == "auto" and c[0][1] == 0 and c[0][2] > 0
        assert 2 <= len(c) <= 10 or len(c) == 1, (M, N, K, c)
        rest = c[1:]
        assert len({(n, s) for n, s, _ in rest}) == len(rest)  # no duplicates
        auto = _C._sgemm_choose(M, N, K, sms)
        gemv = [int(n[5:]) for n, _, _ in rest if n.startswith("gemv/")]
        assert bool(gemv) <= routed(M, N) and len(set(gemv)) == len(gemv) and all(1 <= g <= K for g in gemv)
        if N == 1:  # the route's K splits alone
            assert len(gemv) == len(rest)
        for name, s, price in rest:
            assert kind(name) in ("rows-n", "gemv") or name in NAMES, name
            if name.startswith("gemv/"):
                assert s == 0 and price == 0
                continue
            if name.startswith("rows-n/"):
                assert name in ("rows-n/1", "rows-n/3") and 2 <= N <= 32 and s == 0
                continue
            assert (name, s) != auto or routed(M, N)  # the model's own pick is candidate 0 alone
            assert 1 <= s <= K and 0 <= price < 1e299
            assert not name.startswith("tiny-k") or (_C._sgemm_choose(M, N, K, sms)[0].startswith("tiny-k") and s == 1)
            if name.startswith("matvec"):  # M <= 8 on a wide output: the row of least MS that holds M, unpriced
                assert M <= 8 < 32 < N and price == 0 and int(name[-1]) >= M, (M, N, K, name)
                assert name == rest[-1][0]
            else:
                assert price > 0
            if M > 32 and N > 32 and K > 16:
                assert "x" in name and name[0].isdigit(), (M, N, K, name)  # the mid class: tile rows


def test_the_tiny_k_route_and_what_is_not_tuned():
    seen = 0
    for M, N, K in law(3000, 4802):
        name, _ = _C._sgemm_choose(M, N, K, 132)
        if name.startswith("tiny-k") and not routed(M, N):  # the route's other row next, then tiles (K <= 16)
            c = _C._sgemm_tune_candidates(M, N, K, 132, 2)
            other = {"tiny-k", "tiny-k/rw2"} - {name}
            assert c[0][0] == "auto" and (c[1][0], c[1][1]) == (other.pop(), 1), (M, N, K, c)
            assert all(not n.startswith(("tiny-k", "skinny-n")) for n, _, _ in c[2:])
            seen += 1
    assert seen > 50
    with _testing.knobs(sgemm_gemv=1):  # M == 1 on the column kernel (gemv.h COLS): not tuned
        assert _C._sgemm_tune_candidates(1, 5000, 3000, 132, 2) == []
    with _testing.knobs(sgemm_new_paths=8):  # the matvec rows' own level (opt-in): not tuned
        assert _C._sgemm_choose(7, 5000, 300, 132)[0].startswith("matvec")
        assert _C._sgemm_tune_candidates(7, 5000, 300, 132, 2) == []
    assert _C._sgemm_tune_candidates(0, 5, 5, 132, 2) == []


def test_every_candidate_is_a_launch_explain_can_replay():
    """A forced (config, splits) resolves to the plan of a real launch with that split."""
    shapes = law(120, 4803) + EDGES[:10]
    for M, N, K in shapes:
        for name, s, _ in _C._sgemm_tune_candidates(M, N, K, 132, 2)[1:]:
            if name.startswith("gemv/"):  # the route's own plan (explain's automatic choice); its splits are not forced
                assert "rows" in _C._plan("sgemm", (M, N, K), "swizzle", 4, 132, 0, 0)["config"] or M <= 4
                continue
            if name.startswith("rows-n/"):
                with _testing.knobs(sgemm_rows_n=int(name[-1])):
                    p = _C._plan("sgemm", (M, N, K), "swizzle", 4, 132, 0, 0)
                assert "rows" in p["config"], p["config"]
                continue
            cfg = smemkit.bench_configs("sgemm").index(name)
            p = _C._plan("sgemm", (M, N, K), "swizzle", 4, 132, cfg, s)
            assert p["config"].endswith(f"splits {s}") and p["blocks"] > 0, (name, s, p["config"])


def test_candidate_argument_errors():
    with pytest.raises(ValueError, match="sms >= 1"):
        _C._sgemm_tune_candidates(5, 5, 5, 0, 2)
    with pytest.raises(ValueError, match="layout index"):
        _C._sgemm_tune_candidates(5, 5, 5, 132, 3)


def test_switch_and_cache_without_a_gpu():
    before = smemkit.autotune()
    try:
        assert smemkit.autotune(True) is True and smemkit.autotune() is True
        assert smemkit.autotune(False) is False and smemkit.autotune() is False
        with pytest.raises(TypeError, match="bool or None"):
            smemkit.autotune(1)
        with _testing.knobs(sgemm_tune=2):
            assert _testing.current()["sgemm_tune"] == 2 and smemkit.autotune()
        assert smemkit.autotune() is False
        with pytest.raises(ValueError, match="0, 1 or 2"):
            _C._autotune(3)
    finally:
        smemkit.autotune(before)
    smemkit.clear_autotune_cache()
    assert smemkit.autotune_cache() == []


# ---- GPU ----------------------------------------------------------------------------------------------------

@pytest.fixture
def tuned(set_knobs):
    """Tuning on (level 2: also under a CUDA tool), outputs NaN-poisoned, an empty cache; cleared again after."""
    smemkit.clear_autotune_cache()
    set_knobs(sgemm_tune=2, poison=True)
    yield
    smemkit.clear_autotune_cache()


def small_law(n, seed, cap=2e9):
    """The law's draws whose 2 M N K is under `cap` (the test's time)."""
    return [s for s in law(4 * n, seed) if 2 * s[0] * s[1] * s[2] <= cap][:n]


def entry(M, N, K):
    got = [e for e in smemkit.autotune_cache("sgemm") if (e["M"], e["N"], e["K"]) == (M, N, K)]
    assert got, (M, N, K)
    return got


@pytest.mark.gpu
def test_tuned_draws_against_the_reference(tuned, rng):
    shapes = small_law(24, 4804)
    for M, N, K in shapes:
        a = rng.standard_normal((M, K), np.float32)
        b = rng.standard_normal((K, N), np.float32)
        c = rng.standard_normal((M, N), np.float32)
        d = smemkit.sgemm(a, b, c, alpha=0.75, beta=-0.5)
        check(d, a, b, c, 0.75, -0.5)
        for e in entry(M, N, K):  # "auto": the model's choice won, or the shape had nothing to time
            assert e["config"] == "auto" or (e["best_us"] > 0 and e["model_us"] >= e["best_us"])
            assert not e["config"].startswith("gemv/") or routed(M, N)
        np.testing.assert_array_equal(smemkit.sgemm(a, b, c, alpha=0.75, beta=-0.5), d)  # the cached winner
    timed = [e for e in smemkit.autotune_cache("sgemm") if e["timed"] > 1]
    assert len(timed) >= len(shapes) // 2  # most shapes had candidates to time


def code(name, splits):
    """A candidate's (config code, splits) as csrc/api/sgemm_tune.h codes it."""
    if name == "auto":
        return 0, 0
    if name.startswith("gemv/"):
        return -100 - int(name[5:]), 0
    if name.startswith("rows-n/"):
        return -int(name[7:]), 0
    return smemkit.bench_configs("sgemm").index(name), splits


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 3000, 900), (2, 7278, 116), (4, 1500, 5000), (1304, 1, 1309), (3, 64, 20000),
                                   (7, 8885, 219), (1719, 24, 5754), (3254, 30, 129), (552, 281, 369), (1318, 109, 408),
                                   (2000, 13, 70), (129, 17, 300), (254, 13228, 16), (2000, 3000, 9)])
def test_every_candidate_launch(tuned, rng, shape):
    """Every candidate of the shape pinned as its winner (so the call launches exactly it), NaN-poisoned D, against
    the reference -- the matrix-vector route's splits, the rows route, the narrow tile, the matvec rows, the tiny-K rows
    included."""
    M, N, K = shape
    a = rng.standard_normal((M, K), np.float32)
    b = rng.standard_normal((K, N), np.float32)
    c = rng.standard_normal((M, N), np.float32)
    sms = _testing.device_info()["sms"]
    cands = _C._sgemm_tune_candidates(M, N, K, sms, 2)
    assert len(cands) >= 2
    for name, s, _ in cands:
        _C._autotune_pin(M, N, K, *code(name, s))
        check(smemkit.sgemm(a, b, c, alpha=2.0, beta=0.25), a, b, c, 2.0, 0.25)
        assert {(e["config"], e["timed"]) for e in entry(M, N, K)} == {(name if name != "auto" else "auto", 0)}


@pytest.mark.gpu
def test_every_layout_runs_the_winner(tuned, rng):
    for M, N, K in [(552, 281, 369), (1318, 109, 408), (300, 41, 5000), (77, 2500, 900)]:
        a = rng.standard_normal((M, K), np.float32)
        b = rng.standard_normal((K, N), np.float32)
        outs = [smemkit.sgemm(a, b, layout=lay) for lay in smemkit.LAYOUTS]
        check(outs[0], a, b)
        for o in outs[1:]:
            np.testing.assert_array_equal(o, outs[0])
        assert len(entry(M, N, K)) == 1  # one winner for every layout


@pytest.mark.gpu
def test_out_is_c_with_beta_keeps_c_for_the_winner(tuned, torch):
    """out=c, beta != 0: the trials write a scratch copy, not D (which is C)."""
    g = torch.Generator(device="cuda").manual_seed(4805)
    for M, N, K in [(700, 300, 900), (2500, 20, 3000), (90, 4000, 350)]:
        a, b, c = (torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))
        c0 = c.cpu().numpy().copy()
        d = smemkit.sgemm(a, b, c, alpha=1.25, beta=0.5, out=c)
        torch.cuda.synchronize()
        assert d.data_ptr() == c.data_ptr()
        check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c0, 1.25, 0.5)


@pytest.mark.gpu
def test_tuned_odd_pitches_and_side_stream(tuned, torch):
    g = torch.Generator(device="cuda").manual_seed(4806)
    s = torch.cuda.Stream()
    for M, N, K in [(643, 211, 517), (1500, 27, 2001), (45, 3001, 777)]:
        a, b = odd_pitch_view(torch, g, M, K), odd_pitch_view(torch, g, K, N)
        c = torch.randn(M, N, device="cuda", generator=g)
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            d = smemkit.sgemm(a, b, c, alpha=-1.0, beta=2.0)
        s.synchronize()
        check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), -1.0, 2.0)
        entry(M, N, K)


@pytest.mark.gpu
def test_switched_off_adds_nothing(set_knobs, rng):
    smemkit.clear_autotune_cache()
    set_knobs(sgemm_tune=0)
    a = rng.standard_normal((333, 444), np.float32)
    b = rng.standard_normal((444, 555), np.float32)
    check(smemkit.sgemm(a, b), a, b)
    assert smemkit.autotune_cache("sgemm") == []


@pytest.mark.gpu
def test_forced_configs_are_not_tuned(tuned, rng, set_knobs):
    set_knobs(sgemm_config="64x64x8")
    a = rng.standard_normal((333, 444), np.float32)
    b = rng.standard_normal((444, 555), np.float32)
    check(smemkit.sgemm(a, b), a, b)
    assert smemkit.autotune_cache("sgemm") == []
