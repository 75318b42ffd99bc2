"""Device arrays in, device arrays out: CuPy, PyTorch, and anything exposing __cuda_array_interface__
(v2/v3) or __dlpack__.  Zero copy: smemkit reads the producer's memory where it lies and writes a result
the same library allocates, on the library's current stream (asynchronously, as that library's own
operations do).  Neither CuPy nor PyTorch is imported unless such an array is passed in.

Stream rules: a CuPy or PyTorch array runs on that library's current stream; a generic
__cuda_array_interface__ array on the stream its interface names (v3 'stream'; none: the legacy default
stream); a DLPack-only array is wrapped by CuPy (or PyTorch) first, whose from_dlpack orders the
producer's work before it.
"""
import sys

import numpy as np

from . import _C

_KDLCUDA = 2
POISON = False  # tests: fill every result with 0xFF bytes before the kernel writes it


class DevArray:
    """What the kernels need to know about one device array."""
    __slots__ = ("obj", "lib", "ptr", "shape", "strides", "dtype", "device", "stream")

    def __init__(self, obj, lib, ptr, shape, strides, dtype, device, stream):
        self.obj, self.lib, self.ptr, self.shape = obj, lib, ptr, shape
        self.strides, self.dtype, self.device, self.stream = strides, dtype, device, stream


def _torch_dtype(t):
    torch = sys.modules["torch"]
    table = _torch_dtype.table
    if table is None:
        table = _torch_dtype.table = {
            torch.float32: np.dtype("float32"), torch.float64: np.dtype("float64"),
            torch.int32: np.dtype("int32"), torch.int64: np.dtype("int64"),
            torch.complex64: np.dtype("complex64"), torch.float16: np.dtype("float16"),
            torch.int16: np.dtype("int16"), torch.int8: np.dtype("int8"), torch.uint8: np.dtype("uint8"),
            torch.bool: np.dtype("bool"), torch.complex128: np.dtype("complex128"),
        }
        for name in ("uint32", "uint64"):
            if hasattr(torch, name):
                table[getattr(torch, name)] = np.dtype(name)
    try:
        return table[t]
    except KeyError:
        raise TypeError(f"unsupported torch dtype {t}") from None


_torch_dtype.table = None
_torch_dtype.reverse = None  # numpy dtype -> torch dtype, built once (empty() is on the per-call path)


def is_device_array(x):
    """True for CuPy / PyTorch CUDA arrays and CUDA __cuda_array_interface__ / __dlpack__ producers."""
    if isinstance(x, np.ndarray):
        return False
    mod = type(x).__module__
    if mod.startswith("torch"):
        return hasattr(x, "is_cuda")  # CPU tensors too: view() explains what to pass instead
    if hasattr(x, "__cuda_array_interface__"):
        return True
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        try:
            return dev()[0] == _KDLCUDA
        except Exception:  # noqa: BLE001 - a producer that cannot say is not one we can use
            return False
    return False


def view(x, fname, arg):
    """A DevArray for x, or TypeError/ValueError naming what is wrong."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        torch = sys.modules["torch"]
        if not x.is_cuda:
            raise TypeError(f"{fname}(): {arg} is a CPU torch tensor; pass a CUDA tensor or {arg}.numpy()")
        dev = x.device.index if x.device.index is not None else torch.cuda.current_device()
        return DevArray(x, "torch", x.data_ptr(), tuple(x.shape), tuple(x.stride()), _torch_dtype(x.dtype), dev,
                        torch.cuda.current_stream(x.device).cuda_stream)
    if mod.startswith("cupy"):
        cupy = sys.modules["cupy"]
        isz = x.dtype.itemsize
        if any(s % isz for s in x.strides):
            raise ValueError(f"{fname}(): {arg} has strides {x.strides} that are not multiples of its itemsize")
        return DevArray(x, "cupy", x.data.ptr, tuple(x.shape), tuple(s // isz for s in x.strides), x.dtype,
                        x.device.id, cupy.cuda.get_current_stream().ptr)
    if hasattr(x, "__cuda_array_interface__"):
        cai = x.__cuda_array_interface__
        shape = tuple(cai["shape"])
        dtype = np.dtype(cai["typestr"])
        if not dtype.isnative:
            raise TypeError(f"{fname}(): {arg} has non-native byte order {cai['typestr']!r}")
        isz = dtype.itemsize
        strides = cai.get("strides")
        if strides is None:  # C-contiguous
            strides, acc = [], 1
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= n
        else:
            if any(s % isz for s in strides):
                raise ValueError(f"{fname}(): {arg} has byte strides {tuple(strides)} that are not multiples of "
                                 f"its itemsize {isz}")
            strides = [s // isz for s in strides]
        stream = cai.get("stream") if cai.get("version", 2) >= 3 else None
        return DevArray(x, "cai", int(cai["data"][0]), shape, tuple(strides), dtype, -1,
                        0 if stream is None else int(stream))
    if hasattr(x, "__dlpack__"):  # DLPack-only producers: let CuPy (or PyTorch) import it, stream-ordered
        for libname in ("cupy", "torch"):
            try:
                lib = __import__(libname)
            except ImportError:
                continue
            return view(lib.from_dlpack(x), fname, arg)
        raise TypeError(f"{fname}(): {arg} is a DLPack CUDA array; importing it needs CuPy or PyTorch")
    raise TypeError(f"{fname}(): {arg} is not a CUDA array")


def empty(like, shape, dtype):
    """A new C-contiguous device array of `like`'s library (CuPy for generic producers, else PyTorch)."""
    out = _empty(like, shape, dtype)
    if POISON:
        if type(out).__module__.startswith("torch"):
            out.view(sys.modules["torch"].uint8).fill_(255)
        else:
            out.view(np.uint8).fill(255)
    return out


def _empty(like, shape, dtype):
    if like.lib == "torch":
        torch = sys.modules["torch"]
        if _torch_dtype.reverse is None:
            _torch_dtype.reverse = {v: k for k, v in _torch_dtype.table.items()}
        return torch.empty(shape, dtype=_torch_dtype.reverse[np.dtype(dtype)], device=like.obj.device)
    if like.lib == "cupy":
        return sys.modules["cupy"].empty(shape, dtype=dtype)
    try:
        import cupy
        with cupy.cuda.Device(like.device if like.device >= 0 else cupy.cuda.runtime.getDevice()):
            return cupy.empty(shape, dtype=dtype)
    except ImportError:
        pass
    try:
        import torch
        return torch.empty(shape, dtype=getattr(torch, np.dtype(dtype).name), device="cuda")
    except ImportError:
        raise TypeError("a result for a generic CUDA array needs CuPy or PyTorch to hold it") from None


def ptr_of(arr):
    mod = type(arr).__module__
    if mod.startswith("torch"):
        return arr.data_ptr()
    return arr.data.ptr


TRANSPOSE_KINDS = "iufc"


def transpose(a, layout):
    v = view(a, "transpose", "a")
    if len(v.shape) != 2:
        raise ValueError(f"transpose(): a must be 2-D; got a {len(v.shape)}-D array of shape {v.shape}")
    if v.dtype.kind not in TRANSPOSE_KINDS or v.dtype.itemsize not in (4, 8):
        raise TypeError(f"transpose(): unsupported dtype {v.dtype!r}; supported: 4- and 8-byte integer, float and "
                        "complex dtypes (int32, uint32, float32, int64, uint64, float64, complex64)")
    rows, cols = v.shape
    out = empty(v, (cols, rows), v.dtype)
    _C._transpose_ptr(v.ptr, ptr_of(out), rows, cols, v.strides[0], v.strides[1], v.dtype.itemsize, layout,
                      v.stream, v.device)
    return out


def _rowmajor(v, fname, arg, layout):
    """(ptr, ld, keepalive) of a row-major float32 matrix with unit column stride: v itself when it is one,
    else a contiguous copy made on the device by the transpose kernel (of the stride-swapped view)."""
    rows, cols = v.shape
    rs, cs = v.strides
    if rows == 0 or cols == 0:
        return v.ptr, max(cols, 1), None
    if (cs == 1 or cols == 1) and (rs >= cols or rows == 1) and rs > 0:
        return v.ptr, max(rs if rows > 1 else cols, cols), None
    tmp = empty(v, (rows, cols), np.float32)
    _C._transpose_ptr(v.ptr, ptr_of(tmp), cols, rows, cs, rs, 4, "swizzle", v.stream, v.device)
    return ptr_of(tmp), cols, tmp


def sgemm(a, b, c, alpha, beta, layout):
    va = view(a, "sgemm", "a")
    vb = view(b, "sgemm", "b")
    vc = view(c, "sgemm", "c") if c is not None else None
    for v, name in ((va, "a"), (vb, "b"), (vc, "c")):
        if v is None:
            continue
        if v.lib != va.lib:
            raise TypeError(f"sgemm(): {name} comes from {v.lib} but a from {va.lib}; pass arrays of one library")
        if len(v.shape) != 2:
            raise ValueError(f"sgemm(): {name} must be 2-D; got a {len(v.shape)}-D array of shape {v.shape}")
        if v.dtype != np.float32:
            raise TypeError(f"sgemm(): {name} has dtype {v.dtype}; sgemm computes in float32 only -- pass float32 "
                            "arrays; nothing is converted silently")
        if v.device != va.device:
            raise ValueError(f"sgemm(): {name} is on device {v.device} but a on device {va.device}")
    (M, K), (K2, N) = va.shape, vb.shape
    if K != K2:
        raise ValueError(f"sgemm(): inner dimensions differ: a has shape {va.shape} and b has shape {vb.shape} "
                         "(a.shape[1] must equal b.shape[0])")
    if vc is not None and vc.shape != (M, N):
        raise ValueError(f"sgemm(): c has shape {vc.shape}; expected ({M}, {N}) = (a.shape[0], b.shape[1])")
    if beta != 0 and vc is None:
        raise ValueError("sgemm(): beta != 0 needs c (the matrix that beta scales)")
    if max(M, N, K) > 2**31 - 257:
        raise ValueError(f"sgemm(): M, N and K must each be at most 2**31 - 257; got M={M}, N={N}, K={K}")
    out = empty(va, (M, N), np.float32)
    pa, lda, ka = _rowmajor(va, "sgemm", "a", layout)
    pb, ldb, kb = _rowmajor(vb, "sgemm", "b", layout)
    pc, ldc, kc = (0, max(N, 1), None) if (vc is None or beta == 0) else _rowmajor(vc, "sgemm", "c", layout)
    _C._sgemm_ptr(pa, lda, pb, ldb, pc, ldc, ptr_of(out), max(N, 1), M, N, K, alpha, beta, layout, va.stream,
                  va.device)
    del ka, kb, kc  # stream-ordered frees of the temporaries, after the kernel in the stream
    return out
