"""The flat skinny kernel (csrc/transpose/skinny_flat.cuh; knob transpose_flat, configs.h skinny_flat_fits): 4- and
8-byte matrices with a short side S = 33..128 (mode 2; the default, 1, takes rows = S = 33..64 <= cols only).  A block moves T x S elements: the contiguous side (case B, rows > cols:
the input's packed rows; case A: the output's rows) walked flat, element f at tile (f // S, f % S), the other side down
the S rows of T elements.

CPU: the route exactly where skinny_flat_fits says (widths, S, orientation, batches, each mode); the
division by S as the kernel does it (a multiply-high by ceil(2^32 / S)) over every element a block meets; the plan's
instruction counts (every warp with a lane on, full blocks and the last one) and bank ways per layout.
GPU: every result bit for bit (random bit patterns: NaN payloads, -0.0) on poisoned outputs, every layout, both
cases (mode 2, and the default), S around the powers of two, long sides around the block, batches; torch views
(unpacked rows, strided columns, a base off 16 bytes) and out= into a 0xFF buffer; knob 0 agreeing.
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from _shared import check_out_into_ff
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import torch_bits, torch_random

FLAT = ["float32", "float64", "int32", "complex64"]  # 4- and 8-byte elements
SHORT = [33, 35, 48, 63, 64, 65, 97, 127, 128]
ELEMS, THREADS = 4096, 256


def _cfg(shape, dtype, layout="pad", mode=None):
    if mode is None:
        return smemkit.explain("transpose", shape, layout, dtype)
    with knobs(transpose_flat=mode):
        return smemkit.explain("transpose", shape, layout, dtype)


def _geom(S):
    ls = (2 * S - 1).bit_length() - 1  # log2 of S rounded up to a power of two
    return ls, 12 - ls  # log2 S', log2 T


# ---- CPU ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex64", "complex128"])
def test_flat_route(dtype):
    """explain() names the kernel exactly for 4- and 8-byte elements: mode 2 with a short side of 33..128 either way
    round, the default (1) with rows = 33..64 <= cols; batches too; never under knob 0."""
    wide = np.dtype(dtype).itemsize in (4, 8)
    for S in (33, 64, 65, 100, 128):
        for shape in [(S, 5000), (5000, S), (3, S, 700), (4, 900, S)]:
            case_a = shape[-2] <= shape[-1]
            assert _cfg(shape, dtype, mode=2).config.startswith("skinny-flat") == wide, shape
            assert _cfg(shape, dtype).config.startswith("skinny-flat") == (wide and case_a and S <= 64), shape
            assert not _cfg(shape, dtype, mode=0).config.startswith("skinny-flat")
    for shape in [(32, 5000), (5000, 32), (129, 5000), (5000, 129), (200, 300)]:
        for mode in (1, 2):
            assert not _cfg(shape, dtype, mode=mode).config.startswith("skinny-flat"), shape


def test_flat_default():
    from smemkit import _testing
    assert _testing.current()["transpose_flat"] == _testing.KNOBS["transpose_flat"] == 1


@pytest.mark.parametrize("S", range(33, 129))
def test_flat_division(S):
    """f // S as the kernel computes it, for every element f of a block (f < T * S <= 4096) and well past it."""
    magic = ((1 << 32) + S - 1) // S
    f = np.arange(1 << 16, dtype=np.uint64)
    assert np.array_equal((f * np.uint64(magic)) >> np.uint64(32), f // np.uint64(S))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case,length,S", [(c, n, S) for c in "AB" for n in (1, 31, 64, 65, 129, 1000, 4097)
                                           for S in (33, 35, 64, 65, 100, 128) if (n >= S if c == "A" else n > S)])
def test_flat_plan_counts(case, length, S, dtype):
    """Per matrix: ceil(n / 32) flat-side warp instructions a block of n = tj * S elements and S * ceil(tj / 32) on
    the shift side; full blocks and the partial last one; the shift side's ways: naive 32 (float32; 16 for float64,
    two banks an element), pad and swizzle 1."""
    ls, lt = _geom(S)
    T = 1 << lt
    shape = (S, length) if case == "A" else (length, S)
    esz = np.dtype(dtype).itemsize
    full, tail = divmod(length, T)
    want_flat = full * -(-T * S // 32) + (-(-tail * S // 32) if tail else 0)
    want_shift = full * S * (T // 32) + (S * -(-tail // 32) if tail else 0)
    for lay in smemkit.LAYOUTS:
        e = _cfg(shape, dtype, lay, mode=2)
        assert e.config.startswith("skinny-flat %dx%d tile" % (T, 1 << ls)), e.config
        assert e.blocks == full + (tail > 0)
        flat = [a for a in e.accesses if "run" in a.name]  # the input's (case B) or the output's (case A)
        shift = [a for a in e.accesses if "down the rows" in a.name]
        assert sum(a.instructions for a in flat) == want_flat
        assert sum(a.instructions for a in shift) == want_shift
        ways = max(a.worst_ways for a in shift)
        assert ways == ((32 if esz == 4 else 16) if lay == "naive" else 1), (lay, ways)


def test_flat_plan_batch():
    """A batch repeats one matrix's plan."""
    one, three = _cfg((40, 1000), "float32"), _cfg((3, 40, 1000), "float32")
    assert three.blocks == 3 * one.blocks
    assert three.total() == 3 * one.total()


# ---- GPU ------------------------------------------------------------------------------------------------------

def _shapes():
    for S in SHORT:
        for L in (1, 32, 33, 100, 1000, 4097):
            if L >= S:
                yield (S, L)  # case A
            if L > S:
                yield (L, S)  # case B


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", FLAT)
def test_flat_bit_exact(dtype, layout, mode, rng, poison, set_knobs):
    set_knobs(transpose_flat=mode)
    for shape in _shapes():
        a = random_bits(shape, np_dtype(dtype), rng)
        if min(shape) >= 33 and (mode == 2 or (shape[0] <= shape[1] and shape[0] <= 64)):
            assert _cfg(shape, dtype, layout).config.startswith("skinny-flat")
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 40, 5001), (5, 7001, 97), (3, 128, 129), (2, 4096, 33), (3, 64, 700)])
def test_flat_batches(shape, dtype, rng, poison, set_knobs):
    set_knobs(transpose_flat=2)
    a = random_bits(shape, np_dtype(dtype), rng)
    for layout in smemkit.LAYOUTS:
        assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_flat_knob_off_agrees(dtype, rng, poison, set_knobs):
    a, b = random_bits((50, 30001), np_dtype(dtype), rng), random_bits((30001, 70), np_dtype(dtype), rng)
    set_knobs(transpose_flat=2)
    got = [smemkit.transpose(x, layout="swizzle") for x in (a, b)]
    set_knobs(transpose_flat=0)
    for x, g in zip((a, b), got):
        assert_bits_equal(g, smemkit.transpose(x, layout="swizzle"))
        assert_bits_equal(g, x.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("view", ["packed", "offset", "unpacked-rows", "strided-cols"])
@pytest.mark.parametrize("mode", [1, 2])
def test_flat_torch_views(torch, dtype, view, mode, poison, set_knobs):
    """Device tensors of both cases (n x S and S x n): packed rows, a base one element in (off 16 bytes), rows of a
    wider matrix (case A takes them, case B wants packed rows) and strided columns (the tiled kernel), and the first's
    transpose view; each also into out= one element into a 0xFF buffer, against torch's own transpose."""
    set_knobs(transpose_flat=mode)
    n, S = 20011, 57
    flat = torch_random(torch, 3 * n * S + 7, dtype, S + len(view))

    def make(r, c):
        if view == "packed":
            return flat[: r * c].view(r, c)
        if view == "offset":
            return flat[1:1 + r * c].view(r, c)
        if view == "unpacked-rows":
            return flat[: r * (c + 3)].view(r, c + 3)[:, :c]
        return flat[: 2 * r * c].view(r, 2 * c)[:, ::2]

    x = make(n, S)
    for xx in (x, make(S, n), x.T):
        w = torch_bits(torch, xx.T)
        y = smemkit.transpose(xx, layout="pad")
        assert y.dtype == xx.dtype and y.is_contiguous() and y.shape == xx.T.shape
        assert np.array_equal(torch_bits(torch, y), w)
        check_out_into_ff(torch, smemkit.transpose, xx, w)
