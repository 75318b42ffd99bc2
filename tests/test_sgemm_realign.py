"""The skinny kernels' re-aligned streams (issue 27; csrc/sgemm/parts.cuh realign_load / realign_finish):
rows of the streamed operand that do not start on 16 bytes (odd pitch, base off 16 bytes by 0..3 floats)
read as aligned float4 re-aligned across the warp.  GPU: skinny-m (B streamed) and skinny-n (A streamed)
forced, every layout, alpha/beta, K splits, new path and old (knob sgemm_new_paths=0) on the same data,
inside NaN frames (the aligned float4 that hold a row's first and last elements also hold bytes outside
the operand: those must never reach the output), against the float64 reference within gamma_K
(test_sgemm.check)."""
import numpy as np
import pytest

import smemkit
from smemkit import _testing
from test_sgemm import check

LAYOUTS = smemkit.LAYOUTS


def framed_view(torch, g, r, c, pitch, shift):
    """An r x c float32 CUDA view of pitch `pitch` floats whose base is `shift` floats past a 16-byte
    boundary, NaN everywhere outside it (pitch padding, `shift` floats before, 8 rows after)."""
    full = torch.full(((r + 8) * pitch + shift + 4,), float("nan"), device="cuda")
    v = full[shift:shift + r * pitch].view(r, pitch)[:, :c]
    v.copy_(torch.randn(r, c, device="cuda", generator=g))
    return v


def run(torch, layout, M, N, K, pitches, shifts, alpha, beta):
    g = torch.Generator(device="cuda").manual_seed(M * 7919 + N * 31 + K)
    a = framed_view(torch, g, M, K, pitches[0], shifts[0])
    b = framed_view(torch, g, K, N, pitches[1], shifts[1])
    c = framed_view(torch, g, M, N, pitches[2], shifts[2])
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    torch.cuda.synchronize()
    an, bn, cn = (np.ascontiguousarray(x.cpu().numpy()) for x in (a, b, c))
    check(np.ascontiguousarray(d.cpu().numpy()), an, bn, cn if beta != 0 else None, alpha, beta)


# (M, N, K): whole warps of columns (N >= 128) and ragged ones; K across several 64-deep k-tiles
SKINNY_M = [(1, 1000, 301), (8, 517, 129), (13, 383, 77), (3, 128, 64), (31, 2049, 1000)]
# (M, N, K): K across 256-deep k-tiles, whole and ragged; rows of the block in and past M
SKINNY_N = [(1000, 1, 301), (517, 8, 1029), (129, 5, 513), (64, 3, 256), (333, 13, 2047)]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("config,mnk", [("skinny-m", s) for s in SKINNY_M] + [("skinny-n", s) for s in SKINNY_N],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
@pytest.mark.parametrize("shifts", [(0, 1, 0), (3, 2, 1), (1, 3, 3)], ids=lambda s: "shift" + "".join(map(str, s)))
@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("new", [1, 0], ids=["new", "old"])
def test_realigned_stream_within_bound(layout, config, mnk, shifts, splits, new, torch, poison, set_knobs):
    set_knobs(sgemm_config=config, sgemm_splits=splits, sgemm_new_paths=new)
    M, N, K = mnk
    pitches = (K + 1 if K % 2 == 0 else K, N + 1 if N % 2 == 0 else N + 2, N + 3)  # odd pitches for A and B
    for alpha, beta in [(1.0, 0.0), (-0.5, 1.25)]:
        run(torch, layout, M, N, K, pitches, shifts, alpha, beta)


@pytest.mark.gpu
@pytest.mark.parametrize("config", ["skinny-m", "skinny-n"])
@pytest.mark.parametrize("pitch_mod", [0, 1, 2, 3])
def test_every_row_offset_dense(config, pitch_mod, torch, poison, set_knobs):
    """Dense operands (pitch = the row length) whose length is 0..3 mod 4: as a torch.mm call has them."""
    set_knobs(sgemm_config=config)
    if config == "skinny-m":
        M, N, K = 5, 1024 + pitch_mod, 700
    else:
        M, N, K = 900, 7, 1024 + pitch_mod
    run(torch, "swizzle", M, N, K, (K, N, N), (0, 0, 0), 1.0, 0.0)


def test_the_knob_defaults_to_the_new_paths():
    assert _testing.KNOBS["sgemm_new_paths"] == 11  # level 11 the default since session 39 (SGEMM_NOTES)
