"""Patterns for bench/bank_probe/ldgsts_probe.cu and its table against bank_model.c's LDGSTS rule.

    python bench/bank_probe/ldgsts_probe.py gen PATTERNS              (write the patterns)
    python bench/bank_probe/ldgsts_probe.py gen-deep PATTERNS [MxNxK ...]  (the SGEMM deep kernel's copies, session 46)
    python bench/bank_probe/ldgsts_probe.py gen-dup PATTERNS SEED N   (N random 16-byte copies whose lanes re-read
                                                                       source chunks, session 47)
    python bench/bank_probe/ldgsts_probe.py table NCU_CSV PATTERNS [-o CSV]   (after the ncu run)

The device command (one ncu run, < 60 s on an H100; OUT any folder):
    nvcc -O3 -arch=sm_90 -o OUT/ldgsts_probe bench/bank_probe/ldgsts_probe.cu &&
    python bench/bank_probe/ldgsts_probe.py gen OUT/ldgsts_patterns.txt &&
    ncu --clock-control none --print-units base -k regex:smk_ldgsts_probe_ --metrics
        smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_inst_executed_op_ldgsts.sum
        --csv OUT/ldgsts_probe OUT/ldgsts_patterns.txt > OUT/ncu_ldgsts.csv &&
    python bench/bank_probe/ldgsts_probe.py table OUT/ncu_ldgsts.csv OUT/ldgsts_patterns.txt -o OUT/ldgsts_h100.csv

What the patterns ask (docs/BANK_MODEL.md, LDGSTS RULE; the open questions of session 45):
  rot-a{a}-b{b}   16 bytes, four quarter-warps each copying a 128-byte run from global offset 16a of its own
                  8 KB-apart line pair into shared offset 16b of its own 1 KB-apart bank rows: the 64 classes
                  (a, b) plain, zfill for b = 0 and b = a.  4 x [1, 3, 2, 4, 2, 4, 2, 3][r] for one side rotated by
                  r; both sides odd: more (session 46: whole and half sectors never share a wavefront).
  swz-*           16 bytes inside one line and one bank row: XOR permutations (model 1 per quarter),
                  Swizzle<2,3,2>'s row (2).
  gemm-*          the narrow GEMM launches' own first instructions (4 / 8 bytes, cp.async.ca; plain and zfill)
                  with their global sources: 381x130x5522 (A4 B4), 3033x12x1054 (A4 B8: B's 24-byte rows),
                  1500x60x4100 (A8 B8), and 16-byte ones of 1000x2000x1000 pad.
  deep-*          (gen-deep) the SGEMM deep kernel's copies, every layout: A's 4-byte transposed element copies,
                  B's 16-byte float4 / 4-byte element copies; Ae / Be: the last block row's / column's (session 47).
  dup-*           (gen-dup) 16-byte copies drawn at random (a seed): each quarter-warp's lanes on a few source
                  chunks (1..8 distinct, in one or two 128-byte lines, some shared with other quarters), its
                  destinations 8 distinct 16-byte slots of a run rotated in its bank row(s), plain and zfill: the
                  rounds of the 16-byte rule judged on draws it was not built from.
A global offset of -1 on an active lane (zfill form only) is a copy with src-size 0 from the buffer's start.
Session 45's table: tests/data/ldgsts_probe_h100.csv (patterns ldgsts_probe_patterns.txt); session 46's:
ldgsts_probe_s46_h100.csv (ldgsts_probe_s46_patterns.txt).
"""
import csv
import re
import sys
from collections import OrderedDict

import numpy as np

WAVES = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
INSTR = "smsp__sass_inst_executed_op_ldgsts.sum"


def line(width, form, s, g, name):
    s = [int(x) for x in s]
    g = [int(x) if si >= 0 else 0 for x, si in zip(g, s)]
    return f"{width} {form} {' '.join(map(str, s))} | {' '.join(map(str, g))} # {name}"


def rotations():
    out = []
    for form in ("plain", "zfill"):
        for a in range(8):
            for b in range(8) if form == "plain" else sorted({0, a}):
                s = [1024 * (l // 8) + 16 * b + 16 * (l % 8) for l in range(32)]
                g = [8192 * (l // 8) + 16 * a + 16 * (l % 8) for l in range(32)]
                out.append(line(16, form, s, g, f"rot-a{a}-b{b}-{form}"))
    for k in range(8):
        s = [1024 * (l // 8) + 16 * ((l % 8) ^ k) for l in range(32)]
        g = [8192 * (l // 8) + 16 * (l % 8) for l in range(32)]
        out.append(line(16, "plain", s, g, f"swz-xor{k}"))
    s = [1024 * (l // 8) + 16 * ((l % 8) ^ ((l % 8) >> 2 & 1)) for l in range(32)]
    out.append(line(16, "plain", s, [8192 * (l // 8) + 16 * (l % 8) for l in range(32)], "swz-232-row0"))
    return out


def plan_copies(plan, per_access, seen=None):
    """(name, width, instr, i, shared, global) of the first `per_access` instructions of each cp.async access of an
    explain() plan whose shared offsets fit the probe's 48 KB, global offsets shifted to start on a 4 KB boundary
    (-1 kept on an active lane: src-size 0, the probe copies nothing there); with `seen`, each distinct one once."""
    for name, width, kind, rep, addr, instr, src in plan["accesses"]:
        if not instr.startswith("cp.async"):
            continue
        taken = 0
        for i in range(addr.shape[0]):
            s, g = addr[i], src[i]
            on = s >= 0
            if not on.any() or s.max() >= 48 * 1024 or taken >= per_access:
                continue
            rd = on & (g >= 0)
            g0 = int(g[rd].min()) // 4096 * 4096 if rd.any() else 0
            g = np.where(rd, g - g0, np.where(on, -1, 0))
            key = (width, tuple(s), tuple(g))
            if g.max() + width > 4 << 20 or (seen is not None and key in seen):
                continue
            if seen is not None:
                seen.add(key)
            taken += 1
            yield name, width, instr, i, s, g


def gemm_instructions():
    """First instructions (shared offsets < 48 KB) of the narrow launches' copies, global offsets as the plan
    gives them (relative to a 128-byte-aligned origin; shifted to start at 0 on a 4 KB boundary)."""
    from smemkit import _testing
    out = []
    cases = [((381, 130, 5522), "naive"), ((3033, 12, 1054), "naive"), ((1500, 60, 4100), "naive"),
             ((1000, 2000, 1000), "pad")]
    for shape, layout in cases:
        for name, width, instr, i, s, g in plan_copies(_testing.gemm_plan(shape, layout), 1):
            form = "zfill" if instr.endswith("zfill") else "plain"
            short = re.sub(r"[^A-Za-z0-9]+", "-", name)[:40]
            out.append(line(width, form, s, g, f"gemm-{'x'.join(map(str, shape))}-{layout}-{short}-i{i}"))
    return out


DEEP_SHAPES = [(20, 3000, 500), (16, 1003, 777), (8, 2048, 512)]


def deep_instructions(shapes=DEEP_SHAPES, per_access=8):
    """The SGEMM deep kernel's cp.async copies (csrc/sgemm/plan.cu tile_deep_plan: A's 4-byte transposed element
    copies, B's 16-byte float4 copies or 4-byte element copies where N % 4 != 0) as its plan replays them with
    their global sources, the first `per_access` distinct instructions of each access, every layout: ZFILL form,
    as the kernel issues them."""
    from smemkit import _testing
    out, seen = [], set()
    for shape in shapes:
        for layout in ("naive", "pad", "swizzle"):
            for name, width, instr, i, s, g in plan_copies(_testing.sgemm_plan(shape, layout), per_access, seen):
                short = ("A" if name.startswith("A-tile") else "B") + ("e" if "last block" in name else "")
                out.append(line(width, "zfill", s, g, f"deep-{'x'.join(map(str, shape))}-{layout}-{short}{width}-i{i}"))
    return out


def dup_instructions(seed, n):
    """n random 16-byte patterns with duplicated source chunks (see the module docstring, dup-*)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        form = ("plain", "zfill")[p % 2]
        s, g = [], []
        shared_pool = [int(x) for x in 4096 * 64 + 16 * rng.integers(0, 16, size=2)]  # chunks quarters may share
        for q in range(4):
            quarters_apart = int(rng.choice([256, 1024]))  # runs of 8 slots rotated: never overlapping
            rot = int(rng.integers(0, 8))
            base_s = 4096 + q * quarters_apart + 16 * rot  # a run of 8 slots rotated: it may straddle two bank rows
            slots = list(range(8))
            if rng.random() < 0.5:
                rng.shuffle(slots)
            s += [base_s + 16 * x for x in slots]
            d = int(rng.integers(1, 9))
            line0 = 4096 * (q + 1) + 128 * int(rng.integers(0, 4))
            span = int(rng.choice([8, 16]))  # the chunks within one line or two
            chunks = [line0 + 16 * int(c) for c in rng.choice(span, size=d, replace=False)]
            if rng.random() < 0.4:
                chunks[0] = shared_pool[int(rng.integers(0, 2))]
            lanes = [chunks[int(i)] for i in rng.integers(0, d, size=8)]
            g += lanes
        out.append(line(16, form, s, g, f"dup-s{seed}-{p}-{form}"))
    return out


def cmd_gen(path):
    pats = rotations() + gemm_instructions()
    with open(path, "w") as f:
        f.write("# ldgsts_probe patterns (bench/bank_probe/ldgsts_probe.py gen): W form s0..s31 | g0..g31 # name\n")
        f.write("\n".join(pats) + "\n")
    print(f"{len(pats)} patterns -> {path}")


def read_patterns(path):
    pats = []
    for ln in open(path):
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        body, name = ln.split("#", 1)
        head, gl = body.split("|")
        w, form, *s = head.split()
        pats.append((int(w), form, np.array(list(map(int, s))), np.array(list(map(int, gl.split()))), name.strip()))
    return pats


def read_ncu(path):
    rows = OrderedDict()
    lines = [ln for ln in open(path) if ln.startswith('"')]
    for r in csv.DictReader(lines):
        if r.get("Metric Name") in (WAVES, INSTR):
            grid = r["Grid Size"].strip("()").split(",")
            idx = int(grid[1]) - 1
            rows.setdefault(idx, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return rows


def cmd_table(ncu_csv, pat_path, out=None):
    import smemkit
    pats, meas = read_patterns(pat_path), read_ncu(ncu_csv)
    bad, rows = 0, []
    for i, (w, form, s, g, name) in enumerate(pats):
        kind = "cp.async.zfill" if form == "zfill" else "cp.async"
        try:
            model = smemkit.bank_model.wavefronts(s, w, kind, sources=np.where(s >= 0, g, -1))
        except ValueError:  # a zero-filled lane (source -1): the model takes none
            model = -1
        m = meas.get(i, {})
        got = int(m.get(WAVES, -1))
        bad += got != model
        rows.append((w, form, name, got, int(m.get(INSTR, -1)), model))
        print(f"{name:70} W{w:2} {form:5} ncu {got:4} model {model:4}{'' if got == model else '   <--'}")
    print(f"{len(pats) - bad} of {len(pats)} patterns as modelled")
    if out:
        with open(out, "w") as f:
            f.write("width,form,name,wavefronts,instructions,model\n")
            for r in rows:
                f.write(",".join(map(str, r)) + "\n")
    return 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["gen"] and len(a) == 2:
        cmd_gen(a[1])
    elif a[:1] == ["gen-deep"] and len(a) >= 2:
        shapes = [tuple(int(x) for x in t.split("x")) for t in a[2:]]
        pats = deep_instructions(shapes or DEEP_SHAPES)
        with open(a[1], "w") as f:
            f.write("# ldgsts_probe patterns (bench/bank_probe/ldgsts_probe.py gen-deep): W form s0..s31 | g0..g31 # name\n")
            f.write("\n".join(pats) + "\n")
        print(f"{len(pats)} patterns -> {a[1]}")
    elif a[:1] == ["gen-dup"] and len(a) == 4:
        pats = dup_instructions(int(a[2]), int(a[3]))
        with open(a[1], "w") as f:
            f.write(f"# ldgsts_probe patterns (bench/bank_probe/ldgsts_probe.py gen-dup, seed {a[2]}): W form s0..s31 | g0..g31 # name\n")
            f.write("\n".join(pats) + "\n")
        print(f"{len(pats)} patterns -> {a[1]}")
    elif a[:1] == ["table"] and len(a) >= 3:
        sys.exit(cmd_table(a[1], a[2], a[a.index("-o") + 1] if "-o" in a else None))
    else:
        sys.exit(__doc__)
