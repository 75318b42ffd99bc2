"""Compare Nsight Compute's shared-memory counts of smemkit's kernels with explain()'s predictions.

    python bench/profiling/compare_ncu.py OUTDIR [--md FILE] [--csv FILE] [--knob NAME=V ...]   (after ncu_kernels.sh OUTDIR)

--csv FILE: also write the measured counters of each call, one row per launch (shape, layout, ld_sass, st_sass,
ld_instr, st_instr, ldgsts, ldgsts_instr), the form of the tables under tests/data that the CPU tests replay.

--knob NAME=V (repeatable): the smemkit._testing knobs the launches ran under (ncu_kernels.py --knob).

Transpose shapes may carry a batch ((batch, rows, cols): one launch).  Reads OUTDIR/ncu_kernels.csv and
OUTDIR/ncu_manifest.txt (launch order), prints markdown tables of measured vs predicted wavefronts and
instructions per launch, and exits 1 if any prediction is off by more than 2% (for the tensor-core
GEMM: its total shared wavefronts and its instruction counts; each counter's own difference is shown).

Which counter carries what (measured, docs/GEMM16_NOTES.md): LDS / STS wavefronts and instructions in
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} and smsp__inst_executed_op_shared_{ld,st}; the
tensor-core GEMM's ldmatrix wavefronts in ..._op_ld as well (and smsp__sass_..._op_ldsm), its ldmatrix
instructions only in smsp__inst_executed_op_ldsm; its cp.async shared writes only in
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts (instructions:
smsp__sass_inst_executed_op_ldgsts).  explain() reports each access with its instruction kind, so each
counter is compared with the accesses it counts.
"""
import csv
import sys
from collections import OrderedDict

import smemkit
from smemkit._testing import knobs

M = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "wf_ld",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "wf_st",
     "smsp__inst_executed_op_shared_ld.sum": "in_ld",
     "smsp__inst_executed_op_shared_st.sum": "in_st",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bc_ld",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "bc_st",
     "smsp__inst_executed_op_ldsm.sum": "in_ldsm",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum": "wf_ldsm",
     "smsp__sass_inst_executed_op_ldgsts.sum": "in_ldgsts",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum": "wf_ldgsts",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "swf_ld",
     "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "swf_st"}


def read_ncu(path):
    """One dict of counters per CALL: the kernels between two marker kernels (spin_kernel, launched by
    ncu_kernels.py before each call and after the last) summed, their names joined in "kernel".  A file
    without markers (an older run) gives one entry per kernel."""
    launches = OrderedDict()
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") in M:
            d = launches.setdefault(row["ID"], {"kernel": row["Kernel Name"]})
            d[M[row["Metric Name"]]] = float(row["Metric Value"].replace(",", ""))
    kernels = list(launches.values())
    if not any("spin_kernel" in k["kernel"] for k in kernels):
        return kernels
    calls, cur = [], None
    for k in kernels:
        if "spin_kernel" in k["kernel"]:
            if cur is not None:
                calls.append(cur)
            cur = {"kernel": ""}
            continue
        if cur is None:
            continue
        cur["kernel"] = (cur["kernel"] + " + " if cur["kernel"] else "") + k["kernel"]
        for key, v in k.items():
            if key != "kernel":
                cur[key] = cur.get(key, 0.0) + v
    return calls


def layout_of(name):
    return smemkit.Swizzle(2, 3, 2) if name == "swizzle232" else name


def predict(op, dims, layout, dtype, config, sms):
    """{counter key: predicted count} for one launch."""
    e = smemkit.explain(op, dims, layout_of(layout), dtype, sms=sms, config=config)
    acc = e.accesses
    ldst_ld = [a for a in acc if a.instr == "ldst" and a.kind == "load"]
    ldst_st = [a for a in acc if a.instr == "ldst" and a.kind == "store"]
    ldsm = [a for a in acc if a.instr.startswith("ldmatrix")]
    cpa = [a for a in acc if a.instr.startswith("cp.async")]
    s = lambda xs, w="wavefronts": sum(getattr(a, w) for a in xs)  # noqa: E731
    pred = {"wf_ld": s(ldst_ld) + s(ldsm), "wf_st": s(ldst_st), "in_ld": s(ldst_ld, "instructions"),
            "in_st": s(ldst_st, "instructions")}
    if op == "gemm":
        pred.update({"in_ldsm": s(ldsm, "instructions")})
    if op == "gemm" or cpa:  # the SGEMM deep kernel's copies are cp.async too (session 46)
        pred.update({"wf_ldgsts": s(cpa), "in_ldgsts": s(cpa, "instructions")})
    return e, pred


def write_csv(path, manifest, launches):
    """The measured counters per call (manifest order), as tests/data/ncu_*_h100.csv hold them."""
    keys = [("ld_sass", "swf_ld"), ("st_sass", "swf_st"), ("ld_instr", "in_ld"), ("st_instr", "in_st"),
            ("ldgsts", "wf_ldgsts"), ("ldgsts_instr", "in_ldgsts")]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["op", "shape", "dtype", "layout"] + [k for k, _ in keys])
        for row, m in zip(manifest, launches):
            op, layout, shape, dtype = row[:4]
            w.writerow([op, shape, dtype, layout] + [f"{m.get(v, 0):.0f}" for _, v in keys])


def main(outdir, md=None, csv_out=None):
    launches = read_ncu(f"{outdir}/ncu_kernels.csv")
    manifest = [l.strip().split(",") for l in open(f"{outdir}/ncu_manifest.txt") if l.strip()]
    if len(launches) != len(manifest):
        sys.exit(f"{len(launches)} profiled launches but {len(manifest)} in the manifest")
    if csv_out:
        write_csv(csv_out, manifest, launches)
    sms = 132
    lsu = ["| op | shape | dtype | smem B/lane | layout | ld wavefronts ncu / model | st wavefronts ncu / model | "
           "ld instr ncu / model | st instr ncu / model | cp.async (LDGSTS) wavefronts / instr ncu / model | "
           "bank-conflict counter ld / st | worst diff | per-instruction ld / st wavefronts (SASS) | worst diff (SASS) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    g16 = ["| shape | dtype | config | layout | kernel tiles | ldmatrix wavefronts ncu / model | ldmatrix instr ncu / "
           "model | cp.async wavefronts ncu / model | cp.async instr ncu / model | STS wavefronts ncu / model | "
           "STS instr ncu / model | LDS placeholders (ncu) | total wavefronts ncu / model | model vs ncu | "
           "worst single counter | worst (total, instructions) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    worst_all = 0.0
    worst_sass = None
    for row, m in zip(manifest, launches):
        op, layout, shape, dtype = row[:4]
        config = int(row[4]) if len(row) > 4 else 0
        dims = tuple(int(x) for x in shape.split("x"))
        e, pred = predict(op, dims, layout, dtype, config, sms)
        # gemm: smsp__inst_executed_op_shared_ld counts only the compiler's `@!PT LDS RZ, [RZ]`
        # placeholders around the cp.async groups (never executed, no wavefront): shown, not compared.
        # The criterion is the launch's total shared wavefronts (ldmatrix + cp.async + st.shared) and
        # its instruction counts; each wavefront counter's own difference is shown beside it.
        diffs = {k: abs(m.get(k, 0) - v) / max(v, 1) for k, v in pred.items() if not (op == "gemm" and k == "in_ld")}
        if op == "gemm":
            keys = ("wf_ld", "wf_ldgsts", "wf_st")
            tot_m, tot_p = sum(m.get(k, 0) for k in keys), sum(pred[k] for k in keys)
            counters = max(diffs[k] for k in keys)
            worst = max([abs(tot_m - tot_p) / max(tot_p, 1)] + [diffs[k] for k in ("in_ldsm", "in_ldgsts", "in_st")])
            worst_all = max(worst_all, worst)
            cell = lambda k: f"{m.get(k, 0):.0f} / {pred[k]}"  # noqa: E731
            g16.append(f"| {shape} | {dtype} | {config} | {layout} | {e.config.split(',')[0]} | {cell('wf_ld')} | "
                       f"{cell('in_ldsm')} | {cell('wf_ldgsts')} | {cell('in_ldgsts')} | {cell('wf_st')} | "
                       f"{cell('in_st')} | {m.get('in_ld', 0):.0f} | {tot_m:.0f} / {tot_p} | "
                       f"{100 * (tot_p - tot_m) / max(tot_m, 1):+.2f}% | {100 * counters:.1f}% | {100 * worst:.2f}% |")
            continue
        worst = max(diffs.values())
        worst_all = max(worst_all, worst)
        # The same wavefronts counted per SASS instruction (ncu's instrumented smsp__sass_ counters):
        # what each instruction's addresses cost, without the hardware counter's share of contention
        # between instructions; shown beside the criterion, not instead of it.
        sass = "-"
        if "swf_ld" in m and "swf_st" in m:
            ws = max([abs(m["swf_ld"] - pred["wf_ld"]) / max(pred["wf_ld"], 1),
                      abs(m["swf_st"] - pred["wf_st"]) / max(pred["wf_st"], 1), diffs["in_ld"], diffs["in_st"]] +
                     [diffs[k] for k in ("wf_ldgsts", "in_ldgsts") if k in diffs])  # LDGSTS: a per-instruction counter
            worst_sass = ws if worst_sass is None else max(worst_sass, ws)
            sass = f"{m['swf_ld']:.0f} / {m['swf_st']:.0f} | {100 * ws:.2f}%"
        else:
            sass += " | -"
        widths = "/".join(sorted({str(a.width) for a in e.accesses}, key=int))
        g = lambda k: m.get(k, 0)  # noqa: E731  (a call with no kernel between its markers reads 0)
        lsu.append(f"| {op} | {shape} | {dtype} | {widths} | {layout} | {g('wf_ld'):.0f} / {pred['wf_ld']} | "
                   f"{g('wf_st'):.0f} / {pred['wf_st']} | {g('in_ld'):.0f} / {pred['in_ld']} | "
                   f"{g('in_st'):.0f} / {pred['in_st']} | "
                   f"{g('wf_ldgsts'):.0f} / {pred.get('wf_ldgsts', 0)}, {g('in_ldgsts'):.0f} / {pred.get('in_ldgsts', 0)} | "
                   f"{g('bc_ld'):.0f} / {g('bc_st'):.0f} | "
                   f"{100 * worst:.2f}% | {sass} |")
    text = "\n".join((lsu if len(lsu) > 2 else []) + ([""] if len(lsu) > 2 and len(g16) > 2 else []) +
                     (g16 if len(g16) > 2 else []))
    text += f"\n\nworst difference: {100 * worst_all:.2f}% ({'within' if worst_all <= 0.02 else 'OUTSIDE'} 2%)"
    if len(lsu) > 2 and worst_sass is not None:
        text += f"\nworst difference against the per-instruction (SASS) wavefronts, LDS/STS kernels: {100 * worst_sass:.2f}%"
    print(text)
    if md:
        with open(md, "a") as f:
            f.write(text + "\n")
    return 0 if worst_all <= 0.02 else 1


if __name__ == "__main__":
    a = sys.argv[1:]
    md = a[a.index("--md") + 1] if "--md" in a else None
    csv_out = a[a.index("--csv") + 1] if "--csv" in a else None
    values = {a[i + 1].split("=")[0]: int(a[i + 1].split("=")[1]) for i, x in enumerate(a) if x == "--knob"}
    with knobs(**values):
        sys.exit(main(a[0], md, csv_out))
