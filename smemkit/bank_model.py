"""The CPU bank-conflict model: how many shared-memory wavefronts a warp's access costs.

Runs csrc/bank_model.c (no GPU needed).  Its rules reproduce Nsight Compute's counts measured with
the probe in bench/bank_probe.cu (table in tests/data/); the addresses it replays for the project's
kernels come from csrc/layout.h, the same maps the kernels use.
"""
import numpy as np

from . import _C

WIDTHS = (4, 8, 16)
KINDS = ("load", "store")


def _check_width(width):
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)):
        raise TypeError(f"width must be an int (4, 8 or 16 bytes per lane); got {type(width).__name__}")
    if int(width) not in WIDTHS:
        raise ValueError(f"width must be 4, 8 or 16 (bytes per lane); got {int(width)}")
    return int(width)


def _check_kind(kind):
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"kind must be 'load' or 'store'; got {kind!r}")
    return kind


def _batch(addresses):
    """addresses -> a C-contiguous int64 array (n, 32) for the C model (1-D input of 32 gives n = 1)."""
    if isinstance(addresses, np.ndarray) and addresses.dtype.kind not in "iu":
        raise TypeError(f"addresses must be integers (byte offsets); got dtype {addresses.dtype}")
    try:
        a = np.asarray(addresses)
        if a.dtype.kind not in "iu":
            raise TypeError
        a = np.ascontiguousarray(a, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("addresses must be an integer array of shape (n, 32)") from None
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != 32:
        raise ValueError(f"addresses must have shape (n, 32): 32 entries (one per lane); got shape {a.shape}")
    return a


def replay(addresses, width=4, kind="load"):
    """replay(addresses, width=4, kind="load") -> (wavefronts, ideal)

    Batch form of :func:`wavefronts`: ``addresses`` is an integer array of shape (n, 32), one row
    per warp instruction.  Returns two int32 arrays of length n.
    """
    return _C._bank_replay(_batch(addresses), _check_width(width), _check_kind(kind))


def wavefronts(addresses, width=4, kind="load"):
    """wavefronts(addresses, width=4, kind="load") -> int

    Shared-memory wavefronts one warp instruction takes on the GPU, as Nsight Compute counts them
    (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`` / ``_op_st.sum``).

    addresses : 32 byte offsets into shared memory, one per lane (lane 0 first); a negative value
        marks an inactive lane.  Each active offset must be a multiple of ``width``.
    width : 4, 8 or 16 -- bytes per lane (LDS/STS .32, .64, .128).
    kind : "load" or "store".

    Raises ValueError for a wrong lane count, width, kind or an unaligned address.
    """
    wf, _ = _C._bank_replay(_batch(_one(addresses)), _check_width(width), _check_kind(kind))
    return int(wf[0])


def ideal(addresses, width=4, kind="load"):
    """ideal(addresses, width=4, kind="load") -> int

    The conflict-free cost of the same instruction: the wavefronts it would take if its distinct
    addresses sat in distinct banks, with the same active lanes and the same lanes sharing an
    address.  A full warp of distinct addresses: 1, 2, 4 for width 4, 8, 16; a broadcast: what a
    broadcast costs.  ``wavefronts(...) - ideal(...)`` is the cost of bank conflicts.
    """
    _, idl = _C._bank_replay(_batch(_one(addresses)), _check_width(width), _check_kind(kind))
    return int(idl[0])


def _one(addresses):
    a = np.asarray(addresses)
    if a.ndim != 1 or a.shape[0] != 32:
        raise ValueError(f"addresses must be 32 byte offsets, one per lane; got shape {a.shape}")
    return a.reshape(1, 32)


def rule(width, kind="load"):
    """rule(width, kind="load") -> (pass_lanes, phase_lanes): the model's grouping of lanes."""
    return _C._bank_rule(_check_width(width), _check_kind(kind))
