"""Compare Nsight Compute's shared-memory counts of smemkit's kernels with explain()'s predictions.

    python bench/compare_ncu.py OUTDIR      (after bash bench/ncu_kernels.sh OUTDIR)

Transpose shapes may carry a batch ((batch, rows, cols): one launch).  Reads OUTDIR/ncu_kernels.csv and OUTDIR/ncu_manifest.txt (launch order), prints a markdown table of
measured vs predicted wavefronts and instructions per launch, and exits 1 if any prediction is off
by more than 2%.
"""
import csv
import sys
from collections import OrderedDict

import smemkit

M = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "wf_ld",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "wf_st",
     "smsp__inst_executed_op_shared_ld.sum": "in_ld",
     "smsp__inst_executed_op_shared_st.sum": "in_st",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bc_ld",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "bc_st"}


def read_ncu(path):
    launches = OrderedDict()
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") in M:
            d = launches.setdefault(row["ID"], {"kernel": row["Kernel Name"]})
            d[M[row["Metric Name"]]] = float(row["Metric Value"].replace(",", ""))
    return list(launches.values())


def main(outdir):
    launches = read_ncu(f"{outdir}/ncu_kernels.csv")
    manifest = [l.strip().split(",") for l in open(f"{outdir}/ncu_manifest.txt") if l.strip()]
    if len(launches) != len(manifest):
        sys.exit(f"{len(launches)} profiled launches but {len(manifest)} in the manifest")
    sms = 132
    out = ["| op | shape | dtype | smem B/lane | layout | ld wavefronts ncu / model | st wavefronts ncu / model | "
           "ld instr ncu / model | st instr ncu / model | bank-conflict counter ld / st | worst diff |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    worst_all = 0.0
    for (op, layout, shape, dtype), m in zip(manifest, launches):
        dims = tuple(int(x) for x in shape.split("x"))
        e = smemkit.explain(op, dims, layout, dtype, sms=sms)
        pred = {"wf_ld": e.total("load"), "wf_st": e.total("store"),
                "in_ld": e.total("load", "instructions"), "in_st": e.total("store", "instructions")}
        diffs = [abs(m[k] - v) / max(v, 1) for k, v in pred.items()]
        worst = max(diffs)
        worst_all = max(worst_all, worst)
        widths = "/".join(sorted({str(a.width) for a in e.accesses}, key=int))
        out.append(f"| {op} | {shape} | {dtype} | {widths} | {layout} | {m['wf_ld']:.0f} / {pred['wf_ld']} | "
                   f"{m['wf_st']:.0f} / {pred['wf_st']} | {m['in_ld']:.0f} / {pred['in_ld']} | "
                   f"{m['in_st']:.0f} / {pred['in_st']} | {m.get('bc_ld', 0):.0f} / {m.get('bc_st', 0):.0f} | "
                   f"{100 * worst:.2f}% |")
    print("\n".join(out))
    print(f"\nworst difference: {100 * worst_all:.2f}% ({'within' if worst_all <= 0.02 else 'OUTSIDE'} 2%)")
    return 0 if worst_all <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
