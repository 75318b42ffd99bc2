"""Library adapters for device arrays: read what smemkit needs from a CuPy array, a PyTorch CUDA tensor,
a ``__cuda_array_interface__`` producer or a DLPack-only producer, and allocate results of the same
library.  Only attribute reading and allocation live here (they are each library's own Python API);
the operand description, every rule and the dispatch are in C (csrc/module.c -> csrc/operand.c).

Stream rules: a CuPy or PyTorch array runs on that library's current stream; a generic
__cuda_array_interface__ array on the stream its interface names (v3 'stream'; none: the legacy default
stream); a DLPack-only array is wrapped by CuPy (or PyTorch) first, whose from_dlpack orders the
producer's work before it.  Neither CuPy nor PyTorch is imported unless such an array is passed in.

Device rules (the guard is C's: py_operand.c, smk_py_enter_device): a PyTorch tensor runs on its own
device (its stream is read for that device, _raw_stream(dev)); CuPy arrays and generic producers run
on the current device (CuPy's rule: get_current_stream() is the current device's); a DLPack-only array
follows the library that wrapped it.
"""
import sys

import numpy as np

_KDLCUDA = 2
LIB_TORCH, LIB_CUPY, LIB_CAI = 1, 2, 3
_torch_dtypes = {}   # torch dtype -> numpy dtype (built once)
_numpy_to_torch = {}  # numpy dtype -> torch dtype
_raw_stream = None   # torch._C._cuda_getCurrentRawStream (a C function: no Stream object per call)


def _torch_tables(torch):
    global _raw_stream
    names = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64",
             "complex128", "uint16", "uint32", "uint64"]
    for name in names:
        if hasattr(torch, name):
            _torch_dtypes[getattr(torch, name)] = np.dtype(name)
    try:
        import ml_dtypes
        _torch_dtypes[torch.bfloat16] = np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        pass
    _numpy_to_torch.update({v: k for k, v in _torch_dtypes.items()})
    _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
        lambda dev: torch.cuda.current_stream(dev).cuda_stream)


def gemm_dtype_name(obj):
    """"float32" / "float16" / "bfloat16" for an out_dtype that NumPy cannot read: a torch dtype (torch
    itself need not be imported by smemkit: the object tells its own name) or the string "bfloat16"
    (NumPy knows it only once ml_dtypes is imported).  None for anything else (the caller raises)."""
    if type(obj).__module__ == "torch" and type(obj).__name__ == "dtype":
        name = str(obj).removeprefix("torch.")
    elif isinstance(obj, str):
        name = obj
    else:
        return None
    return name if name in ("float32", "float16", "bfloat16") else None


def _torch(x, fname, arg):
    dev = x.get_device()  # -1: a CPU tensor (one attribute read instead of two: a per-call cost)
    if dev < 0:
        raise TypeError(f"{fname}(): {arg} is a CPU torch tensor; pass a CUDA tensor or {arg}.numpy()")
    torch = sys.modules["torch"]
    if not _torch_dtypes:
        _torch_tables(torch)
    dtype = _torch_dtypes.get(x.dtype)
    if dtype is None:
        raise TypeError(f"{fname}(): {arg} has torch dtype {x.dtype}, which has no NumPy equivalent here"
                        + (" (install ml_dtypes for bfloat16)" if x.dtype == torch.bfloat16 else ""))
    return (x.data_ptr(), x.shape, x.stride(), dtype, dev, _raw_stream(dev), LIB_TORCH)  # torch.Size is a tuple


def _cupy(x, fname, arg):
    isz = x.dtype.itemsize
    if any(s % isz for s in x.strides):
        raise ValueError(f"{fname}(): {arg} has strides {x.strides} that are not multiples of its itemsize")
    return (x.data.ptr, x.shape, tuple(s // isz for s in x.strides), x.dtype, x.device.id,
            sys.modules["cupy"].cuda.get_current_stream().ptr, LIB_CUPY)


_U64 = 2**64


def _cai_int(what, v, fname, arg, lo=0, hi=_U64 - 1):
    """An integer entry of a __cuda_array_interface__ (bool and float refused, not truncated)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ {what} must be an int; got {type(v).__name__}")
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError(f"{fname}(): {arg}.__cuda_array_interface__ {what} must be in [{lo}, {hi}]; got {v}")
    return v


def _cai_tuple(cai, key, fname, arg, lo, hi):
    v = cai[key]
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ {key!r} must be a tuple; got {type(v).__name__}")
    return tuple(_cai_int(f"{key} entry", n, fname, arg, lo, hi) for n in v)


def _cai(x, fname, arg):
    """CAI v2 / v3, checked entry by entry: every malformed entry is a TypeError / ValueError naming
    fname, arg and the entry, before any pointer is used."""
    cai = x.__cuda_array_interface__
    if not isinstance(cai, dict):
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ is not a dict")
    for key in ("shape", "typestr", "data"):
        if key not in cai:
            raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ has no {key!r} entry")
    if cai.get("mask") is not None:
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ has a mask; smemkit does not support masked "
                        "arrays")
    version = _cai_int("'version'", cai.get("version", 2), fname, arg, 0, 1000)
    shape = _cai_tuple(cai, "shape", fname, arg, 0, 2**63 - 1)
    try:
        dtype = np.dtype(cai["typestr"]) if isinstance(cai["typestr"], str) else None
    except (TypeError, ValueError):
        dtype = None
    if dtype is None:
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ 'typestr' is not a NumPy type string: "
                        f"{cai['typestr']!r}")
    data = cai["data"]
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"{fname}(): {arg}.__cuda_array_interface__ 'data' must be a tuple (pointer, read_only); "
                        f"got {data!r}")
    ptr = _cai_int("'data' pointer", data[0], fname, arg)
    if ptr == 0 and 0 not in shape:
        raise ValueError(f"{fname}(): {arg}.__cuda_array_interface__ has a NULL data pointer but shape {shape} is "
                         "not empty")
    isz = dtype.itemsize
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= n
    else:
        strides = _cai_tuple(cai, "strides", fname, arg, -(2**63), 2**63 - 1)
        if len(strides) != len(shape):
            raise ValueError(f"{fname}(): {arg}.__cuda_array_interface__ has {len(strides)} strides for "
                             f"{len(shape)} dimensions")
        if isz == 0 or any(s % isz for s in strides):
            raise ValueError(f"{fname}(): {arg} has byte strides {strides} that are not multiples of its itemsize "
                             f"{isz}")
        strides = [s // isz for s in strides]
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        stream = _cai_int("'stream'", stream, fname, arg)
        if stream == 0:
            raise ValueError(f"{fname}(): {arg}.__cuda_array_interface__ 'stream' is 0, which the interface "
                             "forbids (None: no stream; 1: legacy default; 2: per-thread default)")
    return (ptr, shape, tuple(strides), dtype, -1, 0 if stream is None else stream, LIB_CAI)


def describe(x, fname, arg):
    """(ptr, shape, element strides, numpy dtype, device or -1, stream, library) of a device array, or
    None when x is not one.  Raises TypeError / ValueError naming fname and arg for broken ones,
    including an object whose attributes raise something else while they are read."""
    try:
        reader = _readers.get(type(x))  # a type seen before: straight to its library's reader
        return reader(x, fname, arg) if reader is not None else _describe(x, fname, arg)
    except (TypeError, ValueError, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - a hostile __cuda_array_interface__ / __dlpack__ property
        raise TypeError(f"{fname}(): reading {arg}'s array attributes raised {type(e).__name__}: {e}") from e


_readers = {}  # exact type -> _torch / _cupy, filled as types are met (a per-call cost of small calls)


def _describe(x, fname, arg):
    mod = type(x).__module__
    if mod.startswith("torch") and hasattr(x, "is_cuda"):
        _readers[type(x)] = _torch
        return _torch(x, fname, arg)
    if mod.startswith("cupy") and hasattr(x, "data") and hasattr(x, "device"):
        _readers[type(x)] = _cupy
        return _cupy(x, fname, arg)
    if hasattr(x, "__cuda_array_interface__"):
        return _cai(x, fname, arg)
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None and hasattr(x, "__dlpack__"):
        try:
            on_cuda = dev()[0] == _KDLCUDA
        except Exception:  # noqa: BLE001 - a producer that cannot say is not one we can use
            on_cuda = False
        if on_cuda:
            for libname in ("cupy", "torch"):
                try:
                    lib = __import__(libname)
                except ImportError:
                    continue
                return _describe(lib.from_dlpack(x), fname, arg)
            raise TypeError(f"{fname}(): {arg} is a DLPack CUDA array; importing it needs CuPy or PyTorch")
    return None


def empty(like, lib, device, shape, dtype):
    """(array, device pointer) of a new C-contiguous device array of `like`'s library (CuPy for generic
    producers when it is installed, else PyTorch), of numpy dtype `dtype` (None: like's own dtype)."""
    mod = type(like).__module__
    if dtype is None and not (mod.startswith("torch") or mod.startswith("cupy")):
        dtype = describe(like, "result", "like")[3]  # CAI and DLPack-only producers: their dtype as numpy's
    if lib == LIB_TORCH:  # new_empty: like's device (and dtype), no device object built per call
        out = like.new_empty(shape) if dtype is None else like.new_empty(shape, dtype=_numpy_to_torch[dtype])
        return out, out.data_ptr()
    if lib == LIB_CUPY:
        out = sys.modules["cupy"].empty(shape, dtype=like.dtype if dtype is None else dtype)
        return out, out.data.ptr
    try:
        import cupy
        with cupy.cuda.Device(device if device >= 0 else cupy.cuda.runtime.getDevice()):
            out = cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        raise TypeError("a result for a generic CUDA array needs CuPy or PyTorch to hold it") from None
    if not _torch_dtypes:
        _torch_tables(torch)
    out = torch.empty(shape, dtype=_numpy_to_torch[np.dtype(dtype)], device="cuda")
    return out, out.data_ptr()
