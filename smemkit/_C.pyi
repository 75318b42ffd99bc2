"""Type stub of smemkit._C (csrc/module.c).

Each signature is the one in the C docstring's first line (its __text_signature__), with the same
parameter names, kinds and defaults: tests/test_packaging.py compares the two and names the line to
update when module.c changes.  Functions parsed with METH_VARARGS take their arguments positionally
only, although their text signatures (and therefore these stubs) do not say so.
"""
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

_Layout = Literal["naive", "pad", "swizzle"]
_Kind = Literal["load", "store"]

LAYOUTS: Final[tuple[str, str, str]]

class CudaError(RuntimeError):
    """A CUDA runtime failure; the message reads 'cudaErrorName: text'."""

    status: int

# ---- kernels on NumPy arrays ----------------------------------------------------------------------
def transpose(a: np.ndarray, layout: _Layout | None = 'swizzle') -> np.ndarray: ...
def sgemm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    layout: _Layout | None = 'swizzle',
) -> npt.NDArray[np.float32]: ...

# ---- kernels on device pointers (CuPy / PyTorch / CUDA array interface; smemkit/_device.py) --------
def _transpose_ptr(
    src: int,
    dst: int,
    rows: int,
    cols: int,
    row_stride: int,
    col_stride: int,
    itemsize: int,
    layout: _Layout | None,
    stream: int,
    device: int = -1,
) -> None: ...
def _sgemm_ptr(
    a: int,
    lda: int,
    b: int,
    ldb: int,
    c: int,
    ldc: int,
    d: int,
    ldd: int,
    M: int,
    N: int,
    K: int,
    alpha: float,
    beta: float,
    layout: _Layout | None,
    stream: int,
    device: int = -1,
) -> None: ...
def _parse_layout(layout: _Layout | None, fname: str) -> int: ...

# ---- layout maps and the bank model (CPU) ---------------------------------------------------------
def _tile_offsets(
    layout: _Layout | None, rows: int, cols: int, vec: int = 1, itemsize: int = 4
) -> tuple[npt.NDArray[np.int64], int]: ...
def _tile_swizzle(cols: int, vec: int = 1, itemsize: int = 4) -> tuple[int, int, int]: ...
def _swizzle(offsets: npt.ArrayLike, b: int, m: int, s: int) -> npt.NDArray[np.int64]: ...
def _bank_replay(
    addresses: npt.ArrayLike, width: int, kind: _Kind
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]: ...
def _bank_rule(width: int, kind: _Kind) -> tuple[int, int]: ...
def _plan(
    op: Literal["transpose", "sgemm"],
    shape: tuple[int, ...],
    layout: _Layout | None,
    itemsize: int = 4,
    sms: int = 132,
) -> dict[str, Any]: ...

# ---- device and runtime ----------------------------------------------------------------------------
def device_count() -> int: ...
def device_name() -> str: ...
def _device_info() -> dict[str, Any]: ...
def empty_cache() -> None: ...
def _mem_info() -> tuple[int, int]: ...
def _set_host_mode(mode: Literal[-1, 0, 1, 2]) -> None: ...
def _set_poison(on: object) -> None: ...
def _debug_fault() -> None: ...

# ---- timing ----------------------------------------------------------------------------------------
def _bench(
    op: Literal["transpose", "sgemm"],
    shape: tuple[int, ...],
    layouts: list[str] | tuple[str, ...],
    *,
    itemsize: int = 4,
    variant: int = 0,
    ceiling: bool = True,
    warmup: int = 10,
    reps: int = 50,
    flush_bytes: int = 0,
) -> dict[str, Any]: ...
def _transpose_variants() -> list[tuple[int, int]]: ...
