"""Type stub of smemkit._C (csrc/module.c).

Each signature is the one in the C docstring's first line (its __text_signature__), with the same
parameter names, kinds and defaults: tests/test_packaging.py compares the two and names the line to
update when module.c / module_tools.c change.  Functions parsed with METH_VARARGS say "/" (positional
only) in their text signatures, and so do these stubs.
"""
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

_Layout = Literal["naive", "pad", "swizzle"]
_Kind = Literal["load", "store"]

# each item a _Layout, so that `for l in LAYOUTS: transpose(a, layout=l)` type-checks
LAYOUTS: Final[tuple[_Layout, _Layout, _Layout]]

class CudaError(RuntimeError):
    """A CUDA runtime failure; the message reads 'cudaErrorName: text'."""

    status: int

# ---- kernels: NumPy arrays or CUDA arrays (CuPy, PyTorch, __cuda_array_interface__, DLPack) ------
_Array = Any  # numpy.ndarray, or a CUDA array (the result is then of the same library)

def transpose(a: _Array, layout: _Layout | None = 'swizzle', *, out: _Array | None = None) -> _Array: ...
def matrix_transpose(a: _Array, layout: _Layout | None = 'swizzle', *, out: _Array | None = None) -> _Array: ...
def sgemm(
    a: _Array,
    b: _Array,
    c: _Array | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    layout: _Layout | None = 'swizzle',
    out: _Array | None = None,
) -> _Array: ...

def gemm(
    a: _Array,
    b: _Array,
    c: _Array | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    layout: _Layout | Any | None = 'swizzle',
    out_dtype: Any = None,
    out: _Array | None = None,
) -> _Array: ...

# ---- layout maps and the bank model (CPU) ---------------------------------------------------------
def _tile_offsets(
    layout: _Layout | None, rows: int, cols: int, vec: int = 1, itemsize: int = 4, *, fname: str = 'tile_offsets'
) -> tuple[npt.NDArray[np.int64], int]: ...
def _tile_swizzle(cols: int, vec: int = 1, itemsize: int = 4) -> tuple[int, int, int]: ...
def _swizzle(offsets: npt.ArrayLike, b: int, m: int, s: int, /) -> npt.NDArray[np.int64]: ...
def _bank_replay(
    addresses: npt.NDArray[np.int64], width: int, kind: _Kind, instr: str = 'ldst',
    sources: npt.NDArray[np.int64] | None = None, /
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]: ...
def _bank_rule(width: int, kind: _Kind, /) -> tuple[int, int]: ...
def _plan(
    op: Literal["transpose", "sgemm", "gemm"],
    shape: tuple[int, ...],
    layout: _Layout | None,
    itemsize: int = 4,
    sms: int = 132,
    config: int = 0,
    splits: int = 0,
    *,
    swizzle: tuple[int, int, int] | None = None,
    batch: int = 1,
) -> dict[str, Any]: ...
def _sgemm_choose(M: int, N: int, K: int, sms: int, /) -> tuple[str, int]: ...
def _sgemm_fixup_gate(M: int, N: int, S: int, config: int, knob: int, /) -> int: ...
def _sgemm_epi_gate(M: int, N: int, K: int, rows: int, config: int, knob: int, /) -> int: ...
def _sgemm_deep_gate(M: int, N: int, K: int, splits: int, config: int, sms: int, knob: int, /) -> int: ...
def _gemm16_fixup_gate(M: int, N: int, S: int, variant: int, knob: int, /) -> int: ...
def _wgmma_mode(layout: int, b: int, m: int, s: int, /) -> int: ...
def _wgmma_launches() -> int: ...
def _wgmma_descs(swb: int, /) -> tuple[int, ...]: ...
def _sgemm_tune_candidates(M: int, N: int, K: int, sms: int, layout: int, /) -> list[tuple[str, int, float]]: ...
def _autotune(level: int | None = None, /) -> int: ...
def _autotune_cache() -> list[dict[str, Any]]: ...
def _autotune_clear() -> None: ...
def _autotune_pin(M: int, N: int, K: int, config: int, splits: int, flags: int = -1, /) -> None: ...
def _transpose_tune_candidates(rows: int, cols: int, esz: int, in_rs: int, in_cs: int, batch: int, in_bs: int,
                               in_off: int, out_off: int, /) -> list[tuple[int, int]]: ...
def _transpose_tune_pin(rows: int, cols: int, esz: int, sector: int, flat: int, in_rs: int, in_cs: int, batch: int,
                        in_bs: int, in_off: int, out_off: int, /) -> None: ...
def _transpose_tune_cache() -> list[dict[str, Any]]: ...
def _transpose_raster_group(rows: int, cols: int, esz: int, batch: int = 1, variant: int = 0, /) -> int: ...
def _sgemm_pad_choice(M: int, N: int, K: int, sms: int, a_aligned: bool, b_aligned: bool, dc_aligned: bool,
                      /) -> int: ...
def _gemm16_kernel_for(knob: int, variant: int, M: int, N: int, K: int, layout: int, b: int, m: int, s: int,
                       rows_aligned: int, cc_major: int, cc_minor: int, sms: int, b_rows_aligned: int = -1,
                       /) -> int: ...

# ---- device and runtime ----------------------------------------------------------------------------
def device_count() -> int: ...
def device_name() -> str: ...
def _device_info() -> dict[str, Any]: ...
def empty_cache() -> None: ...
def _mem_info() -> tuple[int, int]: ...
def _set_knob(name: Literal["poison", "host_mode", "staging_cap_mib", "sgemm_config", "sgemm_splits",
                                    "transpose_odd_path", "transpose_skinny", "transpose_group", "transpose_sector", "transpose_mid", "transpose_shift", "transpose_copy", "transpose_flat", "transpose_gather", "transpose_tune",
                                    "gemm16_variant", "gemm16_matvec",
                                    "gemm16_mv_kmax", "gemm16_mv_v16", "gemm16_mv_skinny", "gemm16_mv_level",
                                    "gemm16_kernel", "gemm16_epi", "sgemm_new_paths", "sgemm_epi", "sgemm_deep", "sgemm_tinyk", "pdl",
                                    "splitk_fixup", "splitk_fence", "gemm16_staged",
                                    "gemm16_shortk", "gemm16_small", "gemm16_narrow_async", "gemm16_pick", "sgemm_narrow", "sgemm_redchain", "sgemm_gemv",
                                    "sgemm_rows_n", "sgemm_model"], value: int, /) -> None: ...
def _staging_info() -> dict[str, int]: ...
def _debug_fault() -> None: ...

# ---- timing ----------------------------------------------------------------------------------------
def _bench(
    op: Literal["transpose", "sgemm", "gemm"],
    shape: tuple[int, ...],
    layouts: list[Any] | tuple[Any, ...],
    *,
    itemsize: int = 4,
    config: int = 0,
    splits: int = 0,
    ceiling: bool = True,
    warmup: int = 10,
    reps: int = 50,
    flush_bytes: int = 0,
    check_only: bool = False,
    dtype: str | None = None,
) -> dict[str, Any] | None: ...
def _configs(op: Literal["transpose", "sgemm", "gemm"], /) -> list[Any]: ...
def _time_calls(
    fns: Sequence[Callable[[], object]], /, *, stream: int = 0, warmup: int = 1, reps: int = 10, flush_bytes: int = 0
) -> list[list[float]]: ...
