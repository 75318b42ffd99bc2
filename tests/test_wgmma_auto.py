"""The "auto" kernel rule of the tensor-core GEMM (api/wgmma.h smk_gemm16_kernel_for, the gemm16_kernel
knob's default), explain(kernel="wgmma") and bench's check of the wgmma kernel's TMA modes: all on the CPU;
on a compute capability 9.0 device, that gemm() runs the kernel the rule names."""
import numpy as np
import pytest

import smemkit
from smemkit import _C, _testing

H100 = dict(cc=(9, 0), sms=132)


def rule(M, N, K, sms):
    """The rule written again from its comment: K >= 256, 3 tiles >= 2 sms ceil(tiles / sms)."""
    tiles = -(-M // 128) * -(-N // 256)
    return K >= 256 and 3 * tiles >= 2 * sms * -(-tiles // sms)


def kernel(shape, layout="swizzle", knob="auto", **kw):
    return _testing.gemm16_kernel_for(shape, layout, knob=knob, **{**H100, **kw})


def test_big_squares_take_wgmma_small_ones_mma():
    assert kernel((4096, 4096, 4096)) == "wgmma"
    assert kernel((8192, 8192, 8192)) == "wgmma"
    assert kernel((2048, 2048, 2048)) == "wgmma"  # 128 tiles: one wave 97% full
    assert kernel((1024, 1024, 1024)) == "mma.sync"  # 32 tiles on 132 SMs


@pytest.mark.parametrize("tiles, want", [(87, False), (88, True), (132, True), (133, False), (175, False),
                                         (176, True), (264, True), (265, True), (100000, True)])
def test_wave_fill_boundaries(tiles, want):
    assert (kernel((128 * tiles, 256, 512)) == "wgmma") == want
    assert (kernel((128, 256 * tiles, 512)) == "wgmma") == want


def test_k_threshold_and_alignment():
    assert kernel((4096, 4096, 255)) == "mma.sync"
    assert kernel((4096, 4096, 256)) == "wgmma"
    assert kernel((4096, 4096, 4100)) == "mma.sync"  # K % 8: A's rows off 16 bytes (padded copies on mma.sync)
    assert kernel((4096, 4100, 4096)) == "mma.sync"
    assert kernel((4096, 4096, 4096), rows_aligned=False) == "mma.sync"


def test_only_sm90_and_variant0():
    for cc in ((8, 0), (8, 9), (9, 1), (10, 0)):
        assert kernel((4096, 4096, 4096), cc=cc) == "mma.sync"
    assert kernel((4096, 4096, 4096), variant=1) == "mma.sync"


def test_layouts_under_auto_and_forced():
    for lay in ("naive", "pad", smemkit.Swizzle(3, 3, 3), smemkit.Swizzle(2, 3, 3)):
        assert kernel((4096, 4096, 4096), lay) == "mma.sync"  # auto: layout "swizzle" only
    assert kernel((4096, 4096, 4096), knob="mma") == "mma.sync"
    assert kernel((64, 64, 8), knob="wgmma") == "wgmma"  # forced: any size
    assert kernel((64, 64, 8), "naive", knob="wgmma") == "wgmma"
    assert kernel((64, 64, 8), smemkit.Swizzle(1, 3, 3), knob="wgmma") == "wgmma"
    assert kernel((64, 64, 8), "pad", knob="wgmma") == "mma.sync"


def test_rule_matches_its_statement():
    rng = np.random.default_rng(29)
    for _ in range(2000):
        M, N = (int(x) for x in rng.integers(1, 40000, 2))
        K = int(rng.choice([8, 64, 248, 256, 1024]))
        sms = int(rng.choice([66, 78, 114, 132]))
        got = kernel((M, N, K), sms=sms, rows_aligned=True) == "wgmma"
        assert got == rule(M, N, K, sms), (M, N, K, sms)


def test_current_knob_is_the_default():
    assert _testing.gemm16_kernel_for((4096, 4096, 4096), **H100) == "wgmma"
    with _testing.knobs(gemm16_kernel="mma"):
        assert _testing.gemm16_kernel_for((4096, 4096, 4096), **H100) == "mma.sync"


def test_explain_wgmma_reads_and_staging_conflict_free():
    e = smemkit.explain("gemm", (4096, 4096, 4096), "swizzle", kernel="wgmma")
    tiles = 32 * 16
    assert e.config.startswith("wgmma 128x256x64") and "not modelled" in e.config and e.blocks == 132
    reads, sts, lds = e.accesses
    wgmmas = tiles * 64 * 8  # 64 k-tiles, 2 consumer warpgroups x 4 k16 steps each
    assert (reads.instr, reads.kind, reads.instructions, reads.wavefronts) == ("wgmma", "load", 4 * wgmmas, 80 * wgmmas)
    assert (sts.kind, sts.width, sts.instructions) == ("store", 4, tiles * 8 * 4 * 16)
    assert (lds.kind, lds.width, lds.instructions) == ("load", 16, tiles * 8 * 4 * 4)
    assert e.total(what="excess") == 0 and sts.wavefronts == sts.instructions and lds.wavefronts == 4 * lds.instructions
    # N % 8 != 0: the register epilogue, no staging tile; the wgmma reads stay (one k-tile: K = 64)
    odd = smemkit.explain("gemm", (300, 137, 64), smemkit.Swizzle(1, 3, 3), kernel="wgmma").accesses
    assert [a.instr for a in odd] == ["wgmma"] and odd[0].instructions == 3 * 1 * 8 * 4
    assert "32B" in smemkit.explain("gemm", (300, 136, 64), smemkit.Swizzle(1, 3, 3), kernel="wgmma").config
    with pytest.raises(ValueError, match="pad"):
        smemkit.explain("gemm", (256, 256, 256), "pad", kernel="wgmma")
    with pytest.raises(ValueError, match="kernel"):
        smemkit.explain("sgemm", (256, 256, 256), kernel="wgmma")


def test_bench_accepts_swizzle133_with_wgmma_forced():
    kw = dict(check_only=True, dtype="float16", itemsize=2, config=0)
    with pytest.raises(ValueError):
        _C._bench("gemm", (256, 256, 256), [smemkit.Swizzle(1, 3, 3)], **kw)
    with _testing.knobs(gemm16_kernel="wgmma"):
        assert _C._bench("gemm", (256, 256, 256), [smemkit.Swizzle(1, 3, 3), "naive"], **kw) is None
        with pytest.raises(ValueError):
            _C._bench("gemm", (256, 256, 256), ["pad"], **kw)


def sm90():
    return smemkit.is_available() and tuple(_testing.device_info()["cc"]) == (9, 0)


@pytest.mark.gpu
@pytest.mark.skipif("not sm90()", reason="the wgmma kernel runs on compute capability 9.0 only")
@pytest.mark.parametrize("knob", ["auto", "mma"])
def test_gemm_runs_the_kernel_the_rule_names(knob):
    info = _testing.device_info()
    for shape in ((2048, 2048, 512), (512, 512, 512)):
        a = np.ones(shape[::2], np.float16)
        b = np.ones(shape[2:0:-1], np.float16)
        want = _testing.gemm16_kernel_for(shape, cc=info["cc"], sms=info["sms"], knob=knob)
        before = _testing.wgmma_launches()
        with _testing.knobs(gemm16_kernel=knob):
            d = smemkit.gemm(a, b)
        assert (_testing.wgmma_launches() - before == 1) == (want == "wgmma"), (shape, knob, want)
        assert np.all(d == shape[2])
    r = smemkit.bench("gemm", (2048, 2048, 512), layout="swizzle", reps=3)[0]
    assert r.config.endswith("[wgmma]")
