"""Tables of Nsight Compute counts of the TMA + wgmma GEMM per swizzle mode (bench/profiling/ncu_wgmma.sh).

    python bench/profiling/wgmma_ncu_table.py candidates QUERY_ALL QUERY_BASE -o FILE
    python bench/profiling/wgmma_ncu_table.py probe PROBE_HW.csv [PROBE_SASS.csv]
    python bench/profiling/wgmma_ncu_table.py gemm MANIFEST GEMM_HW.csv [GEMM_SASS.csv]
    python bench/profiling/wgmma_ncu_table.py nonzero CSV... -o FILE
    python bench/profiling/wgmma_ncu_table.py rows MANIFEST GEMM_HW.csv GEMM_SASS.csv BIG_MANIFEST BIG.csv \
        PROBE_HW.csv PROBE_SASS.csv -o CSV

candidates: the .sum counters of `ncu --query-metrics --query-metrics-mode all` whose names say gmma, tma,
bulk, dsmem, shared-memory bank or LSU / pipe wavefronts, shared-instruction counts, L2 / xbar traffic
from L1 (base names + ".sum" where mode "all" listed nothing).  probe: per (mode, kind, cw) the
difference of the reps = 2 and reps = 1 launches (one k-tile = 4 wgmmas of one warpgroup), per wgmma.
gemm: per case, every non-zero counter per mode, raw and per wgmma instruction of one warpgroup
(tiles * k-tiles * 2 consumer warpgroups * 4 k16 steps).  rows: the CSV of tests/data/ncu_wgmma_h100.csv.
"""
import argparse
import csv
import re
import sys
from collections import OrderedDict

KEEP = [r"gmma", r"tma", r"bulk", r"dsmem", r"^l1tex__data_bank_", r"^l1tex__data_pipe_.*wavefronts",
        r"^smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared", r"^(sm|smsp)__sass_l1tex_data_bank",
        r"^(sm|smsp)__(sass_)?inst_executed_op_(shared|ldsm|stsm)",
        r"^lts__t_(sectors|requests)_srcunit_tex(_op_read)?$", r"^l1tex__m_xbar2l1tex_read_(bytes|sectors)$",
        r"^sm__cycles_elapsed$", r"^gpu__time_duration$", r"^smsp__inst_executed$", r"^sm__inst_executed_pipe_tensor"]
NAME = re.compile(r"^\s*([a-z0-9]+__[a-z0-9_]+(?:\.[a-z0-9_]+)*)\b")
MODES = ("128B", "64B", "32B", "none")
SWB = {"128": "128B", "64": "64B", "32": "32B", "0": "none"}


def cmd_candidates(args):
    names = []
    for path in (args.query_all, args.query_base):
        with open(path, errors="replace") as f:
            toks = [m.group(1) for m in map(NAME.match, f) if m]
        sums = [t[:-4] for t in toks if t.endswith(".sum")]
        names = sums if sums else [t for t in toks if "." not in t]
        if names:
            break
    seen, out = set(), []
    for base in names:
        if base in seen or re.search(r"pct|ratio|per_(second|cycle)|_rate", base):
            continue
        if any(re.search(k, base) for k in KEEP):
            seen.add(base)
            out.append(base + ".sum")
    # gmma / tma first, so a cap keeps them
    out.sort(key=lambda n: (not re.search(r"gmma|tma|bulk", n), n))
    out = out[:args.cap]
    with open(args.output, "w") as f:
        f.write("".join(n + "\n" for n in out))
    print(f"{len(out)} candidate counters -> {args.output}")
    for n in out:
        if re.search(r"gmma|tma|bulk|dsmem", n):
            print("  ", n)
    return 0


def read_ncu(path):
    """[(id, kernel, {metric: value})] in profile order, and the non-ncu lines (a probe's launch list)."""
    rows, other = OrderedDict(), []
    try:
        f = open(path, errors="replace")
    except OSError:
        return [], []
    with f:
        lines = f.readlines()
    other = [l.strip() for l in lines if not l.startswith('"') and not l.startswith("==")]
    for row in csv.DictReader([l for l in lines if l.startswith('"')]):
        if "Metric Name" not in row or row.get("ID") in (None, "ID"):
            continue
        d = rows.setdefault(row["ID"], (row["Kernel Name"], {}))
        v = row["Metric Value"].replace(",", "")
        try:
            d[1][row["Metric Name"]] = float(v)
        except ValueError:
            d[1][row["Metric Name"]] = None
    out = [(int(k), v[0], v[1]) for k, v in rows.items()]
    out.sort()
    return out, other


def merged(*paths):
    """Per launch, the metrics of every file (same launches in the same order)."""
    runs = [read_ncu(p)[0] for p in paths if p]
    runs = [r for r in runs if r]
    if not runs:
        return []
    n = max(len(r) for r in runs)
    out = []
    for i in range(n):
        m = {}
        for r in runs:
            if i < len(r):
                m.update(r[i][2])
        out.append(m)
    return out


def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:.3f}"


def probe_table(hw, sass):
    runs_hw, manifest = read_ncu(hw)
    launches = [l.split() for l in manifest if re.match(r"^(128|64|32|0) (ab|b) [01] [12]$", l)]
    counts = merged(hw, sass)
    if len(launches) != len(counts):
        print(f"probe: {len(launches)} launches listed, {len(counts)} profiled", file=sys.stderr)
    by = {}
    for (swb, kind, cw, reps), m in zip(launches, counts):
        by[(SWB[swb], kind, int(cw), int(reps))] = m
    diffs = OrderedDict()
    for mode in MODES:
        for kind in ("ab", "b"):
            for cw in (0, 1):
                one, two = by.get((mode, kind, cw, 1)), by.get((mode, kind, cw, 2))
                if one is None or two is None:
                    continue
                diffs[(mode, kind, cw)] = {k: (two[k] - one[k]) if two.get(k) is not None and one.get(k) is not None
                                           else None for k in two}
    return diffs


def cmd_probe(args):
    diffs = probe_table(args.hw, args.sass)
    names = sorted({k for d in diffs.values() for k, v in d.items() if v})
    print("wgmma probe: one k-tile (4 x m64n256k16 of one warpgroup) per row, counts / 4 = per wgmma")
    cols = list(diffs)
    print("| counter | " + " | ".join(f"{m} {k} cw{c}" for m, k, c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for n in names:
        print(f"| {n} | " + " | ".join(fmt(None if diffs[c].get(n) is None else diffs[c][n] / 4) for c in cols) + " |")
    return 0


def gemm_cases(manifest):
    with open(manifest) as f:
        return [l.split() for l in f if l.strip()]


def wgmmas(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return -(-m // 128) * -(-n // 256) * -(-k // 64) * 2 * 4


def cmd_gemm(args):
    cases = gemm_cases(args.manifest)
    counts = merged(args.hw, args.sass)
    if len(cases) != len(counts):
        print(f"gemm: {len(cases)} launches listed, {len(counts)} profiled", file=sys.stderr)
    table = OrderedDict()
    for (shape, dtype, mode, i), m in zip(cases, counts):
        table.setdefault((shape, dtype, i), {})[mode] = m
    for (shape, dtype, i), per in table.items():
        names = sorted({k for m in per.values() for k, v in m.items() if v})
        w = wgmmas(shape)
        print(f"\n{shape} {dtype} launch {i}: {w} wgmma instructions (warpgroup level); raw counts, then per wgmma")
        print("| counter | " + " | ".join(MODES) + " | " + " | ".join(f"{m}/wgmma" for m in MODES) + " |")
        print("|---|" + "---|" * (2 * len(MODES)))
        for n in names:
            vals = [per.get(m, {}).get(n) for m in MODES]
            print(f"| {n} | " + " | ".join(fmt(v) for v in vals) + " | " +
                  " | ".join("-" if v is None else f"{v / w:.2f}" for v in vals) + " |")
    return 0


def cmd_nonzero(args):
    names = set()
    for p in args.csv:
        for _, _, m in read_ncu(p)[0]:
            names |= {k for k, v in m.items() if v}
    with open(args.output, "w") as f:
        f.write("".join(n + "\n" for n in sorted(names)))
    print(f"{len(names)} non-zero counters -> {args.output}")
    return 0


# tests/data/ncu_wgmma_h100.csv: column -> counter
COLUMNS = OrderedDict([
    ("gmma_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"),
    ("gmma_wavefronts_sass", "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"),
    ("gmma_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum"),
    ("gmma_instr", "smsp__sass_inst_executed_op_shared_gmma.sum"),
    ("gmma_bytes", "smsp__sass_data_bytes_mem_shared_op_gmma.sum"),
    ("ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("ld_wavefronts_sass", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("st_wavefronts_sass", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("ld_instr", "smsp__inst_executed_op_shared_ld.sum"),
    ("st_instr", "smsp__inst_executed_op_shared_st.sum"),
    ("ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("tma_instr", "smsp__inst_executed_op_tma_ld.sum"),
    ("tma_bytes", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"),
    ("bank_writes", "l1tex__data_bank_writes.sum"),
    ("lts_requests", "lts__t_requests_srcunit_tex_op_read.sum"),
    ("sm_cycles", "sm__cycles_elapsed.sum"),
    ("stall_gmma", "smsp__warps_issue_stalled_gmma.sum"),
])


def cmd_rows(args):
    out = []
    for manifest, hw, sass in ((args.manifest, args.hw, args.sass), (args.big_manifest, args.big, None)):
        if not manifest:
            continue
        for (shape, dtype, mode, i), m in zip(gemm_cases(manifest), merged(hw, sass)):
            out.append(["gemm", shape, dtype, mode, i] +
                       [fmt(m[c]) if m.get(c) is not None else "" for c in COLUMNS.values()])
    for (mode, kind, cw), d in probe_table(args.probe_hw, args.probe_sass).items():
        out.append(["probe", "m64n256k16x4", "float16", mode, f"{kind}-cw{cw}"] +
                   [fmt(d[c]) if d.get(c) is not None else "" for c in COLUMNS.values()])
    with open(args.output, "w", newline="") as f:
        f.write(args.header)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["source", "shape", "dtype", "mode", "launch"] + list(COLUMNS))
        w.writerows(out)
    print(f"{len(out)} rows -> {args.output}")
    return 0


HEADER = """# Nsight Compute counts of the sm_90a TMA + wgmma GEMM per swizzle mode (issue 29), NVIDIA H100 80GB HBM3,
# driver 580.159.04, ncu 2025.3.1 (--clock-control none), 2026-11-26, bench/profiling/wgmma_session.sh.
# source gemm: one launch of the GEMM (PyTorch operands, beta 0, 2-byte D: the staged epilogue); launch =
# the launch's index within its case (--launch-skip 1 past a warm-up).  source probe: bench/bank_probe/
# wgmma_probe.cu, one k-tile (4 x wgmma m64n256k16 of one warpgroup: the kernel's a_desc / b_desc), the
# difference of a reps=2 and a reps=1 launch; launch = kind (ab: A and B from shared memory, b: A from
# registers) and the consumer warpgroup cw.  Empty: not collected in that run.  Columns -> counters:
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("candidates")
    p.add_argument("query_all")
    p.add_argument("query_base")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--cap", type=int, default=260)
    p = sub.add_parser("probe")
    p.add_argument("hw")
    p.add_argument("sass", nargs="?")
    p = sub.add_parser("gemm")
    p.add_argument("manifest")
    p.add_argument("hw")
    p.add_argument("sass", nargs="?")
    p = sub.add_parser("nonzero")
    p.add_argument("csv", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("rows")
    p.add_argument("manifest")
    p.add_argument("hw")
    p.add_argument("sass")
    p.add_argument("big_manifest")
    p.add_argument("big")
    p.add_argument("probe_hw")
    p.add_argument("probe_sass")
    p.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    if args.cmd == "rows":
        args.header = HEADER + "".join(f"#   {k} = {v}\n" for k, v in COLUMNS.items())
    cmds = {"rows": cmd_rows, "candidates": cmd_candidates, "probe": cmd_probe, "gemm": cmd_gemm, "nonzero": cmd_nonzero}
    return cmds[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
