"""sgemm_new_paths level 10 (issue 27, the scalar path's price): the padded path (A / B copied to 16-byte rows, D
through the aligned workspace) is taken wherever its price beats the scalar path's (csrc/sgemm/choose.cu
sgemm_pad_pays10: the scalar path writes D at ~540 GB/s and stretches the kernel's work by 1.25; the padded path
pays its copies' bytes and 2.5 us per added kernel).  The choice (config, split) is level 9's.
CPU: properties of the mask on thousands of draws of the law (only unaligned operands padded, D whenever the
choice splits, nothing for aligned calls or non-tile rows, the choice unchanged, level 9's pads kept); the small-K
draws of seed 112 it was made for.  GPU: level 10's automatic calls on dense unaligned shapes and on odd pitches
in NaN frames, alpha / beta, against the float64 reference within gamma_{K+2} (test_sgemm.check)."""
import math

import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing
from test_sgemm import check_torch_calls
from test_sgemm_realign import run as run_framed

LAYOUTS = smemkit.LAYOUTS
SMS = 132


def law(rng, n, kmax=65536):
    out = []
    while len(out) < n:
        M, N = (int(round(math.exp(rng.uniform(0, math.log(16384))))) for _ in range(2))
        K = int(round(math.exp(rng.uniform(0, math.log(kmax)))))
        if M * N >= 64 and M * N * K >= 2**20 and M * N * K <= 4096**3:
            out.append((M, N, K))
    return out


def pad(mnk, level, a, b, dc):
    with _testing.knobs(sgemm_new_paths=level):
        return _C._sgemm_pad_choice(*mnk, SMS, a, b, dc)


def choose(mnk, level):
    with _testing.knobs(sgemm_new_paths=level):
        return _C._sgemm_choose(*mnk, SMS)


def shapes():
    rng = np.random.default_rng(1010)
    return law(rng, 1500) + law(rng, 500, kmax=128)


def test_knob_takes_ten_and_eleven_and_refuses_twelve(set_knobs):
    set_knobs(sgemm_new_paths=10)
    set_knobs(sgemm_new_paths=11)  # 11: level 9's short tile alone (test_sgemm_matvec.py)
    with pytest.raises((ValueError, TypeError)):
        set_knobs(sgemm_new_paths=12)


def test_mask_properties():
    padded = 0
    for s in shapes():
        M, N, K = s
        name, splits = choose(s, 10)
        assert (name, splits) == choose(s, 9), s
        tile = name[0].isdigit()
        for a, b, dc in [(1, 1, 1), (0, 1, 1), (1, 0, 0), (0, 0, 0), (1, 1, 0)]:
            m10 = pad(s, 10, a, b, dc)
            m9 = pad(s, 9, a, b, dc)
            assert not m9 or m10 == m9, (s, name, a, b, dc, m9, m10)  # level 9's pads kept
            if not tile or (a and b and dc):
                assert m10 == 0, (s, name, a, b, dc, m10)
                continue
            if m10:
                padded += 1
                want = (0 if a else 1) | (0 if b else 2) | (0 if dc and splits == 1 else 4)
                assert m10 == want, (s, name, a, b, dc, m10, want)
    assert padded > 300, padded


def test_small_k_draws_of_seed_112_pad():
    """419x5652x30 / 1874x1096x59 (A's rows off 16 bytes only) ran 0.54 / 0.55 of cuBLAS on the scalar path:
    level 10 copies A; 6267x987x44 (B and D off) pads B and D."""
    assert pad((419, 5652, 30), 10, 0, 1, 1) == 1 and pad((419, 5652, 30), 9, 0, 1, 1) == 0
    assert pad((1874, 1096, 59), 10, 0, 1, 1) == 1
    assert pad((6267, 987, 44), 10, 1, 0, 0) == 6


# ---- GPU ----------------------------------------------------------------------------------------------

GPU_SHAPES = [(419, 565, 30), (1874, 1096, 59), (627, 987, 44), (1616, 106, 19), (405, 328, 2147), (134, 61, 241)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", GPU_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_level_ten_calls_within_bound(layout, mnk, torch, poison, set_knobs):
    set_knobs(sgemm_new_paths=10)
    M, N, K = mnk
    check_torch_calls(torch, M, N, K, M * 17 + N, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mnk", [(419, 565, 30), (627, 987, 44), (405, 328, 2147)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1)], ids=lambda s: "shift" + "".join(map(str, s)))
def test_level_ten_odd_pitches_in_nan_frames(layout, mnk, shifts, torch, poison, set_knobs):
    set_knobs(sgemm_new_paths=10)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run_framed(torch, layout, M, N, K, pitches, shifts, alpha, beta)
