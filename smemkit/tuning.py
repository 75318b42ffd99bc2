"""The measured choices of the SGEMM and the transposes.

SGEMM: on the first automatic call of a shape, the cost model's best few candidates (tile
config x K split, the matrix-vector route's K splits, the tiny-K rows, the narrow-N rows route) are timed on the
call's own operands and stream, and the fastest is kept for every later call of that shape on that device
(csrc/sgemm/tune.cu says how; docs/SGEMM_NOTES.md "Session 48" what it bought).  As Triton's autotuner and
cuBLASLt's algorithm search do, the first call pays for it: it waits for about 2 x candidates + 12 x reps calls of
the shape (measured on an H200 over 80 draws of issue 27's law: 1.6 ms more wall time at the median, 15 ms at p90,
80 ms at most; 12 ms at 2048^3, 86 ms at 4096^3), and later calls are as fast as the winner.  Calls the model
prices over 8 ms and forced configs are not tuned; nor is a stream capturing a CUDA graph, nor (by default) a
process a CUDA tool such as Nsight Compute is injected into: its launches stay the model's, which explain()
predicts.

Transposes (csrc/transpose/tune.cu): where the shipped gates leave a shape's path open -- the tiled kernel's sector
store or not (its size gate was fitted on an H100 and loses on an H200), the flat skinny kernel or the tiled / skinny
one -- the first call of a shape of at least 1 MiB times those paths (seven interleaved rounds, L2 flushed before each
call, as smemkit.bench times) and keeps the fastest per device, shape, strides and the pointers' 32-byte residues.
Every path is bit-exact, so only the time changes.  The first call waits for about 2 x 8 x candidates calls and their
flushes (an H200, the 28 tuned draws among 120 of issue 26's law: 3.2 ms more wall time at the median, 15.5 ms at p90,
34 ms at most).  Not while any transpose knob of smemkit._testing is off its
default (A/Bs and tests run the knobs' own paths), nor under a CUDA tool or a graph capture, as for the SGEMM.

    autotune()              -> bool: whether automatic SGEMM and transpose calls are tuned (the default: True,
                               unless the environment had SMEMKIT_AUTOTUNE=0 at the first call)
    autotune(False)         the model's / the defaults' choice from now on (the cache is kept; autotune(True) uses it)
    autotune_cache(op=None) -> list of dicts: what was timed, per device and shape ("sgemm", "transpose" or both)
    clear_autotune_cache()  forget every winner (the next call of each shape times again)

Every layout of a shape runs the same winner (SGEMM: timed in "swizzle"; transposes: each path timed in "pad" and
"swizzle", its faster one counting), so a layout A/B still compares one kernel.
A shape's result is deterministic within a process; another process may time another SGEMM winner, whose K split
sums in another order (within the same error bound).
"""
from __future__ import annotations

from . import _C

__all__ = ["autotune", "autotune_cache", "clear_autotune_cache"]


def autotune(enabled: bool | None = None) -> bool:
    """autotune(enabled=None) -> bool

    With no argument: whether automatic SGEMM and transpose calls time their candidates on a shape's first call.
    With True / False: switch it on / off for the whole process (every thread and device) and return the new
    state."""
    if enabled is None:
        return _C._autotune() > 0
    if not isinstance(enabled, bool):
        raise TypeError(f"autotune(): enabled must be a bool or None; got {type(enabled).__name__}")
    return _C._autotune(1 if enabled else 0) > 0


_OPS = ("sgemm", "transpose")


def autotune_cache(op: str | None = None) -> list[dict]:
    """autotune_cache(op=None) -> list of dict

    One dict per (device, shape, alignment) timed so far, each with ``op`` ("sgemm" or "transpose"; ``op=`` keeps
    one of them).

    SGEMM: ``device``, ``M``, ``N``, ``K``, ``flags`` (1 A, 2 B, 4 D and C on 16-byte rows, 8 beta != 0), the
    winner's ``config`` ("auto": the model's own choice kept, or the shape was not timed; "gemv/S": the
    matrix-vector route with S K slices; "rows-n/L": the narrow-N rows route; else a tile config of
    ``smemkit.bench_configs("sgemm")``) and ``splits``, ``best_us`` and ``model_us`` (the least per-call device time
    of the winner and of the model's choice, 0 where nothing was timed) and ``timed`` (the candidates).

    Transpose: ``device``, ``rows``, ``cols``, ``batch``, ``esz``, the input's element strides ``in_rs``, ``in_cs``,
    ``in_bs``, the pointers' 32-byte residues ``in_off`` / ``out_off``, the winner's ``sector`` and ``flat`` (the
    levels of the knobs transpose_sector / transpose_flat it ran under), ``best_us`` / ``model_us`` (medians of the
    winner and of the defaults' path, L2 flushed) and ``timed`` (the candidates; 0: pinned or not timed)."""
    if op is not None and op not in _OPS:
        raise ValueError(f"autotune_cache(): op must be None or one of {_OPS}; got {op!r}")
    out = []
    if op in (None, "sgemm"):
        out += sorted(({"op": "sgemm", **e} for e in _C._autotune_cache()),
                      key=lambda e: (e["device"], e["M"], e["N"], e["K"], e["flags"]))
    if op in (None, "transpose"):
        out += sorted(({"op": "transpose", **e} for e in _C._transpose_tune_cache()),
                      key=lambda e: (e["device"], e["rows"], e["cols"], e["batch"], e["esz"], e["in_rs"], e["in_cs"],
                                     e["in_bs"], e["in_off"], e["out_off"]))
    return out


def clear_autotune_cache() -> None:
    """Forget every tuned winner (SGEMM and transposes, all devices): the next automatic call of each shape times its
    candidates again."""
    _C._autotune_clear()
