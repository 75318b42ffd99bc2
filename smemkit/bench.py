"""smemkit.bench: honest device-side A/B timing of the layouts.

Device-resident random data, CUDA events, warm-up, L2 flushed before every timed launch, the layouts
(and the ceiling) interleaved A B C ceiling A B C ... so clock drift hits all of them alike, medians.
The ceiling is measured in the same run: cudaMemcpy device-to-device of the same bytes for the
transpose, cuBLAS fp32 SGEMM (loaded at run time; 'n/a' without it) for SGEMM.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Union

import numpy.typing as npt

from . import _C, _wgmma_plan
from .explain import _DTYPES, check_op_args, explain
from .layouts import Layout, Swizzle
from .timing import Table, calibrate, check_budgets, flush_bytes, quantile

__all__ = ["BenchResult", "BenchTable", "bench", "bench_configs", "format_table"]

Op = Literal["transpose", "sgemm", "gemm"]

_ITEMSIZE = _DTYPES  # the dtypes each kernel is timed in, and their sizes


@dataclass(frozen=True)
class BenchResult:
    """One layout's timing.  Times in milliseconds; rate in GB/s (transpose: bytes read + written) or
    GFLOP/s (sgemm: 2*M*N*K); ceiling in the same unit, None when unavailable ('n/a')."""
    op: str
    layout: str
    shape: tuple[int, ...]
    dtype: str
    n: int
    median_ms: float
    min_ms: float
    p20_ms: float
    p80_ms: float
    times_ms: tuple[float, ...]
    rate: float
    unit: str
    ceiling_name: str
    ceiling: float | None
    ratio: float | None  # rate / ceiling
    device: str
    predicted_wavefronts: int
    predicted_excess: int
    config: str = "shipped"

    _COLUMNS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("op", "op", "{}"), ("shape", "shape", "{}"), ("layout", "layout", "{}"), ("median_ms", "median ms", "{:.4f}"),
        ("p20_ms", "p20", "{:.4f}"), ("p80_ms", "p80", "{:.4f}"), ("rate", "rate", "{:.0f}"), ("unit", "unit", "{}"),
        ("ratio", "of ceiling", "{:.1%}"), ("ceiling_name", "ceiling", "{}"),
        ("predicted_wavefronts", "pred. wavefronts", "{}"), ("predicted_excess", "excess", "{}"))

    @property
    def label(self) -> str:
        """The row's series in a Table (its layout): Table.plot draws one line per label."""
        return self.layout

    @property
    def gbps(self) -> float | None:
        return self.rate if self.unit == "GB/s" else None

    @property
    def gflops(self) -> float | None:
        return self.rate if self.unit == "GFLOP/s" else None

    def __repr__(self) -> str:
        ceil = "n/a" if self.ceiling is None else f"{self.ratio:.1%} of {self.ceiling_name} {self.ceiling:.0f}"
        return (f"<{self.op} {'x'.join(map(str, self.shape))} {self.dtype} {self.layout}: median "
                f"{self.median_ms:.4f} ms ({self.rate:.0f} {self.unit}, {ceil}), n={self.n}, "
                f"predicted wavefronts {self.predicted_wavefronts} (excess {self.predicted_excess}), "
                f"{self.device}>")

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["shape"], d["times_ms"] = list(self.shape), list(self.times_ms)
        return d


#: What bench() returns: a Table (a list) of BenchResult, one row per layout timed.
BenchTable = Table[BenchResult]


def format_table(results: BenchResult | Iterable[BenchResult]) -> str:
    """A text table of BenchResults (one row each), the ceiling's own row after each op/shape group.
    Takes what bench() returns, a list of its rows or one BenchResult."""
    if isinstance(results, BenchResult):
        results = [results]
    results = list(results) if isinstance(results, Iterable) and not isinstance(results, (str, bytes)) else results
    if not isinstance(results, list) or not all(isinstance(r, BenchResult) for r in results):
        raise TypeError("format_table(): results must be a BenchResult or a list of them (what bench() returns)")
    rows = [f"{'op':<10}{'shape':<17}{'layout':<9}{'median ms':>11}{'p20':>9}{'p80':>9}{'rate':>10} "
            f"{'unit':<8}{'of ceiling':>11}  {'pred. wavefronts':>17}{'excess':>12}"]
    for r in results:
        ratio = "n/a" if r.ratio is None else f"{r.ratio:.1%}"
        rows.append(f"{r.op:<10}{'x'.join(map(str, r.shape)):<17}{r.layout:<9}{r.median_ms:>11.4f}"
                    f"{r.p20_ms:>9.4f}{r.p80_ms:>9.4f}{r.rate:>10.0f} {r.unit:<8}{ratio:>11}  "
                    f"{r.predicted_wavefronts:>17}{r.predicted_excess:>12}")
    seen = []
    for r in results:
        key = (r.op, r.shape, r.ceiling_name)
        if key not in seen:
            seen.append(key)
            c = "n/a" if r.ceiling is None else f"{r.ceiling:.0f} {r.unit}"
            kernels = ", ".join(f"{q.layout} on {q.config.rsplit('[', 1)[1].rstrip(']')}" for q in results
                                if (q.op, q.shape, q.ceiling_name) == key and q.config.endswith("]"))
            rows.append(f"{r.op:<10}{'x'.join(map(str, r.shape)):<17}ceiling: {r.ceiling_name} = {c}"
                        + (f"; kernels: {kernels}" if kernels else ""))
    return "\n".join(rows)


def bench_configs(op: str) -> list[str]:
    """bench_configs(op) -> list of str: the tile configurations of `op` compiled into this build, for
    ``bench(..., config=...)``.  Index 0 is what the op ships ("auto" for sgemm: chosen per shape
    and SM count).  SGEMM's candidate tiles are compiled in only with SMEMKIT_SGEMM_CANDIDATES=1."""
    if not isinstance(op, str) or op not in _ITEMSIZE:
        raise ValueError(f"bench_configs(): op must be 'transpose', 'sgemm' or 'gemm'; got {op!r}")
    if op in ("sgemm", "gemm"):
        return [str(c) for c in _C._configs(op)]
    # (0, 0): the skinny kernel (csrc/transpose/skinny.cuh), whose tile follows the shape; a third field
    # "strip": the strip kernel (csrc/transpose/strip.cuh) of that tile
    return ["shipped"] + [("strip " if c[2:] else "") + f"{c[0]}x{c[0]}/{c[0]}x{c[1]}" if c[0] else "skinny"
                          for c in _C._configs("transpose")[1:]]


def _config_index(op: str, config: str | int | None) -> int:
    if config is None:
        return 0
    names = bench_configs(op)
    if isinstance(config, str) and config in names:
        return names.index(config)
    if isinstance(config, (int,)) and not isinstance(config, bool) and 0 <= config < len(names):
        return config
    raise ValueError(f"bench(): no {op} config {config!r}; this build has {names}")


def _shape(op: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    if op in ("sgemm", "gemm") and len(shape) != 3:
        raise ValueError(f"bench(): {op} shape must be (M, N, K); got {shape}")
    if op == "transpose" and len(shape) not in (2, 3):
        raise ValueError(f"bench(): transpose shape must be (rows, cols) or (batch, rows, cols); got {shape}")
    return shape


def bench(op: Op, shape: Sequence[int], *, layout: Layout | Swizzle | Sequence[Layout | Swizzle] | None = None,
          dtype: npt.DTypeLike | None = None, config: str | int | None = None, splits: int | None = None,
          reps: int | None = None, warmup_ms: float = 25, rep_ms: float = 100, flush_l2: bool = True) -> BenchTable:
    """bench(op, shape, *, layout=None, dtype=None, config=None, splits=None, reps=None, warmup_ms=25, rep_ms=100, flush_l2=True)

    Time smemkit's kernel `op` ("transpose" with shape (rows, cols) or (batch, rows, cols) -- the
    kernel of transpose / matrix_transpose --, "sgemm" with (M, N, K), "gemm" -- the tensor-core
    GEMM, float16 or bfloat16 -- with (M, N, K)) on the GPU, beside its ceiling measured in the same
    run (cudaMemcpy D2D of the same bytes / cuBLAS fp32 / cuBLAS GemmEx of the same precision with
    fp32 accumulation).  ``dtype`` None: float32 (float16 for gemm).  ``layout`` None times all three
    layouts interleaved; a layout (for gemm also a smemkit.Swizzle the kernel instantiates, e.g. the
    article's Swizzle(2, 3, 2)) times that one; a list times those.  Always returns a BenchTable (a
    smemkit.Table, i.e. a list, of BenchResult: one row per layout, in order -- ``[0]`` for one;
    ``table["pad"]`` by layout; prints as a table; ``to_records()`` / ``to_pandas()``).
    ``config`` forces a tile configuration (a name or index of ``bench_configs(op)``; None: what the op
    ships); ``splits`` forces SGEMM's K slices (None: chosen per shape, see ``_C._sgemm_choose``).  ``reps`` fixes the number of timed repetitions; otherwise ``warmup_ms`` / ``rep_ms`` are
    budgets in milliseconds (at least 10 repetitions).  This is the one timing path: every figure in
    docs/RESULTS.md comes from it.  Raises CudaError without a GPU.
    """
    if dtype is None:
        dtype = "float16" if op == "gemm" else "float32"
    op, dtype, shape = check_op_args("bench", op, dtype, shape, _ITEMSIZE)
    single = isinstance(layout, (str, Swizzle))
    if not (single or layout is None or isinstance(layout, (list, tuple))):
        raise TypeError(f"bench(): layout must be None, a layout name or a list of them; got {type(layout).__name__}")
    layouts = [layout] if single else list(_C.LAYOUTS if layout is None else layout)
    for name in layouts:
        if isinstance(name, Swizzle) and op == "gemm":
            continue  # checked against the compiled swizzles in C
        if not isinstance(name, str):
            raise TypeError(f"bench(): layout must be a str, one of 'naive', 'pad', 'swizzle'; got "
                            f"{type(name).__name__}")
        if name not in _C.LAYOUTS:
            raise ValueError(f"bench(): unknown layout {name!r}; expected one of 'naive', 'pad', 'swizzle'")
    check_budgets("bench", reps, warmup_ms, rep_ms)
    shape = _shape(op, shape)
    cfg = _config_index(op, config)
    if splits is not None and (op != "sgemm" or isinstance(splits, bool) or not isinstance(splits, int)
                               or not 1 <= splits <= 65535):
        raise ValueError(f"bench(): splits must be None or an int in [1, 65535] (sgemm only); got {splits!r}")
    nsplit = splits or 0
    cshape = (shape[1], shape[2], shape[0]) if op == "transpose" and len(shape) == 3 else shape
    itemsize = _ITEMSIZE[op][dtype]
    kw = dict(itemsize=itemsize, config=cfg, splits=nsplit, **({"dtype": dtype} if op == "gemm" else {}))
    # every argument is checked (in C: the shape's ranges and bytes) before the device is touched
    _C._bench(op, cshape, layouts, reps=reps or 10, check_only=True, **kw)
    info = _C._device_info()
    flush = flush_bytes(flush_l2)
    if reps is None:  # calibrate: a few launches of each to size the warm-up and the repetitions
        probe = _C._bench(op, cshape, layouts, warmup=1, reps=3, flush_bytes=0, **kw)
        assert probe is not None
        warmup, reps = calibrate(sum(statistics.median(t) for t in probe["times"].values()), warmup_ms, rep_ms)
    else:
        warmup = max(1, reps // 10)
    run = _C._bench(op, cshape, layouts, warmup=warmup, reps=reps, flush_bytes=flush, **kw)
    assert run is not None
    work = (2 * math.prod(shape) * itemsize / 1e6) if op == "transpose" else (2 * math.prod(shape) / 1e6)
    unit = "GB/s" if op == "transpose" else "GFLOP/s"
    ceiling_name = run["ceiling"] or "n/a"
    ceiling = None
    if run["ceiling"]:
        ceiling = work / statistics.median(run["times"][run["ceiling"]])
    if op != "transpose" and not run["ceiling"]:
        ceiling_name = f"cuBLAS n/a ({run['ceiling_why']})"
    results: BenchTable = Table()
    for layout_obj in layouts:
        name = repr(layout_obj) if isinstance(layout_obj, Swizzle) else layout_obj
        t = sorted(run["times"][name])
        med = statistics.median(t)
        rate = work / med
        kern = _wgmma_plan.kernel_for(shape, layout_obj, cc=info["cc"], sms=info["sms"], variant=cfg) \
            if op == "gemm" else None  # the rule smk_gemm16_launch applies, for bench's dense aligned buffers
        e = explain(op, shape if op != "transpose" else shape[-2:], layout_obj, dtype, sms=info["sms"],
                    **({"config": cfg, "splits": nsplit} if op == "sgemm" else
                       {"config": cfg, "kernel": kern} if op == "gemm" else {}))
        batch = shape[0] if op == "transpose" and len(shape) == 3 else 1
        results.append(BenchResult(op, name, shape, dtype, len(t), med, t[0], quantile(t, 0.2), quantile(t, 0.8),
                                   tuple(run["times"][name]), rate, unit,
                                   "cudaMemcpy D2D" if run["ceiling"] == "copy" else
                                   ((f"cuBLAS {dtype}" if op == "gemm" else "cuBLAS fp32") if run["ceiling"]
                                    else ceiling_name),
                                   ceiling, None if ceiling is None else rate / ceiling, info["name"],
                                   e.total() * batch, e.total(what="excess") * batch,
                                   bench_configs(op)[cfg] + (f" [{kern}]" if kern else "")))
    return results
