"""The sm_90a TMA + wgmma GEMM (csrc/hopper/) for explain() and bench(): which kernel the tensor-core
GEMM launcher runs (the same pure C rule, smk_gemm16_kernel_for), and the shared-memory accesses of
the wgmma kernel the bank model can see.

What is modelled: the epilogue's staging tile (csrc/hopper/kernel.cuh store_tile_wide), a 16 x 64
2-byte layout.h tile in the automatic swizzle (Swizzle<3,3,3>) per consumer warp, written with 4-byte
st.shared pairs from the wgmma accumulator fragment and read back as 16-byte vectors, 4 chunks of 64
columns per 128 x 256 tile and warp.  It applies where D is 2-byte with 16-byte aligned rows and
beta == 0 (explain's dense D: N % 8 == 0).
What is not: TMA's writes of the A / B tiles and wgmma's descriptor reads of them -- async-proxy
accesses outside the LSU (ncu: ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum``); with
the 128B mode both are meant to be conflict-free (not yet measured: ncu per mode has not been run); the
narrower modes' cost is what bench's A/B times.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _C

BM, BN, BK, STAGES, THREADS = 128, 256, 64, 4, 384
CONSUMER_WARPS = 8
_LAYOUT_INDEX = {"naive": 0, "pad": 1, "swizzle": 2}
_SWB = {128: "128B", 64: "64B", 32: "32B", 0: "no swizzle"}


def layout_args(layout: Any) -> tuple[int, int, int, int]:
    """(layout index, b, m, s) as smk_gemm16_params spells a layout name or a smemkit.Swizzle."""
    if isinstance(layout, str) or layout is None:
        return _LAYOUT_INDEX[layout or "swizzle"], 0, 0, 0
    return 2, layout.b, layout.m, layout.s


def kernel_for(shape: tuple[int, int, int], layout: Any, *, cc: tuple[int, int], sms: int, variant: int = 0,
               rows_aligned: bool | None = None, knob: int = -1) -> str:
    """"wgmma" or "mma.sync": the kernel smemkit.gemm runs for an M x N x K product (rows_aligned None:
    dense rows from an aligned allocation, aligned iff K % 8 == 0 and N % 8 == 0) on a device of compute
    capability cc with `sms` SMs; knob -1 = the gemm16_kernel knob as set now (0 mma, 1 wgmma, 2 auto)."""
    M, N, K = shape
    aligned = (K % 8 == 0 and N % 8 == 0) if rows_aligned is None else rows_aligned
    lay, b, m, s = layout_args(layout)
    return "wgmma" if _C._gemm16_kernel_for(knob, variant, M, N, K, lay, b, m, s, int(aligned), cc[0], cc[1],
                                            sms) else "mma.sync"


def _staging_addresses() -> tuple[np.ndarray, np.ndarray]:
    """One warp's one 64-column chunk: the 16 STS (jj, h) and the 4 LDS.128 (i), byte addresses per lane."""
    off, _ = _C._tile_offsets("swizzle", 16, 64, 8, 2)
    off = np.asarray(off).reshape(16, 64)
    lane = np.arange(32)
    sts = np.array([2 * off[(lane >> 2) + 8 * h, 8 * jj + 2 * (lane & 3)] for jj in range(8) for h in range(2)])
    v = np.arange(4)[:, None] * 32 + lane[None, :]
    lds = 2 * off[v >> 3, 8 * (v & 7)]
    return sts.astype(np.int64), lds.astype(np.int64)


def plan(shape: tuple[int, int, int], layout: Any, sms: int) -> dict[str, Any]:
    """{'config', 'blocks', 'accesses'} in the form of _C._plan (name, width, kind, repeats, addresses)."""
    M, N, K = shape
    lay, b, m, s = layout_args(layout)
    swb = _C._wgmma_mode(lay, b, m, s)
    if swb < 0:
        raise ValueError("explain(): the wgmma kernel takes 'swizzle' (128B), Swizzle(2, 3, 3) (64B), "
                         "Swizzle(1, 3, 3) (32B) or 'naive' (no swizzle); 'pad' cannot be expressed by TMA / wgmma")
    tiles = -(-M // BM) * -(-N // BN)
    blocks = min(tiles, sms)
    wide = N % 8 == 0
    config = (f"wgmma {BM}x{BN}x{BK}, {STAGES} stages, TMA {_SWB[swb]}, persistent {blocks} blocks of {THREADS} "
              f"threads, {'staged 16-byte' if wide else 'register'} epilogue; TMA writes and wgmma reads not "
              "modelled (async proxy)")
    accesses = []
    if wide and K > 0:
        sts, lds = _staging_addresses()
        reps = tiles * CONSUMER_WARPS * 4  # 4 chunks of 64 columns per warp and tile
        accesses = [("epilogue C staging st.shared (4-byte pairs)", 4, "store", reps, sts),
                    ("epilogue C staging ld.shared.v4 (16-byte rows)", 16, "load", reps, lds)]
    return {"config": config, "blocks": blocks, "accesses": accesses}
