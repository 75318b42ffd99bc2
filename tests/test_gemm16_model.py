"""The tensor-core GEMM's side of the CPU bank model (csrc/bank_model.c kinds LDSM / CPASYNC) and the
layout.h swizzle choice for its 2-byte tiles.  Pure CPU: tests/c/gemm16_model.c is built with cc and
driven here, so these run without the extension's gemm binding and without a GPU."""
import csv
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tests" / "data" / "bank_probe_tc_h100.csv"
NAIVE, PAD, SWIZZLE = 0, 1, 2


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    exe = tmp_path_factory.mktemp("g16m") / "gemm16_model"
    subprocess.run([cc, "-std=c99", "-O1", "-I", str(ROOT / "csrc"), str(ROOT / "tests" / "c" / "gemm16_model.c"),
                    str(ROOT / "csrc" / "bank_model.c"), "-o", str(exe)], check=True)

    def run(*args):
        out = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, check=True)
        return out.stdout
    return run


def ints(text):
    return tuple(int(x) for x in text.split())


# ---- layout.h: the automatic swizzle for 16-byte vectors of 2-byte elements ------------------------
@pytest.mark.parametrize("log2_cols, expected", [(5, (2, 3, 3)), (6, (3, 3, 3)), (7, (3, 3, 4)), (8, (3, 3, 5))])
def test_layout_swizzle_for_fp16_tiles(model, log2_cols, expected):
    """64-byte rows (K-tile 32): Swizzle<2,3,3>, XOR with the bank-row index; 128-byte rows: <3,3,3>."""
    assert ints(model("swizzle", log2_cols, 3, 1)) == expected


@pytest.mark.parametrize("args, expected", [((5, 0, 2), (5, 0, 5)), ((5, 0, 3), (4, 0, 5)), ((5, 2, 2), (3, 2, 3)),
                                            ((5, 0, 1), (5, 0, 5))])
def test_layout_swizzle_unchanged_for_existing_tiles(model, args, expected):
    """fp32 / fp64 transpose tiles, float4 SGEMM tiles and the 2-byte scalar tile keep their maps."""
    assert ints(model("swizzle", *args)) == expected


# ---- the GEMM's own fragment loads: ldmatrix.x4 on its tiles (wavefronts, ideal) --------------------
FRAG_CASES = [
    # layout, log2 cols, explicit swizzle, wavefronts: K-tile 32 (64-byte rows) ...
    ("naive", NAIVE, 5, (0, 0, 0), 16),         # 4-way: 2 slots for 8 rows
    ("pad", PAD, 5, (0, 0, 0), 4),
    ("swizzle-auto", SWIZZLE, 5, (0, 0, 0), 4),  # Swizzle<2,3,3>
    ("article-232", SWIZZLE, 5, (2, 3, 2), 8),   # rows r and r+4 share a slot: 2-way
    ("233", SWIZZLE, 5, (2, 3, 3), 4),
    ("333", SWIZZLE, 5, (3, 3, 3), 4),
    # ... and 64 (128-byte rows; also every B panel)
    ("naive", NAIVE, 6, (0, 0, 0), 32),         # 8-way
    ("pad", PAD, 6, (0, 0, 0), 4),
    ("swizzle-auto", SWIZZLE, 6, (0, 0, 0), 4),  # Swizzle<3,3,3>
    ("article-232", SWIZZLE, 6, (2, 3, 2), 16),  # 4-way
    ("233", SWIZZLE, 6, (2, 3, 3), 8),           # 2-way
    ("333", SWIZZLE, 6, (3, 3, 3), 4),
]


@pytest.mark.parametrize("name, layout, log2_cols, swz, expected", FRAG_CASES,
                         ids=[f"k{1 << c[2]}-{c[0]}" for c in FRAG_CASES])
@pytest.mark.parametrize("down", [0, 16])
def test_fragment_ldmatrix_wavefronts(model, name, layout, log2_cols, swz, expected, down):
    wf, ideal = ints(model("frag", layout, log2_cols, *swz, down))
    assert ideal == 4  # four 8x8 matrices, one wavefront each when conflict-free
    assert wf == expected


def test_article_swizzle_is_two_way_and_233_conflict_free_on_64_byte_rows(model):
    assert ints(model("frag", SWIZZLE, 5, 2, 3, 2, 0)) == (8, 4)
    assert ints(model("frag", SWIZZLE, 5, 2, 3, 3, 0)) == (4, 4)


# ---- the measured table ---------------------------------------------------------------------------
def rows():
    with open(TABLE) as f:
        return list(csv.DictReader(f))


def test_measured_table_covers_every_kind():
    kinds = {r["kind"] for r in rows()}
    assert kinds == {"ldsm1", "ldsm2", "ldsm4", "ldsm1t", "ldsm2t", "ldsm4t", "cpasync"}
    assert all(r["instructions"] == "1" for r in rows())
    assert sum(r["name"].startswith("gemm16-") for r in rows()) >= 40  # the kernel's own instructions


def test_model_reproduces_every_measured_ldmatrix_row(model):
    out = [line.split(" ", 3) for line in model("table", TABLE).splitlines()]
    ldsm = [(k, int(m), int(meas), name) for k, m, meas, name in out if k.startswith("ldsm")]
    assert len(ldsm) >= 100
    bad = [r for r in ldsm if r[1] != r[2]]
    assert not bad, bad


def test_cp_async_rows_are_listed_not_modelled(model):
    """The LDGSTS shared-side counter depends on the global source too (bank_model.c header): the
    CPASYNC rule is the STS.128 shared-address rule.  Check only what the header states."""
    out = {name: (int(m), int(meas)) for k, m, meas, name in
           (line.split(" ", 3) for line in model("table", TABLE).splitlines()) if k == "cpasync"}
    assert out["gemm16-A64-cpasync-swizzle"] == (4, 12)
    assert out["gemm16-A32-cpasync-pad"][1] > out["gemm16-A32-cpasync-swizzle"][1]
    assert out["tc-bcast-all"][1] == 1  # one destination: one wavefront


@pytest.mark.parametrize("layout, swz, expected", [(NAIVE, (0, 0, 0), 4), (PAD, (0, 0, 0), 8),
                                                   (SWIZZLE, (0, 0, 0), 4), (SWIZZLE, (2, 3, 2), 4)])
def test_a_tile_cp_async_by_the_sts128_rule(model, layout, swz, expected):
    """K-tile 32: 8 lanes cover two 64-byte rows; pad's 80-byte pitch wraps one lane into the next
    bank row (2-way), the swizzles only permute inside the bank row."""
    assert ints(model("chunk", layout, 5, *swz)) == (expected, 4)
