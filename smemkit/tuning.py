"""The SGEMM's measured choice: on the first automatic call of a shape, the cost model's best few candidates (tile
config x K split, the matrix-vector route's K splits, the tiny-K rows, the narrow-N rows route) are timed on the
call's own operands and stream, and the fastest is kept for every later call of that shape on that device
(csrc/sgemm/tune.cu says how; docs/SGEMM_NOTES.md "Session 48" what it bought).  As Triton's autotuner and
cuBLASLt's algorithm search do, the first call pays for it: it waits for about 2 x candidates + 12 x reps calls of
the shape (measured on an H200 over 80 draws of issue 27's law: 1.6 ms more wall time at the median, 15 ms at p90,
80 ms at most; 12 ms at 2048^3, 86 ms at 4096^3), and later calls are as fast as the winner.  Calls the model
prices over 8 ms and forced configs are not tuned; nor is a stream capturing a CUDA graph, nor (by default) a
process a CUDA tool such as Nsight Compute is injected into: its launches stay the model's, which explain()
predicts.

    autotune()              -> bool: whether automatic SGEMM calls are tuned (the default: True, unless the
                               environment had SMEMKIT_AUTOTUNE=0 at the first SGEMM)
    autotune(False)         the model's choice from now on (the cache is kept; autotune(True) uses it again)
    autotune_cache()        -> list of dicts: what was timed, per device and shape
    clear_autotune_cache()  forget every winner (the next call of each shape times again)

Every layout of a shape runs the same winner (timed in "swizzle"), so a layout A/B still compares one kernel.
A shape's result is deterministic within a process; another process may time another winner, whose K split
sums in another order (within the same error bound).
"""
from __future__ import annotations

from . import _C

__all__ = ["autotune", "autotune_cache", "clear_autotune_cache"]


def autotune(enabled: bool | None = None) -> bool:
    """autotune(enabled=None) -> bool

    With no argument: whether automatic SGEMM calls time their candidates on a shape's first call.  With True /
    False: switch it on / off for the whole process (every thread and device) and return the new state."""
    if enabled is None:
        return _C._autotune() > 0
    if not isinstance(enabled, bool):
        raise TypeError(f"autotune(): enabled must be a bool or None; got {type(enabled).__name__}")
    return _C._autotune(1 if enabled else 0) > 0


def autotune_cache() -> list[dict]:
    """autotune_cache() -> list of dict

    One dict per (device, shape, alignment) timed so far: ``device``, ``M``, ``N``, ``K``, ``flags`` (1 A, 2 B,
    4 D and C on 16-byte rows, 8 beta != 0), the winner's ``config`` ("auto": the model's own choice kept, or the
    shape was not timed; "gemv/S": the matrix-vector route with S K slices; "rows-n/L": the narrow-N rows route;
    else a tile config of ``smemkit.bench_configs("sgemm")``) and ``splits``, ``best_us`` and ``model_us`` (the
    least per-call device time of the winner and of the model's choice, 0 where nothing was timed) and ``timed``
    (the candidates)."""
    return sorted(_C._autotune_cache(), key=lambda e: (e["device"], e["M"], e["N"], e["K"], e["flags"]))


def clear_autotune_cache() -> None:
    """Forget every tuned winner (all devices): the next automatic call of each shape times its candidates again."""
    _C._autotune_clear()
