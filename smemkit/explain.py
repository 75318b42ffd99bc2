"""explain(): every shared-memory access of a kernel's launch, with the wavefronts the bank model
predicts for it.

The addresses come from the kernel's own index code replayed on the host (csrc/*.cu: the kernel's
thread map and csrc/layout.h's smk_tile_offset), so what is explained is what runs.
"""
from dataclasses import dataclass, field

import numpy as np

from . import _C
from .bank_model import replay

_DTYPES = {"transpose": {"float32": 4, "int32": 4, "uint32": 4, "float64": 8, "int64": 8, "uint64": 8,
                         "complex64": 8},
           "sgemm": {"float32": 4}}


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

    @property
    def excess(self):
        return self.wavefronts - self.ideal


@dataclass(frozen=True)
class Explanation:
    """Result of :func:`explain`: ``.accesses``, per-kind totals, ``.to_dict()``, a readable table."""
    op: str
    shape: tuple
    layout: str
    dtype: str
    config: str
    blocks: int
    accesses: tuple = field(default_factory=tuple)

    def total(self, kind=None, what="wavefronts"):
        """Sum of `what` ('wavefronts', 'ideal', 'instructions', 'excess') over accesses of `kind`."""
        return sum(getattr(a, what) for a in self.accesses if kind in (None, a.kind))

    def to_dict(self):
        return {"op": self.op, "shape": list(self.shape), "layout": self.layout, "dtype": self.dtype,
                "config": self.config, "blocks": self.blocks,
                "accesses": [dict(name=a.name, width=a.width, kind=a.kind, instructions=a.instructions,
                                  wavefronts=a.wavefronts, ideal=a.ideal, excess=a.excess,
                                  worst_ways=a.worst_ways) for a in self.accesses],
                "totals": {k or "all": {w: self.total(k, w) for w in ("instructions", "wavefronts", "ideal",
                                                                        "excess")}
                           for k in (None, "load", "store")}}

    def table(self):
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

    def __repr__(self):
        return self.table()

    __str__ = __repr__


def explain(op, shape, layout="swizzle", dtype="float32", *, sms=132, config=0, splits=0):
    """explain(op, shape, layout="swizzle", dtype="float32", *, sms=132, config=0, splits=0) -> Explanation

    Every shared-memory access of one launch of smemkit's kernel `op` ("transpose" with shape
    (rows, cols), or "sgemm" with shape (M, N, K)): its name, width, warp instructions per launch,
    the wavefronts the bank model predicts, the conflict-free ideal, the excess, and launch totals
    (which Nsight Compute's ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`` should
    read).  `sms` is the multiprocessor count the SGEMM launcher sizes its tiles for (132 on
    H100 / H200 SXM); `config` a forced SGEMM tile config (smemkit.bench_configs("sgemm"); 0: the
    one chosen per shape); `splits` forced SGEMM K slices (0: chosen per shape, as the launch does;
    the config string ends in ", splits S" and the counts cover the blocks of every slice).  Needs
    no GPU.
    """
    if op not in _DTYPES:
        raise ValueError(f"op must be 'transpose' or 'sgemm'; got {op!r}")
    dt = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if dt not in _DTYPES[op]:
        raise TypeError(f"{op} does not support dtype {dt!r}; supported: {', '.join(_DTYPES[op])}")
    shape = tuple(int(s) for s in shape)
    plan = _C._plan(op, shape, layout, _DTYPES[op][dt], sms, config, splits)
    accesses = []
    for name, width, kind, repeats, addr in plan["accesses"]:
        wf, idl = replay(addr, width, kind)
        worst = float(np.max(wf / np.maximum(idl, 1))) if len(wf) else 0.0
        accesses.append(Access(name, width, kind, int(len(wf)) * repeats, int(wf.sum()) * repeats,
                               int(idl.sum()) * repeats, worst))
    return Explanation(op, shape, layout if layout is not None else "swizzle", dt, plan["config"],
                       plan["blocks"], tuple(accesses))
