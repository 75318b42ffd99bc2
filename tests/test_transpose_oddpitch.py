"""1- and 2-byte transposes whose rows do not start on a 4-byte boundary, on the GPU.

Odd row pitches (input, output or both), odd matrix strides in batches, and device views at odd byte
offsets send the interior tiles down the kernel's re-aligning whole-word path
(csrc/transpose/kernel.cuh, "ODD PITCHES": aligned words, a shuffle and a funnel shift per word; partial
words at the ends of a warp's bytes stored piecewise).  Every result is compared bit for bit (NaN
payloads included) on outputs poisoned with 0xFF bytes.  The element-wise path it replaced stays
reachable through the knob transpose_odd_path=0 and is checked against the same references.
"""
import numpy as np
import pytest

import smemkit
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped

LAYOUTS = smemkit.LAYOUTS
SUBWORD = ["bool", "int8", "uint8", "float16", "bfloat16"]
# (rows, cols): the input's row pitch is cols elements, the output's rows; odd ones in one or both,
# full 128-element tiles inside, ragged edges around
ODD_SHAPES = [(1023, 517), (2049, 4097), (4099, 4093), (1, 7919), (7919, 1), (33, 31), (257, 259),
              (256, 257),   # input pitch odd, output aligned
              (257, 256),   # input aligned, output pitch odd
              (130, 131), (1029, 4096), (4096, 1029), (129, 128), (128, 129)]
ODD_BATCHES = [(3, 257, 259), (2, 131, 129), (5, 129, 130), (2, 1031, 517), (3, 256, 257), (4, 1, 7), (7, 33, 31)]


@pytest.fixture
def odd_path(set_knobs):
    """Switch the re-aligning path off (0) or on (1) for one test; back as it was afterwards."""
    return lambda on: set_knobs(transpose_odd_path=on)


# ---- host arrays ----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", ODD_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_odd_pitch_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("shape", ODD_BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_odd_pitch_batches_bit_exact(layout, dtype, shape, rng, poison):
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("on", [0, 1])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
@pytest.mark.parametrize("shape", [(257, 259), (1029, 4096), (4096, 1029), (3, 131, 129)],
                         ids=lambda s: "x".join(map(str, s)))
def test_both_paths_agree(on, dtype, shape, rng, poison, odd_path):
    odd_path(on)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), swapped(a))


def test_odd_path_knob_values():
    with pytest.raises(ValueError):
        smemkit._C._set_knob("transpose_odd_path", 2)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 2, 3])
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_odd_pitch_host_modes(mode, dtype, rng, poison, set_knobs):
    # mode 2 cuts this input into ~32 MiB column bands (3712 / 1856 wide, then an odd 387): each band is
    # a launch with its own row pitch
    set_knobs(host_mode=mode)
    a = random_bits((9001, 4099), np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout="swizzle"), a.T)


# ---- device arrays: views at odd byte offsets, odd pitches, out= at an odd offset --------------------------

def torch_bits(torch, t):
    """The bytes of a tensor's elements, in C order, as a NumPy uint8 array."""
    t = t.contiguous()
    if t.dtype == torch.bool:
        t = t.view(torch.uint8)
    elif t.element_size() == 2:
        t = t.view(torch.int16)
    return t.cpu().numpy().view(np.uint8).reshape(-1)


def torch_random(torch, n, dtype, seed):
    """n random elements (NaN payloads among them for float16 / bfloat16) on the device."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    tdt = getattr(torch, dtype)
    esz = torch.empty(0, dtype=tdt).element_size()
    raw = torch.randint(0, 256, (n * esz,), dtype=torch.uint8, device="cuda", generator=g)
    if dtype == "bool":
        return (raw & 1).view(torch.bool)
    return raw.view(tdt)


TORCH_VIEWS = ["offset", "offset-slice", "odd-pitch", "batch-offset"]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUBWORD)
@pytest.mark.parametrize("view", TORCH_VIEWS)
@pytest.mark.parametrize("shape", [(517, 1023), (1031, 2053), (33, 31), (256, 256)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_torch_odd_offsets(torch, layout, dtype, view, shape, poison):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")  # smemkit's bfloat16 goes through ml_dtypes
    R, C = shape
    flat = torch_random(torch, 3 * (R + 3) * (C + 5) + 7, dtype, R * 31 + C)
    if view == "offset":          # contiguous, base 1 element past an aligned one
        x = flat[1:1 + R * C].view(R, C)
    elif view == "offset-slice":  # rows C + 5 apart, base 3 elements in
        x = flat[3:3 + R * (C + 5)].view(R, C + 5)[:, :C]
    elif view == "odd-pitch":     # rows C + 3 apart from an aligned base
        x = flat[: R * (C + 3)].view(R, C + 3)[:, :C]
    else:                         # 3 matrices, R * C + 1 elements apart, base 1 in
        x = flat[1:1 + 3 * (R * C + 1)].view(3, R * C + 1)[:, :R * C].reshape(3, R, C)
    want = torch_bits(torch, x.mT)
    y = smemkit.matrix_transpose(x, layout=layout)
    assert y.dtype == x.dtype and y.is_contiguous() and y.shape == x.mT.shape
    assert np.array_equal(torch_bits(torch, y), want)
    # the same into out= at an odd element offset of a buffer of 0xFF bytes: nothing lands outside it
    n, esz = x.numel(), x.element_size()
    raw = torch.full(((n + 3) * esz,), 0xFF, dtype=torch.uint8, device="cuda")
    out = raw.view(x.dtype)[1:1 + n].view(x.mT.shape)
    assert smemkit.matrix_transpose(x, layout=layout, out=out) is out
    assert np.array_equal(torch_bits(torch, out), want)
    rest = torch.cat([raw[:esz], raw[(n + 1) * esz:]])
    assert bool((rest == 0xFF).all())


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_torch_odd_offsets_large(torch, layout, dtype, poison):
    test_torch_odd_offsets(torch, layout, dtype, "offset-slice", (4099, 4093), None)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "bool", "float16"])
@pytest.mark.parametrize("view", ["offset", "offset-slice", "batch", "neg-rows"])
def test_cupy_odd_offsets(cupy, layout, dtype, view, poison):
    R, C = 1031, 2053
    n = 3 * (R + 2) * (C + 3) + 7
    raw = np.random.default_rng(R + len(view)).integers(0, 256, 2 * n, dtype=np.uint8)
    host = raw[:n].astype(bool) if dtype == "bool" else raw.view(np.dtype(dtype))[:n]
    flat = cupy.asarray(host)
    if view == "offset":
        x = flat[1:1 + R * C].reshape(R, C)
    elif view == "offset-slice":
        x = flat[3:3 + R * (C + 3)].reshape(R, C + 3)[:, 1:1 + C]
    elif view == "batch":
        x = flat[1:1 + 2 * R * C].reshape(2, R, C)
    else:  # a negative row stride from an odd offset
        x = flat[1:1 + R * (C + 2)].reshape(R, C + 2)[::-1, 1:1 + C]
    y = smemkit.matrix_transpose(x, layout=layout)
    assert isinstance(y, cupy.ndarray) and y.flags.c_contiguous and y.dtype == x.dtype
    assert_bits_equal(cupy.asnumpy(y), swapped(cupy.asnumpy(x)))
