"""The CPU bank-conflict model: how many shared-memory wavefronts a warp's access costs.

Runs csrc/bank_model.c (no GPU needed).  Its rules reproduce Nsight Compute's counts measured with
the probe in bench/bank_probe/bank_probe.cu (tables in tests/data/: 4/8/16-byte LDS/STS on an H200;
ldmatrix, 1-/2-byte LDS/STS and stmatrix on an H100); the addresses it replays for the project's
kernels come from csrc/layout.h, the same maps the kernels use.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from . import _C

#: Bytes per lane of an LDS / STS: 1 and 2 are LDS.U8 / .U16 and STS.U8 / .U16 (a uint8 or one
#: __half / __nv_bfloat16 element), costed as the 4-byte words they lie in (csrc/bank_model.c,
#: SUB-WORD; measured on an H100: tests/data/bank_probe_subword_h100.csv).
WIDTHS = (1, 2, 4, 8, 16)
#: "load" / "store": LDS / STS of `width` bytes.  The tensor-core GEMM's instructions, measured with
#: the probe on Hopper (csrc/bank_model.c): "ldmatrix" (= "ldmatrix.x4"), "ldmatrix.x1", "ldmatrix.x2"
#: -- lane 8q + i gives the 16-byte address of row i of matrix q; .trans reads the same addresses --
#: and "cp.async", the shared-memory write of a 16-byte cp.async ("cp.async.zfill": with a src-size
#: operand, SASS LDGSTS.ZFILL).  "stmatrix" (= "stmatrix.x4"), "stmatrix.x1", "stmatrix.x2" (sm_90's
#: STSM, the accumulator epilogue's shared-memory write): lanes as for ldmatrix, and ldmatrix's rule,
#: as measured on an H100 (csrc/bank_model.c STMATRIX).  Every ld/stmatrix name also takes a
#: ".trans" suffix ("stmatrix.x4.trans"): the transpose moves elements between registers, not the
#: row addresses.  All of them move 16-byte rows: width is 16 for them (4 or the default is read as 16), but a
#: "cp.async" given its sources may be 4 or 8 bytes (cp.async.ca: the GEMM's narrow copies).
_INSTR = {"ldmatrix": ("load", "ldmatrix.x4"), "ldmatrix.x1": ("load", "ldmatrix.x1"),
          "ldmatrix.x2": ("load", "ldmatrix.x2"), "ldmatrix.x4": ("load", "ldmatrix.x4"),
          "cp.async": ("store", "cp.async"), "cp.async.zfill": ("store", "cp.async.zfill"),
          "stmatrix": ("store", "stmatrix.x4"), "stmatrix.x1": ("store", "stmatrix.x1"),
          "stmatrix.x2": ("store", "stmatrix.x2"), "stmatrix.x4": ("store", "stmatrix.x4")}
_INSTR.update({k + ".trans": v for k, v in list(_INSTR.items()) if "matrix" in k})
KINDS = ("load", "store") + tuple(_INSTR)
INACTIVE = -1
#: Byte offsets must lie below this: 227 KiB, the most shared memory one block can have (Hopper,
#: sm_90, with the opt-in attribute).  An offset at or past it can come from no real kernel.
SMEM_LIMIT = 227 * 1024


def _check_width(width, fname):
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)):
        raise TypeError(f"{fname}(): width must be an int (1, 2, 4, 8 or 16 bytes per lane); got "
                        f"{type(width).__name__}")
    if int(width) not in WIDTHS:
        raise ValueError(f"{fname}(): width must be 1, 2, 4, 8 or 16 (bytes per lane); got {int(width)}")
    return int(width)


def _check_kind(kind, fname):
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"{fname}(): kind must be one of {', '.join(map(repr, KINDS))}; got {kind!r}")
    return kind


def _batch(addresses, fname, one=False):
    """addresses -> a C-contiguous int64 array (n, 32) for the C model.  one=True: exactly 32 offsets
    (one instruction, n = 1); else (n, 32), or 32 offsets as n = 1.

    Every entry must be -1 (an inactive lane) or a byte offset in [0, SMEM_LIMIT); anything else
    (another negative value, an offset past Hopper's 227 KiB, an integer past 64 bits) is refused
    with a ValueError before the C model sees it -- checked on the caller's dtype, so a uint64
    2**64 - 1 is not mistaken for -1."""
    try:
        a = np.asarray(addresses)
    except (TypeError, ValueError, OverflowError) as e:  # ragged lists, objects NumPy cannot hold
        raise ValueError(f"{fname}(): addresses must be an integer array of shape (n, 32): {e}") from None
    if one and (a.ndim != 1 or a.shape[0] != 32):
        raise ValueError(f"{fname}(): addresses must be 32 byte offsets, one per lane; got shape {a.shape}")
    orig = a
    if a.dtype.kind == "O" and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in a.flat):
        # Python ints past 64 bits: clipped to values that stay out of range, reported as given
        a = np.array([min(max(int(v), -2), SMEM_LIMIT) for v in a.flat], dtype=np.int64).reshape(a.shape)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{fname}(): addresses must be integers (byte offsets); got dtype {a.dtype}")
    if a.ndim == 1:
        a, orig = a.reshape(1, -1), orig.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != 32:
        raise ValueError(f"{fname}(): addresses must have shape (n, 32): 32 entries (one per lane); got shape "
                         f"{a.shape}")
    bad = (a >= SMEM_LIMIT) | ((a < 0) & (a != INACTIVE)) if a.dtype.kind == "i" else a >= SMEM_LIMIT
    if bad.any():
        i, lane = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{fname}(): addresses must be byte offsets in [0, {SMEM_LIMIT}) (227 KiB, Hopper's "
                         f"per-block shared-memory limit) or -1 (an inactive lane); instruction {i}, lane {lane} "
                         f"is {int(orig[i, lane])}")
    return np.ascontiguousarray(a, dtype=np.int64)


def _sources(sources, a, fname):
    """Global byte offsets of a cp.async's lanes, shaped like `a` (int64, >= 0 on active lanes)."""
    try:
        g = np.asarray(sources)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"{fname}(): sources must be an integer array shaped like addresses: {e}") from None
    if g.dtype.kind not in "iu":
        raise TypeError(f"{fname}(): sources must be integers (global byte offsets); got dtype {g.dtype}")
    if g.ndim == 1:
        g = g.reshape(1, -1)
    if g.shape != a.shape:
        raise ValueError(f"{fname}(): sources must have the addresses' shape {a.shape}; got {g.shape}")
    if g.dtype.kind == "u" and (g > np.iinfo(np.int64).max).any():
        raise ValueError(f"{fname}(): sources must be below 2**63")
    return np.ascontiguousarray(g, dtype=np.int64)


def _replay(addresses, width, kind, fname, one=False, sources=None):
    default = width is None  # 4 for LDS/STS, 16 for the tensor-core kinds
    a, width, kind = _batch(addresses, fname, one), _check_width(4 if default else width, fname), _check_kind(kind, fname)
    direction, instr = _INSTR.get(kind, (kind, "ldst"))
    if instr != "ldst":
        narrow = instr.startswith("cp.async") and sources is not None and width in (4, 8) and not default
        if width == 4 and not narrow:
            width = 16
        if width != 16 and not narrow:
            raise ValueError(f"{fname}(): {kind} moves 16-byte rows (4 or 8 bytes: a cp.async with sources); width "
                             f"must be 16; got {width}")
    if sources is not None and not instr.startswith("cp.async"):
        raise ValueError(f"{fname}(): sources are the global side of a 'cp.async'; kind is {kind!r}")
    try:
        if sources is not None:
            return _C._bank_replay(a, width, direction, instr, _sources(sources, a, fname))
        return _C._bank_replay(a, width, direction, instr)
    except ValueError as e:  # the C model's own refusals (an unaligned address) name no function
        raise ValueError(f"{fname}(): {e}") from None


def replay(addresses: npt.ArrayLike, width: int | None = None, kind: str = "load",
           sources: npt.ArrayLike | None = None) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """replay(addresses, width=4, kind="load", sources=None) -> (wavefronts, ideal)

    Batch form of :func:`wavefronts`: ``addresses`` is an integer array of shape (n, 32), one row
    per warp instruction, each entry -1 (inactive lane) or a byte offset in [0, 232448); ``sources``
    (cp.async only) the same shape of global byte offsets.  Returns two int32 arrays of length n.
    Raises as :func:`wavefronts` does.
    """
    return _replay(addresses, width, kind, "replay", sources=sources)


def wavefronts(addresses: npt.ArrayLike, width: int | None = None, kind: str = "load",
               sources: npt.ArrayLike | None = None) -> int:
    """wavefronts(addresses, width=4, kind="load", sources=None) -> int

    Shared-memory wavefronts one warp instruction takes on the GPU, as Nsight Compute counts them
    (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`` / ``_op_st.sum``).

    addresses : 32 byte offsets into shared memory, one per lane (lane 0 first).  -1 marks an
        inactive lane; every other entry must be in [0, 232448) -- 227 KiB, the most shared memory
        a block can have (Hopper) -- and a multiple of ``width``.
    width : 1, 2, 4, 8 or 16 -- bytes per lane (LDS/STS .U8, .U16, .32, .64, .128).  Widths 1 and 2
        cost exactly what 4-byte accesses to the words holding their bytes cost: the whole warp is
        one group, lanes in one word share it (loads, and stores: bytes of one word, or one byte
        from many lanes, are written by one wavefront), lanes in one bank but different words
        conflict; which byte of the word a lane names does not matter.  Measured with Nsight Compute
        on an H100 (408 patterns, loads and stores, tests/data/bank_probe_subword_h100.csv).
    kind : "load" or "store" (LDS / STS), or one of the tensor-core GEMM's instructions:
        "ldmatrix" (.x4), "ldmatrix.x1", "ldmatrix.x2" (the lanes of matrix q give its 8 row
        addresses), "stmatrix" (.x4), "stmatrix.x1", "stmatrix.x2" (the same lanes, a store), any of
        those with ".trans", or "cp.async" / "cp.async.zfill" (its shared-memory write, without /
        with a src-size operand; width 16, or 4 / 8 with sources: cp.async.ca of 4 / 8 bytes, the GEMM's
        narrow copies).  ld/stmatrix: each 8x8 matrix costs the bank-conflict
        degree of its 8 row addresses (one wavefront if conflict-free, duplicates free), the
        matrices add up (never merged, even on the same rows), lanes past 8 x matrices are ignored,
        and .trans costs the same; measured on an H100 (stmatrix: 204 patterns,
        tests/data/bank_probe_stsm_h100.csv; Nsight Compute counts its wavefronts in
        ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum``).
    sources : cp.async only -- the 32 lanes' global byte offsets (from any 128-byte-aligned origin); -1
        on an active lane: a copy with src-size 0 (it writes zeros and reads nothing).
        Nsight Compute's LDGSTS counter depends on them (csrc/bank_model.c, LDGSTS RULE, measured on an
        H100: tests/data/ldgsts_probe_h100.csv, ldgsts_probe_s46_h100.csv, and the GEMMs' own counts).
        16 bytes: the warp's chunks in parts of one global line, one bank row and one half-swap (lanes of
        different quarter-warps together only where they shift their data by the same amount); each
        part one wavefront per matching of its 32-byte global sectors onto the 32-byte bank groups,
        whole sectors and half sectors never in one wavefront -- one for a 128-byte global row copied
        to one bank row, more when rotated or permuted unevenly; the zfill form one more per active
        quarter-warp, and lanes of a quarter reading one 16-byte source in rounds (the k-th such lane in
        round k, each round costed alone, one more per round past the first; the plain form's duplicates,
        cheaper, are under-counted by up to ~27%).  4 / 8 bytes, per 128 bytes of lanes: the STS rule of their shared addresses
        plus c - 1, c the most lanes reading one 4-byte word position of a 128-byte line; the zfill
        form the same.
        Without them a cp.async is costed by the STS.128 rule of its shared addresses, which is not
        what the counter reads.  These are one instruction's wavefronts as ncu counts it launched alone;
        inside a running launch 16-byte copies can read a few percent to ~24% off (docs/BANK_MODEL.md,
        "LDGSTS in a running launch").

    Raises TypeError for non-integer addresses or width, ValueError for a wrong lane count, width or
    kind, a negative offset other than -1, an offset at or past 232448 bytes, or an unaligned address.
    """
    wf, _ = _replay(addresses, width, kind, "wavefronts", one=True, sources=sources)
    return int(wf[0])


def ideal(addresses: npt.ArrayLike, width: int | None = None, kind: str = "load") -> int:
    """ideal(addresses, width=4, kind="load") -> int

    The conflict-free cost of the same instruction: the wavefronts it would take if its distinct
    addresses sat in distinct banks, with the same active lanes and the same lanes sharing an
    address.  A full warp of distinct addresses: 1, 2, 4 for width 4, 8, 16; a broadcast: what a
    broadcast costs.  ``wavefronts(...) - ideal(...)`` is the cost of bank conflicts.  Addresses as
    for :func:`wavefronts` (-1 or [0, 232448)), and it raises the same errors.
    """
    _, idl = _replay(addresses, width, kind, "ideal", one=True)
    return int(idl[0])


def rule(width: int, kind: Literal["load", "store"] = "load") -> tuple[int, int]:
    """rule(width, kind="load") -> (pass_lanes, phase_lanes): the model's grouping of lanes."""
    if kind not in ("load", "store"):
        raise ValueError(f"rule(): kind must be 'load' or 'store' (the LDS / STS rules); got {kind!r}")
    return _C._bank_rule(_check_width(width, "rule"), kind)
