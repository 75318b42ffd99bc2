"""The sm_90a TMA + wgmma GEMM (csrc/hopper/, issue 29, first rung), chosen with
``_testing.knobs(gemm16_kernel="wgmma")``: the layout -> swizzle-mode mapping and the "pad" error on the
CPU; on a compute capability 9.0 device every mode x fp16/bf16 x shape class against the float64
product with test_gemm's gamma_K bound, outputs NaN-poisoned, and a check that the wgmma kernel (not
the mma.sync fallback) is what ran."""
import numpy as np
import pytest

import smemkit
from smemkit import _testing

ml_dtypes = pytest.importorskip("ml_dtypes")
from test_gemm import BF16, DTYPES, check, operands  # noqa: E402

MODES = [("swizzle", 128), (smemkit.Swizzle(3, 3, 3), 128), (smemkit.Swizzle(2, 3, 3), 64),
         (smemkit.Swizzle(1, 3, 3), 32), ("naive", 0)]
MODE_IDS = ["swizzle", "swz333", "swz233_64B", "swz133_32B", "naive"]
# 128^3; several M / N tiles and a ring that wraps (5 k-tiles, 4 stages); odd M and N off the tile;
# K off 64 but 8-aligned (TMA zero-fills the last k-tile); K = 8 (one partial k-tile); a long K; odd N
# and K (NumPy operands go up with rows padded to 16 bytes, so they are TMA-legal: the map's bounds
# are N and K themselves and the boxes straddle them)
SHAPES = [(128, 128, 128), (256, 512, 320), (200, 136, 192), (130, 264, 72), (64, 8, 8), (333, 520, 1000),
          (97, 137, 333)]


def test_mode_mapping():
    assert [_testing.wgmma_mode(layout) for layout, _ in MODES] == [swb for _, swb in MODES]
    assert _testing.wgmma_mode("pad") == -1
    for bad in (smemkit.Swizzle(2, 3, 2), smemkit.Swizzle(3, 2, 3), smemkit.Swizzle(3, 4, 3)):
        assert _testing.wgmma_mode(bad) == -1


def test_knob_names():
    with _testing.knobs(gemm16_kernel="wgmma"):
        assert _testing.current()["gemm16_kernel"] == 1
    with _testing.knobs(gemm16_kernel="mma"):
        assert _testing.current()["gemm16_kernel"] == 0
    assert _testing.current()["gemm16_kernel"] == 6  # "auto_mid", the default since session 42
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_kernel="tma"):
            pass
    with pytest.raises(ValueError):
        with _testing.knobs(gemm16_kernel=7):  # 3-6: padded copies of unaligned rows (test_wgmma_padded.py)
            pass


@pytest.mark.parametrize("layout", ["pad", smemkit.Swizzle(2, 3, 2)], ids=["pad", "swz232"])
def test_pad_is_a_clear_error(layout):
    a = np.ones((8, 8), np.float16)
    with _testing.knobs(gemm16_kernel="wgmma"):
        with pytest.raises(ValueError, match="wgmma") as e:
            smemkit.gemm(a, a, layout=layout)
    assert "'naive'" in str(e.value) and "Swizzle(1, 3, 3)" in str(e.value)


def test_swizzle_133_only_with_wgmma():
    a = np.ones((8, 8), np.float16)
    with pytest.raises(ValueError, match="not compiled"):
        smemkit.gemm(a, a, layout=smemkit.Swizzle(1, 3, 3))


def sm90():
    return smemkit.is_available() and tuple(_testing.device_info()["cc"]) == (9, 0)


needs_sm90 = pytest.mark.skipif("not sm90()", reason="the wgmma kernel runs on compute capability 9.0 only")


def run_wgmma(expect_wgmma, *args, **kw):
    before = _testing.wgmma_launches()
    with _testing.knobs(gemm16_kernel="wgmma"):
        d = smemkit.gemm(*args, **kw)
    assert _testing.wgmma_launches() - before == (1 if expect_wgmma else 0), "not the kernel the test meant"
    return d


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout, swb", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_wgmma_within_bound(poison, shape, layout, swb, dtype):
    a, b, c, _, _ = operands(shape, dtype)
    d = run_wgmma(True, a, b, layout=layout)
    check(d, shape, dtype, dtype, 1.0, 0.0)


# The persistent grid (min(tiles, SMs) blocks walking the GROUP_M raster, the k-tile counter and the
# mbarrier parity carried across tiles): M or N = 1 (one tile row / column), tile counts that are not a
# multiple of the SM count with 1-3 k-tiles per tile (so the ring's stage and parity change mid-tile and
# across tiles), and several waves with a partial last one.
PERSISTENT = [(1, 520, 200), (300, 1, 136), (1, 1, 64), (4096, 4096, 72), (3000, 5000, 136), (2112, 4104, 264),
              (130, 33000, 16)]


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout, swb", [MODES[0], MODES[3]], ids=[MODE_IDS[0], MODE_IDS[3]])
@pytest.mark.parametrize("shape", PERSISTENT, ids=["x".join(map(str, s)) for s in PERSISTENT])
def test_wgmma_persistent_grid(poison, shape, layout, swb, dtype):
    a, b, c, _, _ = operands(shape, dtype)
    d = run_wgmma(True, a, b, layout=layout)
    check(d, shape, dtype, dtype, 1.0, 0.0)
    if shape[0] > 1000:  # the register epilogue over many tiles too (beta != 0)
        d = run_wgmma(True, a, b, c, alpha=0.5, beta=-1.0, layout=layout)
        check(d, shape, dtype, dtype, 0.5, -1.0)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout, swb", MODES[::2], ids=MODE_IDS[::2])
@pytest.mark.parametrize("alpha, beta", [(-0.5, 0.0), (2.0, -0.75)])
def test_wgmma_alpha_beta_c(poison, layout, swb, dtype, alpha, beta):
    shape = (200, 136, 192)
    a, b, c, _, _ = operands(shape, dtype)
    d = run_wgmma(True, a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout)
    check(d, shape, dtype, dtype, alpha, beta)


@pytest.mark.gpu
@needs_sm90
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
@pytest.mark.parametrize("layout, swb", MODES, ids=MODE_IDS)
def test_wgmma_float32_output(poison, layout, swb, dtype):
    shape = (256, 512, 320)
    a, b, c, _, _ = operands(shape, dtype)
    c32 = c.astype(np.float32)
    d = run_wgmma(True, a, b, c32, alpha=0.5, beta=-1.5, layout=layout, out_dtype=np.float32)
    check(d, shape, dtype, np.dtype(np.float32), 0.5, -1.5, c=c32)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=["f16", "bf16"])
def test_k0_falls_back(poison, dtype):
    """K == 0 (D = beta * C): the mma.sync launcher, whatever the device."""
    z = run_wgmma(False, np.ones((5, 0), dtype), np.ones((0, 6), dtype))
    assert np.all(z.astype(np.float64) == 0)


def torch_operands(torch, shape, ndt, tdt, stride_pad=0, offset=0):
    """A and B on the device as torch views whose rows are stride_pad elements longer and start
    `offset` elements in (stride_pad = 1 or offset = 1: rows off 16 bytes)."""
    M, N, K = shape
    a_np, b_np, _, _, _ = operands(shape, ndt)
    def up(x):
        r, c = x.shape
        big = np.zeros((r, c + stride_pad + offset), ndt)
        big[:, offset:offset + c] = x
        return torch.from_numpy(big.view(np.int16)).view(tdt).cuda()[:, offset:offset + c]
    return up(a_np), up(b_np)


@pytest.mark.gpu
@pytest.mark.parametrize("pad_off", [(1, 0), (0, 1)], ids=["odd_pitch", "odd_base"])
def test_unaligned_rows_fall_back(torch, pad_off):
    for tdt, ndt in ((torch.float16, np.dtype(np.float16)), (torch.bfloat16, BF16)):
        shape = (130, 264, 192)
        a, b = torch_operands(torch, shape, ndt, tdt, *pad_off)
        d = run_wgmma(False, a, b, layout=smemkit.Swizzle(1, 3, 3))  # automatic swizzle on mma.sync
        check(d.cpu().view(torch.int16).numpy().view(ndt), shape, ndt, ndt, 1.0, 0.0)


@pytest.mark.gpu
@needs_sm90
def test_wgmma_torch_tensors_and_out(torch):
    for tdt, ndt in ((torch.float16, np.dtype(np.float16)), (torch.bfloat16, BF16)):
        shape = (384, 256, 128)
        a, b = torch_operands(torch, shape, ndt, tdt, 8, 0)  # pitch 8 elements longer: still aligned
        out = torch.full((shape[0], shape[1]), float("nan"), dtype=tdt, device="cuda")
        run_wgmma(True, a, b, out=out)
        d = out.cpu().view(torch.int16).numpy().view(ndt)
        check(d, shape, ndt, ndt, 1.0, 0.0)
