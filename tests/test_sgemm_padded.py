"""The tile kernel's padded path on rows off 16 bytes (issue 27; csrc/sgemm/choose.cu sgemm_pad_choice,
csrc/sgemm/launch.cu launch_padded): A and / or B copied to 16-byte rows, D through the aligned workspace
and the split-K reduction when D or C is off 16 bytes, so the tile kernel runs its float4 path.
CPU: the rule on thousands of random shapes x alignment facts.  GPU: dense odd-K / odd-N calls and
odd-pitch views, every tile config forced, every layout, alpha/beta, NaN-poisoned outputs, against
float64 within gamma_K, with the knob on and off (sgemm_new_paths)."""
import itertools

import numpy as np
import pytest

import smemkit
from smemkit import _C
from test_sgemm import check, check_torch_calls, odd_pitch_view
from test_sgemm_tinyk import draws

LAYOUTS = smemkit.LAYOUTS
TILES = [c for c in _C._configs("sgemm")[1:] if c[0].isdigit()]


@pytest.mark.parametrize("sms", [1, 132])
def test_the_rule_on_random_draws(sms):
    for (M, N, K), (a, b, dc) in itertools.product(draws(800, 5 + sms), itertools.product([0, 1], repeat=3)):
        mask = _C._sgemm_pad_choice(M, N, K, sms, a, b, dc)
        name, splits = _C._sgemm_choose(M, N, K, sms)
        assert 0 <= mask <= 7
        if name not in TILES or (a and b and dc):
            assert mask == 0, (M, N, K, a, b, dc, name)
            continue
        if mask:  # never copies an aligned operand; D goes through the workspace when it must
            assert bool(mask & 1) == (not a) and bool(mask & 2) == (not b), (M, N, K, a, b, dc, mask)
            assert bool(mask & 4) == (not dc or splits > 1)
            temp = (0 if a else M * ((K + 3) // 4 * 4)) + (0 if b else K * ((N + 3) // 4 * 4))
            temp += M * ((N + 3) // 4 * 4) if (not dc and splits == 1) else 0  # a split has its workspace already
            assert 4 * temp <= 2**30, (M, N, K)


def test_big_unaligned_shapes_are_padded_and_small_ones_not():
    assert _C._sgemm_pad_choice(3505, 2379, 3728, 132, 1, 1, 0) == 4  # D through the workspace
    assert _C._sgemm_pad_choice(4097, 4095, 4093, 132, 0, 0, 0) == 7
    assert _C._sgemm_pad_choice(2000, 2000, 2001, 132, 0, 1, 1) == 1
    assert _C._sgemm_pad_choice(4096, 4096, 4096, 132, 1, 1, 1) == 0
    assert _C._sgemm_pad_choice(1, 4096, 4095, 132, 0, 0, 0) == 0  # skinny-m: its own re-aligned stream
    assert _C._sgemm_pad_choice(4681, 2634, 2, 132, 0, 0, 0) == 0  # tiny-k


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        _C._sgemm_pad_choice(-1, 2, 3, 132, 1, 1, 1)
    with pytest.raises(ValueError):
        _C._sgemm_pad_choice(1, 2, 3, 0, 1, 1, 1)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(1001, 999, 1003), (513, 700, 257), (600, 515, 1024), (300, 2047, 4001)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("new", [1, 0], ids=["new", "old"])
def test_dense_unaligned_calls(layout, mnk, new, torch, poison, set_knobs):
    set_knobs(sgemm_new_paths=new)
    M, N, K = mnk
    check_torch_calls(torch, M, N, K, M + N + K, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("config", TILES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("splits", [0, 1, 3])
@pytest.mark.parametrize("new", [1, 0], ids=["new", "old"])
def test_forced_tiles_on_odd_pitch_views(config, layout, splits, new, torch, poison, set_knobs):
    set_knobs(sgemm_config=config, sgemm_splits=splits, sgemm_new_paths=new)
    M, N, K = 700, 301, 1203
    g = torch.Generator(device="cuda").manual_seed(11)
    a, b, c = (odd_pitch_view(torch, g, r, n) for r, n in ((M, K), (K, N), (M, N)))
    d = smemkit.sgemm(a, b, c, alpha=0.5, beta=-1.5, layout=layout)
    torch.cuda.synchronize()
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.5, -1.5)
