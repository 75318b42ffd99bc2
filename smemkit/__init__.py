"""smemkit: see, measure and remove GPU shared-memory bank conflicts.

Kernels (need a CUDA GPU):
    transpose(a, layout="swizzle")       bit-exact a.T, tiled through shared memory
    matrix_transpose(a, layout="swizzle")  bit-exact a.mT (the last two axes of a stack of matrices)
    sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout="swizzle")   warp-tiled float32 GEMM
    gemm(a, b, c=None, *, ..., out_dtype=None)  float32 -> sgemm; float16 / bfloat16 -> tensor cores
                                         (ldmatrix + mma.sync), layout may be a Swizzle

Layout maps (CPU, the same code the kernels use, from csrc/layout.h):
    LAYOUTS                              ("naive", "pad", "swizzle")
    tile_offsets(layout, rows, cols, ...)  where each logical element of a tile is stored
    bank_map(layout, rows, cols, ...)    the bank of each logical element
    Swizzle(b, m, s)                     CuTe's Swizzle<B,M,S> on offsets
    plot_bank_map(layout, ...)           the tile coloured by bank (needs matplotlib)
    bank_model.wavefronts(addresses, width, kind)   wavefronts of one warp access, as ncu counts
    explain(op, shape, layout)           every shared-memory access of a kernel, predicted

Timing (GPU), one loop for both (csrc/bench.c: events, warm-up, L2 flush, interleaving, medians):
    bench(op, shape, layout=None, ...)   smemkit's kernels beside their ceiling -> BenchTable of BenchResult
    timeit(fn or {label: fn}, ...)       any callable (your kernel, x.t().contiguous()) -> Table of Timing
    sweep(make, grid, ...)               timeit over a grid, with a progress bar; Table.plot() draws it
    Tables print as text, show as HTML in a notebook, export with to_records() / to_pandas().
    is_available()                       a GPU is usable (for pytest skipif and notebook guards)
    autotune(enabled=None)               SGEMM calls time the model's best few candidates on a shape's first
                                         call and keep the fastest; transposes time the paths the shipped gates
                                         leave open (on by default; smemkit.tuning says more)
    autotune_cache(), clear_autotune_cache()   what was timed, per device and shape; forget it
CuPy arrays and PyTorch CUDA tensors are accepted as well, zero copy (device in, device out).

Every GPU failure is a smemkit.CudaError (a RuntimeError with .status); device out-of-memory is a
MemoryError naming the bytes.
"""
from ._C import (
    LAYOUTS,
    CudaError,
    device_count,
    device_name,
    empty_cache,
)
from . import bank_model
from .bench import BenchResult, BenchTable, bench, bench_configs, format_table
from .explain import explain
from .ops import gemm, matrix_transpose, sgemm, transpose
from .layouts import Layout, Swizzle, bank_map, tile_offsets
from .plot import plot_bank_map
from .timing import Table, Timing, sweep, timeit
from .tuning import autotune, autotune_cache, clear_autotune_cache

__version__ = "0.1.0"

__all__ = [
    "BenchResult",
    "BenchTable",
    "LAYOUTS",
    "CudaError",
    "Layout",
    "Swizzle",
    "autotune",
    "autotune_cache",
    "bank_map",
    "bank_model",
    "bench",
    "bench_configs",
    "clear_autotune_cache",
    "device_count",
    "device_name",
    "empty_cache",
    "explain",
    "format_table",
    "gemm",
    "is_available",
    "matrix_transpose",
    "plot_bank_map",
    "sgemm",
    "sweep",
    "Table",
    "tile_offsets",
    "timeit",
    "Timing",
    "transpose",
]


def is_available() -> bool:
    """True when a CUDA device is visible (never raises, never needs a driver): the guard for GPU
    code, e.g. ``pytest.mark.skipif(not smemkit.is_available(), reason="needs a GPU")``."""
    return device_count() > 0
