"""The sm_90a TMA + wgmma GEMM (csrc/hopper/) for explain() and bench(): which kernel the tensor-core
GEMM launcher runs (the same pure C rule, smk_gemm16_kernel_for), and the shared-memory accesses of
the wgmma kernel the bank model can see.

Modelled:
- wgmma's descriptor reads of the A and B tiles.  The descriptors are the kernel's own (a_desc / b_desc
  of csrc/hopper/kernel.cuh, computed on the host by _C._wgmma_descs); `core_matrix_rows` decodes each
  into the PTX canonical layout it names -- the 8 x 16-byte core matrices of A (64 x 16, K-major: 16 of
  them) and B (16 x 256, N-major: 64), each row's address XOR-swizzled on the absolute byte address
  (Swizzle(b, 4, 3) on bytes, b = 3 / 2 / 1 for 128B / 64B / 32B; none for the interleaved mode) -- and
  the bank model replays every core matrix as one 8-row phase of 16-byte rows (its ldmatrix rule, four
  matrices per replayed group).  Nsight Compute on an H100 (tests/data/ncu_wgmma_h100.csv) counts
  exactly that: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma = 80 per m64n256k16 (16 for A, 64
  for B: one per core matrix, 10240 bytes / 128), l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma
  = 0, in every mode, fp16 and bf16; HGMMA is counted per warp (smsp__sass_inst_executed_op_shared_gmma:
  4 per warpgroup wgmma), so an access's `instructions` are 4 per wgmma.  The canonical layouts put a
  core matrix's 8 rows on 8 distinct 16-byte bank groups in every mode, so the model predicts no
  conflict for any of them: the modes do not differ here.
- the epilogue's staging tile (csrc/hopper/kernel.cuh store_tile_wide), a 16 x 64 2-byte layout.h tile in
  the automatic swizzle (Swizzle<3,3,3>) per consumer warp, written with 4-byte st.shared pairs from the
  wgmma accumulator fragment and read back as 16-byte vectors, 4 chunks of 64 columns per 128 x 256 tile
  and warp.  It applies where D is 2-byte with 16-byte aligned rows and beta == 0 (explain's dense D:
  N % 8 == 0).  The SASS-patched counters (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld /
  _st) read exactly the model's wavefronts in every measured launch; the hardware counters
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld / _st agree only where nothing else uses the banks
  while a warp stores its tile: they add arbitration conflicts with the other warpgroup's wgmma reads and
  the next tile's TMA writes (+8 % to +34 % on 2048 x 2048 x 1024 in the 32B / none modes, +1 % to +53 %
  at 4096^3 where every block runs several tiles), which no per-instruction model can see.
- unaligned rows (dense operands with K % 8 or N % 8 != 0: TMA needs 16-byte strides): under the
  gemm16_kernel knob's levels 3 / 4 the launcher copies A (K % 8) and / or B (N % 8) into padded
  temporaries first (csrc/gemm16/gemm16_padcopy.cu pad_rows_kernel: global loads and stores only, no
  shared memory, so nothing to model), then runs this kernel on them: the same accesses as an aligned
  product of the same M, N, K (TMA's boxes end at K and N either way); the config names the copies.
Not modelled: TMA's writes of the A / B tiles (async proxy).  No LSU wavefront or bank-conflict counter
sees them; ncu counts them only as l1tex__data_bank_writes (their bytes / 4 in every mode) and as
UTMALDG instructions (5 / 10 / 20 / 40 boxes per 48 KB stage for 128B / 64B / 32B / none) and L2 -> L1
bytes (l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld: the stage's bytes, twice that with no
swizzle, whose 16-byte box rows take whole 32-byte sectors).  What separates the modes is there, in
TMA's work per stage, not in shared-memory bank conflicts (docs/GEMM16_NOTES.md, issue 29).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _C
from .layouts import Swizzle

BM, BN, BK, STAGES, THREADS = 128, 256, 64, 4, 384
CONSUMER_WARPS = 8
WGMMA_GROUPS = 20      # groups of 4 core matrices one m64n256k16 reads (16 + 64 matrices)
WARPS_PER_WGMMA = 4    # ncu counts a warpgroup's wgmma once per warp
# UTMALDG boxes per stage: A and B in slabs of W = swb / 2 elements (8 with no swizzle) per row
TMA_BOXES = {swb: BK // w + BN // w for swb, w in ((128, 64), (64, 32), (32, 16), (0, 8))}
_LAYOUT_INDEX = {"naive": 0, "pad": 1, "swizzle": 2}
_SWB = {128: "128B", 64: "64B", 32: "32B", 0: "no swizzle"}


def layout_args(layout: Any) -> tuple[int, int, int, int]:
    """(layout index, b, m, s) as smk_gemm16_params spells a layout name or a smemkit.Swizzle."""
    if isinstance(layout, str) or layout is None:
        return _LAYOUT_INDEX[layout or "swizzle"], 0, 0, 0
    return 2, layout.b, layout.m, layout.s


def kernel_for(shape: tuple[int, int, int], layout: Any, *, cc: tuple[int, int], sms: int, variant: int = 0,
               rows_aligned: bool | tuple[bool, bool] | None = None, knob: int = -1) -> str:
    """"wgmma" or "mma.sync": the kernel smemkit.gemm runs for an M x N x K product (rows_aligned None:
    dense rows from an aligned allocation, A's aligned iff K % 8 == 0, B's iff N % 8 == 0; a bool: both;
    a pair: A's, B's) on a device of compute capability cc with `sms` SMs; knob -1 = the gemm16_kernel
    knob as set now (0 mma, 1 wgmma, 2 auto, 3 auto with padded copies, 4 wgmma with padded copies, 5 cost,
    6 auto_mid, the default: 3 and K of 64..255 where B's rows are aligned)."""
    M, N, K = shape
    if rows_aligned is None:
        a_al, b_al = K % 8 == 0, N % 8 == 0
    elif isinstance(rows_aligned, tuple):
        a_al, b_al = rows_aligned
    else:
        a_al = b_al = rows_aligned
    lay, b, m, s = layout_args(layout)
    return "wgmma" if _C._gemm16_kernel_for(knob, variant, M, N, K, lay, b, m, s, int(a_al), cc[0], cc[1],
                                            sms, int(b_al)) else "mma.sync"


def _staging_addresses() -> tuple[np.ndarray, np.ndarray]:
    """One warp's one 64-column chunk: the 16 STS (jj, h) and the 4 LDS.128 (i), byte addresses per lane."""
    off, _ = _C._tile_offsets("swizzle", 16, 64, 8, 2)
    off = np.asarray(off).reshape(16, 64)
    lane = np.arange(32)
    sts = np.array([2 * off[(lane >> 2) + 8 * h, 8 * jj + 2 * (lane & 3)] for jj in range(8) for h in range(2)])
    v = np.arange(4)[:, None] * 32 + lane[None, :]
    lds = 2 * off[v >> 3, 8 * (v & 7)]
    return sts.astype(np.int64), lds.astype(np.int64)


_LAYOUT_TYPE_SWB = {1: 128, 2: 64, 3: 32, 0: 0}
# wgmma m64n256k16: A is 64 x 16 (K-major), B 16 x 256 (N-major); 8 x 16-byte core matrices
_A_ROWS, _B_COLS, _KSTEP = 64, 256, 16


def decode_desc(desc: int) -> tuple[int, int, int, int]:
    """(start, lbo, sbo, swizzle bytes) of a wgmma matrix descriptor (csrc/hopper/ptx.cuh: bits 0-13
    start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 62-63 layout type 1 / 2 / 3 = 128B / 64B / 32B, 0 none)."""
    return ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4,
            _LAYOUT_TYPE_SWB[(desc >> 62) & 3])


def core_matrix_rows(desc: int, operand: str) -> np.ndarray:
    """The byte addresses (n, 8) of the 16-byte rows of each 8 x 16-byte core matrix a wgmma
    m64n256k16 reads through `desc`, as the PTX canonical layouts define them: operand "a" is 64 x 16
    K-major (core matrix (i, j): rows 8i..8i+7, k 8j..8j+7; row r at start + i*SBO + r*SW + 16j
    swizzled, or start + i*SBO + j*LBO + 16r interleaved), "b" 16 x 256 N-major (core matrix (c, g):
    n 8c..8c+7, k rows 8g..8g+7; row r at start + (c % (SW/16))*16 + (c // (SW/16))*LBO + g*SBO + r*SW
    swizzled, or start + c*SBO + g*LBO + 16r interleaved).  Swizzled rows are XORed on the absolute
    address: bits [4, 4+b) ^= bits [7, 7+b), CuTe Swizzle<b,4,3> on bytes (layout.h's smk_swizzle)."""
    start, lbo, sbo, sw = decode_desc(desc)
    r = np.arange(8)
    rows = []
    if operand == "a":
        for i in range(_A_ROWS // 8):
            for j in range(_KSTEP // 8):
                rows.append(start + i * sbo + (r * sw + 16 * j if sw else j * lbo + 16 * r))
    elif operand == "b":
        for c in range(_B_COLS // 8):
            for g in range(_KSTEP // 8):
                if sw:
                    w = sw // 16
                    rows.append(start + (c % w) * 16 + (c // w) * lbo + g * sbo + r * sw)
                else:
                    rows.append(start + c * sbo + g * lbo + 16 * r)
    else:
        raise ValueError(f"core_matrix_rows(): operand must be 'a' or 'b'; got {operand!r}")
    out = np.array(rows, dtype=np.int64)
    if sw:
        out = Swizzle({128: 3, 64: 2, 32: 1}[sw], 4, 3)(out)
    return np.asarray(out, dtype=np.int64)


def wgmma_reads(swb: int) -> np.ndarray:
    """One k-tile's wgmma reads in mode swb: (8 wgmmas = 2 consumer warpgroups x 4 k16 steps) x 20
    groups of 4 core matrices, 32 addresses each (lane 8q + i: row i of matrix q, as ldmatrix.x4
    takes them), in the order of _C._wgmma_descs; A's 16 matrices first, then B's 64."""
    d = _C._wgmma_descs(swb)
    per = [np.concatenate([core_matrix_rows(d[2 * w], "a"), core_matrix_rows(d[2 * w + 1], "b")]).reshape(-1, 32)
           for w in range(8)]
    return np.concatenate(per)


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
    ktiles = -(-K // BK)
    copied = [x for x, al in (("A", K % 8 == 0), ("B", N % 8 == 0)) if not al] if K > 0 else []
    config = (f"wgmma {BM}x{BN}x{BK}, {STAGES} stages, TMA {_SWB[swb]} ({TMA_BOXES[swb]} boxes per stage), "
              f"persistent {blocks} blocks of {THREADS} threads, {'staged 16-byte' if wide else 'register'} "
              "epilogue; TMA writes not modelled (async proxy: no LSU counter sees them)"
              + (f"; unaligned rows padded ({' and '.join(copied)} copied first: no shared memory)" if copied else ""))
    accesses = []
    if K > 0:
        # every k-tile: 2 consumer warpgroups x 4 wgmmas, each 20 groups of 4 core matrices; HGMMA is
        # counted per warp (4 per warpgroup instruction): explain groups WGMMA_GROUPS replayed groups
        # into one wgmma and multiplies its instruction count by WARPS_PER_WGMMA
        accesses.append(("wgmma m64n256k16 descriptor reads (A 64x16 + B 16x256)", 16, "load", tiles * ktiles,
                         wgmma_reads(swb), "wgmma"))
    if wide and K > 0:
        sts, lds = _staging_addresses()
        reps = tiles * CONSUMER_WARPS * 4  # 4 chunks of 64 columns per warp and tile
        accesses += [("epilogue C staging st.shared (4-byte pairs)", 4, "store", reps, sts),
                    ("epilogue C staging ld.shared.v4 (16-byte rows)", 16, "load", reps, lds)]
    return {"config": config, "blocks": blocks, "accesses": accesses}
