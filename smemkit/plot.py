"""Pictures of shared-memory tiles (matplotlib is an optional extra: pip install "smemkit[plot]")."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .layouts import BANKS, Layout, _banks

if TYPE_CHECKING:
    from matplotlib.axes import Axes


MAX_CELLS = 2**18  # 1 MiB of 4-byte elements: past Hopper's 227 KiB of shared memory already


def bank_colors() -> list[tuple[float, float, float]]:
    """The 32 bank colours (RGB in [0, 1]): matplotlib's 'turbo' between 5% and 95% (no near-black
    ends), bank b at position bitreverse5(b) / 31.  Banks are categories, not a scale: neighbouring
    banks (b, b+1, and 31, 0 -- a cyclic map such as 'hsv' makes those two the same red) sit at least
    8 of the 32 steps apart, so cells that share a bank are the only cells of one colour."""
    import matplotlib

    turbo = matplotlib.colormaps["turbo"]
    rgb = [turbo(0.05 + 0.9 * int(f"{b:05b}"[::-1], 2) / 31) for b in range(BANKS)]
    return [(float(c[0]), float(c[1]), float(c[2])) for c in rgb]


def _luminance(rgb: tuple[float, float, float]) -> float:
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def label_color(rgb: tuple[float, float, float]) -> str:
    """"black" or "white", whichever contrasts more with the cell colour (WCAG relative luminance):
    every bank colour of bank_colors() keeps a contrast ratio above 4.5:1 with its label."""
    lum = _luminance(rgb)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("smemkit plotting needs matplotlib: pip install 'smemkit[plot]' "
                          "(or pip install matplotlib)") from e
    return plt


def plot_bank_map(layout: Layout | None, rows: int = 32, cols: int = 32, itemsize: int = 4, *,
                  access: Literal["column", "row"] | None = "column", index: int = 0, vec: int = 1,
                  ax: Axes | None = None, title: str | None = None) -> Axes:
    """plot_bank_map(layout, rows=32, cols=32, itemsize=4, *, access="column", index=0, vec=1, ax=None, title=None)

    Draw a rows x cols tile as a grid of cells, each coloured and labelled by the bank its element
    is stored in, and outline the 32 cells one warp touches: ``access="column"`` (lane i reads
    (i, index), the transpose's column read), ``"row"`` (lane i reads (index, i)), or None.  The
    title states how many distinct banks that warp access touches.  Returns the matplotlib Axes.
    """
    plt = _pyplot()
    if access not in ("column", "row", None):
        raise ValueError(f"plot_bank_map(): access must be 'column', 'row' or None; got {access!r}")
    if isinstance(index, bool) or not isinstance(index, int) and not hasattr(index, "__index__"):
        raise TypeError(f"plot_bank_map(): index must be an int; got {type(index).__name__}")
    index = operator.index(index)
    if ax is not None and not hasattr(ax, "imshow"):
        raise TypeError(f"plot_bank_map(): ax must be a matplotlib Axes or None; got {type(ax).__name__}")
    try:
        ncells = operator.index(rows) * operator.index(cols)
    except TypeError:
        ncells = 0  # the C map names the argument that is not an int
    if ncells > MAX_CELLS:
        raise ValueError(f"plot_bank_map(): rows * cols must be at most {MAX_CELLS} cells (more than any shared-memory "
                         f"tile holds, and unreadable as a picture); got {rows} x {cols}")
    banks = _banks("plot_bank_map", layout, rows, cols, itemsize, vec)
    rows, cols = banks.shape
    if access == "column" and not 0 <= index < cols:
        raise ValueError(f"plot_bank_map(): index must be in [0, {cols}) for a column access; got {index}")
    if access == "row" and not 0 <= index < rows:
        raise ValueError(f"plot_bank_map(): index must be in [0, {rows}) for a row access; got {index}")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4, cols * 0.28), max(4, rows * 0.28)))
    from matplotlib.colors import ListedColormap

    colors = bank_colors()
    ax.imshow(banks, cmap=ListedColormap(colors, name="smemkit-banks"), vmin=-0.5, vmax=BANKS - 0.5,
              interpolation="nearest")
    if rows * cols <= 64 * 64:
        for (r, c), b in np.ndenumerate(banks):
            ax.text(c, r, str(b), ha="center", va="center", fontsize=5 if cols > 32 else 6,
                    color=label_color(colors[int(b)]))
    cells: list[tuple[int, int]] = []
    if access == "column":
        cells = [(r, index) for r in range(min(32, rows))]
    elif access == "row":
        cells = [(index, c) for c in range(min(32, cols))]
    for r, c in cells:
        ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.6))
    if title is None:
        title = f"{layout}: {rows}x{cols}, {itemsize}-byte elements"
        if cells:
            distinct = len({banks[r, c] for r, c in cells})
            title += f"\nwarp {access} {index}: {distinct} distinct bank(s)"
    ax.set_title(title)
    ax.set_xlabel("logical column")
    ax.set_ylabel("logical row")
    return ax
