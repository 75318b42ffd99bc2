"""The transposes' measured choice (csrc/transpose/tune.cu; knob transpose_tune, smemkit.autotune()): where the knobs'
defaults leave a shape's path open -- the tiled kernel's sector store or not, the flat skinny kernel or not -- the
first call times the open paths and the fastest is cached per device, shape, strides and 32-byte residues.

CPU: the candidates exactly (which shapes, which levels, the defaults' first; none under 1 MiB, on the copy route, for
2-byte elements' sector store, or where only one path exists); the cache's public face and its errors.
GPU: every tuned call bit for bit (random bit patterns) on poisoned outputs, each layout, torch tensors on the
caller's stream and NumPy arrays; every candidate pinned and run; nothing timed with the switch off, the knob off, or
another transpose knob off its default.
"""
import numpy as np
import pytest

import smemkit
from smemkit import _C
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, random_bits
from test_sgemm_tune import tuned  # noqa: F401 -- the fixture: tuning on at level 2, outputs poisoned, cache emptied
from test_transpose_oddpitch import torch_bits, torch_random

D = (4, 1)  # the defaults: transpose_sector 4, transpose_flat 1

# shape, dtype, the candidates of a C-contiguous call with 32-byte aligned pointers
CASES = [
    ((4100, 4104), "uint8", [D, (0, 1)]),        # the sector store's size gate takes it: without it
    ((1201, 3001), "float32", [D, (2, 1)]),      # odd output pitch under the gate: the sector store at level 2
    ((3, 777, 1001), "uint8", [D, (2, 1)]),      # a batch (the gate takes single matrices only)
    ((41, 84790), "float32", [D, (4, 0)]),       # the flat kernel's default case A: without it
    ((3, 36, 20011), "float32", [D, (4, 0)]),    # the same, batched
    ((70, 30001), "float64", [D, (4, 2)]),       # case A with S = 70: level 2's alone
    ((30001, 70), "float64", [D, (4, 2)]),       # case B: level 2's alone
    ((8000, 45), "float32", [D, (4, 2)]),        # case B, S = 45, output rows on sectors: no sector store
]

NONE = [
    ((500, 501), "uint8"),          # under 1 MiB
    ((1, 3000000), "float32"),      # the copy route
    ((3001, 1201), "float16"),      # 2-byte elements: no sector store (it spills), no flat kernel
    ((4096, 4096), "float32"),      # output rows on sectors, no skinny side: one path
    ((50000, 20), "float32"),       # the skinny kernel, S <= 32: one path
]


def cands(shape, esz, in_off=0, out_off=0, strides=None):
    *b, r, c = shape
    batch = int(np.prod(b)) if b else 1
    rs, cs = strides if strides else (c, 1)
    return _C._transpose_tune_candidates(r, c, esz, rs, cs, batch, r * c, in_off, out_off)


# ---- CPU ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dtype,want", CASES)
def test_candidates(shape, dtype, want):
    assert cands(shape, np.dtype(dtype).itemsize) == want


@pytest.mark.parametrize("shape,dtype", NONE)
def test_one_path_is_not_tuned(shape, dtype):
    assert cands(shape, np.dtype(dtype).itemsize) == []


def test_candidates_follow_alignment_and_strides():
    assert cands((4100, 4104), 1, out_off=7) == [D, (0, 1)]  # any element-aligned output off its sector
    assert cands((1201, 3001), 4, out_off=2) == []            # float32 output off its elements: neither store
    assert cands((41, 84790), 4, in_off=2) == []              # the flat kernel wants element-aligned pointers
    # a strided input (columns not contiguous): no flat kernel, the tiled one's sector store at level 2 (164-byte rows)
    assert cands((41, 84790), 4, strides=(1, 41)) == [D, (2, 1)]


def test_candidates_follow_the_knobs():
    """Pure in the knobs as they are (a call is tuned only at the defaults: launch.cu knobs_at_defaults)."""
    with knobs(transpose_sector=0):
        assert cands((4100, 4104), 1) == [(0, 1), (2, 1)]
    with knobs(transpose_gather=0):  # the gather kernel (3 by default) takes off-word pitches: one path
        assert cands((4097, 4099), 1) == [D, (0, 1)]
    assert cands((4097, 4099), 1) == [] and cands((4097, 4099), 1, out_off=7) == []
    with knobs(transpose_flat=0):  # the tiled kernel: its sector store at level 2 (164-byte output rows), the flat
        assert cands((41, 84790), 4) == [(4, 0), (2, 0), (4, 2)]  # kernel's level 2
    with knobs(transpose_flat=2):
        assert cands((30001, 70), 8) == [(4, 2), (4, 0)]


def test_candidate_errors():
    with pytest.raises(ValueError, match="element size"):
        _C._transpose_tune_candidates(10, 10, 3, 10, 1, 1, 100, 0, 0)
    with pytest.raises(ValueError, match="residues"):
        _C._transpose_tune_candidates(10, 10, 4, 10, 1, 1, 100, 32, 0)
    with pytest.raises(ValueError, match="batch"):
        _C._transpose_tune_candidates(10, 10, 4, 10, 1, 0, 100, 0, 0)


def test_cache_face():
    with pytest.raises(ValueError, match="op must be"):
        smemkit.autotune_cache("gemm")
    smemkit.clear_autotune_cache()
    assert smemkit.autotune_cache("transpose") == [] and smemkit.autotune_cache() == []


def test_tune_knob_default():
    from smemkit import _testing
    assert _testing.current()["transpose_tune"] == _testing.KNOBS["transpose_tune"] == 1
    with pytest.raises(ValueError):
        _C._set_knob("transpose_tune", 2)


# ---- GPU ------------------------------------------------------------------------------------------------------

def device_case(torch, shape, dtype, seed):
    x = torch_random(torch, int(np.prod(shape)), dtype, seed).view(shape)
    return x, torch_bits(torch, x.transpose(-1, -2))


def op(x):
    """transpose for a matrix, matrix_transpose for a stack (one batched launch)."""
    return smemkit.transpose if x.dim() == 2 else smemkit.matrix_transpose


def entries():
    return smemkit.autotune_cache("transpose")


@pytest.mark.gpu
@pytest.mark.parametrize("shape,dtype,want", CASES)
def test_tuned_calls_exact(tuned, torch, shape, dtype, want):
    x, ref = device_case(torch, shape, dtype, 51)
    assert cands(shape, x.element_size(), x.data_ptr() % 32, 0) == want
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):  # the caller's stream: timed and launched there
        for layout in ("pad", "swizzle", "naive"):
            y = op(x)(x, layout=layout)
            s.synchronize()
            assert np.array_equal(torch_bits(torch, y), ref), layout
    e = entries()
    assert len(e) == 1 and e[0]["timed"] == len(want) and e[0]["best_us"] > 0, e
    assert (e[0]["sector"], e[0]["flat"]) in want
    assert (e[0]["sector"], e[0]["flat"]) == D or e[0]["model_us"] > e[0]["best_us"]
    assert (e[0]["rows"], e[0]["cols"], e[0]["esz"]) == (shape[-2], shape[-1], x.element_size())


@pytest.mark.gpu
@pytest.mark.parametrize("shape,dtype,want", CASES)
def test_every_candidate_exact(tuned, torch, shape, dtype, want):
    x, ref = device_case(torch, shape, dtype, 52)
    r, c = shape[-2:]
    batch = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    for sector, flat in want:
        smemkit.clear_autotune_cache()
        _C._transpose_tune_pin(r, c, x.element_size(), sector, flat, c, 1, batch, r * c, x.data_ptr() % 32, 0)
        for layout in ("pad", "swizzle", "naive"):
            y = op(x)(x, layout=layout)
            torch.cuda.synchronize()
            assert np.array_equal(torch_bits(torch, y), ref), (sector, flat, layout)
        e = entries()
        assert [(v["sector"], v["flat"], v["timed"]) for v in e] == [(sector, flat, 0)], e


@pytest.mark.gpu
def test_strided_input(tuned, torch):
    """A transposed view (strides (1, 41)): tuned, and each candidate pinned."""
    base = torch_random(torch, 41 * 84790, "float32", 54).view(84790, 41)
    x = base.t()
    ref = torch_bits(torch, base)  # x transposed is base
    assert cands((41, 84790), 4, x.data_ptr() % 32, 0, strides=(1, 41)) == [D, (2, 1)]
    for pin in (None, D, (2, 1)):
        smemkit.clear_autotune_cache()
        if pin:
            _C._transpose_tune_pin(41, 84790, 4, *pin, 1, 41, 1, 0, x.data_ptr() % 32, 0)
        for layout in ("pad", "swizzle"):
            y = smemkit.transpose(x, layout=layout)
            torch.cuda.synchronize()
            assert np.array_equal(torch_bits(torch, y), ref), (pin, layout)
        assert len(entries()) == 1


@pytest.mark.gpu
@pytest.mark.parametrize("shape,dtype", [((4100, 4104), "uint8"), ((1201, 3001), "float32"), ((41, 84790), "float32")])
def test_numpy_calls_exact(tuned, rng, shape, dtype):
    a = random_bits(shape, dtype, rng)
    for layout in ("pad", "swizzle"):
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
def test_switched_off_runs_the_defaults(tuned, torch, set_knobs):
    """A cached winner is not used once the switch or the knob is off (the cache is kept for when it is on again)."""
    x, ref = device_case(torch, (4100, 4104), "uint8", 55)
    _C._transpose_tune_pin(4100, 4104, 1, 0, 1, 4104, 1, 1, 0, x.data_ptr() % 32, 0)
    for off in ({"transpose_tune": 0}, {"sgemm_tune": 0}):
        with knobs(**off), torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            y = smemkit.transpose(x)
            torch.cuda.synchronize()
        assert np.array_equal(torch_bits(torch, y), ref)
        names = [e.name for e in prof.events() if "transpose_kernel" in e.name]
        assert names and all(", true" in n for n in names), names  # SEC = true: the sector store, the default
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        y = smemkit.transpose(x)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if "transpose_kernel" in e.name]
    assert names and not any(", true" in n for n in names), names  # the pinned winner: no sector store
    assert len(entries()) == 1


@pytest.mark.gpu
@pytest.mark.parametrize("off", [{"sgemm_tune": 0}, {"transpose_tune": 0}, {"transpose_sector": 2},
                                 {"transpose_mid": 1}, {"transpose_group": 4}])
def test_nothing_timed_when_off(tuned, torch, set_knobs, off):
    """The switch, the knob, or any other transpose knob off its default: the knobs' own path, untimed."""
    set_knobs(**off)
    x, ref = device_case(torch, (4100, 4104), "uint8", 53)
    y = smemkit.transpose(x)
    torch.cuda.synchronize()
    assert np.array_equal(torch_bits(torch, y), ref)
    assert entries() == []
