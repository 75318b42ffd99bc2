"""explain(): every shared-memory access of a kernel's launch, with the wavefronts the bank model
predicts for it.

The addresses come from the kernel's own index code replayed on the host (csrc/*.cu: the kernel's
thread map and csrc/layout.h's smk_tile_offset), so what is explained is what runs.
"""
from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from .layouts import Layout, Swizzle

from . import _C, _wgmma_plan
from .bank_model import replay

# The transpose moves elements bitwise, so only the element size matters: every fixed-size numeric
# dtype of 1, 2, 4, 8 or 16 bytes.  Names are listed so that ml_dtypes' types resolve without ml_dtypes.
_TRANSPOSE_ITEMSIZE = {
    "bool": 1, "int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e4m3fnuz": 1, "float8_e4m3b11fnuz": 1,
    "float8_e5m2": 1, "float8_e5m2fnuz": 1,
    "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "float32": 4,
    "int64": 8, "uint64": 8, "float64": 8, "complex64": 8,
    "complex128": 16,
}
_TRANSPOSE_WIDTHS = (1, 2, 4, 8, 16)
_DTYPES = {"transpose": _TRANSPOSE_ITEMSIZE, "sgemm": {"float32": 4}, "gemm": {"float16": 2, "bfloat16": 2}}

# smk_access.kind (csrc/runtime.h SMK_ACC_*) as _C._plan names it; bank_model.replay takes the same
# names as its `kind` (csrc/bank_model.h SMK_BANK_KIND_*), "ldst" being LDS / STS ("load" / "store").
INSTRUCTIONS = ("ldst", "ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "cp.async", "cp.async.zfill", "wgmma")


def _transpose_itemsize(dtype: npt.DTypeLike, fname: str = "explain") -> tuple[str, int]:
    """(name, itemsize) of a dtype the transpose moves, or TypeError.  Any NumPy numeric dtype
    (kinds b, i, u, f, c: longdouble and clongdouble too) or ml_dtypes type of a supported width."""
    if isinstance(dtype, str) and dtype in _TRANSPOSE_ITEMSIZE:
        return dtype, _TRANSPOSE_ITEMSIZE[dtype]
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is not None:
        numeric = dt.kind in "biufc" or type(dt.type).__module__.startswith("ml_dtypes") or \
            dt.type.__module__.startswith("ml_dtypes")
        if numeric and dt.itemsize in _TRANSPOSE_WIDTHS:
            return dt.name, dt.itemsize
    raise TypeError(f"{fname}(): transpose does not support dtype {dtype!r}; supported: fixed-size numeric dtypes of "
                    f"{', '.join(map(str, _TRANSPOSE_WIDTHS))} bytes ({', '.join(_TRANSPOSE_ITEMSIZE)})")


@dataclass(frozen=True)
class Access:
    """One shared-memory access of a kernel: per launch totals."""
    name: str
    width: int          # bytes per lane
    kind: str           # "load" or "store"
    instructions: int   # warp instructions per launch
    wavefronts: int     # predicted by the bank model
    ideal: int          # the conflict-free cost of the same instructions
    worst_ways: float   # the worst instruction's wavefronts / its ideal
    instr: str = "ldst"  # "ldst" (LDS/STS), "ldmatrix.x1/.x2/.x4", "cp.async" or "wgmma" (INSTRUCTIONS)

    @property
    def excess(self) -> int:
        return self.wavefronts - self.ideal


@dataclass(frozen=True)
class Explanation:
    """Result of :func:`explain`: ``.accesses``, per-kind totals, ``.to_dict()``, a readable table."""
    op: str
    shape: tuple[int, ...]
    layout: str
    dtype: str
    config: str
    blocks: int
    accesses: tuple[Access, ...] = field(default_factory=tuple)

    def total(self, kind: Literal["load", "store"] | None = None,
              what: Literal["wavefronts", "ideal", "instructions", "excess"] = "wavefronts") -> int:
        """Sum of `what` ('wavefronts', 'ideal', 'instructions', 'excess') over accesses of `kind`
        (None: all, 'load' or 'store')."""
        if kind not in (None, "load", "store"):
            raise ValueError(f"Explanation.total(): kind must be None, 'load' or 'store'; got {kind!r}")
        if what not in ("wavefronts", "ideal", "instructions", "excess"):
            raise ValueError(f"Explanation.total(): what must be 'wavefronts', 'ideal', 'instructions' or 'excess'; "
                             f"got {what!r}")
        return sum(int(getattr(a, what)) for a in self.accesses if kind in (None, a.kind))

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "shape": list(self.shape), "layout": self.layout, "dtype": self.dtype,
                "config": self.config, "blocks": self.blocks,
                "accesses": [dict(name=a.name, width=a.width, kind=a.kind, instr=a.instr, instructions=a.instructions,
                                  wavefronts=a.wavefronts, ideal=a.ideal, excess=a.excess,
                                  worst_ways=a.worst_ways) for a in self.accesses],
                "totals": {k or "all": {w: self.total(k, w) for w in ("instructions", "wavefronts", "ideal",
                                                                        "excess")}
                           for k in (None, "load", "store")}}

    def table(self) -> str:
        head = (f"{self.op} {'x'.join(map(str, self.shape))} {self.dtype}, layout={self.layout}: "
                f"{self.config}, {self.blocks} blocks")
        rows = [f"{'access':<50}{'width':>6}{'instr':>12}{'wavefronts':>13}{'ideal':>12}{'excess':>12}"
                f"{'ways':>6}"]
        for a in self.accesses:
            rows.append(f"{a.name:<50}{a.width:>5}B{a.instructions:>12}{a.wavefronts:>13}{a.ideal:>12}"
                        f"{a.excess:>12}{a.worst_ways:>6.1f}")
        for kind in ("load", "store"):
            rows.append(f"{'total ' + kind + 's':<50}{'':>6}{self.total(kind, 'instructions'):>12}"
                        f"{self.total(kind):>13}{self.total(kind, 'ideal'):>12}"
                        f"{self.total(kind, 'excess'):>12}")
        return "\n".join([head] + rows)

    def __repr__(self) -> str:
        return self.table()

    __str__ = __repr__


def check_op_args(fname: str, op: object, dtype: npt.DTypeLike, shape: Sequence[Any],
                  table: Mapping[str, Mapping[str, int]]) -> tuple[str, str, tuple[int, ...]]:
    """(op, dtype name, shape as a tuple of ints) of a bench / explain call, or TypeError / ValueError
    naming fname and the argument.  Shape entries must be integers (a float is refused, not
    truncated); their ranges are checked in C, where the kernels' limits live."""
    if not isinstance(op, str) or op not in table:
        raise ValueError(f"{fname}(): op must be 'transpose', 'sgemm' or 'gemm'; got {op!r}")
    try:
        dt = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    except (TypeError, ValueError):
        raise TypeError(f"{fname}(): dtype must be a dtype name such as 'float32'; got {dtype!r}") from None
    if dt not in table[op]:
        raise TypeError(f"{fname}(): {op} does not support dtype {dt!r}; supported: {', '.join(table[op])}")
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{fname}(): shape must be a tuple of ints; got {shape!r}") from None
    return op, dt, shape


def _layout_args(op: str, layout: Layout | Swizzle | None) -> tuple[str | None, tuple[int, int, int] | None, str]:
    """layout -> (layout name for _C._plan, explicit swizzle (b, m, s) or None, display name)."""
    from .layouts import Swizzle
    if isinstance(layout, Swizzle):
        if op != "gemm":
            raise ValueError(f"explain(): explicit swizzles are a gemm option; {op} takes 'naive', 'pad' or "
                             "'swizzle'")
        return "swizzle", (layout.b, layout.m, layout.s), repr(layout)
    return layout, None, layout if layout is not None else "swizzle"


def explain(op: Literal["transpose", "sgemm", "gemm"], shape: Sequence[int],
            layout: Layout | Swizzle | None = "swizzle", dtype: npt.DTypeLike | None = None, *, sms: int = 132,
            config: int = 0, splits: int = 0, kernel: str = "mma.sync") -> Explanation:
    """explain(op, shape, layout="swizzle", dtype=None, *, sms=132, config=0, splits=0, kernel="mma.sync") -> Explanation

    Every shared-memory access of one launch of smemkit's kernel `op` ("transpose" with shape
    (rows, cols) or (..., rows, cols) for a batch transposed in one launch, or "sgemm" with shape
    (M, N, K)): its name, width (bytes per lane of the shared access: 4 for the 1-, 2- and 4-byte
    transposes, which move 4x4 / 2x2 blocks as words), warp instructions per launch,
    the wavefronts the bank model predicts, the conflict-free ideal, the excess, and launch totals
    (which Nsight Compute's ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`` should
    read).  `sms` is the multiprocessor count the SGEMM launcher sizes its tiles for (132 on
    H100 / H200 SXM); `config` a forced SGEMM tile config (smemkit.bench_configs("sgemm"); 0: the
    one chosen per shape; for gemm the tile variant); `splits` forced SGEMM K slices (0: chosen per
    shape, as the launch does; the config string ends in ", splits S" and the counts cover the blocks
    of every slice).  "gemm" is the tensor-core GEMM (shape (M, N, K), dtype float16 / bfloat16, the
    default): its ldmatrix loads are counted by ncu in ``..._op_ld`` (instructions in
    ``smsp__inst_executed_op_ldsm``, which also counts the next-tile fragment loads the kernel issues
    predicated off on each block's last k-tile: an access of its own, 0 wavefronts); its cp.async
    stores in ``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum``, predicted by the
    LDGSTS rule of csrc/bank_model.c from the shared and global addresses and the instruction's form
    (interior tiles: plain "cp.async"; edge blocks and the last partial k-tile: "cp.async.zfill");
    the zeros past K are st.shared (``..._op_st``).  The SGEMM's deep kernel (config "..., deep: 4 cp.async
    stages") copies with cp.async too: its A and B copies are "cp.async.zfill" accesses costed the same way
    (from block (0, 0)'s sources; its last block row's A copies and last block column's B copies apart, rows
    past M and float4s past N zero-filled), and the compiler's never-executed LDS beside them an access of 0
    wavefronts, as ``smsp__inst_executed_op_shared_ld`` counts them.  Its 16-byte B copies inside a running
    launch read -6% .. +24% off what the same instructions cost alone (a dynamic share the addresses do not
    determine; docs/BANK_MODEL.md "LDGSTS in a running launch"); its 4-byte copies within 1%.
    For sgemm, config 0 is the cost model's choice: what runs with smemkit.autotune(False) and under a CUDA
    tool such as Nsight Compute (the measured choice stays off there).  A tuned call may run another candidate
    of the shape: smemkit.autotune_cache() names it, and explain(config=, splits=) shows a tile one.
    For transpose, the plan is the knobs' defaults' path, as for sgemm what runs untuned and under a CUDA tool;
    a tuned call of a shape whose path those leave open (the sector store or not, the flat skinny kernel or
    not) may run the other: smemkit.autotune_cache("transpose") names its transpose_sector / transpose_flat
    levels, and explain() under smemkit._testing.knobs(transpose_sector=..., transpose_flat=...) shows it.
    1- and 2-byte matrices with a pitch off words and output rows of >= 1024 bytes run the byte gather from raw
    rows (config "gather from raw rows: ..."; knob transpose_gather): its plan counts every shared instruction as
    Nsight Compute does (its heads in tile row 0 follow each matrix's base phase, so a batch is not a multiple of
    one matrix there); on large calls ncu's load wavefronts read ~2% above the per-instruction counts in pad /
    swizzle (contention between instructions, which the addresses do not determine).
    The plan assumes dense row-major operands from an aligned allocation.  For gemm, `layout` may
    also be a :class:`smemkit.Swizzle`
    the kernel instantiates (e.g. the article's ``Swizzle(2, 3, 2)``).  `dtype` None means float32
    (float16 for gemm).  Needs no GPU.

    For gemm, ``kernel="wgmma"`` explains the sm_90a TMA + wgmma kernel (csrc/hopper/; what runs on
    compute capability 9.0 where the gemm16_kernel knob's "auto" rule or "wgmma" selects it:
    ``smemkit.bench`` names the kernel that ran in BenchResult.config) with `layout` one of its TMA
    modes ("swizzle" = 128B, Swizzle(2, 3, 3) = 64B, Swizzle(1, 3, 3) = 32B, "naive" = none).  Modelled:
    wgmma's descriptor reads of A and B (instr "wgmma": the kernel's own descriptors decoded into the
    PTX canonical layouts' 8 x 16-byte core matrices, one 8-row phase each; ncu:
    ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma``, 80 wavefronts per m64n256k16 and no bank
    conflict in any mode; instructions counted per warp as ncu's
    ``smsp__sass_inst_executed_op_shared_gmma``, 4 per warpgroup wgmma) and the epilogue's C staging tile
    (per consumer warp a 16 x 64 layout.h Swizzle<3,3,3> tile, 4-byte stores and 16-byte loads; present
    where N % 8 == 0; exact against ``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``).
    What the model cannot see: TMA's writes of the A / B tiles (async proxy: no LSU wavefront or
    bank-conflict counter shows them; ncu has them only as ``l1tex__data_bank_writes``, bytes / 4, and
    UTMALDG counts -- the config string gives the boxes per stage), and the arbitration conflicts the
    hardware counters ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}`` add when the staging
    stores run beside the other warpgroup's wgmma reads or the next tile's TMA writes (up to +53 % on
    the epilogue's counts at 4096^3; they agree with the model where a block's epilogue runs alone).
    The modes differ in TMA's work per stage (5 / 10 / 20 / 40 boxes of 128 / 64 / 32 / 16-byte rows,
    twice the L2 -> L1 bytes with no swizzle), not in modelled bank conflicts (docs/GEMM16_NOTES.md).
    """
    if not isinstance(op, str) or op not in _DTYPES:
        raise ValueError(f"explain(): op must be 'transpose', 'sgemm' or 'gemm'; got {op!r}")
    if dtype is None:
        dtype = "float16" if op == "gemm" else "float32"
    lay, swz, shown = _layout_args(op, layout)
    batch = 1
    if op == "transpose":
        dt, itemsize = _transpose_itemsize(dtype)
        shape = check_op_args("explain", op, "float32", shape, _DTYPES)[2]  # the shape's own checks
        if len(shape) < 2:
            raise ValueError(f"explain(): transpose needs a shape (..., rows, cols) with at least 2 entries; got "
                             f"{shape}")
        if any(s < 0 for s in shape[:-2]):
            raise ValueError(f"explain(): negative batch dimension in {shape}")
        for s in shape[:-2]:
            batch *= s  # one launch: blocks (and so every count) scale by the batch
        kshape = shape[-2:]
    else:
        op, dt, shape = check_op_args("explain", op, dtype, shape, _DTYPES)
        itemsize, kshape = _DTYPES[op][dt], shape
    if kernel not in ("mma.sync", "wgmma") or (kernel == "wgmma" and (op != "gemm" or config != 0)):
        raise ValueError(f"explain(): kernel must be 'mma.sync' or (gemm, config 0) 'wgmma'; got {kernel!r}")
    if kernel == "wgmma":
        _C._plan(op, kshape, "swizzle", itemsize, sms, config, splits)  # the shape's checks
        plan = _wgmma_plan.plan(kshape, layout, sms)
    else:
        plan = _C._plan(op, kshape, lay, itemsize, sms, config, splits, swizzle=swz,
                        **({"batch": batch} if op == "transpose" else {}))  # the launcher's choice sees the batch
    scale = 1 if op == "transpose" and kernel != "wgmma" else batch  # transposes: scaled in C already
    accesses = []
    for entry in plan["accesses"]:
        name, width, kind, repeats, addr = entry[:5]
        instr = entry[5] if len(entry) > 5 else "ldst"
        sources = entry[6] if len(entry) > 6 else None  # a gemm cp.async: the LDGSTS rule needs them
        per_instr = 1
        if instr == "wgmma":  # each core matrix one 8-row phase: ldmatrix's rule, 4 matrices per group
            wf, idl = replay(addr, 16, "ldmatrix.x4")
            wf, idl = wf.reshape(-1, _wgmma_plan.WGMMA_GROUPS).sum(1), idl.reshape(-1, _wgmma_plan.WGMMA_GROUPS).sum(1)
            per_instr = _wgmma_plan.WARPS_PER_WGMMA  # ncu counts HGMMA per warp
        else:
            wf, idl = replay(addr, width, kind if instr == "ldst" else instr, sources=sources)
        worst = float(np.max(wf / np.maximum(idl, 1))) if len(wf) else 0.0
        repeats *= scale
        accesses.append(Access(name, width, kind, int(len(wf)) * repeats * per_instr, int(wf.sum()) * repeats,
                               int(idl.sum()) * repeats, worst, instr))
    return Explanation(op, shape, shown, dt, plan["config"], plan["blocks"] * scale, tuple(accesses))
