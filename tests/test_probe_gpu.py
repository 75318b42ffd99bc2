"""On a GPU machine: measure warp accesses with the probe under Nsight Compute and check that the bank
model predicts every one: a FRESH random set of 4/8/16-byte LDS/STS (the model was fitted to
bench/bank_probe/bank_patterns.txt), and a subset of the 1-/2-byte and stmatrix pattern files plus fresh
random ones (issue #30).

    python -m pytest -q -p no:cacheprovider -m gpu --require-gpu tests/test_probe_gpu.py"""
import os
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


def _subset(src, dst, keep, extra=()):
    """Every pattern line of bench/bank_probe/<src> whose index passes keep(), then extra lines."""
    lines = [ln for ln in open(PROBE / src) if ln.split("#")[0].strip()]
    picked = [ln for i, ln in enumerate(lines) if keep(i)]
    dst.write_text("".join(picked) + "".join(ln + "\n" for ln in extra))
    return len(picked) + len(extra)


def _random_subword_and_stsm(seed):
    """Fresh random patterns the rules were not read from: 1-/2-byte LDS/STS in a 4 KB window with ~1/8
    lanes off, and stmatrix rows (16-byte aligned) in a 2 KB window."""
    import numpy as np
    rng = np.random.default_rng(seed)
    sub, stsm = [], []
    for i in range(16):
        w, kind = (1, 2)[i % 2], ("ld", "st")[i // 2 % 2]
        a = rng.integers(0, int(rng.choice([256, 1024, 4096])) // w, 32) * w
        a[rng.random(32) < 0.125] = -1
        sub.append(f"{w} {kind} " + " ".join(map(str, a)) + f"  # fresh-{seed}-{i}")
    for i in range(12):
        kind = f"stsm{(1, 2, 4)[i % 3]}{'t' if i % 2 else ''}"
        a = rng.integers(0, int(rng.choice([256, 2048])) // 16, 32) * 16
        stsm.append(f"16 {kind} " + " ".join(map(str, a)) + f"  # fresh-{seed}-{i}")
    return sub, stsm


@pytest.mark.gpu
def test_model_predicts_subword_and_stmatrix_on_the_gpu(tmp_path):
    """Issue #30 on the GPU: the probe (--subword) over a subset of the sub-word and stmatrix pattern
    files plus fresh random ones, under ncu; the model must equal every count, and every STSM must be
    counted as one instruction by smsp__inst_executed_op_shared_stsm (~105 launches, ~1 minute)."""
    if not (shutil.which("nvcc") or Path("/usr/local/cuda/bin/nvcc").exists()) or not _ncu():
        pytest.skip("needs nvcc and Nsight Compute (ncu) on the GPU machine")
    import time
    seed = int(time.time()) % 100000
    sub, stsm = _random_subword_and_stsm(seed)
    sw, st = tmp_path / "subword.txt", tmp_path / "stsm.txt"
    n_sw = _subset("bank_patterns_subword.txt", sw, lambda i: i % 9 == 0, sub)   # every width / kind
    n_st = _subset("bank_patterns_stsm.txt", st, lambda i: i % 7 == 0, stsm)     # 7 vs 6 kinds: all kinds
    out = tmp_path / "probe"
    out.mkdir()
    p = subprocess.run(["bash", str(PROBE / "bank_probe.sh"), str(out), "--subword", str(sw), str(st)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    tables = [next(out.glob("bank_probe_subword_*.csv")), next(out.glob("bank_probe_stsm_*.csv"))]
    c = subprocess.run([sys.executable, str(PROBE / "check_model.py"), *map(str, tables), "--instructions"],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(f"seed {seed}\n" + c.stdout[-2000:])
    assert c.returncode == 0, f"seed {seed}\n" + c.stdout[-4000:] + c.stderr[-2000:]
    assert f"{n_sw + n_st} of {n_sw + n_st} measured patterns reproduced" in c.stdout
