"""explain('transpose') against Nsight Compute on the flat skinny kernel (csrc/transpose/skinny_flat.cuh, session 50;
CPU: the counts measured on an H200 under transpose_flat=2 are in tests/data/ncu_transpose_flat_s50_h200.csv, both
cases, float32 and float64, S' = 64 and 128, batches, every layout).  The criterion: the per-instruction shared
wavefronts (smsp__sass_..._op_{ld,st}) and the shared load / store instruction counts within 2% (measured: 1.75% at
most, the last block's warps; exact on full blocks)."""
import csv
from pathlib import Path

import pytest

import smemkit
from smemkit._testing import knobs

TABLE = Path(__file__).resolve().parent / "data" / "ncu_transpose_flat_s50_h200.csv"


def rows():
    with open(TABLE) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def test_the_table_covers_the_kernel():
    r = rows()
    assert len(r) == 36 and {x["layout"] for x in r} == set(smemkit.LAYOUTS)
    assert {x["dtype"] for x in r} == {"float32", "float64"}


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['shape']}-{r['dtype']}-{r['layout']}")
def test_explain_matches_ncu_on_the_flat_kernel(row):
    shape = tuple(int(x) for x in row["shape"].split("x"))
    with knobs(transpose_flat=2):
        e = smemkit.explain("transpose", shape, row["layout"], row["dtype"])
    assert e.config.startswith("skinny-flat ")
    st = [a for a in e.accesses if a.kind == "store"]
    ld = [a for a in e.accesses if a.kind == "load"]
    assert len(st) + len(ld) == len(e.accesses)
    got = {"ld_sass": sum(a.wavefronts for a in ld), "st_sass": sum(a.wavefronts for a in st),
           "ld_instr": sum(a.instructions for a in ld), "st_instr": sum(a.instructions for a in st)}
    for k, v in got.items():
        assert v == pytest.approx(int(row[k]), rel=0.02), (k, v, row[k])
