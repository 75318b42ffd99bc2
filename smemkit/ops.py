"""The public kernels: NumPy arrays go to the C entry points (host in, host out); CuPy arrays, PyTorch
CUDA tensors and other CUDA arrays go through smemkit._device (zero copy, device in, device out)."""
import numbers

import numpy as np

from . import _C, _device

_DEVICE_NOTE = """
CUDA arrays (CuPy, PyTorch CUDA tensors, objects with __cuda_array_interface__ or a CUDA __dlpack__)
are used where they lie: no host copy, the result is a new array of the same library, and the
kernel is enqueued on that library's current stream without synchronising, like the library's own
operations.
"""


def transpose(a, layout="swizzle"):
    if not isinstance(a, np.ndarray) and _device.is_device_array(a):
        name = _C.LAYOUTS[_C._parse_layout(layout, "transpose")]
        return _device.transpose(a, name)
    return _C.transpose(a, layout)


def sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout="swizzle"):
    if not isinstance(a, np.ndarray) and _device.is_device_array(a):
        name = _C.LAYOUTS[_C._parse_layout(layout, "sgemm")]
        for v, what in ((alpha, "alpha"), (beta, "beta")):
            if not isinstance(v, numbers.Real):
                raise TypeError(f"sgemm(): {what} must be a real number; got {type(v).__name__}")
        return _device.sgemm(a, b, c, float(alpha), float(beta), name)
    return _C.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)


transpose.__doc__ = "transpose(a, layout='swizzle')\n\n" + _C.transpose.__doc__ + "\n" + _DEVICE_NOTE
sgemm.__doc__ = ("sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle')\n\n" + _C.sgemm.__doc__ + "\n"
                 + _DEVICE_NOTE)
