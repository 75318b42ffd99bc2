"""On a GPU machine: measure a FRESH random set of warp accesses with the probe under Nsight Compute
and check that the bank model predicts every one (the model was fitted to
bench/bank_probe/bank_patterns.txt)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "bench" / "bank_probe"


def _ncu():
    found = shutil.which("ncu") or next(iter(sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))), None)
    return str(found) if found else None


@pytest.mark.gpu
def test_model_predicts_a_fresh_random_probe_set(tmp_path):
    if not (shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists()) or not _ncu():
        pytest.skip("needs nvcc and Nsight Compute (ncu) on the GPU machine")
    pats = tmp_path / "fresh.txt"
    subprocess.run([sys.executable, str(PROBE / "fresh_patterns.py"), str(pats), "--count", "200"],
                   check=True)
    out = tmp_path / "probe"
    out.mkdir()
    p = subprocess.run(["bash", str(PROBE / "bank_probe.sh"), str(out), str(pats)], capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    tables = list(out.glob("bank_probe_*.csv"))
    assert len(tables) == 1
    c = subprocess.run([sys.executable, str(PROBE / "check_model.py"), str(tables[0])],
                       capture_output=True, text=True)
    print(c.stdout[-2000:])
    assert c.returncode == 0, c.stdout[-4000:]
    assert "200 of 200 measured patterns reproduced" in c.stdout
