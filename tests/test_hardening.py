"""Hardening: bad input never crashes, faults poison the process visibly, no leaks, threads are safe.

CPU tests run in CI; `gpu` tests on a GPU machine.  Crash-prone checks run in a subprocess, so a
segfault is a test failure rather than a dead test run.
"""
import gc
import subprocess
import sys
import textwrap
import threading
import tracemalloc

import numpy as np
import pytest

import smemkit

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LAYOUTS = smemkit.LAYOUTS


def run_py(code, timeout=600):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout)


# ---- argument limits checked before any allocation (CPU) ---------------------------------------------

def test_sgemm_sizes_beyond_32bit_indexing_are_value_errors_before_any_copy():
    huge = np.broadcast_to(np.float32(1), (2**31 + 5, 1))  # 8 GiB if it were copied
    with pytest.raises(ValueError, match="2\\*\\*31"):
        smemkit.sgemm(huge, np.ones((1, 1), np.float32))


def test_byteswapped_and_readonly_arguments_are_accepted_by_validation():
    # validation passes; without a GPU the call then fails with CudaError, never TypeError
    a = np.ones((3, 3), ">f4")
    a.flags.writeable = False
    try:
        smemkit.sgemm(a, a)
        smemkit.transpose(a)
    except smemkit.CudaError:
        assert not smemkit.is_available()


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


# ---- GPU faults ---------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_sticky_error_poisons_every_later_call():
    p = run_py("""
        import numpy as np, smemkit
        a = np.ones((64, 64), np.float32)
        smemkit.transpose(a)                       # healthy first
        try:
            smemkit._C._debug_fault()
        except smemkit.CudaError as e:
            print("FAULT", e.status, e)
        for f in (lambda: smemkit.transpose(a), lambda: smemkit.sgemm(a, a), smemkit.device_name):
            try:
                f()
                print("NO-ERROR")
            except smemkit.CudaError as e:
                print("POISONED", e.status, e)
        print(smemkit.explain("transpose", (64, 64), "pad").total())   # CPU features still work
    """)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    assert "FAULT 700 cudaErrorIllegalAddress" in out and "restart the process" in out
    assert out.count("POISONED 700") == 3 and "NO-ERROR" not in out


# ---- leaks --------------------------------------------------------------------------------------------

def _calls(n, fns):
    for _ in range(n):
        for f in fns:
            try:
                f()
            except (TypeError, ValueError):
                pass


@pytest.mark.gpu
def test_no_leaks_over_10000_calls():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((33, 65)).astype(np.float32)
    b = rng.standard_normal((65, 17)).astype(np.float32)
    c = rng.standard_normal((33, 17)).astype(np.float32)
    bad = np.ones((2, 2), np.float16)
    fns = [lambda: smemkit.transpose(a, layout="pad"), lambda: smemkit.sgemm(a, b, c, beta=0.5),
           lambda: smemkit.transpose(bad), lambda: smemkit.sgemm(a, a), lambda: smemkit.transpose(a, layout="x"),
           lambda: smemkit.explain("transpose", (64, 64)), lambda: smemkit.bank_model.wavefronts(np.arange(32) * 4)]
    _calls(200, fns)  # warm-up: pool, caches, interned objects
    gc.collect()
    refs = [sys.getrefcount(x) for x in (a, b, c, bad)]
    free0 = smemkit._C._mem_info()[0]
    tracemalloc.start()
    snap0 = tracemalloc.take_snapshot()
    _calls(10_000, fns)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert [sys.getrefcount(x) for x in (a, b, c, bad)] == refs
    assert grown < 256 * 1024, f"Python heap grew by {grown} bytes over 70,000 calls"
    free1 = smemkit._C._mem_info()[0]
    assert abs(free1 - free0) <= 4 << 20, f"device free memory moved by {free0 - free1} bytes"


# ---- threads ------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_eight_threads_at_once_give_correct_results():
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            for i in range(30):
                a = rng.standard_normal((50 + seed, 70 + i)).astype(np.float32)
                layout = LAYOUTS[(seed + i) % 3]
                t = smemkit.transpose(a, layout=layout)
                if not np.array_equal(t, a.T):
                    errors.append(f"transpose thread {seed} iter {i}")
                b = rng.standard_normal((a.shape[1], 40)).astype(np.float32)
                d = smemkit.sgemm(a, b, layout=layout)
                ref = a.astype(np.float64) @ b.astype(np.float64)
                bound = 2 * a.shape[1] * 2.0**-24 * (np.abs(a).astype(np.float64) @ np.abs(b))
                if not np.all(np.abs(d - ref) <= bound):
                    errors.append(f"sgemm thread {seed} iter {i}")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


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
