"""plot_bank_map and the bank-map example (CPU; matplotlib comes with the test extra)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("layout,distinct", [("naive", 1), ("pad", 32), ("swizzle", 32)])
def test_plot_bank_map_titles_the_warp_access(layout, distinct):
    plt = pytest.importorskip("matplotlib.pyplot")
    ax = smemkit.plot_bank_map(layout, access="column", index=3)
    assert f"{distinct} distinct bank" in ax.get_title()
    img = ax.get_images()[0].get_array()
    np.testing.assert_array_equal(img, smemkit.bank_map(layout))
    assert len(ax.patches) == 32
    plt.close(ax.figure)


def test_plot_bank_map_argument_errors():
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError):
        smemkit.plot_bank_map("pad", access="diagonal")
    with pytest.raises(ValueError):
        smemkit.plot_bank_map("pad", access="column", index=32)


def test_plot_without_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"smemkit\[plot\]"):
        smemkit.plot_bank_map("swizzle")


def test_bank_maps_example_writes_three_pngs(tmp_path):
    pytest.importorskip("matplotlib")
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "bank_maps.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    for layout in smemkit.LAYOUTS:
        png = tmp_path / f"bank_map_{layout}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
