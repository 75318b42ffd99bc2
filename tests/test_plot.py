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


def _contrast(l1, l2):
    hi, lo = max(l1, l2), min(l1, l2)
    return (hi + 0.05) / (lo + 0.05)


def test_bank_colours_tell_neighbouring_banks_apart_and_keep_labels_readable():
    """No wrap-around (hsv made bank 0 and bank 31 the same red): every pair of neighbouring banks,
    31 and 0 included, differs by a clear RGB distance, and each cell's label (black or white, as
    plot_bank_map draws it) keeps at least WCAG's 4.5:1 contrast on its cell."""
    pytest.importorskip("matplotlib")
    from smemkit.plot import _luminance, bank_colors, label_color

    colors = bank_colors()
    assert len(colors) == 32 and len(set(colors)) == 32
    for b in range(32):
        a, c = np.array(colors[b]), np.array(colors[(b + 1) % 32])
        assert np.linalg.norm(a - c) > 0.5, (b, (b + 1) % 32)
        label = 1.0 if label_color(colors[b]) == "white" else 0.0
        assert _contrast(_luminance(colors[b]), label) >= 4.5, b


def test_plot_bank_map_draws_the_bank_colours_and_label_colours():
    plt = pytest.importorskip("matplotlib.pyplot")
    from matplotlib.colors import to_rgb

    from smemkit.plot import bank_colors, label_color

    ax = smemkit.plot_bank_map("naive")
    img = ax.get_images()[0]
    for b in (0, 1, 31):
        assert img.cmap(img.norm(b))[:3] == pytest.approx(bank_colors()[b])
    texts = {t.get_text(): to_rgb(t.get_color()) for t in ax.texts}
    for b in range(32):
        assert texts[str(b)] == to_rgb(label_color(bank_colors()[b]))
    plt.close(ax.figure)
