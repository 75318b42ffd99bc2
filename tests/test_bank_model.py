"""The CPU bank model: the measured ncu table, known cases, errors, and the C unit test."""
import csv
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import smemkit
from smemkit import bank_model

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tests" / "data" / "bank_probe_h200.csv"


def measured_rows():
    with open(TABLE) as f:
        for row in csv.DictReader(f):
            yield row


def test_the_measured_table_is_broad():
    rows = list(measured_rows())
    assert len(rows) >= 400
    assert {(r["width"], r["kind"]) for r in rows} == {(w, k) for w in ("4", "8", "16") for k in ("ld", "st")}
    assert all(r["instructions"] == "1" for r in rows)  # one warp instruction per measurement


def test_model_reproduces_every_measured_row():
    bad = []
    for r in measured_rows():
        addr = np.array(r["addresses"].split(), dtype=np.int64)
        kind = "load" if r["kind"] == "ld" else "store"
        got = bank_model.wavefronts(addr, int(r["width"]), kind)
        if got != int(r["wavefronts"]):
            bad.append(f'{r["width"]}B {kind} {r["name"]}: measured {r["wavefronts"]}, model {got}')
    assert not bad, f"{len(bad)} rows disagree:\n" + "\n".join(bad)


def test_ideal_never_exceeds_wavefronts_on_the_table():
    for r in measured_rows():
        addr = np.array(r["addresses"].split(), dtype=np.int64)
        kind = "load" if r["kind"] == "ld" else "store"
        assert bank_model.ideal(addr, int(r["width"]), kind) <= bank_model.wavefronts(addr, int(r["width"]), kind)


@pytest.mark.parametrize("layout,want", [("naive", 32), ("pad", 1), ("swizzle", 1)])
def test_32x32_fp32_column_read(layout, want):
    off, _ = smemkit.tile_offsets(layout, 32, 32)
    for c in range(32):
        assert bank_model.wavefronts(off[:, c] * 4, 4, "load") == want
        assert bank_model.wavefronts(off[c, :] * 4, 4, "store") == 1  # row store


@pytest.mark.parametrize("width,minimum", [(4, 1), (8, 2), (16, 4)])
def test_full_warp_minimums(width, minimum):
    addr = np.arange(32) * width
    assert bank_model.wavefronts(addr, width) == minimum == bank_model.ideal(addr, width)


def test_inactive_lanes():
    addr = np.full(32, -1)
    assert bank_model.wavefronts(addr) == 0
    addr[5] = 128
    assert bank_model.wavefronts(addr) == 1


def test_k_way_conflicts():
    for k in (2, 4, 8, 16, 32):
        addr = (np.arange(32) % k) * 128  # k distinct words in bank 0
        assert bank_model.wavefronts(addr, 4, "load") == k
        assert bank_model.ideal(addr, 4, "load") == 1


def test_replay_matches_single_calls():
    rng = np.random.default_rng(3)
    addr = rng.integers(0, 2048, size=(500, 32)) * 4
    wf, idl = bank_model.replay(addr, 4, "load")
    assert wf.shape == idl.shape == (500,)
    for i in range(0, 500, 37):
        assert wf[i] == bank_model.wavefronts(addr[i], 4, "load")
        assert idl[i] == bank_model.ideal(addr[i], 4, "load")


@pytest.mark.parametrize("args,exc", [
    ((np.arange(31) * 4,), ValueError),
    ((np.arange(33) * 4,), ValueError),
    ((np.arange(32) * 4 + 2,), ValueError),          # unaligned for width 4
    ((np.arange(32) * 8 + 4, 8), ValueError),        # unaligned for width 8
    ((np.arange(32) * 4, 12), ValueError),
    ((np.arange(32) * 4, 4, "read"), ValueError),
    ((np.arange(32) * 4, 4.0), TypeError),
    ((np.arange(32) * 4.0,), TypeError),
    (([[1, 2]],), ValueError),
    (("abc",), ValueError),
])
def test_errors(args, exc):
    with pytest.raises(exc):
        bank_model.wavefronts(*args)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler")
def test_c_unit_test(tmp_path):
    exe = tmp_path / "tbm"
    subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'csrc'}",
                    str(ROOT / "tests" / "c" / "test_bank_model.c"), str(ROOT / "csrc" / "bank_model.c"),
                    "-o", str(exe)], check=True)
    p = subprocess.run([str(exe), str(TABLE)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert " 0 failed" in p.stdout
