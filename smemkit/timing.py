"""smemkit.timeit / smemkit.sweep: time any callable the way smemkit.bench times its kernels.

One loop (csrc/bench.c, smk_time_ops_on) times both: warm-up, an L2 flush (a write of twice the L2)
before every timed call, the callables interleaved A B C A B C ... so clock drift hits all of them
alike, two CUDA events around each call on the stream the callables enqueue on, medians and
quantiles.  So ``timeit(lambda: smemkit.transpose(x, out=y))`` and ``bench("transpose", x.shape)``
read the same on the same work, and an A/B against ``x.t().contiguous()`` or your own kernel compares
like with like.

Results are :class:`Table` objects: a list of rows (:class:`Timing` here, BenchResult for bench) that
prints as a text table, shows as an HTML table in a notebook, exports to a list of dicts
(``to_records``) or a pandas DataFrame (``to_pandas``, when pandas is installed) and plots a sweep.
"""
from __future__ import annotations

import html
import math
import numbers
import statistics
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, SupportsIndex, TypeVar, Union, overload

from . import _C

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Table", "Timing", "sweep", "timeit"]

#: What timeit takes: one callable, a list of them, or a dict label -> callable (an A/B).
Fn = Callable[[], object]
Fns = Union[Fn, Sequence[Fn], Mapping[str, Fn]]


class _Row(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def median_ms(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Row)


def quantile(sorted_times: Sequence[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default), on sorted times."""
    i = (len(sorted_times) - 1) * q
    lo, hi = math.floor(i), math.ceil(i)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (i - lo)


def _budget(fname: str, name: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fname}(): {name} must be a number of milliseconds; got {type(v).__name__}")
    if not math.isfinite(v):
        raise ValueError(f"{fname}(): {name} must be finite; got {v}")
    return float(v)


def check_budgets(fname: str, reps: object, warmup_ms: object, rep_ms: object) -> None:
    """The timing budget arguments bench and timeit share: TypeError / ValueError naming fname."""
    if _budget(fname, "warmup_ms", warmup_ms) < 0 or _budget(fname, "rep_ms", rep_ms) <= 0:
        raise ValueError(f"{fname}(): warmup_ms must be >= 0 and rep_ms > 0")
    if reps is not None and (isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= 1000000):
        raise ValueError(f"{fname}(): reps must be an int in [1, 1000000] or None; got {reps!r}")


def calibrate(per_round_ms: float, warmup_ms: float, rep_ms: float) -> tuple[int, int]:
    """(warmup rounds, timed rounds) for a budget, from a probe's median time of one round (every
    callable once): at least 10 timed rounds, at most 100000.  bench and timeit size runs alike."""
    per = max(per_round_ms, 1e-4)
    return math.ceil(warmup_ms / per), max(10, min(100000, math.ceil(rep_ms / per)))


def flush_bytes(flush_l2: bool) -> int:
    """Bytes written before each timed call to evict L2: twice the current device's L2 (0: none)."""
    return 2 * int(_C._device_info()["l2_bytes"]) if flush_l2 else 0


# ---- results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """One callable's timing: device-side milliseconds per call (CUDA events).  ``rate`` is work per
    second in ``unit`` when timeit was told the work (``nbytes``: GB/s, ``flops``: GFLOP/s), else None.
    ``params`` are the sweep point's parameters ({} for a plain timeit)."""
    label: str
    n: int
    median_ms: float
    min_ms: float
    p20_ms: float
    p80_ms: float
    max_ms: float
    mean_ms: float
    times_ms: tuple[float, ...]
    device: str
    rate: float | None = None
    unit: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def from_times(cls, label: str, times_ms: Sequence[float], device: str, work: float | None = None,
                   unit: str | None = None, params: Mapping[str, Any] | None = None) -> Timing:
        t = sorted(float(x) for x in times_ms)
        med = statistics.median(t)
        rate = None if work is None or med <= 0 else work / med / 1e6  # work per ms -> per s, in G
        return cls(label, len(t), med, t[0], quantile(t, 0.2), quantile(t, 0.8), t[-1], statistics.fmean(t),
                   tuple(float(x) for x in times_ms), device, rate, unit if work is not None else None,
                   dict(params or {}))

    def quantile(self, q: float) -> float:
        """The q-quantile of the times (0 <= q <= 1), in milliseconds."""
        if not 0 <= q <= 1:
            raise ValueError(f"Timing.quantile(): q must be in [0, 1]; got {q}")
        return quantile(sorted(self.times_ms), q)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "params"}
        d["times_ms"] = list(self.times_ms)
        d.update(self.params)
        return d

    def __repr__(self) -> str:
        rate = "" if self.rate is None else f", {self.rate:.1f} {self.unit}"
        return (f"<{self.label}: median {self.median_ms:.4f} ms (p20 {self.p20_ms:.4f}, p80 {self.p80_ms:.4f}){rate}, "
                f"n={self.n}, {self.device}>")

    # columns of the text / HTML table: (attribute, header, format)
    _COLUMNS: ClassVar[tuple[tuple[str, str, str], ...]] = (("label", "label", "{}"), ("median_ms", "median ms", "{:.4f}"), ("p20_ms", "p20", "{:.4f}"),
                ("p80_ms", "p80", "{:.4f}"), ("min_ms", "min", "{:.4f}"), ("rate", "rate", "{:.1f}"),
                ("unit", "unit", "{}"), ("n", "n", "{}"))


class Table(list[R], Generic[R]):
    """A list of result rows (Timing from timeit / sweep, BenchResult from bench) that prints as a
    table, shows as one in a notebook (``_repr_html_``), exports with ``to_records()`` /
    ``to_pandas()`` and plots a sweep (``plot``).  ``table["label"]`` is the first row of that label."""

    @overload
    def __getitem__(self, i: SupportsIndex) -> R: ...
    @overload
    def __getitem__(self, i: slice) -> Table[R]: ...
    @overload
    def __getitem__(self, i: str) -> R: ...

    def __getitem__(self, i: SupportsIndex | slice | str) -> R | Table[R]:
        if isinstance(i, str):
            for row in self:
                if row.label == i:
                    return row
            raise KeyError(f"no row labelled {i!r}; labels: {sorted({r.label for r in self})}")
        if isinstance(i, slice):
            return Table(list.__getitem__(self, i))
        return list.__getitem__(self, i)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per row (a sweep's parameters as columns of their own): JSON- and pandas-ready."""
        return [r.to_dict() for r in self]

    def to_pandas(self) -> Any:
        """A pandas DataFrame of to_records() (ImportError saying so without pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Table.to_pandas() needs pandas (pip install pandas); to_records() gives the same "
                              "rows as a list of dicts") from None
        return pd.DataFrame(self.to_records())

    def _cells(self) -> tuple[list[str], list[list[str]]]:
        if not self:
            return [], []
        params: list[str] = []
        for r in self:
            for k in getattr(r, "params", {}):
                if k not in params:
                    params.append(k)
        cols = getattr(type(self[0]), "_COLUMNS", None) or tuple((k, k, "{}") for k in self[0].to_dict())
        head = params + [h for _, h, _ in cols]
        body = []
        for r in self:
            p = getattr(r, "params", {})
            cells = [str(p.get(k, "")) for k in params]
            for attr, _, fmt in cols:
                v = getattr(r, attr, None)
                cells.append("n/a" if v is None else fmt.format("x".join(map(str, v)) if isinstance(v, tuple) else v))
            body.append(cells)
        return head, body

    def __str__(self) -> str:
        head, body = self._cells()
        if not head:
            return "(no results)"
        widths = [max(len(c) for c in col) for col in zip(head, *body)]
        line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                       for i, (c, w) in enumerate(zip(cells, widths)))
        return "\n".join([line(head)] + [line(b) for b in body])

    def _repr_html_(self) -> str:
        head, body = self._cells()
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in b) + "</tr>" for b in body)
        return f"<table><thead><tr>{th}</tr></thead><tbody>{rows}</tbody></table>"

    def plot(self, x: str | None = None, y: str = "median_ms", *, ax: Axes | None = None, logx: bool = True,
             title: str | None = None) -> Axes:
        """Plot `y` (a numeric column: "median_ms", "rate", ...) against sweep parameter `x` (default:
        the first parameter; rows in order without one), one line per label, the p20-p80 band shaded
        for times.  Needs matplotlib.  Returns the Axes."""
        from .plot import _pyplot
        plt = _pyplot()
        recs = self.to_records()
        if not recs:
            raise ValueError("Table.plot(): no rows to plot")
        if x is None:
            params = getattr(self[0], "params", {})
            x = next(iter(params), None)
        if y not in recs[0]:
            raise ValueError(f"Table.plot(): no column {y!r}; columns: {list(recs[0])}")
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        labels: list[str] = []
        for r in self:
            if r.label not in labels:
                labels.append(r.label)
        for lab in labels:
            rows = [(i, rec) for i, (row, rec) in enumerate(zip(self, recs)) if row.label == lab]
            xs = [rec[x] if x is not None else i for i, rec in rows]
            ys = [rec[y] for _, rec in rows]
            ax.plot(xs, ys, marker="o", label=lab)
            if y.endswith("_ms") and all("p20_ms" in rec for _, rec in rows):
                ax.fill_between(xs, [rec["p20_ms"] for _, rec in rows], [rec["p80_ms"] for _, rec in rows], alpha=0.2)
        if logx and x is not None and all(isinstance(rec[x], numbers.Real) and rec[x] > 0 for rec in recs):
            ax.set_xscale("log", base=2)
        unit = recs[0].get("unit") if y == "rate" else "ms" if y.endswith("_ms") else None
        ax.set_xlabel(x or "row")
        ax.set_ylabel(f"{y} ({unit})" if unit else y)
        ax.set_title(title if title is not None else f"{y} on {recs[0].get('device', '')}")
        ax.legend()
        return ax


# ---- timeit -----------------------------------------------------------------------------------------


def _stream_handle(stream: object) -> int:
    """A cudaStream_t as an int: an int as is; a torch.cuda.Stream (.cuda_stream), a CuPy stream
    (.ptr) or any object with __cuda_stream__ (the CUDA stream protocol); None: the current stream of
    PyTorch when it has initialised CUDA, else of CuPy when it is imported, else 0 (legacy default)."""
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is not None and getattr(torch, "cuda", None) is not None and torch.cuda.is_initialized():
            return int(torch.cuda.current_stream().cuda_stream)
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            return int(cupy.cuda.get_current_stream().ptr)
        return 0
    if isinstance(stream, bool):
        raise TypeError("timeit(): stream must be None, an int handle or a stream object; got bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"timeit(): stream handle must be >= 0; got {stream}")
        return stream
    if hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()
        return int(handle[1] if isinstance(handle, tuple) else handle)
    for attr in ("cuda_stream", "ptr"):
        v = getattr(stream, attr, None)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    raise TypeError(f"timeit(): stream must be None, an int handle, a torch.cuda.Stream, a CuPy stream or an object "
                    f"with __cuda_stream__; got {type(stream).__name__}")


def _fns(fname: str, fn: object) -> list[tuple[str, Fn]]:
    if callable(fn):
        return [(getattr(fn, "__name__", type(fn).__name__), fn)]
    if isinstance(fn, Mapping):
        items = list(fn.items())
        for k, f in items:
            if not isinstance(k, str):
                raise TypeError(f"{fname}(): labels must be str; got {type(k).__name__}")
    elif isinstance(fn, Sequence) and not isinstance(fn, (str, bytes)):
        items = [(getattr(f, "__name__", type(f).__name__), f) for f in fn]
    else:
        raise TypeError(f"{fname}(): fn must be a callable, a list of callables or a dict label -> callable; got "
                        f"{type(fn).__name__}")
    if not 1 <= len(items) <= 64:
        raise ValueError(f"{fname}(): between 1 and 64 callables; got {len(items)}")
    for k, f in items:
        if not callable(f):
            raise TypeError(f"{fname}(): {k!r} is not callable ({type(f).__name__})")
    return items


def _work(fname: str, nbytes: float | None, flops: float | None) -> tuple[float | None, str | None]:
    if nbytes is not None and flops is not None:
        raise ValueError(f"{fname}(): give nbytes or flops, not both")
    for name, v in (("nbytes", nbytes), ("flops", flops)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v < 0):
            raise ValueError(f"{fname}(): {name} must be a finite number >= 0; got {v!r}")
    if nbytes is not None:
        return float(nbytes), "GB/s"
    if flops is not None:
        return float(flops), "GFLOP/s"
    return None, None


def timeit(fn: Fns, *, reps: int | None = None, warmup_ms: float = 25, rep_ms: float = 100, flush_l2: bool = True,
           stream: object = None, nbytes: float | None = None, flops: float | None = None,
           params: Mapping[str, Any] | None = None) -> Table[Timing]:
    """timeit(fn, *, reps=None, warmup_ms=25, rep_ms=100, flush_l2=True, stream=None, nbytes=None, flops=None, params=None) -> Table[Timing]

    Time GPU work enqueued by ``fn`` -- a callable taking no arguments, a list of them, or a dict
    label -> callable to A/B (interleaved A B A B ...) -- with smemkit.bench's loop: CUDA events
    around each call on ``stream`` (None: PyTorch's current stream when torch has initialised CUDA,
    else CuPy's, else the legacy default stream; or an int handle, a torch / CuPy stream object), an
    L2 flush before each timed call (``flush_l2``), warm-up.  ``reps`` fixes the timed calls per
    callable; otherwise ``warmup_ms`` / ``rep_ms`` are budgets (at least 10 calls) sized from a short
    probe, as bench does.  ``nbytes`` / ``flops``: the work of one call, to report GB/s / GFLOP/s.
    ``params``: columns to attach to every row (sweep uses it).

    Always returns a :class:`Table` of :class:`Timing`, one row per callable in order.  The times are
    device time between the events: what the callable enqueues, plus any gap while the GPU waits for
    the host to enqueue it (a callable that synchronises, or host work too slow to keep the GPU busy,
    shows up as such).  Raises CudaError without a GPU; a callable's exception stops the run and
    propagates.
    """
    items = _fns("timeit", fn)
    check_budgets("timeit", reps, warmup_ms, rep_ms)
    work, unit = _work("timeit", nbytes, flops)
    if not isinstance(flush_l2, bool):
        raise TypeError(f"timeit(): flush_l2 must be a bool; got {type(flush_l2).__name__}")
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"timeit(): params must be a mapping; got {type(params).__name__}")
    handle = _stream_handle(stream)
    calls = [f for _, f in items]
    flush = flush_bytes(flush_l2)  # raises CudaError without a GPU, before anything is called
    if reps is None:  # a short probe sizes the warm-up and the repetitions, as in bench()
        probe = _C._time_calls(calls, stream=handle, warmup=1, reps=3, flush_bytes=0)
        warmup, reps = calibrate(sum(statistics.median(t) for t in probe), float(warmup_ms), float(rep_ms))
    else:
        warmup = max(1, reps // 10)
    times = _C._time_calls(calls, stream=handle, warmup=warmup, reps=reps, flush_bytes=flush)
    device = _C.device_name()
    return Table(Timing.from_times(label, t, device, work, unit, params) for (label, _), t in zip(items, times))


def progress(i: int, n: int, label: str, out: Any = None) -> None:
    """A one-line progress bar on stderr: [#####.....] i/n label (a newline when i == n)."""
    out = sys.stderr if out is None else out
    width = 30
    done = int(width * i / max(n, 1))
    out.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {label:<28}")
    if i == n:
        out.write("\n")
    out.flush()


def sweep(make: Callable[..., Fns], grid: Iterable[Any], *, name: str = "size",
          nbytes: float | Callable[..., float] | None = None, flops: float | Callable[..., float] | None = None,
          show_progress: bool = True, **timeit_kw: Any) -> Table[Timing]:
    """sweep(make, grid, *, name="size", nbytes=None, flops=None, show_progress=True, **timeit_kw) -> Table[Timing]

    For each point of ``grid`` build the work with ``make`` and time it with :func:`timeit`: a point
    that is a dict is passed as keyword arguments (``make(**point)``), anything else as one argument
    (``make(point)``, recorded under ``name``).  ``make`` returns what timeit takes -- a callable, a
    list, or a dict label -> callable to A/B at every point -- so inputs are allocated outside the
    timed calls.  ``nbytes`` / ``flops`` may be functions of the point, like ``make``.  A progress bar
    goes to stderr (``show_progress``).  Returns one Table of every row, each with the point's
    parameters as columns: ``.plot()`` draws the sweep, ``.to_pandas()`` exports it.
    """
    if not callable(make):
        raise TypeError(f"sweep(): make must be a callable returning what timeit takes; got {type(make).__name__}")
    points = list(grid)
    if not points:
        raise ValueError("sweep(): grid is empty")
    if not isinstance(name, str):
        raise TypeError(f"sweep(): name must be a str; got {type(name).__name__}")

    def at(v: Any, p: Any) -> Any:
        if callable(v):
            return v(**p) if isinstance(p, Mapping) else v(p)
        return v

    out: Table[Timing] = Table()
    for i, p in enumerate(points):
        params = dict(p) if isinstance(p, Mapping) else {name: p}
        if show_progress:
            progress(i, len(points), ", ".join(f"{k}={v}" for k, v in params.items()))
        fns = make(**p) if isinstance(p, Mapping) else make(p)
        out.extend(timeit(fns, nbytes=at(nbytes, p), flops=at(flops, p), params=params, **timeit_kw))
    if show_progress:
        progress(len(points), len(points), "done")
    return out

