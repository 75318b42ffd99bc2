"""explain(kernel="wgmma")'s model of the TMA + wgmma GEMM's shared-memory accesses (issue 29), on the CPU:
the kernel's own descriptors decoded into core matrices must be the addresses TMA wrote the operands to,
and the model's counts must match Nsight Compute's per swizzle mode (tests/data/ncu_wgmma_h100.csv,
bench/profiling/wgmma_session.sh on an H100)."""
import csv
import os

import numpy as np
import pytest

import smemkit
from smemkit import _C, _wgmma_plan
from smemkit.layouts import Swizzle

DATA = os.path.join(os.path.dirname(__file__), "data", "ncu_wgmma_h100.csv")
MODES = {"128B": ("swizzle", 128), "64B": (smemkit.Swizzle(2, 3, 3), 64), "32B": (smemkit.Swizzle(1, 3, 3), 32),
         "none": ("naive", 0)}
BM, BN, BK = _wgmma_plan.BM, _wgmma_plan.BN, _wgmma_plan.BK


def rows():
    with open(DATA) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def tma_byte(swb, operand, row, col):
    """Where TMA puts element (row, col) of a stage (the oracle: CU_TENSOR_MAP_SWIZZLE_* boxes of W
    elements per row, W = swb / 2 or 8, written row-major, slab after slab; A at 0, B after A; the 16-byte
    chunk XORed with the row within the 8-row atom, i.e. Swizzle<b,4,3> on the byte address)."""
    w = swb // 2 if swb else 8
    if operand == "a":  # A[m][k]: slabs of BM rows along K
        off = (col // w) * BM * 2 * w + row * 2 * w + (col % w) * 2
    else:  # B[k][n]: slabs of BK rows along N, after A's BM x BK
        off = BM * BK * 2 + (col // w) * BK * 2 * w + row * 2 * w + (col % w) * 2
    return int(Swizzle({128: 3, 64: 2, 32: 1}[swb], 4, 3)(off)) if swb else off


@pytest.mark.parametrize("mode", list(MODES))
def test_descriptors_read_what_tma_wrote(mode):
    swb = MODES[mode][1]
    d = _C._wgmma_descs(swb)
    for cw in range(2):
        for kk in range(4):
            a = _wgmma_plan.core_matrix_rows(d[2 * (4 * cw + kk)], "a")  # (16, 8): matrix (i, j) = 2i + j
            b = _wgmma_plan.core_matrix_rows(d[2 * (4 * cw + kk) + 1], "b")  # (64, 8): matrix (c, g) = 2c + g
            want_a = [[tma_byte(swb, "a", 64 * cw + 8 * i + r, 16 * kk + 8 * j) for r in range(8)]
                      for i in range(8) for j in range(2)]
            want_b = [[tma_byte(swb, "b", 16 * kk + 8 * g + r, 8 * c) for r in range(8)]
                      for c in range(32) for g in range(2)]
            assert a.tolist() == want_a, (mode, cw, kk)
            assert b.tolist() == want_b, (mode, cw, kk)


def test_descs_refuse_other_widths():
    with pytest.raises(ValueError, match="swb"):
        _C._wgmma_descs(16)


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_reads_one_wavefront_per_core_matrix(mode):
    # the canonical layouts put a core matrix's 8 rows on 8 distinct 16-byte bank groups in every mode
    reads = _wgmma_plan.wgmma_reads(MODES[mode][1])
    banks = (reads.reshape(-1, 8) // 16) % 8
    assert all(len(set(m)) == 8 for m in banks.tolist())
    e = smemkit.explain("gemm", (1024, 1024, 1024), MODES[mode][0], kernel="wgmma")
    g = [a for a in e.accesses if a.instr == "wgmma"][0]
    n = 8 * 4 * 16 * 8  # tiles x k-tiles x (2 warpgroups x 4 k16 steps)
    assert (g.wavefronts, g.ideal, g.instructions, g.worst_ways) == (80 * n, 80 * n, 4 * n, 1.0)


def explain_row(r):
    shape = tuple(int(x) for x in r["shape"].split("x"))
    e = smemkit.explain("gemm", shape, MODES[r["mode"]][0], r["dtype"], kernel="wgmma")
    by = {a.instr + ":" + a.kind: a for a in e.accesses}
    return by["wgmma:load"], by["ldst:store"], by["ldst:load"]


def close(model, measured, tol=0.02):
    return abs(model - measured) <= tol * max(measured, 1)


def test_model_matches_ncu_per_mode():
    gemm = [r for r in rows() if r["source"] == "gemm"]
    assert {r["mode"] for r in gemm} == set(MODES) and {r["dtype"] for r in gemm} == {"float16", "bfloat16"}
    for r in gemm:
        g, sts, lds = explain_row(r)
        what = (r["shape"], r["dtype"], r["mode"], r["launch"])
        # wgmma's reads: wavefronts, warp instructions, and no conflict (model excess 0, ncu 0)
        assert close(g.wavefronts, float(r["gmma_wavefronts"])), what
        assert close(g.wavefronts, float(r["gmma_wavefronts_sass"])), what
        assert g.instructions == float(r["gmma_instr"]) and g.excess == 0, what
        if r["gmma_conflicts"]:
            assert float(r["gmma_conflicts"]) == 0, what
        # the staging tile: exact on the per-instruction (SASS-patched) counters in every launch
        assert close(lds.wavefronts, float(r["ld_wavefronts_sass"])), what
        assert close(sts.wavefronts, float(r["st_wavefronts_sass"])), what
        assert (lds.instructions, sts.instructions) == (float(r["ld_instr"]), float(r["st_instr"])), what
        # the hardware counters add arbitration with concurrent wgmma / TMA traffic: never below the model
        assert float(r["ld_wavefronts"]) >= 0.98 * lds.wavefronts and float(r["st_wavefronts"]) >= 0.98 * sts.wavefronts


def test_hardware_lsu_counters_match_where_the_epilogue_runs_alone():
    # 1024^3 (32 tiles, one per block, short K): nothing else touches the banks while a warp stages C
    for r in rows():
        if r["source"] == "gemm" and r["shape"] == "1024x1024x1024":
            _, sts, lds = explain_row(r)
            assert close(lds.wavefronts, float(r["ld_wavefronts"])) and close(sts.wavefronts, float(r["st_wavefronts"]))


def test_probe_splits_a_and_b():
    # the probe's k-tile (4 wgmmas of one warpgroup): ab = A and B from shared memory, b = B alone
    for r in rows():
        if r["source"] != "probe":
            continue
        reads = _wgmma_plan.wgmma_reads(MODES[r["mode"]][1])
        wf, _ = smemkit.bank_model.replay(reads, 16, "ldmatrix.x4")
        per = wf.reshape(8, _wgmma_plan.WGMMA_GROUPS)  # 8 wgmmas of one k-tile, A's 4 groups first
        cw = int(r["launch"][-1])
        a, b = per[4 * cw:4 * cw + 4, :4].sum(), per[4 * cw:4 * cw + 4, 4:].sum()
        want = a + b if r["launch"].startswith("ab") else b
        assert float(r["gmma_wavefronts"]) == want and float(r["gmma_instr"]) == 16, r


def test_tma_counters_move_with_the_mode_and_explain_names_them():
    # TMA's writes are not LSU accesses: ncu counts them as bank writes (bytes / 4, the same in every mode)
    # and as UTMALDG boxes, 5 / 10 / 20 / 40 per stage; explain's config names the boxes, models no write
    for r in rows():
        if r["source"] != "gemm":
            continue
        m, n, k = (int(x) for x in r["shape"].split("x"))
        stages = -(-m // BM) * -(-n // BN) * -(-k // BK)
        swb = MODES[r["mode"]][1]
        assert float(r["tma_instr"]) == stages * _wgmma_plan.TMA_BOXES[swb]
        assert float(r["tma_bytes"]) == stages * (BM + BN) * BK * 2 * (2 if swb == 0 else 1)
        e = smemkit.explain("gemm", (m, n, k), MODES[r["mode"]][0], kernel="wgmma")
        assert f"({_wgmma_plan.TMA_BOXES[swb]} boxes per stage)" in e.config and "TMA writes not modelled" in e.config
    assert [_wgmma_plan.TMA_BOXES[s] for s in (128, 64, 32, 0)] == [5, 10, 20, 40]


def test_core_matrix_rows_refuses_other_operands():
    with pytest.raises(ValueError, match="operand"):
        _wgmma_plan.core_matrix_rows(_C._wgmma_descs(128)[0], "c")
    assert np.asarray(_wgmma_plan.decode_desc(_C._wgmma_descs(128)[1])).tolist()[3] == 128
