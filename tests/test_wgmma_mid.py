"""gemm16_kernel level 6 ("auto_mid"): level 3 ("auto_padded"), and for K of 64..255 where B's rows are aligned the
wgmma kernel on the wave-fill rule, A's unaligned rows copied where the copy pays (hopper/wgmma_mode.c
wgmma_auto_mid; K >= 128 when first measured, 64..127 under test).  The class: mid-K products whose 128x256 mma.sync blocks of 2-4 k-tiles spend ~12 us a wave in
their register epilogue (H100, session 42: 1381x5344x216 30.4 us against wgmma's 14.7, cuBLAS 10.6).

CPU: the knob's names; on the law's draws level 6 answers level 3's kernel except on exactly the draws the rule
names (K of 64..255, B aligned, the wave fill, A aligned or its copy paying), on 132 and 78 SMs.  GPU (cc 9.0):
the class's shapes through level 6 run the wgmma kernel (counted) and stay within the gamma_K bound, fp16 / bf16,
A's rows aligned or not, alpha / beta with C."""
import sys
from pathlib import Path

import numpy as np
import pytest

from smemkit import _testing
from test_gemm import check, operands
from test_wgmma import sm90, torch_operands  # noqa: F401  (sm90: the skipif string below)
from test_wgmma_padded import _np, _pairs, run

needs_sm90 = pytest.mark.skipif("not sm90()", reason="the wgmma kernel runs on compute capability 9.0 only")
CLASS = [(1381, 5344, 216), (2048, 4096, 128), (8346, 3520, 146), (9190, 6352, 172), (2048, 2048, 96)]


def fill(M, N, sms):
    tiles = -(-M // 128) * -(-N // 256)
    return 3 * tiles >= 2 * sms * -(-tiles // sms)


def law(n, seed):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import gemm_draws
    return [d.shape for d in gemm_draws(n, seed)]


def kernel(shape, knob, al, sms=132):
    return _testing.gemm16_kernel_for(shape, cc=(9, 0), sms=sms, rows_aligned=al, knob=knob)


def test_names():
    with _testing.knobs(gemm16_kernel="auto_mid"):
        assert _testing.current()["gemm16_kernel"] == 6
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_kernel=7):
            pass


@pytest.mark.parametrize("seed", [3302, 3303])
def test_rule_on_the_law(seed):
    moved = 0
    for M, N, K in law(3000, seed):
        for sms in (132, 78):
            for al in ((K % 8 == 0, N % 8 == 0), (False, True), (True, True), (False, False)):
                k3, k6 = kernel((M, N, K), "auto_padded", al, sms), kernel((M, N, K), "auto_mid", al, sms)
                if k6 == k3:
                    continue
                moved += 1
                assert k3 == "mma.sync" and k6 == "wgmma", (M, N, K, al)
                assert 64 <= K < 256 and al[1] and fill(M, N, sms), (M, N, K, al, sms)
    assert moved > 0


@pytest.mark.parametrize("shape", CLASS, ids=lambda s: "x".join(map(str, s)))
def test_class_takes_wgmma_at_6_only(shape):
    M, N, K = shape
    al = (K % 8 == 0, N % 8 == 0)
    assert kernel(shape, "auto_padded", al) == "mma.sync"
    assert kernel(shape, "auto_mid", al) == "wgmma"
    assert kernel(shape, "auto_mid", (al[0], False)) == "mma.sync"  # B's rows off 16 bytes: not this rule


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("shape", CLASS + [(1400, 2048, 131)], ids=lambda s: "x".join(map(str, s)))
def test_class_runs_wgmma_within_bound(poison, torch, shape):
    info = _testing.device_info()
    for tdt, ndt in _pairs(torch):
        a, b = torch_operands(torch, shape, ndt, tdt)
        want = _testing.gemm16_kernel_for(shape, cc=info["cc"], sms=info["sms"], knob="auto_mid")
        d = run("auto_mid", want == "wgmma", a, b)
        check(_np(torch, d, ndt), shape, ndt, ndt, 1.0, 0.0)
        c = torch.from_numpy(np.ascontiguousarray(operands(shape, ndt)[2]).view(np.int16)).view(tdt).cuda()
        d = run("auto_mid", want == "wgmma", a, b, c, alpha=0.5, beta=-1.25)
        check(_np(torch, d, ndt), shape, ndt, ndt, 0.5, -1.25)
