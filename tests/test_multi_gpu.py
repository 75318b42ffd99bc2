"""Several GPUs in one process: which device runs a call, per-device state, threads on two GPUs.

Rules (README, "Which GPU runs a call"): a PyTorch tensor runs on its own device, the previous device
put back after; CuPy arrays and __cuda_array_interface__ producers run on the current device (CuPy's
rule); operands on different devices are a ValueError naming each one's device.  The CPU tests drive
the argument rules with fake device arrays (nothing touches a GPU before the rules refuse them); the
`gpu` tests need one device, the `two_gpus` ones two (skipped below).
"""
import os
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

import smemkit
from smemkit import _device

U = 2.0 ** -24
try:
    import ml_dtypes  # noqa: F401 - torch bfloat16 tensors need it to name their dtype
    _HAVE_ML_DTYPES = True
except ImportError:
    _HAVE_ML_DTYPES = False


# ---- CPU: the argument rules, with fakes ------------------------------------------------------------

class _FakeCupyArray:
    """What smemkit._device reads from a CuPy array: no GPU behind it (never dereferenced)."""
    __module__ = "cupy._core.core"

    def __init__(self, shape, device, dtype=np.float32):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.strides = tuple(int(np.prod(shape[i + 1:])) * self.dtype.itemsize for i in range(len(shape)))
        self.data = types.SimpleNamespace(ptr=0x7F0000000000 + 0x10000000 * device)
        self.device = types.SimpleNamespace(id=device)


class _FakeTensor:
    """What smemkit._device reads from a torch CUDA tensor."""
    __module__ = "torch"
    is_cuda = True

    def __init__(self, shape, device):
        self.shape, self._dev = tuple(shape), device
        self.dtype = "torch.float32"

    def get_device(self):
        return self._dev

    def data_ptr(self):
        return 0x7F0000000000 + 0x10000000 * self._dev

    def stride(self):
        return tuple(int(np.prod(self.shape[i + 1:])) for i in range(len(self.shape)))


@pytest.fixture
def fake_libs(monkeypatch):
    """sys.modules['cupy'] / ['torch'] stand-ins and fresh _device tables (all put back after)."""
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(ptr=0)))
    torch = types.SimpleNamespace(float32="torch.float32", bfloat16="torch.bfloat16",
                                  _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: 0))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(_device, "_torch_dtypes", {})
    monkeypatch.setattr(_device, "_numpy_to_torch", {})
    monkeypatch.setattr(_device, "_raw_stream", None)
    monkeypatch.setattr(_device, "_readers", {})


@pytest.mark.parametrize("make", [_FakeCupyArray, _FakeTensor], ids=["cupy", "torch"])
def test_mixed_devices_name_every_operand(fake_libs, make):
    a, b, c = make((4, 3), 0), make((3, 5), 1), make((4, 5), 1)
    with pytest.raises(ValueError, match=r"sgemm\(\): operands on different devices \(a on cuda:0, b on cuda:1, "
                                         r"c on cuda:1\)"):
        smemkit.sgemm(a, b, c, beta=1.0)
    with pytest.raises(ValueError, match=r"a on cuda:2, b on cuda:0\)"):
        smemkit.sgemm(make((4, 3), 2), make((3, 5), 0))


@pytest.mark.parametrize("make", [_FakeCupyArray, _FakeTensor], ids=["cupy", "torch"])
def test_out_on_another_device_names_both(fake_libs, make):
    with pytest.raises(ValueError, match=r"transpose\(\): out is on cuda:1 but the inputs are on cuda:0"):
        smemkit.transpose(make((4, 3), 0), out=make((3, 4), 1))
    with pytest.raises(ValueError, match=r"out is on cuda:0 but the inputs are on cuda:3"):
        smemkit.sgemm(make((4, 3), 3), make((3, 5), 3), out=make((4, 5), 0))


def test_the_fakes_reach_the_device_reader(fake_libs):
    """The tests above exercise the real readers: describe() gives each fake's device."""
    assert _device.describe(_FakeCupyArray((2, 2), 3), "f", "a")[4] == 3
    assert _device.describe(_FakeTensor((2, 2), 2), "f", "a")[4:7] == (2, 0, _device.LIB_TORCH)


# ---- one GPU: the guard restores the current device ------------------------------------------------

@pytest.mark.gpu
def test_guard_on_the_current_device(torch, poison):
    dev = torch.cuda.current_device()
    x = torch.randn(67, 130, device=f"cuda:{dev}")
    for layout in smemkit.LAYOUTS:
        assert torch.equal(smemkit.transpose(x, layout), x.t().contiguous())
    a, b = torch.randn(70, 33, device="cuda"), torch.randn(33, 45, device="cuda")
    d = smemkit.sgemm(a, b)
    assert d.device == a.device and torch.cuda.current_device() == dev
    with pytest.raises(ValueError):  # a refused call leaves the current device as it was
        smemkit.sgemm(a, b, torch.ones(3, 3, device="cuda"), beta=1.0)
    assert torch.cuda.current_device() == dev
    smemkit.empty_cache()
    assert torch.cuda.current_device() == dev


# ---- two GPUs -----------------------------------------------------------------------------------------

def _two(torch):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")


def _ops(torch, dev, seed):
    """Every op on tensors of device `dev`: {name: result}, inputs made from one seed (same on any device)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 257, 131, generator=g).to(dev)
    a, b = torch.randn(300, 129, generator=g).to(dev), torch.randn(129, 97, generator=g).to(dev)
    c = torch.randn(300, 97, generator=g).to(dev)
    out = {f"transpose-{lay}": smemkit.transpose(x[1], lay) for lay in smemkit.LAYOUTS}
    out["matrix_transpose"] = smemkit.matrix_transpose(x)
    out["sgemm"] = smemkit.sgemm(a, b, c, alpha=0.5, beta=2.0)
    out["sgemm-strided"] = smemkit.sgemm(a.t().contiguous().t(), b, layout="pad")
    for dt in (torch.float16, torch.bfloat16) if _HAVE_ML_DTYPES else (torch.float16,):
        out[f"gemm-{dt}"] = smemkit.gemm(a.to(dt), b.to(dt))
    out["inputs"] = (x, a, b, c)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("current,target", [(0, 1), (1, 0)])
def test_torch_ops_run_on_the_tensors_device(torch, poison, current, target):
    _two(torch)
    with torch.cuda.device(target):
        ref = _ops(torch, f"cuda:{target}", 7)  # the target device current: the old, supported way
    with torch.cuda.device(current):
        got = _ops(torch, f"cuda:{target}", 7)
        assert torch.cuda.current_device() == current  # the guard put it back
    x, a, b, c = got.pop("inputs")
    ref.pop("inputs")
    for name, r in ref.items():
        assert got[name].device == torch.device(f"cuda:{target}"), name
        assert torch.equal(got[name], r), name  # same kernel, same data: bit for bit
    assert torch.equal(got["transpose-naive"], x[1].t().contiguous())
    assert torch.equal(got["matrix_transpose"], x.mT.contiguous())
    a64, b64, c64 = (t.double().cpu().numpy() for t in (a, b, c))
    ref64 = 0.5 * a64 @ b64 + 2.0 * c64
    scale = 0.5 * np.abs(a64) @ np.abs(b64) + 2.0 * np.abs(c64)
    g = (a.shape[1] + 2) * U / (1 - (a.shape[1] + 2) * U)
    assert np.all(np.abs(got["sgemm"].double().cpu().numpy() - ref64) <= g * scale + np.finfo(np.float32).tiny)


@pytest.mark.gpu
def test_mixed_torch_devices_are_refused(torch):
    _two(torch)
    a, b = torch.ones(4, 3, device="cuda:0"), torch.ones(3, 5, device="cuda:1")
    with pytest.raises(ValueError, match=r"a on cuda:0, b on cuda:1"):
        smemkit.sgemm(a, b)
    with pytest.raises(ValueError, match=r"out is on cuda:1 but the inputs are on cuda:0"):
        smemkit.transpose(a, out=torch.empty(3, 4, device="cuda:1"))
    assert torch.cuda.current_device() == 0


@pytest.mark.gpu
def test_cupy_follows_the_current_device(cupy, poison):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs")
    for current, target in ((0, 1), (1, 0)):
        with cupy.cuda.Device(target):
            x = cupy.random.standard_normal((130, 67), dtype=cupy.float32)
            a = cupy.random.standard_normal((64, 40), dtype=cupy.float32)
            want_t, want_d = smemkit.transpose(x), smemkit.sgemm(a, a.T)
        with cupy.cuda.Device(current):
            with pytest.raises(ValueError, match=f"device {target} but smemkit runs on device {current}"):
                smemkit.transpose(x)
            assert cupy.cuda.runtime.getDevice() == current
        with cupy.cuda.Device(target):  # CuPy's rule: make the array's device current
            assert bool((smemkit.transpose(x) == x.T).all()) and bool((want_t == x.T).all())
            assert bool((smemkit.sgemm(a, a.T) == want_d).all())


@pytest.mark.gpu
def test_two_threads_drive_two_gpus(torch, poison):
    _two(torch)
    ref = {}
    for dev in (0, 1):
        with torch.cuda.device(dev):
            ref[dev] = {k: v for k, v in _ops(torch, f"cuda:{dev}", 11).items() if k != "inputs"}
    errors, barrier = [], threading.Barrier(2)

    def drive(dev):
        try:
            torch.cuda.set_device(1 - dev)  # the other device current: the guard must switch
            barrier.wait()
            for _ in range(20):
                got = _ops(torch, f"cuda:{dev}", 11)
                got.pop("inputs")
                for name, r in ref[dev].items():
                    assert torch.equal(got[name], r), (dev, name)
            with torch.cuda.device(dev):
                smemkit.bench("sgemm", (256, 256, 256), layout="swizzle", reps=10)  # cuBLAS handle per device
            assert torch.cuda.current_device() == 1 - dev
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=drive, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.gpu
def test_empty_cache_trims_every_device(torch):
    _two(torch)
    torch.cuda.set_device(0)
    n = 4096
    a = torch.randn(n, n, device="cuda:1").t()  # strided: the GEMM makes a 64 MiB row-major copy on device 1
    smemkit.sgemm(a[:, :64], torch.randn(64, 64, device="cuda:1"))
    smemkit.sgemm(a, torch.randn(n, 8, device="cuda:1"))
    torch.cuda.synchronize(1)
    with torch.cuda.device(1):
        free_before = smemkit._C._mem_info()[0]
    smemkit.empty_cache()  # device 0 current
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(1):
        free_after = smemkit._C._mem_info()[0]
    assert free_after - free_before >= 32 << 20, (free_before, free_after)


_STICKY = r"""
import torch, smemkit
x0 = torch.randn(64, 48, device="cuda:0")
x1 = torch.randn(8, 8, device="cuda:1")  # made before the fault: torch cannot allocate there after it
smemkit.transpose(x0)
torch.cuda.synchronize(0)
with torch.cuda.device(1):
    try:
        smemkit._C._debug_fault()
    except smemkit.CudaError as e:
        print("fault:", e)
try:
    ok = torch.equal(smemkit.transpose(x0), x0.t().contiguous())
    print("device0:", "ok" if ok else "wrong")
except Exception as e:
    print("device0:", type(e).__name__, e)
try:
    smemkit.transpose(x1)
    print("device1: ran")
except Exception as e:
    print("device1:", type(e).__name__, e)
"""


@pytest.mark.gpu
def test_sticky_error_on_one_device_ends_cuda_for_the_process(torch):
    """A sticky error (an illegal address) on device 1 is not confined to it: CUDA documents it as leaving
    the process inconsistent ("any further CUDA work will return the same error"), and on two H100s
    (2026-11-27) the next transpose on device 0 failed with it.  smemkit must say so on both devices, as a
    CudaError that tells the user to restart, never a crash or a wrong result."""
    _two(torch)
    p = subprocess.run([sys.executable, "-c", _STICKY], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "CUDA_LAUNCH_BLOCKING": "0"})
    out = p.stdout + p.stderr
    assert "fault:" in out, out
    assert "device0: CudaError" in out and "device0: wrong" not in out, out
    assert "device1: CudaError" in out, out
    assert out.count("restart the process") >= 2, out


@pytest.mark.gpu
@pytest.mark.parametrize("nproc", [1, 2])
def test_distributed_example_under_torchrun(torch, nproc):
    """examples/distributed_ab.py, one rank per GPU: every rank checks and times on its own device, rank 0
    prints one table with a row per rank, op and layout."""
    if torch.cuda.device_count() < nproc:
        pytest.skip(f"needs {nproc} GPUs")
    ex = os.path.join(os.path.dirname(__file__), "..", "examples", "distributed_ab.py")
    p = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc), ex, "1024"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (p.stdout + p.stderr)[-4000:]
    assert f"{nproc} rank(s) under torchrun" in p.stdout, p.stdout
    assert "all ranks agree with torch" in p.stdout, p.stdout
    body = [ln.split() for ln in p.stdout.splitlines() if ln[:4].strip().isdigit()]
    assert sorted({int(r[0]) for r in body}) == list(range(nproc)), p.stdout
    assert len(body) == 9 * nproc, p.stdout  # 3 ops x 3 layouts per rank


_NO_CONTEXT = r"""
import threading, torch, smemkit
x = torch.randn(64, 48, device="cuda:1")
torch.cuda.synchronize(1)
if torch._C._cuda_hasPrimaryContext(0):
    print("torch made a context on GPU 0 itself")
    raise SystemExit(0)
res = {}
def run():  # a new thread: its CUDA current device is 0, which has no context
    res["ok"] = torch.equal(smemkit.transpose(x), x.t().contiguous())
    res["dev"] = torch.cuda.current_device()
t = threading.Thread(target=run)
t.start()
t.join()
print("ok", res["ok"], "ctx0", torch._C._cuda_hasPrimaryContext(0), "dev", res["dev"])
"""


@pytest.mark.gpu
def test_guard_creates_no_context_on_the_previous_device(torch):
    """Putting back a device that has no CUDA context must not create one (torch's own guard does not):
    otherwise every torchrun rank would hold memory on GPU 0."""
    _two(torch)
    if not hasattr(torch._C, "_cuda_hasPrimaryContext"):
        pytest.skip("this torch cannot tell whether a context exists")
    p = subprocess.run([sys.executable, "-c", _NO_CONTEXT], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    if "itself" in p.stdout:
        pytest.skip(p.stdout.strip())
    assert "ok True ctx0 False dev 0" in p.stdout, p.stdout + p.stderr
