"""Hardening: faults poison the process visibly, no leaks, threads are safe, limits checked early.

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


@pytest.mark.gpu
def test_device_array_calls_keep_no_references_and_no_memory():
    torch = pytest.importorskip("torch")
    a = torch.randn(33, 65, device="cuda")
    b = torch.randn(65, 17, device="cuda").t().contiguous().t()  # strided: takes the device copy path
    c = torch.randn(33, 17, device="cuda")
    fns = [lambda: smemkit.transpose(a, layout="pad"), lambda: smemkit.sgemm(a, b, c, beta=0.5),
           lambda: smemkit.transpose(a, layout="x"), lambda: smemkit.sgemm(a, a)]
    _calls(100, fns)
    torch.cuda.synchronize()
    refs = [sys.getrefcount(x) for x in (a, b, c)]
    used = torch.cuda.memory_allocated()
    _calls(10_000, fns)
    torch.cuda.synchronize()
    assert [sys.getrefcount(x) for x in (a, b, c)] == refs
    assert torch.cuda.memory_allocated() == used


@pytest.mark.gpu
def test_threads_transposing_one_large_array_at_once():
    # every thread page-locks the same input for its copies: they must not unpin it under each other
    a = np.random.default_rng(5).standard_normal((3000, 2900)).astype(np.float32)  # 33 MiB: pipelined
    want = np.ascontiguousarray(a.T)
    results = [None] * 8

    def worker(i):
        results[i] = all(np.array_equal(smemkit.transpose(a, layout=LAYOUTS[i % 3]), want) for _ in range(3))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 8


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


# ---- past 32-bit indexing (device arrays, so the host need not hold it) ----------------------------------

@pytest.mark.gpu
def test_transpose_and_sgemm_past_2_31_elements():
    torch = pytest.importorskip("torch")
    free, _ = torch.cuda.mem_get_info()
    if free < 60 * 2**30:
        pytest.skip("needs 60 GiB of free device memory")
    rows, cols = 2**16 + 3, 2**15 + 5  # 2.1e9 elements: offsets beyond 2**31 in elements and bytes
    x = torch.randn(rows, cols, device="cuda")
    y = smemkit.transpose(x, layout="swizzle")
    assert torch.equal(y, x.t().contiguous())
    del y
    b = torch.randn(cols, 8, device="cuda")
    d = smemkit.sgemm(x, b, layout="pad")
    ref = x.double() @ b.double()
    scale = x.abs().double() @ b.abs().double()
    g = (cols + 2) * 2.0**-24 / (1 - (cols + 2) * 2.0**-24)
    assert bool(((d.double() - ref).abs() <= g * scale).all())
    del x, b, d, ref, scale
    torch.cuda.empty_cache()
