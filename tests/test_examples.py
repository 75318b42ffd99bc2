"""The examples run: the A/B scripts (prediction everywhere, timings on a GPU) and the notebook top to
bottom (its GPU section runs on a GPU machine)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import smemkit

EX = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("script,args", [("ab_transpose.py", ["1024", "2048"]), ("ab_sgemm.py", ["512", "384", "256"])])
def test_ab_scripts(script, args):
    p = subprocess.run([sys.executable, str(EX / script), *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "naive" in p.stdout and "swizzle" in p.stdout
    if smemkit.is_available():
        assert "of ceiling" in p.stdout
    else:
        assert "No GPU" in p.stdout


def test_notebook_runs_top_to_bottom():
    pytest.importorskip("matplotlib")
    code = "import matplotlib\nmatplotlib.use('Agg')\n"
    nb = json.loads((EX / "bank_conflicts.ipynb").read_text())
    assert nb["nbformat"] == 4
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 6
    # run every code cell in order in one namespace, as a kernel would (in a subprocess)
    code += "\n".join(f"exec(compile({c!r}, 'cell{i}', 'exec'))" for i, c in enumerate(cells))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "A-tile store" in p.stdout
    assert ("of ceiling" in p.stdout) if smemkit.is_available() else ("No GPU here" in p.stdout)
