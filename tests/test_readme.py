"""The README's quick start stays true: CI runs its test command, and the main job runs."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import smemkit

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands():
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)


def test_quick_start_has_two_commands():
    cmds = quick_start_commands()
    assert len(cmds) == 2
    assert "python -m smemkit" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert quick_start_commands()[1] in ci


def test_main_job_runs():
    p = subprocess.run([sys.executable, "-m", "smemkit", "--size", "1024", "--rep-ms", "20"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    if smemkit.is_available():
        assert "cudaMemcpy D2D" in p.stdout and "swizzle" in p.stdout and "sgemm" in p.stdout
        assert "cuBLAS" in p.stdout
    else:
        assert "No usable GPU" in p.stdout and "32-way conflict" in p.stdout
        assert "predicted shared-memory wavefronts" in p.stdout and "A-tile store" in p.stdout


def test_main_job_json_and_options():
    import json
    p = subprocess.run([sys.executable, "-m", "smemkit", "--op", "sgemm", "--layout", "pad", "--size", "512",
                        "--json", "--rep-ms", "10"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["schema"] == 1 and out["timed"] == smemkit.is_available()
    rows = out["rows"]
    assert len(rows) == 1 and rows[0]["layout"] == "pad" and rows[0]["op"] == "sgemm"
    assert rows[0]["shape"] == [512, 512, 512]


def test_main_job_bad_argument_exit_code():
    p = subprocess.run([sys.executable, "-m", "smemkit", "--size", "0"], capture_output=True, text=True)
    assert p.returncode != 0


@pytest.mark.gpu
def test_main_job_sweep_and_plot(tmp_path):
    png = tmp_path / "ab.png"
    p = subprocess.run([sys.executable, "-m", "smemkit", "--op", "transpose", "--sweep", "--rep-ms", "5",
                        "--plot", str(png)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "16384x16384" in p.stdout and "1024x1024" in p.stdout
    assert "5/5" in p.stderr  # the progress bar reached the end
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_says_exactly_what_out_accepts():
    """out= is stricter than NumPy's ufuncs (no same-kind casting, C order only): the README says so
    instead of promising "NumPy's rules" (tests/test_out.py checks the refusals themselves)."""
    readme = (ROOT / "README.md").read_text()
    assert "NumPy's rules" not in readme
    assert "no casting" in readme and "F-order" in readme and "C-contiguous" in readme


def test_readme_states_the_measured_build_times():
    """Issue 32: the quick start says how long the two commands take (measured, with the machine), and
    the figures are the ones docs/RESULTS.md records."""
    readme = (ROOT / "README.md").read_text()
    assert "SMEMKIT_CUDA_ARCH=all" in readme and "nvcc-cache" in readme
    assert "TODO-BUILD-TIMES" not in readme
    m = re.search(r"2-core machine\s+without a GPU.*?the first command (\d+) s.*?the second (\d+) s", readme, re.S)
    assert m, "README's quick start must give both commands' measured times"
    results = (ROOT / "docs" / "RESULTS.md").read_text()
    section = results[results.index("## Build time"):]
    assert f"| {m.group(1)} s |" in section and f"| {m.group(2)} s:" in section
