#!/usr/bin/env python3
"""bank_probe_parse.py -- turn the bank probe's ncu output into the measured table, and check its SASS.

    bank_probe_parse.py table NCU_CSV MANIFEST_TSV -o OUT_CSV
        NCU_CSV: `ncu --csv --metrics ...` output of bench/bank_probe (the long "details" layout, one
        row per metric; `--page raw` wide output is accepted too).  MANIFEST_TSV: what
        `bank_probe --manifest` wrote.  OUT_CSV columns:
            width,kind,addresses,wavefronts,instructions,name
        addresses space-separated byte offsets (-1 = inactive lane); wavefronts and instructions are
        the counters of the pattern's own kind (ld or st).  Rows are in pattern order.  Exit 1 when a
        pattern has no result, a row's kernel does not match its pattern, or a counter of the other
        kind is non-zero (the probe must execute exactly one shared instruction).

    bank_probe_parse.py tctable NCU_CSV MANIFEST_TSV -o OUT_CSV
        The tensor-core kinds (ldsm*, cpasync; bench/bank_probe/bank_patterns_tc.txt): every metric ncu
        reported, one column each, so the counters that move for LDSM / LDGSTS can be found.
    bank_probe_parse.py stsmtable NCU_CSV MANIFEST_TSV -o OUT_CSV
        stmatrix (stsm*, bench/bank_probe/bank_patterns_stsm.txt): the columns of `table` first --
        wavefronts = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum (STSM's wavefronts are
        counted there and, equally, in smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum:
        H100, 2026-11-25), instructions = smsp__inst_executed_op_shared_stsm.sum, else
        smsp__sass_inst_executed_op_shared_stsm.sum, else empty (not measured) --
        smsp__inst_executed_op_shared_st.sum does NOT count STSM (0 on every row) -- then every metric
        ncu reported.  Exit 1 when a pattern has no result, the two wavefront counters disagree, or a
        measured instruction count is not 1; a missing instruction counter is reported, not fatal.
    bank_probe_parse.py sass SASS_TXT
        SASS_TXT: `cuobjdump --dump-sass bank_probe`.  Exit 1 unless every smk_bank_probe_<kind><W>
        kernel has exactly one shared-memory instruction, of the right opcode and width, predicated,
        and every stmatrix kernel exactly one STSM of its shape.

Standard library only: it runs wherever the probe runs.
"""
import argparse
import csv
import io
import re
import sys

WF = {"ld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "st": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}
INST = {"ld": "smsp__inst_executed_op_shared_ld.sum",
        "st": "smsp__inst_executed_op_shared_st.sum"}
METRICS = set(WF.values()) | set(INST.values())
KERNEL_RE = re.compile(r"smk_bank_probe_(ld|st)(1|2|4|8|16)\b")


def number(text):
    """ncu prints counts as '32', '1,024' or '1024.00'; 'n/a' -> None"""
    t = text.strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan"):
        return None
    return int(round(float(t)))


def read_manifest(path):
    pats = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            pats[int(row["index"])] = row
    return pats


def ncu_rows(path, metrics=None):
    """Yield dicts {id, kernel, grid, metrics{name: value}} from either ncu CSV layout.
    metrics: the metric names to keep (default: the probe's four); "all" keeps every metric."""
    keep = METRICS if metrics is None else metrics
    with open(path, newline="", errors="replace") as f:
        lines = [ln for ln in f if ln.startswith('"')]  # drop ==PROF== and program chatter
    rows = list(csv.reader(io.StringIO("".join(lines))))
    hdr_i = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if hdr_i is None:
        raise SystemExit(f"{path}: no ncu CSV header (a row starting with \"ID\") found")
    hdr = rows[hdr_i]
    col = {name: i for i, name in enumerate(hdr)}
    results = {}
    order = []

    def result(r):
        rid = r[col["ID"]]
        if rid not in results:
            grid = r[col["Grid Size"]] if "Grid Size" in col else ""
            results[rid] = {"id": int(rid), "kernel": r[col.get("Kernel Name", 0)], "grid": grid,
                            "metrics": {}}
            order.append(rid)
        return results[rid]

    if "Metric Name" in col:  # long layout: one row per (launch, metric)
        for r in rows[hdr_i + 1:]:
            if len(r) != len(hdr) or not r[0].isdigit():
                continue
            name = r[col["Metric Name"]]
            if keep == "all" or name in keep:
                result(r)["metrics"][name] = number(r[col["Metric Value"]])
    else:  # wide layout (--page raw): metrics are columns, a units row follows the header
        mcols = {m: col[m] for m in (METRICS if keep == "all" else keep) if m in col}
        if not mcols:
            raise SystemExit(f"{path}: none of the probe's metrics are in the CSV")
        for r in rows[hdr_i + 1:]:
            if len(r) != len(hdr) or not r[0].isdigit():
                continue
            res = result(r)
            for m, i in mcols.items():
                res["metrics"][m] = number(r[i])
    return [results[k] for k in order]


def pattern_index(res, fallback):
    """The launch tag: gridDim.y = index + 1 (see bank_probe.cu); ncu prints '(1, 5, 1)'."""
    nums = re.findall(r"\d+", res["grid"])
    if len(nums) >= 2:
        return int(nums[1]) - 1
    return fallback


def cmd_table(args):
    pats = read_manifest(args.manifest)
    got = {}
    problems = []
    for n, res in enumerate(ncu_rows(args.ncu_csv)):
        m = KERNEL_RE.search(res["kernel"])
        if not m:
            continue  # someone else's kernel
        idx = pattern_index(res, sorted(pats)[n] if n < len(pats) else -1)
        p = pats.get(idx)
        if p is None:
            problems.append(f"ncu ID {res['id']}: grid {res['grid']!r} names no pattern in the manifest")
            continue
        kind, width = m.group(1), m.group(2)
        if (kind, width) != (p["kind"], p["width"]):
            problems.append(f"pattern {idx} ({p['name']}): ran {res['kernel']!r}, expected {p['kind']}{p['width']}")
            continue
        other = "st" if kind == "ld" else "ld"
        mets = res["metrics"]
        for metric in (WF[other], INST[other]):
            if mets.get(metric):
                problems.append(f"pattern {idx} ({p['name']}): {metric} = {mets[metric]}, expected 0")
        got[idx] = (mets.get(WF[kind]), mets.get(INST[kind]))
    missing = [i for i in sorted(pats) if i not in got]
    for i in missing:
        problems.append(f"pattern {i} ({pats[i]['name']}): no ncu result")
    with open(args.output, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["width", "kind", "addresses", "wavefronts", "instructions", "name"])
        for i in sorted(got):
            p = pats[i]
            wf, inst = got[i]
            w.writerow([p["width"], p["kind"], p["addresses"],
                        "" if wf is None else wf, "" if inst is None else inst, p["name"]])
    active = [i for i in got if any(int(a) >= 0 for a in pats[i]["addresses"].split())]
    odd_inst = [i for i in active if got[i][1] != 1]
    for i in odd_inst:
        problems.append(f"pattern {i} ({pats[i]['name']}): {got[i][1]} shared instructions, expected 1")
    print(f"{args.output}: {len(got)} of {len(pats)} patterns measured", file=sys.stderr)
    for msg in problems:
        print("bank_probe_parse: " + msg, file=sys.stderr)
    return 1 if problems else 0


TC_KERNEL_RE = re.compile(r"smk_bank_probe_(ldsm[124]t?|stsm[124]t?|cpasync)_?16\b")


def collect_tc(args, pats, keep=lambda kind: True):
    """The ncu rows of the tensor-core probe kernels whose kind passes `keep`, matched to `pats`:
    ({pattern index: metrics}, the metric names that carry a value)."""
    got, names = {}, set()
    for res in ncu_rows(args.ncu_csv, "all"):
        m = TC_KERNEL_RE.search(res["kernel"])
        if not m or not keep(m.group(1)):
            continue
        idx = pattern_index(res, -1)
        if idx not in pats or pats[idx]["kind"] != m.group(1):
            print(f"bank_probe_parse: ncu ID {res['id']} ({res['kernel']}, grid {res['grid']}) matches no pattern",
                  file=sys.stderr)
            continue
        got[idx] = res["metrics"]
        names |= set(k for k, v in res["metrics"].items() if v is not None)
    return got, names


def cmd_tctable(args):
    """Tensor-core kinds: one row per pattern with EVERY metric ncu reported (the counters that move
    for LDSM / LDGSTS are what this table is for), columns sorted by name."""
    pats = read_manifest(args.manifest)
    got, names = collect_tc(args, pats)
    cols = sorted(names)
    with open(args.output, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["width", "kind", "addresses", "name"] + cols)
        for i in sorted(got):
            p = pats[i]
            w.writerow([p["width"], p["kind"], p["addresses"], p["name"]] +
                       ["" if got[i].get(c) is None else got[i][c] for c in cols])
    print(f"{args.output}: {len(got)} of {len(pats)} patterns, {len(cols)} metrics", file=sys.stderr)
    return 0 if len(got) == len(pats) else 1


STSM_WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
STSM_WF_SASS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"
# STSM's warp-instruction counters (ncu --query-metrics on an H100: "# of warp instructions executed:
# STSM").  Not ..._op_shared_st / ..._sass_..._op_shared_st: those read 0 for STSM.
STSM_INST = ("smsp__inst_executed_op_shared_stsm.sum", "smsp__sass_inst_executed_op_shared_stsm.sum")


def cmd_stsmtable(args):
    """stmatrix: width,kind,addresses,wavefronts,instructions,name, then every metric ncu reported."""
    pats = {i: p for i, p in read_manifest(args.manifest).items() if p["kind"].startswith("stsm")}
    got, names = collect_tc(args, pats, keep=lambda kind: kind.startswith("stsm"))
    cols = sorted(names)
    inst = next((c for c in STSM_INST if c in names), None)
    problems = [f"pattern {i} ({pats[i]['name']}): no ncu result" for i in sorted(pats) if i not in got]
    if STSM_WF not in names:
        problems.append(f"{STSM_WF} not reported: wavefronts column left empty")
    warnings = []
    if inst is None:
        warnings.append(f"no STSM instruction counter ({' / '.join(STSM_INST)}) reported: instructions left empty")
    for i in sorted(got):
        mets, name = got[i], pats[i]["name"]
        wf, sass = mets.get(STSM_WF), mets.get(STSM_WF_SASS)
        if wf is not None and sass is not None and wf != sass:
            problems.append(f"pattern {i} ({name}): {STSM_WF} = {wf} but {STSM_WF_SASS} = {sass}")
        if inst is not None and mets.get(inst) != 1:
            problems.append(f"pattern {i} ({name}): {inst} = {mets.get(inst)}, expected 1")
    with open(args.output, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["width", "kind", "addresses", "wavefronts", "instructions", "name"] + cols)
        for i in sorted(got):
            p, mets = pats[i], got[i]
            wf, ni = mets.get(STSM_WF), mets.get(inst) if inst else None
            w.writerow([p["width"], p["kind"], p["addresses"], "" if wf is None else wf, "" if ni is None else ni,
                        p["name"]] + ["" if mets.get(c) is None else mets[c] for c in cols])
    print(f"{args.output}: {len(got)} of {len(pats)} patterns, {len(cols)} metrics, instructions from {inst}",
          file=sys.stderr)
    for msg in warnings + problems:
        print("bank_probe_parse: " + msg, file=sys.stderr)
    return 1 if problems else 0


SHARED_OP = re.compile(r"\b(LDS|STS|LDSM|STSM|ATOMS|LDGSTS|RED\.\S*SHARED)(\.[A-Z0-9_.]+)?\b")


def cmd_sass(args):
    funcs = {}
    cur = None
    with open(args.sass_txt, errors="replace") as f:
        for line in f:
            m = re.search(r"Function\s*:\s*(\S+)", line)
            if m:
                cur = m.group(1)
                funcs[cur] = []
                continue
            if cur is None:
                continue
            ins = re.search(r"\*/\s+(.*?);", line)
            if ins and SHARED_OP.search(ins.group(1)):
                funcs[cur].append(ins.group(1).strip())
    want = {f"smk_bank_probe_{k}{w}": (("LDS" if k == "ld" else "STS") +
                                       {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}[w])
            for k in ("ld", "st") for w in (1, 2, 4, 8, 16)}
    # stmatrix (sm_90): one unpredicated STSM.16.M88[.2/.4] / .MT88 (.trans) each
    stsm = {f"smk_bank_probe_stsm{x}{t}{'16' if t else '_16'}": f"STSM.16.{'MT88' if t else 'M88'}" +
            ("" if x == 1 else f".{x}") for x in (1, 2, 4) for t in ("", "t")}
    bad = 0
    for name, op in sorted(stsm.items()):
        found = funcs.get(name)
        ops = [SHARED_OP.search(i).group(0) for i in found or []]
        ok = ops == [op]
        print(f"{name}: {'ok ' if ok else 'BAD'} {found}", file=sys.stderr)
        bad += not ok
    for name, op in sorted(want.items()):
        found = funcs.get(name)
        if found is None:
            print(f"{name}: not in the SASS dump", file=sys.stderr)
            bad += 1
            continue
        ops = [SHARED_OP.search(i).group(0) for i in found]
        ok = len(found) == 1 and ops[0] == op and found[0].startswith("@P")
        print(f"{name}: {'ok ' if ok else 'BAD'} {found}", file=sys.stderr)
        bad += not ok
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    t.add_argument("ncu_csv")
    t.add_argument("manifest")
    t.add_argument("-o", "--output", required=True)
    tc = sub.add_parser("tctable")
    tc.add_argument("ncu_csv")
    tc.add_argument("manifest")
    tc.add_argument("-o", "--output", required=True)
    st = sub.add_parser("stsmtable")
    st.add_argument("ncu_csv")
    st.add_argument("manifest")
    st.add_argument("-o", "--output", required=True)
    s = sub.add_parser("sass")
    s.add_argument("sass_txt")
    args = ap.parse_args(argv)
    return {"table": cmd_table, "tctable": cmd_tctable, "stsmtable": cmd_stsmtable,
            "sass": cmd_sass}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
