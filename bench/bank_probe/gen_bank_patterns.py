#!/usr/bin/env python3
"""gen_bank_patterns.py -- write the shared-memory access patterns the bank probe measures.

    python3 bench/bank_probe/gen_bank_patterns.py            # writes bench/bank_probe/bank_patterns.txt (+ _quick.txt,
                                                  # _tc.txt, _subword.txt, _stsm.txt)

One pattern a line:  ``width kind a0 a1 ... a31  # name``  (width 4/8/16 bytes, kind ld/st, byte
offsets into shared memory, -1 = lane inactive).  Every pattern is emitted for every width and kind,
so loads vs stores and 4 vs 8 vs 16 bytes can be compared on the same lane->element map; offsets are
``element * width`` unless the pattern is a layout.h tile (then they come from smk_tile_offset via
bench/bank_probe/bank_layout_addrs.c, compiled here with cc, so they are the kernels' own maps).

The names in quotes in docs/BANK_MODEL.md (hypotheses H1..H4) are patterns here.
Deterministic: a fixed seed, no dependence on the machine.  The quick file (the patterns marked
quick) is for a fast ncu run: ``bash bench/bank_probe/bank_probe.sh OUT --quick``.
"""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # bench/bank_probe/ -> the repository
LANES = 32
ROW = 128  # bytes in one row of all 32 banks
SMEM_LIMIT = 48 * 1024  # the probe's static shared buffer
NAIVE, PAD, SWIZZLE = 0, 1, 2
LAYOUTS = (("naive", NAIVE), ("pad", PAD), ("swizzle", SWIZZLE))


class TileMaps:
    """Byte offsets from layout.h's smk_tile_offset, through a tiny C helper."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.exe = os.path.join(self.tmp.name, "bank_layout_addrs")
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-std=c99", "-O1", "-I", os.path.join(ROOT, "csrc"),
                        os.path.join(HERE, "bank_layout_addrs.c"), "-o", self.exe], check=True)

    def offsets(self, layout, log2_cols, log2_vec, log2_esz, rc):
        """rc: list of (r, c) logical coordinates -> list of byte offsets."""
        q = "".join(f"{layout} {log2_cols} {log2_vec} {log2_esz} {r} {c}\n" for r, c in rc)
        out = subprocess.run([self.exe], input=q, capture_output=True, text=True, check=True)
        vals = [int(x) for x in out.stdout.split()]
        assert len(vals) == len(rc)
        return vals


def elems(w, idx):
    """element indices (None = inactive) -> byte offsets for width w"""
    return [-1 if i is None else i * w for i in idx]


def generic_patterns(w, rng):
    """(name, offsets, quick) for one width; the same list serves ld and st."""
    S = ROW // w  # slots (one access each) per bank row
    L = range(LANES)
    P = []

    def add(name, offs, quick=False):
        P.append((name, list(offs), quick))

    # broadcasts
    add("bcast-0", [0] * LANES, True)
    add("bcast-mid", [5 * ROW + 3 * w] * LANES)
    # consecutive, also starting inside a bank row (H3: lines vs banks)
    add("consec", elems(w, L), True)
    for base in sorted({w, 32, 64}):
        add(f"consec-base{base}", [base + l * w for l in L], base == 64)
    add("reverse", elems(w, [31 - l for l in L]))
    add("swap-halves", elems(w, [l ^ 16 for l in L]))
    add("swap-quarters", elems(w, [l ^ 8 for l in L]))
    # element strides
    for s in (2, 3, 4, 8, 16, 32, 33, 64):
        add(f"stride{s}", elems(w, [l * s for l in L]), s in (2, 32))
    # permutations of 32 consecutive elements
    for k in range(3):
        perm = list(L)
        rng.shuffle(perm)
        add(f"perm-r{k}", elems(w, perm), k == 0)
    perm = []
    for h in range(2):
        half = list(range(16 * h, 16 * h + 16))
        rng.shuffle(half)
        perm += half
    add("perm-within-halves", elems(w, perm), True)
    perm = []
    for q in range(4):
        quarter = list(range(8 * q, 8 * q + 8))
        rng.shuffle(quarter)
        perm += quarter
    add("perm-within-quarters", elems(w, perm))
    # H4: even lanes take the first 16 elements, odd lanes the next 16
    add("interleave-rows", elems(w, [l // 2 if l % 2 == 0 else 16 + l // 2 for l in L]), True)
    # random offsets (with repeats) in a window
    for win, n in ((1024, 3), (8192, 3)):
        for k in range(n):
            add(f"rand{win // 1024}k-r{k}", [rng.randrange(win // w) * w for _ in L], k == 0)
    # inactive lanes
    add("active-lo-half", elems(w, [l if l < 16 else None for l in L]), True)
    add("active-hi-half", elems(w, [l if l >= 16 else None for l in L]))
    add("active-q1", elems(w, [l if 8 <= l < 16 else None for l in L]))
    add("active-lane0", elems(w, [0 if l == 0 else None for l in L]))
    add("active-lane17", elems(w, [17 if l == 17 else None for l in L]))
    add("active-even", elems(w, [l if l % 2 == 0 else None for l in L]), True)
    add("active-even-compact", elems(w, [l // 2 if l % 2 == 0 else None for l in L]))
    add("active-lo-half-stride32", elems(w, [32 * l if l < 16 else None for l in L]))
    add("active-none", [-1] * LANES, True)
    # lanes sharing addresses
    add("share-pairs", elems(w, [l // 2 for l in L]), True)
    add("share-quads", elems(w, [l // 4 for l in L]))
    add("share-halves", elems(w, [l % 16 for l in L]))
    add("share-quarters", elems(w, [l % 8 for l in L]))
    # k-way: k distinct rows in each slot used.  a: lane l -> row l%k (rows alternate fastest);
    # b: lane l -> row l // (32/k) (consecutive lanes in distinct slots).  Slots wrap into extra rows
    # when 32/k > slots per row.
    for k in (2, 4, 8, 16, 32):
        g = LANES // k
        offs_a, offs_b = [], []
        for l in L:
            j = l // k
            offs_a.append(((l % k) + k * (j // S)) * ROW + (j % S) * w)
            r, j = l // g, l % g
            offs_b.append((r * ((g + S - 1) // S) + j // S) * ROW + (j % S) * w)
        add(f"kway{k}-a", offs_a, k in (2, 32))
        add(f"kway{k}-b", offs_b)
    # several broadcasts in one instruction
    for tag, step in (("samebank", ROW), ("diffbank", 64)):
        add(f"bcast-halves-{tag}", [(l // 16) * step for l in L], True)
        add(f"bcast-alt-{tag}", [(l % 2) * step for l in L])
    add("bcast-quarters-samebank", [(l // 8) * ROW for l in L])
    add("bcast-quarters-diffbank", [(l // 8) * 32 for l in L])
    add("bcast-lane4-samebank", [(l % 4) * ROW for l in L])
    add("bcast-lane4-diffbank", [(l % 4) * 32 for l in L])
    # discriminators between merge hypotheses (see bank_model.c)
    p16 = list(range(16))
    rng.shuffle(p16)
    add("halves-same-set-perm", elems(w, [l if l < 16 else p16[l - 16] for l in L]), True)
    add("halves-disjoint-fit", elems(w, [l // 2 if l < 16 else 8 + (l - 16) // 2 for l in L]), True)
    qp = [list(range(8)) for _ in range(4)]
    for q in range(1, 4):
        rng.shuffle(qp[q])
    add("quarters-same-set-perm", elems(w, [qp[l // 8][l % 8] for l in L]), True)
    add("quarters-disjoint-fit", elems(w, [4 * ((l // 8) % 2) + (l % 8) // 2 for l in L]), True)
    add("quarters-disjoint-fit-2rows",
        elems(w, [8 * (l // 16) + 4 * ((l // 8) % 2) + (l % 8) // 2 for l in L]))
    for tag, rows in (("ABBA", (0, 1, 1, 0)), ("AABB", (0, 0, 1, 1)), ("ABAB", (0, 1, 0, 1))):
        add(f"quarters-{tag}", elems(w, [8 * rows[l // 8] + l % 8 for l in L]), tag == "ABBA")
    add("active-q0q3-same", elems(w, [l % 8 if (l < 8 or l >= 24) else None for l in L]), True)
    add("active-q0q2-same", elems(w, [l % 8 if (l // 8) in (0, 2) else None for l in L]))
    add("half-conflictfree-half-bcast", elems(w, [l if l < 16 else 16 for l in L]), True)
    add("half-conflictfree-half-bcast-fit", elems(w, [l if l < 16 else 3 for l in L]))
    return P


def tile_patterns(w, maps):
    """Patterns whose offsets come from layout.h (the kernels' maps)."""
    P = []
    for lname, lay in LAYOUTS:
        if w == 4:
            # 32x32 fp32 transpose tile: column read (lane i -> (i, c)) and row read
            for c in (0, 7):
                P.append((f"tile32f4-col{c}-{lname}", maps.offsets(lay, 5, 0, 2, [(i, c) for i in range(LANES)]), c == 0))
            P.append((f"tile32f4-row3-{lname}", maps.offsets(lay, 5, 0, 2, [(3, i) for i in range(LANES)]), False))
            # the article's warp-tiled SGEMM: A tile stored transposed, As[k][m] with BM = 64 and float4
            # tiles (vec 4); lane l stores its float4's element i to (k = (l%2)*4 + i, m = l/2)
            for i in range(4):
                rc = [((l % 2) * 4 + i, l // 2) for l in range(LANES)]
                P.append((f"sgemmA-bm64-i{i}-{lname}", maps.offsets(lay, 6, 2, 2, rc), i == 0))
        elif w == 8:
            # 32x32 fp64 tile, column read
            for c in (0, 7):
                P.append((f"tile32f8-col{c}-{lname}", maps.offsets(lay, 5, 0, 3, [(i, c) for i in range(LANES)]), c == 0))
        else:
            # float4 access of a BK x 32 / BK x 64 fp32 tile (vec 4): lane i reads the vector at (i, 4j)
            for lc, j in ((5, 0), (5, 3), (6, 0)):
                cols = 1 << lc
                P.append((f"tile{cols}v4-col{4 * j}-{lname}",
                          maps.offsets(lay, lc, 2, 2, [(i, 4 * j) for i in range(LANES)]), j == 0 and lc == 5))
            # row-major float4 read of 4 rows of a 32-wide tile: lane i -> (i/8, 4*(i%8))
            P.append((f"tile32v4-rows-{lname}",
                      maps.offsets(lay, 5, 2, 2, [(i // 8, 4 * (i % 8)) for i in range(LANES)]), False))
    return P


# ---- tensor-core kinds: ldmatrix (x1 / x2 / x4, plain and .trans) and cp.async (16 bytes) ----------
TC_KINDS = ("ldsm1", "ldsm2", "ldsm4", "ldsm1t", "ldsm2t", "ldsm4t", "cpasync")


def swizzle(off, b, m, s):
    """CuTe Swizzle<B,M,S> on an element offset (layout.h smk_swizzle, S >= 0)."""
    return off ^ ((off & (((1 << b) - 1) << (m + s))) >> s)


def tc_generic_patterns():
    """(name, offsets) for 16-byte row addresses: lane l = row l%8 of matrix (phase) l//8."""
    P = []
    L = range(LANES)

    def add(name, offs):
        P.append((name, [int(a) for a in offs]))
    add("consec", [16 * l for l in L])                              # each phase one 128-byte row
    for k in (2, 4, 8):                                              # every phase k-way
        add(f"phase-{k}way", [(q * 8 + (i % 8) // (8 // k)) * 128 * 4 + (i % (8 // k)) * 16
                              for l in L for q, i in [(l // 8, l % 8)]])
    add("phase0-8way-rest-free", [(i * 128 if q == 0 else 4096 + q * 128 + i * 16)
                                  for l in L for q, i in [(l // 8, l % 8)]])
    add("bcast-all", [0] * LANES)
    add("bcast-per-phase", [(l // 8) * 16 for l in L])
    add("pairs-share", [((l % 8) // 2) * 16 + (l // 8) * 128 for l in L])   # lanes 2j, 2j+1 one row
    add("phases-same-rows", [(l % 8) * 16 for l in L])                        # 4 phases, same 8 rows
    add("phases-same-rows-8way", [(l % 8) * 128 for l in L])
    add("two-phase-same-slot", [(l // 8) * 128 + (l % 8) * 16 for l in L])   # phases differ in bank row only
    add("slot-perm", [((l % 8) * 3 % 8) * 16 + (l // 8) * 128 for l in L])
    add("half-warp-rows", [(l % 16) * 16 + (l // 16) * 1024 for l in L])       # x2 matrices share a bank row
    add("active-phase0-only", [16 * l if l < 8 else -1 for l in L])
    add("active-even", [16 * l if l % 2 == 0 else -1 for l in L])
    return P


def tc_tile_patterns(maps):
    """The tensor-core GEMM's own instructions (csrc/gemm16/smem.cuh, warp 0): A ldmatrix.x4 (m = l & 15,
    k = 8 (l >> 4)), B ldmatrix.x4.trans on a 64-column panel (k = l & 15, n = 8 (l >> 4)), A and B
    cp.async (thread l's first chunk).  Automatic swizzles through layout.h; explicit ones here."""
    P = []
    layouts = [("naive", NAIVE, None), ("pad", PAD, None), ("swizzle", SWIZZLE, None),
               ("swz232", SWIZZLE, (2, 3, 2)), ("swz233", SWIZZLE, (2, 3, 3)), ("swz333", SWIZZLE, (3, 3, 3))]

    def offs(lname, lay, swz, log2_cols, rc):
        cols = 1 << log2_cols
        if swz is None:
            return maps.offsets(lay, log2_cols, 3, 1, rc)
        return [2 * swizzle(r * cols + c, *swz) for r, c in rc]
    L = range(LANES)
    for lname, lay, swz in layouts:
        for bk in (32, 64):
            lc = 5 if bk == 32 else 6
            P.append(("ldsm4", f"gemm16-A{bk}-ldsm-{lname}", offs(lname, lay, swz, lc, [(l & 15, 8 * (l >> 4)) for l in L])))
            P.append(("ldsm4", f"gemm16-A{bk}-ldsm-{lname}-ks1-mi1", offs(lname, lay, swz, lc, [(16 + (l & 15), 16 + 8 * (l >> 4)) for l in L])))
            kch = bk // 8
            P.append(("cpasync", f"gemm16-A{bk}-cpasync-{lname}", offs(lname, lay, swz, lc, [(l // kch, 8 * (l % kch)) for l in L])))
        P.append(("ldsm4t", f"gemm16-B-ldsm-{lname}", offs(lname, lay, swz, 6, [(l & 15, 8 * (l >> 4)) for l in L])))
        P.append(("ldsm4t", f"gemm16-B-ldsm-{lname}-nj1", offs(lname, lay, swz, 6, [(16 + (l & 15), 16 + 8 * (l >> 4)) for l in L])))
        # B cp.async: lanes 8p..8p+7 fill row 0 of panel p (panel pitch = BK rows of the panel tile)
        rows_per_panel = 32
        panel = [maps.offsets(lay, 6, 3, 1, [(rows_per_panel, 0)])[0] if swz is None else 2 * swizzle(rows_per_panel * 64, *swz)]
        pitch = panel[0] if lay != SWIZZLE else 2 * rows_per_panel * 64
        rc = [(0, 8 * (l % 8)) for l in L]
        base = offs(lname, lay, swz, 6, rc)
        P.append(("cpasync", f"gemm16-B-cpasync-{lname}", [b + (l // 8) * pitch for l, b in zip(L, base)]))
    return P


def write_tc(maps):
    lines = []
    for name, offs in tc_generic_patterns():
        for kind in TC_KINDS:
            o = offs
            if kind.startswith("ldsm"):
                o = [0 if a < 0 else a for a in offs]  # ldmatrix cannot skip lanes
                if kind.startswith("ldsm4") and any(a < 0 for a in offs):
                    continue
            lines.append(f"16 {kind} " + " ".join(map(str, o)) + f"  # tc-{name}\n")
    for kind, name, offs in tc_tile_patterns(maps):
        assert len(offs) == LANES and all(a % 16 == 0 and a + 16 <= SMEM_LIMIT for a in offs), name
        lines.append(f"16 {kind} " + " ".join(map(str, offs)) + f"  # {name}\n")
    head = ("# tensor-core bank probe patterns: 16 kind a0..a31 (kind ldsm1/2/4[t] or cpasync)  # name\n"
            "# generated by bench/bank_probe/gen_bank_patterns.py -- do not edit by hand\n")
    with open(os.path.join(HERE, "bank_patterns_tc.txt"), "w") as f:
        f.write(head)
        f.writelines(lines)
    print(f"bank_patterns_tc.txt: {len(lines)} patterns", file=sys.stderr)


# ---- sub-word LDS/STS (widths 1 and 2: LDS.U8/U16, STS.U8/U16) -----------------------------------
SUBWORD_FILE = "bank_patterns_subword.txt"


def subword_patterns(w, rng, maps):
    """(name, offsets) for 1- or 2-byte accesses (element offsets = element * w unless stated).
    A 32-bit word holds 4 / w elements; what the counter does with lanes sharing a word, or a bank in
    different words, is what these patterns are for (issue #30): strides, broadcasts, same-word and
    same-bank mixes, inactive lanes, stores to one byte, random mixes, and layout.h's tiles."""
    per = 4 // w  # elements per 32-bit word
    L = range(LANES)
    P = []

    def add(name, offs):
        offs = [int(a) for a in offs]
        assert len(offs) == LANES and all(a < 0 or (a % w == 0 and a + w <= SMEM_LIMIT) for a in offs), name
        P.append((name, offs))

    # broadcasts: one byte / half-word for all lanes, also an odd element and a later row
    add("bcast-0", [0] * LANES)
    add("bcast-mid", [5 * ROW + 3 * w] * LANES)
    add("bcast-last-elem-of-word", [4 - w] * LANES)
    # consecutive elements: 32 / per words, starting at several element / word / row positions
    add("consec", elems(w, L))
    for base in sorted({w, 3 * w, 4, 64, 100, 126 if w == 2 else 127, 120}):
        add(f"consec-base{base}", [base + l * w for l in L])  # 100..: runs across a bank row
    add("reverse", elems(w, [31 - l for l in L]))
    add("swap-halves", elems(w, [l ^ 16 for l in L]))
    add("swap-pairs", elems(w, [l ^ 1 for l in L]))  # the two lanes of a word swap bytes
    # element strides (stride per elements; 4 / w = one element per word, 128 / w = one bank)
    for st in (2, 3, 4, 5, 8, 16, 32, 33, 64, 65, 128, 129):
        add(f"stride{st}", elems(w, [l * st for l in L]))
    # permutations of the 32 consecutive elements, and within each word
    for k in range(2):
        perm = list(L)
        rng.shuffle(perm)
        add(f"perm-r{k}", elems(w, perm))
    perm = []
    for g in range(LANES // per):
        grp = list(range(per * g, per * g + per))
        rng.shuffle(grp)
        perm += grp
    add("perm-within-words", elems(w, perm))
    # many lanes in one word, different elements (and the same lanes spread over the warp)
    add("one-word-all-elems", [(l % per) * w for l in L])
    add("one-word-mid-all-elems", [9 * ROW + 44 + (l % per) * w for l in L])
    add("word-per-lane-mod16", [4 * (l % 16) + w * ((l // 16) % per) for l in L])  # lanes l, l+16: one word
    add("two-words-samebank", [(l // 16) * ROW + (l % per) * w for l in L])         # 2 words of bank 0
    add("two-words-diffbank", [(l // 16) * 4 + (l % per) * w for l in L])
    add("four-words-samebank", [(l // 8) * ROW + (l % per) * w for l in L])
    add("four-words-samebank-interleaved", [(l % 4) * ROW + ((l // 4) % per) * w for l in L])
    # lanes sharing one element (loads: multicast; stores: several writes of one byte)
    add("share-pairs", elems(w, [l // 2 for l in L]))
    add("share-quads", elems(w, [l // 4 for l in L]))
    add("share-halves", elems(w, [l % 16 for l in L]))
    add("share-quarters", elems(w, [l % 8 for l in L]))
    add("share-2lanes-rest-consec", elems(w, [0 if l == 1 else l for l in L]))
    add("same-elem-lanes0-31", elems(w, [0 if l in (0, 31) else l for l in L]))
    # lanes in one bank, different words: k distinct words (rows) of each bank used.  a: lane l -> row
    # l % k, element l // k (the lanes of a row fill words); b: the same with one element per word
    for k in (2, 4, 8, 16, 32):
        add(f"kway{k}-elems", [(l % k) * ROW + (l // k) * w for l in L])
        add(f"kway{k}-words", [(l % k) * ROW + (l // k) * 4 + ((l // k) % per) * w for l in L])
    add("kway2-bank0-bytes", [(l % 2) * ROW + ((l // 2) % per) * w for l in L])  # 2 words, all lanes bank 0
    add("bank0-32words-same-elem", [l * ROW for l in L])
    add("bank0-32words-diff-elem", [l * ROW + (l % per) * w for l in L])
    add("bank0-2words-one-lane-each", [0 if l == 0 else ROW + w if l == 1 else -1 for l in L])
    add("bank0-1word-two-lanes", [0 if l == 0 else w if l == 1 else -1 for l in L])
    add("bank0-1word-same-elem-two-lanes", [0 if l in (0, 1) else -1 for l in L])
    add("bank5-3words-lanes-0-16-31", [20 + ROW * {0: 0, 16: 1, 31: 2}[l] if l in (0, 16, 31) else -1 for l in L])
    # mixes
    add("half-consec-half-bcast", [l * w if l < 16 else 1000 for l in L])
    add("half-consec-half-2way", [l * w if l < 16 else ROW + (l % 2) * ROW * 2 + 64 + (l // 2) * w for l in L])
    add("even-consec-odd-samebank", [(l // 2) * w if l % 2 == 0 else ROW * (1 + l // 2) + w * (per > 1) for l in L])
    add("quarters-ABBA-rows", [ROW * (0, 1, 1, 0)[l // 8] + (l % 8) * w for l in L])
    add("quarters-ABAB-rows", [ROW * (0, 1, 0, 1)[l // 8] + (l % 8) * w for l in L])
    # inactive lanes
    add("active-lo-half", elems(w, [l if l < 16 else None for l in L]))
    add("active-hi-half", elems(w, [l if l >= 16 else None for l in L]))
    add("active-even", elems(w, [l if l % 2 == 0 else None for l in L]))
    add("active-odd-stride128", elems(w, [l * (128 // w) if l % 2 else None for l in L]))
    add("active-lane0", elems(w, [0 if l == 0 else None for l in L]))
    add("active-lane17", elems(w, [17 if l == 17 else None for l in L]))
    add("active-none", [-1] * LANES)
    for k in range(4):
        m = [rng.random() < 0.5 for _ in L]
        add(f"mask-r{k}-consec", elems(w, [l if m[l] else None for l in L]))
    for k in range(4):
        m = [rng.random() < 0.6 for _ in L]
        add(f"mask-r{k}-rand256", [rng.randrange(256 // w) * w if m[l] else -1 for l in L])
    # random addresses in small windows (repeats, same words, same banks arise by themselves)
    for win, n in ((16, 2), (64, 3), (256, 3), (1024, 3), (8192, 2)):
        for k in range(n):
            add(f"rand{win}-r{k}", [rng.randrange(win // w) * w for _ in L])
    # a few words, random elements: same word / same bank in different rows, mixed
    for k in range(4):
        words = [rng.randrange(512) for _ in range(4)]
        add(f"rand-4words-r{k}", [4 * rng.choice(words) + w * rng.randrange(per) for _ in L])
    for k in range(3):
        bank = rng.randrange(32)
        rows = [rng.randrange(64) for _ in range(3)]
        add(f"rand-1bank-3rows-r{k}", [rng.choice(rows) * ROW + 4 * bank + w * rng.randrange(per) for _ in L])
    # layout.h's tiles: a 32x32 (2-byte) / 64x64 (1-byte) element tile, column and row reads
    lc = 5 if w == 2 else 6
    for lname, lay in LAYOUTS:
        for c in (0, 7):
            add(f"tile{1 << lc}e{w}-col{c}-{lname}", maps.offsets(lay, lc, 0, w // 2, [(i, c) for i in L]))
        add(f"tile{1 << lc}e{w}-row3-{lname}", maps.offsets(lay, lc, 0, w // 2, [(3, i) for i in L]))
    return P


def write_subword(maps):
    rng = random.Random(20261125)
    lines, seen = [], set()
    for w in (1, 2):
        pats = subword_patterns(w, rng, maps)
        for kind in ("ld", "st"):
            for name, offs in pats:
                key = (w, kind, tuple(offs))
                if key in seen:
                    continue
                seen.add(key)
                lines.append(f"{w} {kind} " + " ".join(map(str, offs)) + f"  # {name}\n")
    head = ("# sub-word bank probe patterns: width (1/2) kind (ld/st) a0..a31 (byte offsets, -1 = inactive)  # name\n"
            "# generated by bench/bank_probe/gen_bank_patterns.py -- do not edit by hand\n")
    with open(os.path.join(HERE, SUBWORD_FILE), "w") as f:
        f.write(head)
        f.writelines(lines)
    print(f"{SUBWORD_FILE}: {len(lines)} patterns", file=sys.stderr)


# ---- stmatrix (x1 / x2 / x4, plain and .trans; sm_90) ------------------------------------------------
STSM_FILE = "bank_patterns_stsm.txt"
STSM_KINDS = ("stsm1", "stsm2", "stsm4", "stsm1t", "stsm2t", "stsm4t")


def stsm_patterns(rng, maps):
    """(name, offsets): 16-byte row addresses, lane 8q + i = row i of matrix q (as ldmatrix).  The
    generic ldmatrix shapes, plus the epilogue's: a 16x16 fp16 fragment (x4: matrices (rows 0-7,
    cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15)) of a C tile with 64 / 128 columns, naive,
    padded, layout.h's swizzle and CuTe's 128-byte Swizzle<3,4,3>; broadcast rows, random rows."""
    P = [(name, offs) for name, offs in tc_generic_patterns()]
    L = range(LANES)

    def add(name, offs):
        P.append((name, [int(a) for a in offs]))
    add("phase-rows-stride256", [(l // 8) * 16 + (l % 8) * 256 for l in L])      # 2-way per matrix
    add("phase-rows-stride64", [(l // 8) * 1024 + (l % 8) * 64 for l in L])      # 2 rows per bank row
    add("phase-rows-stride144", [(l // 8) * 2048 + (l % 8) * 144 for l in L])    # padded: conflict-free
    add("bcast-rows-pairs-of-matrices", [((l // 16) * 8 + l % 8) * 128 for l in L])
    add("matrix-shares-row-with-next", [(l // 8) * 16 + ((l % 8) // 2) * 128 for l in L])
    for k in range(4):
        add(f"rand-rows-2k-r{k}", [rng.randrange(2048 // 16) * 16 for _ in L])
    for k in range(2):
        add(f"rand-rows-256-r{k}", [rng.randrange(256 // 16) * 16 for _ in L])
    frag = [((l % 8) + 8 * ((l // 8) % 2), 8 * (l // 16)) for l in L]  # (row, col) of each lane's row
    for cols, lc in ((64, 6), (128, 7)):
        for lname, lay in LAYOUTS:
            add(f"epilogue-c{cols}-{lname}", maps.offsets(lay, lc, 3, 1, frag))
            add(f"epilogue-c{cols}-{lname}-n16", maps.offsets(lay, lc, 3, 1, [(r + 16, c + 16) for r, c in frag]))
        add(f"epilogue-c{cols}-swz343", [2 * swizzle(r * cols + c, 3, 4, 3) for r, c in frag])
        add(f"epilogue-c{cols}-swz232", [2 * swizzle(r * cols + c, 2, 3, 2) for r, c in frag])
    return P


def write_stsm(maps):
    rng = random.Random(20261126)
    lines, seen = [], set()
    for name, offs in stsm_patterns(rng, maps):
        assert len(offs) == LANES and all(a % 16 == 0 and a + 16 <= SMEM_LIMIT for a in offs if a >= 0), name
        for kind in STSM_KINDS:
            x = int(kind[4])
            used = offs[:8 * x]
            if any(a < 0 for a in used):  # stmatrix cannot skip lanes: only for lanes it ignores
                continue
            if (kind, tuple(used)) in seen:  # x1 / x2 read only lanes 0-7 / 0-15: same instruction
                continue
            seen.add((kind, tuple(used)))
            o = [0 if a < 0 else a for a in offs]
            lines.append(f"16 {kind} " + " ".join(map(str, o)) + f"  # stsm-{name}\n")
    head = ("# stmatrix bank probe patterns: 16 kind a0..a31 (kind stsm1/2/4[t]; lane 8q+i = row i of matrix q)"
            "  # name\n# generated by bench/bank_probe/gen_bank_patterns.py -- do not edit by hand\n")
    with open(os.path.join(HERE, STSM_FILE), "w") as f:
        f.write(head)
        f.writelines(lines)
    print(f"{STSM_FILE}: {len(lines)} patterns", file=sys.stderr)


def main():
    rng = random.Random(20240531)
    maps = TileMaps()
    lines, quick, seen = [], [], set()
    for w in (4, 8, 16):
        pats = generic_patterns(w, rng) + tile_patterns(w, maps)
        for kind in ("ld", "st"):
            for name, offs, q in pats:
                assert len(offs) == LANES, name
                for a in offs:
                    assert a < 0 or (a % w == 0 and a + w <= SMEM_LIMIT), (name, a)
                key = (w, kind, tuple(offs))
                if key in seen:
                    continue
                seen.add(key)
                line = f"{w} {kind} " + " ".join(map(str, offs)) + f"  # {name}\n"
                lines.append(line)
                if q:
                    quick.append(line)
    head = ("# bank probe patterns: width kind a0..a31 (byte offsets, -1 = inactive)  # name\n"
            "# generated by bench/bank_probe/gen_bank_patterns.py -- do not edit by hand\n")
    for path, body in (("bank_patterns.txt", lines), ("bank_patterns_quick.txt", quick)):
        with open(os.path.join(HERE, path), "w") as f:
            f.write(head)
            f.writelines(body)
        print(f"{path}: {len(body)} patterns", file=sys.stderr)
    write_tc(maps)
    write_subword(maps)
    write_stsm(maps)


if __name__ == "__main__":
    main()
