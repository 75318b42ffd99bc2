"""The shared-memory layouts as arrays, straight from csrc/layout.h (through smemkit._C).

Nothing here re-derives an index formula: every offset comes from the C function the kernels call.
"""
from __future__ import annotations

import operator
from typing import Literal, SupportsIndex, Union, overload

import numpy as np
import numpy.typing as npt

from . import _C

#: A layout name, as the kernels, bench and explain take it (smemkit.LAYOUTS lists them).
Layout = Literal["naive", "pad", "swizzle"]

BANKS = 32
BANK_BYTES = 4


def tile_offsets(layout: Layout | None, rows: int = 32, cols: int = 32, *, vec: int = 1,
                 itemsize: int = 4) -> tuple[npt.NDArray[np.int64], int]:
    """tile_offsets(layout, rows=32, cols=32, *, vec=1, itemsize=4) -> (offsets, storage_elems)

    offsets[r, c] is the element offset at which the kernels store logical element (r, c) of a
    rows x cols tile of `itemsize`-byte elements accessed `vec` elements at a time; storage_elems is
    the tile's footprint in elements (larger than rows*cols only for 'pad').
    """
    return _C._tile_offsets(layout, rows, cols, vec, itemsize)


def _banks(fname: str, layout: Layout | None, rows: SupportsIndex, cols: SupportsIndex, itemsize: SupportsIndex,
           vec: SupportsIndex) -> npt.NDArray[np.int64]:
    offsets, _ = _C._tile_offsets(layout, rows, cols, vec, itemsize, fname=fname)
    banks: npt.NDArray[np.int64] = (offsets * operator.index(itemsize) // BANK_BYTES) % BANKS
    return banks


def bank_map(layout: Layout | None, rows: int = 32, cols: int = 32, itemsize: int = 4, *,
             vec: int = 1) -> npt.NDArray[np.int64]:
    """bank_map(layout, rows=32, cols=32, itemsize=4, *, vec=1) -> int array (rows, cols)

    The shared-memory bank (0..31) of the first 4-byte word of each logical element as stored.
    """
    return _banks("bank_map", layout, rows, cols, itemsize, vec)


class Swizzle:
    """Swizzle(b, m, s): CuTe's Swizzle<BBits, MBase, SShift> on integer offsets.

    ``offset ^ ((offset & yyy_mask) >> s)`` with ``yyy_mask = (2**b - 1) << (m + s)``: the b bits
    at m+s are XORed into the b bits at m; the m low bits stay put.  The same function as
    csrc/layout.h's smk_swizzle (this class calls it).  Swizzle(5, 0, 5) on ``r*32 + c`` is the
    transpose's ``r*32 + (c ^ r)``; Swizzle(3, 2, 3) keeps float4s whole.
    """

    __slots__ = ("b", "m", "s")

    def __init__(self, b: int | np.integer, m: int | np.integer, s: int | np.integer) -> None:
        for name, v in (("b", b), ("m", m), ("s", s)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"Swizzle: {name} must be an int; got {type(v).__name__}")
        b, m, s = int(b), int(m), int(s)
        if not (0 <= b <= 24 and 0 <= m <= 24 and -24 <= s <= 24) or (s < 0 and -s > m):
            raise ValueError(f"Swizzle(b={b}, m={m}, s={s}): need 0 <= b, m <= 24 and |s| <= 24 (and -s <= m for "
                             "s < 0)")
        if abs(s) < b:
            raise ValueError(f"Swizzle(b={b}, m={m}, s={s}): |s| must be >= b, or the yyy and zzz bit fields overlap")
        self.b, self.m, self.s = b, m, s

    @overload
    def __call__(self, offsets: int | np.integer) -> int: ...
    @overload
    def __call__(self, offsets: npt.ArrayLike) -> npt.NDArray[np.int64]: ...

    def __call__(self, offsets: npt.ArrayLike) -> Union[int, npt.NDArray[np.int64]]:
        """Apply the swizzle to an int or an array of ints in [0, 2**31).  Raises TypeError for
        non-integers (a float is refused, not truncated) and ValueError for values out of range."""
        try:
            a = np.asarray(offsets)
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(f"{self!r}(offsets): offsets must be integers: {e}") from None
        if a.dtype.kind == "O" and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in a.flat):
            if any(not 0 <= int(v) < 2**31 for v in a.flat):
                raise ValueError(f"{self!r}(offsets): offsets must be in [0, 2**31)")
            a = a.astype(np.int64)
        if a.dtype.kind not in "iu":
            raise TypeError(f"{self!r}(offsets): offsets must be integers; got dtype {a.dtype}")
        if a.size and (a.min() < 0 or a.max() >= 2**31):
            raise ValueError(f"{self!r}(offsets): offsets must be in [0, 2**31); got "
                             f"{a.min() if a.min() < 0 else a.max()}")
        out = _C._swizzle(a.astype(np.int64), self.b, self.m, self.s)
        if isinstance(offsets, (int, np.integer)) and not isinstance(offsets, bool):
            return int(out)
        return out

    def __repr__(self) -> str:
        return f"Swizzle({self.b}, {self.m}, {self.s})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Swizzle) and (self.b, self.m, self.s) == (other.b, other.m, other.s)

    def __hash__(self) -> int:
        return hash((Swizzle, self.b, self.m, self.s))
