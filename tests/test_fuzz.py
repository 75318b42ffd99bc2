"""Fuzzing (hypothesis): the argument parsers on the CPU in a subprocess (a crash fails the test),
and the kernels against NumPy / a float64 reference on the GPU."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import smemkit

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LAYOUTS = smemkit.LAYOUTS


def run_py(code, timeout=600):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout)


# ---- CPU fuzz of the argument parsers, in a subprocess ----------------------------------------------------

FUZZ_PARSER = """
import numpy as np, smemkit
from hypothesis import given, settings, strategies as st, HealthCheck

dtypes = ["float32", "float64", "float16", "int8", "int32", "int64", "uint32", "bool", "complex64",
          "complex128", "object", "U2", "S3", "V4", ">f4", "<f8", "datetime64[s]"]
shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
arrays = st.builds(lambda s, d: np.zeros(s, dtype=d), shapes, st.sampled_from(dtypes))
junk = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=4), st.binary(max_size=4),
                 st.lists(st.integers(), max_size=3), st.tuples(st.integers()), st.just(object()),
                 st.just(np.float32(1)), st.just(float("nan")))
anything = st.one_of(arrays, junk)
layouts = st.one_of(st.sampled_from(["naive", "pad", "swizzle", "Pad", "", "xor"]), junk)
OK = (TypeError, ValueError, smemkit.CudaError, MemoryError)

@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(anything, anything, st.one_of(st.none(), anything), layouts, junk, junk)
def fuzz(a, b, c, layout, alpha, beta):
    for call in (lambda: smemkit.transpose(a, layout=layout),
                 lambda: smemkit.transpose(a, layout),
                 lambda: smemkit.sgemm(a, b, c, layout=layout),
                 lambda: smemkit.sgemm(a, b, c, alpha=alpha, beta=beta),
                 lambda: smemkit.explain("sgemm", a if isinstance(a, tuple) else (2, 2, 2), layout),
                 lambda: smemkit.bank_model.wavefronts(a, 4, "load"),
                 lambda: smemkit.bank_map(layout, 32, 32)):
        try:
            call()
        except OK:
            pass

fuzz()
print("fuzz ok")
"""


def test_argument_parsers_only_raise_clean_errors():
    p = run_py(FUZZ_PARSER)
    assert p.returncode == 0, f"crash or unexpected exception (rc={p.returncode}):\n{p.stderr[-4000:]}"
    assert "fuzz ok" in p.stdout


# ---- GPU fuzz against NumPy ------------------------------------------------------------------------------

def _strided(rng, shape, dtype, kind):
    if kind == "C":
        return rng.standard_normal(shape).astype(dtype)
    if kind == "F":
        return np.asfortranarray(rng.standard_normal(shape).astype(dtype))
    big = rng.standard_normal((shape[0] * 2 + 1, shape[1] * 3 + 1)).astype(dtype)
    v = big[1::2, ::3][: shape[0], : shape[1]]
    return v[::-1] if kind == "neg" else v


@pytest.mark.gpu
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 300), st.integers(0, 300), st.sampled_from(["float32", "float64", "int32", "complex64"]),
       st.sampled_from(LAYOUTS), st.sampled_from(["C", "F", "slice", "neg"]), st.integers(0, 2**32 - 1))
def test_fuzz_transpose_against_numpy(rows, cols, dtype, layout, kind, seed):
    rng = np.random.default_rng(seed)
    a = _strided(rng, (rows, cols), dtype, kind)
    out = smemkit.transpose(a, layout=layout)
    assert out.shape == (cols, rows) and out.dtype == a.dtype
    assert np.array_equal(out.view(np.uint8), np.ascontiguousarray(a.T).view(np.uint8))


@pytest.mark.gpu
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300), st.sampled_from(LAYOUTS),
       st.sampled_from(["C", "F", "slice", "neg"]), st.sampled_from([(1.0, 0.0), (0.0, 1.0), (-1.5, 0.25), (0.0, 0.0)]),
       st.integers(0, 2**32 - 1))
def test_fuzz_sgemm_against_float64(m, n, k, layout, kind, ab, seed):
    rng = np.random.default_rng(seed)
    alpha, beta = ab
    a = _strided(rng, (m, k), np.float32, kind)
    b = _strided(rng, (k, n), np.float32, kind)
    c = rng.standard_normal((m, n)).astype(np.float32)
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    ref = alpha * (a64 @ b64) + beta * c64
    g = (k + 2) * 2.0**-24 / (1 - (k + 2) * 2.0**-24)
    bound = g * (abs(alpha) * (np.abs(a64) @ np.abs(b64)) + abs(beta) * np.abs(c64)) + np.finfo(np.float32).tiny
    assert np.all(np.abs(d - ref) <= bound)
