"""Shared test setup.

`gpu` tests need a CUDA device: without one they are skipped, and with --require-gpu (used on the GPU
machine) the skip becomes a failure, so a GPU run can never pass by skipping.
"""
import contextlib

import numpy as np
import pytest

import smemkit
from smemkit import _testing

# The suite tests the model's choices -- what explain() predicts, and every path a forced config or knob names --
# so the SGEMM's measured choice (smemkit.tuning, on by default) is off here; tests/test_sgemm_tune.py switches it
# on for its own tests.
smemkit.autotune(False)


def pytest_addoption(parser):
    parser.addoption("--require-gpu", action="store_true", default=False,
                     help="fail (instead of skip) gpu tests when no CUDA device is usable")


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is None:
        return
    if smemkit.is_available():
        return
    if item.config.getoption("--require-gpu"):
        pytest.fail("--require-gpu given but no CUDA device is usable", pytrace=False)
    pytest.skip("no CUDA device")


@pytest.fixture
def poison():
    """Make every kernel output start as 0xFF bytes (NaN) on the device for this test."""
    with _testing.knobs(poison=True):
        yield


@pytest.fixture
def set_knobs():
    """set_knobs(name=value, ...): smemkit._testing knobs for the rest of this test (callable again
    mid-test); every one is put back at the test's end, pass or fail."""
    with contextlib.ExitStack() as stack:
        yield lambda **values: stack.enter_context(_testing.knobs(**values))


@pytest.fixture
def tiled_kernel(set_knobs):
    """The files that test the tiled transpose kernel's own paths (lean, mid, shift, sector): the gather kernel
    (knob transpose_gather, 3 by default: 1- / 2-byte matrices with a pitch off words and output rows of >= 1024
    bytes, and rows > cols with input rows of 64..127 bytes) off for the test."""
    set_knobs(transpose_gather=0)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def torch():
    """PyTorch with CUDA, or a skip (device-array tests)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


@pytest.fixture
def cupy():
    """CuPy, or a skip (device-array tests)."""
    return pytest.importorskip("cupy")
