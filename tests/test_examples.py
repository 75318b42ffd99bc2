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


def test_distributed_ab_runs_as_one_process():
    """Plain `python examples/distributed_ab.py` (no torchrun): one process, a message saying so; without
    PyTorch or a GPU a message and exit 0 (under torchrun: tests/test_multi_gpu.py)."""
    p = subprocess.run([sys.executable, str(EX / "distributed_ab.py"), "512"], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.startswith("distributed_ab: "), p.stdout
    if "one process (not under torchrun" in p.stdout:
        assert "all ranks agree with torch" in p.stdout and "swizzle" in p.stdout
    else:
        assert "needs PyTorch" in p.stdout or "No GPU here" in p.stdout


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


NB = EX / "bank_conflicts.ipynb"
ROOT = EX.parent


def _check_ids(nb):
    import re
    assert (nb["nbformat"], nb["nbformat_minor"]) >= (4, 5)
    ids = [c.get("id") for c in nb["cells"]]
    assert all(isinstance(i, str) and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in ids), ids
    assert len(set(ids)) == len(ids)


def test_notebook_has_cell_ids():
    """nbformat 4.5: every cell has a unique id (nbformat warns that a missing one will be an error)."""
    nb = json.loads(NB.read_text())
    _check_ids(nb)
    try:
        import nbformat
    except ImportError:
        return
    nbformat.validate(nbformat.reads(NB.read_text(), as_version=4))


def test_notebook_is_stored_executed():
    """Stored with its outputs, so it reads on the web: every code cell ran, in order, and the bank
    maps are a PNG.  metadata.smemkit.executed_on names the GPU it ran on (bench/run_notebook.py)."""
    nb = json.loads(NB.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert any("image/png" in o.get("data", {}) for c in code for o in c["outputs"])
    assert not any(o["output_type"] == "error" for c in code for o in c["outputs"])
    assert nb["metadata"]["smemkit"]["executed_on"]


def test_run_notebook_executes_and_stores_outputs(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "nb.ipynb"
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run_notebook.py"), str(NB), str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    src, nb = json.loads(NB.read_text()), json.loads(out.read_text())
    _check_ids(nb)
    assert [c["source"] for c in nb["cells"]] == [c["source"] for c in src["cells"]]
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    pngs = [c for c in code if any("image/png" in o.get("data", {}) for o in c["outputs"])]
    assert len(pngs) >= (3 if smemkit.is_available() else 1)
    text = "".join("".join(o.get("text", [])) for c in code for o in c["outputs"])
    assert "A-tile store" in text
    assert ("of ceiling" in text) if smemkit.is_available() else ("No GPU here" in text)
    results = [o for c in code for o in c["outputs"] if o["output_type"] == "execute_result"]
    assert results and all("text/plain" in o["data"] for o in results)
    if smemkit.is_available():
        assert any("text/html" in o["data"] for o in results)  # the timings Table


def test_run_notebook_stores_an_error_and_fails(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": ["print('a')\n", "1 / 0"], "outputs": [],
                     "execution_count": None},
                    {"cell_type": "code", "metadata": {}, "source": ["print('never')"], "outputs": [],
                     "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    src = tmp_path / "bad.ipynb"
    src.write_text(json.dumps(nb))
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run_notebook.py"), str(src)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and "ZeroDivisionError" in p.stderr
    got = json.loads(src.read_text())
    _check_ids(got)
    outs = got["cells"][0]["outputs"]
    assert outs[0] == {"output_type": "stream", "name": "stdout", "text": ["a\n"]}
    assert outs[1]["output_type"] == "error" and outs[1]["ename"] == "ZeroDivisionError"
    assert got["cells"][1]["outputs"] == [] and got["cells"][1]["execution_count"] is None
