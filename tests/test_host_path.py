"""The host path (issue 13): the pinned staging pool, its worker threads, many calls and many threads.

Host modes (csrc/host.h): 0 pageable, 1 page-locked in place, 2 page-locked + pipelined, 3 staged
through the pinned pool, -1 automatic.  Every result is checked bit for bit (transpose) or against
the same kernel's result through the pageable path (GEMMs: one kernel, so the bits must agree).
"""
import pathlib
import shutil
import subprocess
import threading

import numpy as np
import pytest

import smemkit

MiB = 1 << 20


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def random_bits(shape, dtype, rng):
    dtype = np.dtype(dtype)
    return rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8).view(dtype).reshape(shape)


@pytest.fixture
def host_mode(set_knobs):
    return lambda mode: set_knobs(host_mode=mode)


@pytest.fixture
def staging_cap(set_knobs):
    return lambda mib: set_knobs(staging_cap_mib=mib)


# ---- CPU: the pool's knobs and its report (no GPU needed) --------------------------------------

def test_staging_info_reports_the_pool(staging_cap):
    info = smemkit._C._staging_info()
    assert set(info) == {"held", "in_use", "cap", "peak", "threads"}
    assert info["cap"] == 128 * MiB and info["threads"] >= 1
    staging_cap(16)
    assert smemkit._C._staging_info()["cap"] == 16 * MiB
    with pytest.raises(ValueError):
        smemkit._C._set_knob("staging_cap_mib", -1)
    with pytest.raises(ValueError):
        smemkit._C._set_knob("host_mode", 4)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler")
def test_hostpool_against_a_late_running_cuda_stand_in(tmp_path):
    # csrc/hostpool.c built on the CPU against tests/c/hostpool's CUDA stand-in, whose copies run only
    # when synchronised: a host write racing a queued DMA shows as wrong bytes (tests/c/hostpool)
    root = pathlib.Path(__file__).resolve().parent.parent
    for f in [root / "csrc" / "hostpool.c", root / "csrc" / "hostpool.h", *(root / "tests" / "c" / "hostpool").iterdir()]:
        shutil.copy(f, tmp_path / f.name)
    exe = tmp_path / "thp"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-pthread",
                    f"-I{tmp_path}",
                    str(tmp_path / "test_hostpool.c"), str(tmp_path / "hostpool.c"), str(tmp_path / "cuda_stub.c"),
                    "-o", str(exe)], check=True)
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.rstrip().endswith("OK"), p.stdout[-3000:] + p.stderr[-2000:]


def test_empty_cache_runs_without_a_gpu_too():
    smemkit.empty_cache()
    assert smemkit._C._staging_info()["in_use"] == 0


# ---- GPU -----------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("shape,dtype", [((2048, 3000), "float32"), ((1, 3 * MiB), "uint8"), ((3 * MiB // 2, 1), "uint16"),
                                         ((777, 1001), "complex128"), ((8, 129, 257), "float64"), ((5, 7), "int8")])
def test_staged_transpose_is_bit_exact(shape, dtype, rng, poison, host_mode):
    host_mode(3)
    a = random_bits(shape, dtype, rng)
    want = np.swapaxes(a, -1, -2)
    np.testing.assert_array_equal(bits(smemkit.matrix_transpose(a)), bits(want))
    out = np.empty(want.shape, dtype)
    for _ in range(3):
        out.view(np.uint8).fill(0xCD)
        assert smemkit.matrix_transpose(a, out=out) is out
        np.testing.assert_array_equal(bits(out), bits(want))
    f = np.asfortranarray(a[..., : shape[-1] // 2 + 1])  # a strided, non-C input goes through a host copy first
    np.testing.assert_array_equal(bits(smemkit.matrix_transpose(f)), bits(np.swapaxes(f, -1, -2)))


@pytest.mark.gpu
@pytest.mark.parametrize("mnk", [(300, 2000, 700), (1, 4096, 300), (1029, 3, 1500)])
def test_staged_sgemm_matches_the_pageable_path(mnk, rng, poison, host_mode):
    M, N, K = mnk
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    host_mode(0)
    want = smemkit.sgemm(a, b, c, alpha=0.5, beta=-2.0)
    host_mode(3)
    got = smemkit.sgemm(a, b, c, alpha=0.5, beta=-2.0)
    np.testing.assert_array_equal(bits(got), bits(want))
    ref = 0.5 * (a.astype(np.float64) @ b.astype(np.float64)) - 2.0 * c
    bound = 1.01 * K * 2.0**-24 / (1 - K * 2.0**-24) * 0.5 * (np.abs(a) @ np.abs(b)) + 2**-23 * np.abs(ref) + 1e-30
    assert np.all(np.abs(got - ref) <= bound + 4 * 2.0**-24 * np.abs(c))


@pytest.mark.gpu
def test_staged_gemm16_matches_the_pageable_path(rng, poison, host_mode):
    a = rng.uniform(-1, 1, (513, 1500)).astype(np.float16)
    b = rng.uniform(-1, 1, (1500, 1031)).astype(np.float16)
    host_mode(0)
    want = smemkit.gemm(a, b, out_dtype=np.float32)
    host_mode(3)
    got = smemkit.gemm(a, b, out_dtype=np.float32)
    np.testing.assert_array_equal(bits(got), bits(want))
    assert np.all(np.isfinite(got))


@pytest.mark.gpu
def test_threads_share_one_input_with_separate_outputs(rng, poison):
    a = random_bits((2048, 3000), "float32", rng)  # 24 MiB: the automatic mode stages it
    want = bits(a.T)
    outs = [np.empty((3000, 2048), np.float32) for _ in range(8)]
    errors = []

    def work(i):
        try:
            for k in range(4):
                r = smemkit.transpose(a, out=outs[i]) if k % 2 else smemkit.transpose(a, layout="pad")
                if not np.array_equal(bits(r), want):
                    errors.append(f"thread {i} call {k}: wrong bits")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {i}: {e!r}")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


@pytest.mark.gpu
def test_staging_pool_under_16_threads(rng, poison, host_mode, staging_cap):
    # a cap of one call's units: 16 threads must wait for each other and the pool never grows past it
    host_mode(3)
    staging_cap(32)
    smemkit.empty_cache()
    arrays = [random_bits((700 + 13 * i, 1500 - 7 * i), "float64", rng) for i in range(16)]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                if not np.array_equal(bits(smemkit.transpose(arrays[i])), bits(arrays[i].T)):
                    errors.append(f"thread {i}: wrong bits")
        except Exception as e:  # noqa: BLE001
            errors.append(f"thread {i}: {e!r}")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    info = smemkit._C._staging_info()
    assert info["in_use"] == 0
    assert 0 < info["held"] <= 32 * MiB
    smemkit.empty_cache()
    assert smemkit._C._staging_info()["held"] == 0
    staging_cap(128)  # and it works again after being emptied
    np.testing.assert_array_equal(bits(smemkit.transpose(arrays[0])), bits(arrays[0].T))


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.gpu
def test_no_growth_over_10000_calls(rng, host_mode):
    a = random_bits((256, 300), "float32", rng)
    big = random_bits((512, 700), "float32", rng)  # 1.4 MiB: staged in the automatic mode
    out = np.empty((300, 256), np.float32)
    want, want_big = bits(a.T), bits(big.T)

    def calls(n):
        for i in range(n):
            if i % 10 == 0:
                r = smemkit.transpose(big)
                assert np.array_equal(bits(r), want_big)
            elif i % 2:
                smemkit.transpose(a, out=out)
            else:
                r = smemkit.transpose(a)
        assert np.array_equal(bits(out), want) and np.array_equal(bits(r), want)

    calls(500)  # warm: the device pool, the staging units, the worker threads
    rss0, free0 = _rss_bytes(), smemkit._C._mem_info()[0]
    calls(10000)
    rss1, free1 = _rss_bytes(), smemkit._C._mem_info()[0]
    assert rss1 - rss0 < 16 * MiB, f"host memory grew by {(rss1 - rss0) / MiB:.1f} MiB over 10,000 calls"
    assert free0 - free1 < 16 * MiB, f"device memory fell by {(free0 - free1) / MiB:.1f} MiB over 10,000 calls"


@pytest.mark.gpu
def test_no_device_growth_over_10000_device_calls():
    lib = None
    for name in ("cupy", "torch"):
        try:
            lib = __import__(name)
            break
        except ImportError:
            continue
    if lib is None:
        pytest.skip("needs CuPy or PyTorch")
    if lib.__name__ == "cupy":
        x = lib.arange(64 * 96, dtype=lib.float32).reshape(64, 96)
        out = lib.empty((96, 64), lib.float32)
        sync = lib.cuda.get_current_stream().synchronize
        to_np = lib.asnumpy
    else:
        x = lib.arange(64 * 96, dtype=lib.float32, device="cuda").reshape(64, 96)
        out = lib.empty((96, 64), dtype=lib.float32, device="cuda")
        sync = lib.cuda.synchronize
        to_np = lambda t: t.cpu().numpy()  # noqa: E731
    for _ in range(200):
        smemkit.transpose(x)
        smemkit.transpose(x, out=out)
    sync()
    rss0, free0 = _rss_bytes(), smemkit._C._mem_info()[0]
    for i in range(10000):
        r = smemkit.transpose(x, out=out) if i % 2 else smemkit.transpose(x)
    sync()
    rss1, free1 = _rss_bytes(), smemkit._C._mem_info()[0]
    np.testing.assert_array_equal(to_np(out), to_np(x).T)
    np.testing.assert_array_equal(to_np(r), to_np(x).T)
    assert rss1 - rss0 < 16 * MiB
    assert free0 - free1 < 16 * MiB
