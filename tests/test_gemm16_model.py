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
    """The LDGSTS shared-side counter depends on the global source too (docs/BANK_MODEL.md): the
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


# ---- cp.async (LDGSTS) with its global sources: the rule fitted to the GEMM's own ncu counts ---------
def _ldgsts(shared, sources, kind="cp.async"):
    import numpy as np
    import smemkit
    return smemkit.bank_model.wavefronts(np.array(shared), 16, kind, sources=np.array(sources))


def _rows(dst_of, src_of=lambda i, c: 8192 * i + 16 * c, src_rows=4):
    """A warp copying `src_rows` runs of 128 bytes (one per quarter-warp): chunk c of run i from
    src_of(i, c) to dst_of(i, c)."""
    shared = [dst_of(i, c) for i in range(src_rows) for c in range(8)]
    sources = [src_of(i, c) for i in range(src_rows) for c in range(8)]
    return shared, sources


@pytest.mark.parametrize("name, dst, plain, zfill", [
    ("naive", lambda i, c: 128 * i + 16 * c, 4, 8),
    ("swizzle333", lambda i, c: 128 * i + 16 * (c ^ (i & 7)), 4, 8),
    ("swizzle233", lambda i, c: 128 * i + 16 * (c ^ (i & 3)), 4, 8),
    ("article232", lambda i, c: 128 * i + 16 * (c ^ (((c >> 2) & 1) | ((i & 1) << 1))), 8, 12),
])
def test_ldgsts_rule_on_aligned_rows(name, dst, plain, zfill):
    """Measured per instruction in the GEMM on an H100 (plain LDGSTS / LDGSTS.ZFILL)."""
    pytest.importorskip("smemkit._C")
    assert _ldgsts(*_rows(dst)) == plain
    assert _ldgsts(*_rows(dst), kind="cp.async.zfill") == zfill


@pytest.mark.parametrize("side", ["shared (pad, 144-byte rows)", "global (1000-element pitch)"])
def test_ldgsts_rule_rotations(side):
    """A 16-byte rotation between the global row and the bank row, r = 0..7 over eight rows: measured
    10.5 / 14.5 per instruction (21 / 29 over the eight quarters), whichever side is rotated."""
    plain = zfill = 0
    for r0 in (0, 4):
        if side.startswith("shared"):
            rows = _rows(lambda i, c: 144 * (r0 + i) + 16 * c)
        else:
            rows = _rows(lambda i, c: 128 * i + 16 * c, lambda i, c: 2000 * (r0 + i) + 16 * c)
        plain += _ldgsts(*rows)
        zfill += _ldgsts(*rows, kind="cp.async.zfill")
    assert (plain, zfill) == (21, 29)


def test_ldgsts_rule_inactive_lanes():
    shared, sources = _rows(lambda i, c: 128 * i + 16 * c)
    off = [s if l < 8 else -1 for l, s in enumerate(shared)]
    assert _ldgsts(off, sources) == 1 and _ldgsts(off, sources, kind="cp.async.zfill") == 2
    assert _ldgsts([-1] * 32, sources) == 0


def _measured():
    with open(ROOT / "tests" / "data" / "ncu_gemm16_h100.csv") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def _explain_counts(r):
    import smemkit
    shape = tuple(int(x) for x in r["shape"].split("x"))
    layout = smemkit.Swizzle(2, 3, 2) if r["layout"] == "swizzle232" else r["layout"]
    # the rows of config 0 were measured before issue 28's chooser: that launch is now variant 10
    # (SMK_GEMM16_VARIANT_PRE28, variant 0 as it was)
    config = int(r["config"]) or 10
    from smemkit._testing import knobs
    with knobs(gemm16_epi=0):  # measured with the register epilogue (the staged one: gemm16_epi 1, since session 38)
        e = smemkit.explain("gemm", shape, layout, r["dtype"], sms=132, config=config)
    pick = {"ldsm": lambda a: a.instr.startswith("ldmatrix"), "cp": lambda a: a.instr.startswith("cp.async"),
            "st": lambda a: a.instr == "ldst" and a.kind == "store"}
    return {k: (sum(a.wavefronts for a in e.accesses if f(a)), sum(a.instructions for a in e.accesses if f(a)))
            for k, f in pick.items()}


# The cp.async rule on these launches (docs/BANK_MODEL.md, LDGSTS RULE): exact on every one since session
# 46's whole / half sector split (before it: pad's rows rotated on both sides -16 .. -20%, 31x33x17's tile
# edges, 1000x1000x1000 naive / swizzle within 1%).


@pytest.mark.parametrize("r", _measured(), ids=lambda r: f"{r['shape']}-{r['layout']}-{r['dtype']}-c{r['config']}")
def test_explain_gemm_matches_ncu(r):
    """explain('gemm') against the H100's counters of the final kernel: every instruction count exactly
    (the predicated-off next-tile ldmatrix and the edge fills the compiler branches around included),
    ldmatrix wavefronts exactly, cp.async wavefronts exactly, and the launch's total shared wavefronts
    within 2%."""
    pytest.importorskip("smemkit._C")
    got = _explain_counts(r)
    assert got["ldsm"][1] == int(r["ldsm_instr"])
    assert got["cp"][1] == int(r["ldgsts_instr"])
    assert got["st"][1] == int(r["st_instr"])
    assert got["ldsm"][0] == pytest.approx(int(r["ldsm_wavefronts"]), rel=1e-3)  # ncu reads up to 2e-4 more
    assert got["cp"][0] == int(r["ldgsts_wavefronts"])
    total = sum(int(r[k]) for k in ("ldsm_wavefronts", "ldgsts_wavefronts", "st_wavefronts"))
    assert sum(v[0] for v in got.values()) == pytest.approx(total, rel=0.02)


def _measured_split():
    with open(ROOT / "tests" / "data" / "ncu_gemm16_split_h100.csv") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


@pytest.mark.parametrize("r", _measured_split(), ids=lambda r: f"{r['shape']}-{r['layout']}-{r['dtype']}")
def test_explain_gemm_split_k_matches_ncu(r):
    """Variant 0's split-K launches against the H100's counters (every kernel of the call): the last
    slice, shorter than the others, modelled as what it is -- every instruction count exact (modelled as
    a whole slice, 1245x208x8608 read 535680 ldmatrix instructions against the measured 524160), ldmatrix
    wavefronts exact; cp.async wavefronts and the total exact where B's rows are 128-byte aligned (N = 208:
    416-byte rows, the known rotated-row miss of the cp.async rule, not asserted)."""
    pytest.importorskip("smemkit._C")
    r = dict(r, config="0")
    import smemkit
    shape = tuple(int(x) for x in r["shape"].split("x"))
    layout = smemkit.Swizzle(2, 3, 2) if r["layout"] == "swizzle232" else r["layout"]
    e = smemkit.explain("gemm", shape, layout, r["dtype"], sms=132)
    assert "split K" in e.config
    pick = {"ldsm": lambda a: a.instr.startswith("ldmatrix"), "cp": lambda a: a.instr.startswith("cp.async"),
            "st": lambda a: a.instr == "ldst" and a.kind == "store"}
    got = {k: (sum(a.wavefronts for a in e.accesses if f(a)), sum(a.instructions for a in e.accesses if f(a)))
           for k, f in pick.items()}
    assert got["ldsm"][1] == int(r["ldsm_instr"])
    assert got["cp"][1] == int(r["ldgsts_instr"])
    assert got["st"][1] == int(r["st_instr"])
    assert got["ldsm"][0] == int(r["ldsm_wavefronts"])
    assert got["cp"][0] == int(r["ldgsts_wavefronts"])  # 1245x208x8608 too since session 45's LDGSTS rule
    if r["shape"] != "1245x208x8608":
        assert got["st"][0] == int(r["st_wavefronts"])


# ---- session 45: the LDGSTS rule by sector matchings, the narrow copies as LDGSTS --------------------
def _quarter(dst, src, zfill=False):
    """One quarter-warp's 8 chunks (lanes 0-7; the rest off): wavefronts of the LDGSTS rule."""
    shared = [dst(c) for c in range(8)] + [-1] * 24
    sources = [src(c) for c in range(8)] + [0] * 24
    return _ldgsts(shared, sources, kind="cp.async.zfill" if zfill else "cp.async")


@pytest.mark.parametrize("zfill", [False, True])
def test_ldgsts_rule_single_rotations(zfill):
    """A 128-byte run rotated by r chunks on one side: per quarter 1 (aligned), 2 (r even: each line's
    sectors land whole on bank groups, one matching per line / bank row), 3 or 4 (r odd: every sector
    straddles two bank groups, a path of sector -> group edges per line / row, two matchings each);
    21 over r = 0..7 either side (the measured 10.5 per instruction), 7 over the even ones (session 45:
    1000x2000x1000 / 1245x208x8608 / 1000x1000x1002 naive within 0.6%); the ZFILL form one more."""
    pytest.importorskip("smemkit._C")
    want = [1, 3, 2, 4, 2, 4, 2, 3]
    glob = [_quarter(lambda c: 16 * c, lambda c, r=r: 16 * (r + c), zfill) for r in range(8)]
    shar = [_quarter(lambda c, r=r: 16 * (r + c), lambda c: 16 * c, zfill) for r in range(8)]
    assert glob == shar == [w + zfill for w in want]


def test_ldgsts_rule_swizzles_and_same_rotation():
    """Inside one line and one bank row: any XOR of the chunk index costs 1 (sectors to groups, halves all
    kept or all swapped), Swizzle<2,3,2>'s row 0 (lower half kept, upper swapped) 2.  The same rotation a on
    both sides (session 46): even a, one matching per line (2); odd a, each line's part moves a half sector
    at its edge beside whole ones, and a wavefront moves whole sectors or half sectors, never both -- as
    measured, 3 / 4 / 4 / 3 for a = 1 / 3 / 5 / 7, the cost of rotating the global side alone."""
    pytest.importorskip("smemkit._C")
    assert [_quarter(lambda c, k=k: 16 * (c ^ k), lambda c: 16 * c) for k in range(8)] == [1] * 8
    assert _quarter(lambda c: 16 * (c ^ (c >> 2 & 1)), lambda c: 16 * c) == 2
    assert [_quarter(lambda c, a=a: 16 * (a + c), lambda c, a=a: 16 * (a + c)) for a in range(8)] == \
        [1, 3, 2, 4, 2, 4, 2, 3]


@pytest.mark.parametrize("a", range(8))
def test_ldgsts_rule_both_sides_rotated(a):
    """Global run rotated by a chunks, bank row by b: the measured table (tests/data/ldgsts_probe_h100.csv,
    per quarter); where a and b are both odd the line / row parts mix whole and half sectors (the rule's
    session-46 split), e.g. (3, 5) 5 where one matching per part would say 3."""
    pytest.importorskip("smemkit._C")
    measured = [[1, 3, 2, 4, 2, 4, 2, 3], [3, 3, 4, 4, 5, 4, 5, 3], [2, 4, 2, 5, 3, 6, 3, 5],
                [4, 4, 5, 4, 5, 5, 6, 4], [2, 5, 3, 5, 2, 5, 3, 5], [4, 4, 6, 5, 5, 4, 5, 4],
                [2, 5, 3, 6, 3, 5, 2, 4], [3, 3, 5, 4, 5, 4, 4, 3]]
    got = [_quarter(lambda c, b=b: 16 * (b + c), lambda c: 16 * (a + c)) for b in range(8)]
    assert got == measured[a]


def _probe_patterns(table="ldgsts_probe_h100.csv", patterns="ldgsts_probe_patterns.txt"):
    """(name, W, form, shared, global, measured wavefronts) of a probe table and the patterns it ran."""
    rows = {}
    with open(ROOT / "tests" / "data" / table) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            rows[r["name"]] = int(r["wavefronts"])
    out = []
    with open(ROOT / "tests" / "data" / patterns) as f:
        for ln in f:
            if not ln.strip() or ln.startswith("#"):
                continue
            body, name = ln.split("#", 1)
            head, gl = body.split("|")
            w, form, *s = head.split()
            out.append((name.strip(), int(w), form, [int(x) for x in s], [int(x) for x in gl.split()],
                        rows[name.strip()]))
    return out


def test_ldgsts_rule_on_the_session_46_probes():
    """The 333 one-instruction probes of session 46 (tests/data/ldgsts_probe_s46_h100.csv): the SGEMM deep
    kernel's copies (4-byte A transposed, 16-byte and 4-byte B, its edge and zero-filled lanes), every narrow
    copy of 3033x12x1054, synthetic duplicates.  Exact but on 16-byte copies whose lanes re-read one source chunk
    (session 46's deep kernel's float4s past N, clamped to the row's last one; 2k - 1 wavefronts a quarter for
    k lanes on one chunk): the rounds (session 47) make 26 of those 38 exact and leave the other 12 at most 2
    wavefronts (5%) under; the rule without rounds was 40% under on every one of them."""
    pytest.importorskip("smemkit._C")
    import numpy as np
    import smemkit
    pats = _probe_patterns("ldgsts_probe_s46_h100.csv", "ldgsts_probe_s46_patterns.txt")
    assert len(pats) == 333
    bad, dup_class, exact_dups = [], 0, 0
    for name, w, form, s, g, want in pats:
        on = [x for x, a in zip(g, s) if a >= 0 and x >= 0]
        dup16 = w == 16 and len(on) != len(set(on))
        got = smemkit.bank_model.wavefronts(np.array(s), w, "cp.async.zfill" if form == "zfill" else "cp.async",
                                            sources=np.where(np.array(s) >= 0, np.array(g), -1))
        if dup16:
            dup_class += 1
            exact_dups += got == want
            assert want - 2 <= got <= want, (name, got, want)  # never over, at most 2 under
        elif got != want:
            bad.append((name, got, want))
    assert not bad, bad
    assert (dup_class, exact_dups) == (38, 26)


def test_ldgsts_rounds_on_held_out_duplicate_patterns():
    """64 random 16-byte copies whose lanes re-read source chunks (bench/bank_probe/ldgsts_probe.py gen-dup, seed
    4701), measured before the rounds were judged on them (tests/data/ldgsts_probe_s47_dup_h200.csv).  ZFILL: the
    rounds within -13% .. +5% (mean |error| 4.3%; the rule without rounds was 24-44% under on every one).  Plain
    form: duplicates cost less, the rounds over-counted them by up to 59%, so it keeps the rule without rounds: 0 to
    27% under (10% on average) -- the known gap, asserted as such."""
    pytest.importorskip("smemkit._C")
    import numpy as np
    import smemkit
    pats = _probe_patterns("ldgsts_probe_s47_dup_h200.csv", "ldgsts_probe_s47_dup_patterns.txt")
    assert len(pats) == 64
    err = {"zfill": [], "plain": []}
    for name, w, form, s, g, want in pats:
        kind = "cp.async.zfill" if form == "zfill" else "cp.async"
        got = smemkit.bank_model.wavefronts(np.array(s), w, kind, sources=np.where(np.array(s) >= 0, np.array(g), -1))
        err[form].append((got - want) / want)
    z, p = np.array(err["zfill"]), np.array(err["plain"])
    assert len(z) == len(p) == 32
    assert -0.14 < z.min() and z.max() < 0.06 and np.abs(z).mean() < 0.05
    assert -0.28 < p.min() and p.max() <= 0 and -0.11 < p.mean()


def test_ldgsts_rule_matches_the_whole_probe_table():
    """Every one of the 120 one-instruction probes (bench/bank_probe/ldgsts_probe.cu on an H100: the 64
    rotation pairs, their ZFILL forms, the XOR rows, and the first instructions of five GEMM launches'
    copies, 4, 8 and 16 bytes) as the LDGSTS rule predicts -- 85 of 120 before session 46."""
    pytest.importorskip("smemkit._C")
    import numpy as np
    import smemkit
    pats = _probe_patterns()
    assert len(pats) == 120
    bad = []
    for name, w, form, s, g, want in pats:
        s = np.array(s)
        kind = "cp.async.zfill" if form == "zfill" else "cp.async"
        got = smemkit.bank_model.wavefronts(s, w, kind, sources=np.where(s >= 0, np.array(g), -1))
        if got != want:
            bad.append((name, got, want))
    assert not bad, bad


@pytest.mark.parametrize("width, want", [(4, {0: 1, 4: 2, 12: 4, 36: 2, 44: 4, 64: 1}),
                                         (8, {0: 2, 8: 4, 16: 2, 40: 4, 48: 2})])
def test_ldgsts_rule_narrow_pieces(width, want):
    """4- / 8-byte cp.async (the narrow copies, load_narrow.cuh), session 46: per 128 / W-lane group the
    larger of the STS rule of the width on the shared side and the most distinct global words read at one
    4-byte position of a 128-byte line; ZFILL costs the same.  A warp's rotated pieces of four rows (row q
    `base` * q bytes past a 4 KB step): the shared side is conflict-free (1 / 2), so the rows' offsets
    decide -- 4 where every quarter's pieces land on the same word positions (3033x12x1054's A: rows of
    2108 bytes, the pieces rotated by 4 bytes a row)."""
    pytest.importorskip("smemkit._C")
    import numpy as np
    import smemkit
    r = 16 // width
    shared = [128 * (l // 8) + 16 * (l % 8) + ((l // 8) % r) * width for l in range(32)]
    for base, w in want.items():
        sources = [256 + (4096 + base) * (l // 8) + 16 * (l % 8) + ((l // 8) % r) * width for l in range(32)]
        plain = smemkit.bank_model.wavefronts(np.array(shared), width, "cp.async", sources=np.array(sources))
        zf = smemkit.bank_model.wavefronts(np.array(shared), width, "cp.async.zfill", sources=np.array(sources))
        assert (base, plain, zf) == (base, w, w)
    # every quarter reads the same words: the lanes count, not the words (the probe's SGEMM deep kernel, whose
    # rows past M re-read row M - 1: 4 a warp where its shared side costs 1)
    dup = [256 + 16 * (l % 8) for l in range(32)]
    assert smemkit.bank_model.wavefronts(np.array(shared), width, "cp.async", sources=np.array(dup)) == 4
    # src-size 0 (source -1): the lane writes its zeros, reads nothing -- only the shared side is left
    zero = [x if l < 8 else -1 for l, x in enumerate(dup)]
    assert smemkit.bank_model.wavefronts(np.array(shared), width, "cp.async.zfill", sources=np.array(zero)) == \
        (1 if width == 4 else 2)
    with pytest.raises(ValueError):  # a narrow width needs the sources (the LDGSTS rule)
        smemkit.bank_model.wavefronts(np.array(shared), width, "cp.async")


def _default_launch_counts(r):
    """explain() of a measured row's launch (the chooser's, sms 132) and its (wavefronts, instructions) by counter:
    ldmatrix, cp.async (LDGSTS), st.shared; every instruction count checked against the row's."""
    import smemkit
    shape = tuple(int(x) for x in r["shape"].split("x"))
    layout = smemkit.Swizzle(2, 3, 2) if r["layout"] == "swizzle232" else r["layout"]
    e = smemkit.explain("gemm", shape, layout, r["dtype"], sms=132)
    pick = {"ldsm": lambda a: a.instr.startswith("ldmatrix"), "cp": lambda a: a.instr.startswith("cp.async"),
            "st": lambda a: a.instr == "ldst" and a.kind == "store"}
    got = {k: (sum(a.wavefronts for a in e.accesses if f(a)), sum(a.instructions for a in e.accesses if f(a)))
           for k, f in pick.items()}
    assert (got["ldsm"][1], got["cp"][1], got["st"][1]) == (int(r["ldsm_instr"]), int(r["ldgsts_instr"]),
                                                            int(r["st_instr"]))
    return e, got


def _measured_s45():
    with open(ROOT / "tests" / "data" / "ncu_gemm16_s45_h100.csv") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


# Session 46's LDGSTS rule on these launches: the 16-byte copies exact (pad's rows rotated on both sides
# were -7 .. -19% before), the narrow 4- / 8-byte ones within 0.6% (381x130x5522 exact, was -4%;
# 3033x12x1054 +0.6%, was -18.5%; 1500x60x4100 +0.2%): each launch's total within 0.6%.


@pytest.mark.parametrize("r", _measured_s45(), ids=lambda r: f"{r['shape']}-{r['layout']}-{r['dtype']}")
def test_explain_gemm_s45_matches_ncu(r):
    """Session 45's launches (variant 0's choice at gemm16_narrow_async 1, the narrow copies included):
    every instruction count exact (the 4- / 8-byte copies counted as LDGSTS; 200x1000x8196 pads A as the
    launcher does), ldmatrix within 1.1%, cp.async within 0.7% (exact where every copy is 16 bytes), the
    total within 2% (0.6% today)."""
    pytest.importorskip("smemkit._C")
    e, got = _default_launch_counts(r)
    assert got["ldsm"][0] == pytest.approx(int(r["ldsm_wavefronts"]), rel=0.011)
    narrow = "cp.async A" in e.config  # "cp.async A4 B8": a narrow copy on one operand at least
    if narrow:
        assert got["cp"][0] == pytest.approx(int(r["ldgsts_wavefronts"]), rel=0.007)
    else:
        assert got["cp"][0] == int(r["ldgsts_wavefronts"])
    total = sum(int(r[k]) for k in ("ldsm_wavefronts", "ldgsts_wavefronts", "st_wavefronts"))
    assert sum(v[0] for v in got.values()) == pytest.approx(total, rel=0.02)


def test_ldgsts_probe_patterns_parse_and_replay(tmp_path):
    """bench/bank_probe/ldgsts_probe.py gen: every pattern has 32 shared and 32 global offsets the probe
    accepts (aligned to W, inside its 48 KB / 4 MB buffers) and the model replays it (the table's 'model')."""
    pytest.importorskip("smemkit._C")
    import importlib.util
    import numpy as np
    import smemkit
    spec = importlib.util.spec_from_file_location("ldgsts_probe", ROOT / "bench" / "bank_probe" / "ldgsts_probe.py")
    lp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lp)
    out = tmp_path / "p.txt"
    lp.cmd_gen(str(out))
    pats = lp.read_patterns(str(out))
    assert 100 <= len(pats) <= 150  # one ncu run of < 60 s
    names = [p[4] for p in pats]
    assert len(set(names)) == len(names)
    for w, form, s, g, name in pats:
        assert w in (4, 8, 16) and form in ("plain", "zfill") and len(s) == len(g) == 32
        on = s >= 0
        assert on.any() and (s[on] % w == 0).all() and (s[on] + w <= 48 * 1024).all()
        rd = on & (g != -1)  # -1: src-size 0 (the zfill form's pieces past a row)
        assert (g[rd] % w == 0).all() and (g[rd] >= 0).all() and (g[rd] + w <= 4 << 20).all()
        assert form == "zfill" or rd[on].all()
        kind = "cp.async.zfill" if form == "zfill" else "cp.async"
        assert smemkit.bank_model.wavefronts(s, w, kind, sources=np.where(on, g, -1)) >= 1
    rot = {n: p for n, p in zip(names, pats)}
    assert "rot-a3-b0-plain" in rot and "swz-232-row0" in rot and any(n.startswith("gemm-3033x12x1054") for n in names)


def _measured_s46():
    with open(ROOT / "tests" / "data" / "ncu_gemm16_s46_h100.csv") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


@pytest.mark.parametrize("r", _measured_s46(), ids=lambda r: f"{r['shape']}-{r['layout']}-{r['dtype']}")
def test_explain_gemm_s46_matches_the_per_instruction_counters(r):
    """40 launches measured after session 46's LDGSTS rule was written: every per-instruction counter exact --
    ldmatrix, STS and LDGSTS instructions and wavefronts (smsp__sass_...).  One of them, 8215x769x56 pad (-2.8%
    on LDGSTS with warp-wide parts: its 112-byte tile rows, adjacent in a line and a bank row at different
    shifts, do not share a wavefront), set the rule's last clause (quarters join only at one shift).  The L1 counters
    (l1tex__..._op_ld / _op_st) also count contention between instructions, up to +28% on the stores of
    14870x7748x108 pad: not the model's to predict."""
    pytest.importorskip("smemkit._C")
    e, got = _default_launch_counts(r)
    assert (got["ldsm"][0], got["st"][0], got["cp"][0]) == (int(r["ldsm_sass"]), int(r["st_sass"]),
                                                            int(r["ldgsts_wavefronts"]))
