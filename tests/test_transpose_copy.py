"""The copy route (knob transpose_copy; configs.h copy_fits, copy.cuh): a 1 x n or n x 1 matrix whose elements are
contiguous along n is its own transpose byte for byte, so a batch of them moves as one copy (copy_kernel where
the input and output bases share their 16-byte phase, the copy engine otherwise or for a batch stride wider than
a matrix).

GPU: every result bit for bit (random bit patterns: NaN payloads and -0.0 included) on poisoned outputs, every
layout and width, 1 x n, n x 1 and batches of both at lengths around the 16-byte words, device views one element
past an aligned base (the copy engine), batches one row of a taller matrix (cudaMemcpy2DAsync), strided elements
(the kernels' route), out= at an odd offset inside a 0xFF buffer, knob 0 / 1 / 2 agreeing.  CPU: explain names
the route exactly where copy_fits says, with no shared-memory access.
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from _shared import check_out_into_ff
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import torch_bits, torch_random

WIDTHS = ["uint8", "float16", "float32", "float64", "complex128"]
LENGTHS = [1, 2, 15, 16, 17, 31, 33, 1000, 4097, 65541]


def _route(shape, dtype, mode):
    with knobs(transpose_copy=mode):
        return smemkit.explain("transpose", shape, "pad", dtype)


# ---- CPU: the route ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_copy_route_where_fits(dtype, mode):
    """explain's configuration is the copy exactly where mode and width allow and one side is 1, with no access."""
    sub = np.dtype(dtype).itemsize <= 2
    takes = mode == 2 or (mode == 1 and sub)
    for shape in [(1, 5000), (5000, 1), (7, 1, 3000), (9, 3000, 1), (1, 1), (3, 1, 1)]:
        e = _route(shape, dtype, mode)
        assert e.config.startswith("copy") == takes, (shape, e.config)
        if takes:
            assert len(e.accesses) == 0 and e.total() == 0 and e.blocks >= 1
    for shape in [(2, 5000), (5000, 2), (4, 2, 3000), (64, 64)]:
        assert not _route(shape, dtype, mode).config.startswith("copy")


def test_copy_route_default():
    """The shipped default is what smemkit._testing.KNOBS says."""
    from smemkit import _testing
    assert _testing.current()["transpose_copy"] == _testing.KNOBS["transpose_copy"]


# ---- GPU: bit-exact ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("n", LENGTHS)
def test_copy_bit_exact(n, dtype, layout, rng, poison, set_knobs):
    set_knobs(transpose_copy=2)
    for shape in [(1, n), (n, 1), (3, n, 1), (5, 1, n)]:
        a = random_bits(shape, np_dtype(dtype), rng)
        assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("view", ["offset", "row-of-taller", "col-of-wider", "strided"])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_copy_torch_views(torch, dtype, view, mode, poison, set_knobs):
    """Views the route must get right or leave: a base one element in (copy engine), each matrix one row of a
    taller one (batch stride wider than a matrix: the 2-D copy), one column of a wider one and strided elements
    (not contiguous along n: the kernels), each also into out= at an odd offset inside a 0xFF buffer."""
    set_knobs(transpose_copy=mode)
    B, n = 6, 40961
    flat = torch_random(torch, 3 * B * (n + 3) + 7, dtype, n + len(view))
    if view == "offset":
        x = flat[1:1 + B * n].view(B, n, 1)
    elif view == "row-of-taller":
        x = flat[: B * 3 * n].view(B, 3, n)[:, 1:2, :]
    elif view == "col-of-wider":
        x = flat[: B * n * 3].view(B, n, 3)[:, :, 2:3]
    else:
        x = flat[: B * 2 * n].view(B, 1, 2 * n)[:, :, ::2]
    want = torch_bits(torch, x.mT)
    y = smemkit.matrix_transpose(x, layout="swizzle")
    assert y.dtype == x.dtype and y.is_contiguous() and y.shape == x.mT.shape
    assert np.array_equal(torch_bits(torch, y), want)
    check_out_into_ff(torch, smemkit.matrix_transpose, x, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_copy_host_path(dtype, rng, poison, set_knobs):
    """NumPy in and out (the host path's column chunks) through the route, and knob 0 agreeing with it."""
    a = random_bits((1, 3_000_001), np_dtype(dtype), rng)
    b = random_bits((2_000_003, 1), np_dtype(dtype), rng)
    for mode in (1, 0):
        set_knobs(transpose_copy=mode)
        assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)
        assert_bits_equal(smemkit.transpose(b, layout="swizzle"), b.T)
