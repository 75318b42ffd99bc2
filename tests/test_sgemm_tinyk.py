"""The tiny-K SGEMM kernel (issue 27; csrc/sgemm/tinyk.cuh) and its routing rule (csrc/sgemm/choose.cu
sgemm_tinyk_route): K <= 16 and D's bytes at least 4x those of A and B -> "tiny-k", one slice.
CPU: the rule on thousands of shapes of the issue's distribution, the plan (no shared memory), the A/B
knob.  GPU: the kernel forced and chosen, every layout, alpha/beta, NaN-poisoned outputs, odd pitches
and bases off 16 bytes, K from 1 to 16 and (forced) deeper, K splits, against float64 within gamma_K."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check

LAYOUTS = smemkit.LAYOUTS
SMS = [1, 108, 132]


def routed(M, N, K):
    return 1 <= K <= 16 and M * N >= 4 * K * (M + N)


def tiny_row(M, N, sms):
    """Which tiny-K row a routed shape takes (sgemm_new_paths 3, choose.cu sgemm_tinyk_row): tiny-k (16 rows a
    warp, 128-row tiles) where its grid fills a wave of 2 blocks per SM, else tiny-k/rw2 (2 rows a warp,
    16-row tiles) where that grid has a block per SM, else none (the cost model's choice)."""
    cols = math.ceil(N / 128)
    if math.ceil(M / 128) * cols >= 2 * sms:
        return "tiny-k"
    return "tiny-k/rw2" if math.ceil(M / 16) * cols >= sms else None


def draws(n, seed):
    """The issue-27 distribution: M, N = round(exp(U(0, ln 16384))), K = round(exp(U(0, ln 65536))),
    kept when M*N >= 64, M*N*K >= 2^20 and 2*M*N*K <= 2*4096^3."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(65536)))))
        if M * N >= 64 and M * N * K >= 2**20 and M * N * K <= 4096**3:
            out.append((M, N, K))
    return out


@pytest.mark.parametrize("sms", SMS)
def test_the_rule_on_random_draws(sms):
    configs = _C._configs("sgemm")
    for M, N, K in draws(3000, 27 + sms) + [(4681, 2634, 2), (7549, 1356, 3), (2048, 8192, 1), (28, 7482, 16)]:
        name, splits = _C._sgemm_choose(M, N, K, sms)
        assert name in configs[1:]
        want = tiny_row(M, N, sms) if routed(M, N, K) else None
        assert (name if name.startswith("tiny-k") else None) == want, (M, N, K, name)
        if name == "tiny-k":
            assert splits == 1
            assert math.ceil(M / 128) * math.ceil(N / 128) <= 65535 * 65535


def test_small_k_with_a_small_side_stays_on_the_streaming_kernels():
    assert _C._sgemm_choose(4, 20000, 8, 132)[0] != "tiny-k"  # B's bytes are twice D's
    assert _C._sgemm_choose(20000, 3, 8, 132)[0] != "tiny-k"
    assert _C._sgemm_choose(4096, 4096, 17, 132)[0] != "tiny-k"  # past the register panel


def test_plan_has_no_shared_accesses_and_the_knob_restores_the_old_choice():
    plan = _C._plan("sgemm", (4681, 2634, 2), "swizzle", 4, 132)
    assert plan["config"].startswith("tiny-K 128x128 block tile") and "no shared memory" in plan["config"]
    assert plan["accesses"] == [] and plan["blocks"] == math.ceil(4681 / 128) * math.ceil(2634 / 128)
    with _testing.knobs(sgemm_new_paths=0):
        old = _C._plan("sgemm", (4681, 2634, 2), "swizzle", 4, 132)
    assert not old["config"].startswith("tiny-K") and old["accesses"]
    forced = _C._plan("sgemm", (300, 200, 1001), "pad", 4, 132, _C._configs("sgemm").index("tiny-k"), 0)
    assert forced["config"].startswith("tiny-K") and forced["accesses"] == []


def test_explain_says_no_shared_memory():
    e = smemkit.explain("sgemm", (4096, 4096, 4), layout="pad")
    assert "no shared memory" in e.config


# ---- GPU ----------------------------------------------------------------------------------------

def framed(torch, g, r, c, pitch, shift):
    full = torch.full(((r + 4) * pitch + shift + 4,), float("nan"), device="cuda")
    v = full[shift:shift + r * pitch].view(r, pitch)[:, :c]
    v.copy_(torch.randn(r, c, device="cuda", generator=g))
    return v


def run(torch, layout, M, N, K, alpha, beta, aligned):
    g = torch.Generator(device="cuda").manual_seed(M * 131 + N * 7 + K)
    if aligned:  # 16-byte pitches and bases: the float4 (VEC) path
        p = [(K + 3) // 4 * 4, (N + 3) // 4 * 4 + 4, (N + 3) // 4 * 4]
        s = [0, 0, 0]
    else:
        p = [K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3]
        s = [1, 3, 2]
    a, b, c = framed(torch, g, M, K, p[0], s[0]), framed(torch, g, K, N, p[1], s[1]), framed(torch, g, M, N, p[2], s[2])
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    torch.cuda.synchronize()
    an, bn, cn = (np.ascontiguousarray(x.cpu().numpy()) for x in (a, b, c))
    check(np.ascontiguousarray(d.cpu().numpy()), an, bn, cn if beta != 0 else None, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(300, 200, 1), (129, 257, 2), (70, 131, 3), (513, 384, 4), (200, 130, 7),
                                 (131, 1000, 8), (257, 129, 13), (1000, 300, 16), (37, 5, 9), (1, 513, 16)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("aligned", [True, False], ids=["pitch16", "oddpitch"])
def test_tinyk_forced_within_bound(layout, mnk, aligned, torch, poison, set_knobs):
    for cfg in ["tiny-k", "tiny-k/rw2"]:
        set_knobs(sgemm_config=cfg)
        for alpha, beta in [(1.0, 0.0), (2.0, -0.75)]:
            run(torch, layout, *mnk, alpha, beta, aligned)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(300, 200, 1001), (129, 257, 65), (45, 3, 77), (200, 130, 17)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
def test_tinyk_forced_on_deep_k_is_still_right(mnk, splits, torch, poison, set_knobs):
    set_knobs(sgemm_config="tiny-k", sgemm_splits=splits)
    run(torch, "swizzle", *mnk, 0.5, 1.5, False)
    run(torch, "pad", *mnk, 1.0, 0.0, True)


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(4681, 2634, 2), (2048, 8192, 1), (1111, 777, 16), (999, 1001, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_chosen_tinyk_on_dense_operands(mnk, torch, poison):
    assert _C._sgemm_choose(*mnk, 132)[0] == ("tiny-k" if mnk[0] > 2000 else "tiny-k/rw2")
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(5)
    a, b = torch.randn(M, K, device="cuda", generator=g), torch.randn(K, N, device="cuda", generator=g)
    d = smemkit.sgemm(a, b)
    torch.cuda.synchronize()
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy())
