"""Random shapes from the laws issues #26 (transposes), #27 (SGEMM) and #28 (tensor-core GEMM) publish,
their class labels, and the summary statistics of the per-shape ratios (geomean, p10, median, min; per
class, per layout) as a markdown table.  No GPU and no smemkit needed: numpy only, so the per-shape rows
a GPU run wrote (--out, JSON lines) can be summarised, refit or judged on another machine:

    python bench/timing/draws.py --law transpose --n 10 --seed 1      # list the draws of a seed
    python bench/timing/draws.py --summarize run.jsonl [--md out.md]  # the summary tables of a run

The laws, as the issues state them (each sampler is a pure function of (n, seed): a numpy Generator
seeded with (seed, issue number), candidates drawn in fixed chunks and kept in order, so the first k
draws of n are the draws of k):

  #26 transpose: rows, cols = round(exp(U(ln 1, ln 2^22))) each, dtype uniform over uint8, float16,
      float32, float64, complex128, kept when 4 MiB <= bytes <= 1 GiB.  Batches (b, r, c): b uniform
      in [2, 64], r, c from the same law, kept in the same byte range.  Even draws are 2-D, odd draws
      batches (half each; two independent streams).
  #27 sgemm: M, N = round(exp(U(ln 1, ln 16384))), K = round(exp(U(ln 1, ln 65536))), independent;
      kept when M*N >= 64, M*N*K >= 2^20 and 2*M*N*K <= 2*4096^3.  float32.
  #28 gemm: the same, kept when 2*M*N*K <= 2*8192^3; even draws float16, odd draws bfloat16.

Class labels (a shape can have several; "plain" when it has none of a law's shape classes):
  transpose: "2-D" / "batch", the dtype, and "vector" (min(r, c) == 1: x.t() is already contiguous, torch
      copies nothing), "skinny" (1 < min(r, c) < 32: less than one 32-wide tile across), "unaligned" (a
      row or a column of the matrix is not a multiple of 16 bytes: no 16-byte vector access on one side).
  sgemm / gemm: the dtype, and "matrix-vector" (min(M, N) <= 32), "tiny K" (K <= 16), "K-heavy" (K >=
      4*max(M, N) and M*N <= 2^20: few output tiles, a long K; the split-K regime), "unaligned" (K or N
      not a multiple of 16 bytes' worth of elements: 4 floats, 8 halves; rows not 16-byte aligned).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MIB, GIB = 1 << 20, 1 << 30
TRANSPOSE_DTYPES = {"uint8": 1, "float16": 2, "float32": 4, "float64": 8, "complex128": 16}
GEMM_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
CHUNK = 4096  # candidates per draw of the Generator: fixed, so a run's first k draws do not depend on n

# law constants, named as the issues write them
T_SIDE = 1 << 22                   # rows, cols <= 2^22
T_MIN_BYTES, T_MAX_BYTES = 4 * MIB, GIB
T_BATCH = (2, 64)                  # b in [2, 64]
G_MN, G_K = 16384, 65536           # M, N <= 16384; K <= 65536
G_MIN_MN, G_MIN_MNK = 64, 1 << 20  # M*N >= 64, M*N*K >= 2^20
SGEMM_SIDE, GEMM_SIDE = 4096, 8192  # 2*M*N*K <= 2*side^3


@dataclass(frozen=True)
class Draw:
    """One drawn problem: op ("transpose", "sgemm", "gemm"), shape ((rows, cols), (b, rows, cols) or
    (M, N, K)) and dtype name."""
    op: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def itemsize(self) -> int:
        return TRANSPOSE_DTYPES[self.dtype] if self.op == "transpose" else GEMM_ITEMSIZE[self.dtype]

    @property
    def nbytes(self) -> int:
        """Transpose: the bytes of the matrix (or batch) moved once; GEMM: A + B + D."""
        if self.op == "transpose":
            return math.prod(self.shape) * self.itemsize
        M, N, K = self.shape
        return (M * K + K * N + M * N) * self.itemsize

    @property
    def flops(self) -> int:
        M, N, K = self.shape if self.op != "transpose" else (0, 0, 0)
        return 2 * M * N * K

    def classes(self) -> tuple[str, ...]:
        return classes(self.op, self.shape, self.dtype)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "shape": list(self.shape), "dtype": self.dtype}


def _seeds(seed: int, issue: int) -> np.random.SeedSequence:
    """The seed of a law's Generator: (seed, issue number), so the laws draw independently."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0; got {seed!r}")
    return np.random.SeedSequence([int(seed), issue])


def _rng(seed: int, issue: int) -> np.random.Generator:
    return np.random.default_rng(_seeds(seed, issue))


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an int >= 0; got {n!r}")
    return int(n)


def loguniform_int(rng: np.random.Generator, hi: int, size: int) -> np.ndarray:
    """round(exp(U(ln 1, ln hi))), int64: integers in [1, hi], log-uniform up to the rounding."""
    return np.rint(np.exp(rng.uniform(0.0, math.log(hi), size))).astype(np.int64)


def _kept(rng: np.random.Generator, n: int, propose: Callable[[np.random.Generator], tuple[np.ndarray, ...]],
          keep: Callable[..., np.ndarray]) -> list[tuple[int, ...]]:
    """The first n candidates (columns of propose's arrays, CHUNK at a time) that keep() accepts."""
    out: list[tuple[int, ...]] = []
    while len(out) < n:
        cols = propose(rng)
        mask = keep(*cols)
        out.extend(zip(*(c[mask].tolist() for c in cols)))
    return out[:n]


_T_NAMES = list(TRANSPOSE_DTYPES)
_T_SIZES = np.array([TRANSPOSE_DTYPES[d] for d in _T_NAMES], dtype=np.int64)


def transpose_draws(n: int, seed: int) -> list[Draw]:
    """#26's law: n draws, alternately 2-D (rows, cols) and batched (b, rows, cols); see the module doc."""
    n = _check_n(n)
    g2, gb = (np.random.default_rng(s) for s in _seeds(seed, 26).spawn(2))

    def in_range(nbytes: np.ndarray) -> np.ndarray:
        return (nbytes >= T_MIN_BYTES) & (nbytes <= T_MAX_BYTES)

    def two_d(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        r, c = loguniform_int(rng, T_SIDE, CHUNK), loguniform_int(rng, T_SIDE, CHUNK)
        return r, c, rng.integers(0, len(_T_NAMES), CHUNK)

    def batched(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        b = rng.integers(T_BATCH[0], T_BATCH[1] + 1, CHUNK)
        r, c = loguniform_int(rng, T_SIDE, CHUNK), loguniform_int(rng, T_SIDE, CHUNK)
        return b, r, c, rng.integers(0, len(_T_NAMES), CHUNK)

    flat = _kept(g2, (n + 1) // 2, two_d, lambda r, c, d: in_range(r * c * _T_SIZES[d]))
    bat = _kept(gb, n // 2, batched, lambda b, r, c, d: in_range(b * r * c * _T_SIZES[d]))
    out = []
    for i in range(n):
        *shape, d = flat[i // 2] if i % 2 == 0 else bat[i // 2]
        out.append(Draw("transpose", tuple(int(s) for s in shape), _T_NAMES[d]))
    return out


def _gemm_shapes(rng: np.random.Generator, n: int, side: int) -> list[tuple[int, ...]]:
    def propose(g: np.random.Generator) -> tuple[np.ndarray, ...]:
        return loguniform_int(g, G_MN, CHUNK), loguniform_int(g, G_MN, CHUNK), loguniform_int(g, G_K, CHUNK)

    def keep(M: np.ndarray, N: np.ndarray, K: np.ndarray) -> np.ndarray:
        mn = M * N
        return (mn >= G_MIN_MN) & (mn * K >= G_MIN_MNK) & (mn * K <= side ** 3)

    return _kept(rng, n, propose, keep)


def sgemm_draws(n: int, seed: int) -> list[Draw]:
    """#27's law: n float32 (M, N, K) draws, 2*M*N*K <= 2*4096^3; see the module doc."""
    n = _check_n(n)
    return [Draw("sgemm", s, "float32") for s in _gemm_shapes(_rng(seed, 27), n, SGEMM_SIDE)]


def gemm_draws(n: int, seed: int) -> list[Draw]:
    """#28's law: n (M, N, K) draws, 2*M*N*K <= 2*8192^3, even draws float16, odd bfloat16."""
    n = _check_n(n)
    shapes = _gemm_shapes(_rng(seed, 28), n, GEMM_SIDE)
    return [Draw("gemm", s, "float16" if i % 2 == 0 else "bfloat16") for i, s in enumerate(shapes)]


SAMPLERS: dict[str, Callable[[int, int], list[Draw]]] = {
    "transpose": transpose_draws, "sgemm": sgemm_draws, "gemm": gemm_draws}


# ---- repetitions ----------------------------------------------------------------------------------

FLUSH_MS = 0.04  # the L2 flush before each timed launch: a write of 2 x L2 (100 MB on an H100), ~40 us
_BW = 2.5e9      # bytes per ms (2.5 TB/s)
_RATE = {"sgemm": 30e9, "gemm": 250e9}  # FLOP per ms (30 / 250 TFLOP/s)


def est_ms(d: Draw) -> float:
    """A rough H100 time (ms) of one launch of the draw: a roofline at 2.5 TB/s (transpose: read +
    write) and 30 TFLOP/s (sgemm) / 250 TFLOP/s (gemm), plus 5 us.  It only sizes the repetitions."""
    if d.op == "transpose":
        return 2 * d.nbytes / _BW + 0.005
    return max(d.flops / _RATE[d.op], d.nbytes / _BW) + 0.005


def reps_for(d: Draw, ops: int, budget_ms: float = 80.0, lo: int = 10, hi: int = 100) -> int:
    """Timed rounds for a draw whose round is `ops` launches (the layouts and the ceiling), each after
    an L2 flush: about budget_ms of rounds, at least lo (a median of 10 on the biggest shapes), at most
    hi (small shapes, where the flush dominates the round)."""
    round_ms = ops * (est_ms(d) + FLUSH_MS)
    return int(min(hi, max(lo, math.ceil(budget_ms / round_ms))))


# ---- classes -------------------------------------------------------------------------------------

TRANSPOSE_SHAPE_CLASSES = ("vector", "skinny", "unaligned", "plain")
GEMM_SHAPE_CLASSES = ("matrix-vector", "tiny K", "K-heavy", "unaligned", "plain")


def torch_moves_data(shape: Sequence[int]) -> bool:
    """Whether x.t().contiguous() / x.mT.contiguous() copies: not when rows or cols is 1 (the transposed
    view is already contiguous; torch returns it as is)."""
    return min(shape[-2:]) > 1


def classes(op: str, shape: Sequence[int], dtype: str) -> tuple[str, ...]:
    """The class labels of a shape (see the module doc), in a fixed order: the kind (transposes), the
    dtype, then the shape classes that apply, or "plain"."""
    shape = tuple(int(s) for s in shape)
    if op == "transpose":
        esz = TRANSPOSE_DTYPES[dtype]
        r, c = shape[-2:]
        out = ["batch" if len(shape) == 3 else "2-D", dtype]
        if min(r, c) == 1:
            out.append("vector")
        elif min(r, c) < 32:
            out.append("skinny")
        if (r * esz) % 16 or (c * esz) % 16:
            out.append("unaligned")
    elif op in ("sgemm", "gemm"):
        M, N, K = shape
        vec = 16 // GEMM_ITEMSIZE[dtype]
        out = [dtype]
        if min(M, N) <= 32:
            out.append("matrix-vector")
        if K <= 16:
            out.append("tiny K")
        if K >= 4 * max(M, N) and M * N <= 1 << 20:
            out.append("K-heavy")
        if K % vec or N % vec:
            out.append("unaligned")
    else:
        raise ValueError(f"classes(): op must be 'transpose', 'sgemm' or 'gemm'; got {op!r}")
    if len(out) == (2 if op == "transpose" else 1):
        out.append("plain")
    return tuple(out)


# ---- statistics ------------------------------------------------------------------------------------


def geomean(xs: Iterable[float]) -> float:
    """Geometric mean of positive numbers (nan for none; ValueError for a value <= 0)."""
    a = np.asarray(list(xs), dtype=np.float64)
    if a.size == 0:
        return float("nan")
    if np.any(~(a > 0)):
        raise ValueError("geomean(): every value must be > 0")
    return float(np.exp(np.mean(np.log(a))))


def summarize(xs: Iterable[float]) -> dict[str, float]:
    """{n, geomean, p10, median, min, max} of the values (p10: numpy's linear interpolation)."""
    a = np.asarray(list(xs), dtype=np.float64)
    if a.size == 0:
        nan = float("nan")
        return {"n": 0, "geomean": nan, "p10": nan, "median": nan, "min": nan, "max": nan}
    return {"n": int(a.size), "geomean": geomean(a), "p10": float(np.percentile(a, 10)),
            "median": float(np.median(a)), "min": float(a.min()), "max": float(a.max())}


def _groups(rows: Sequence[Mapping[str, Any]], order: Sequence[str] | None) -> list[str]:
    seen: list[str] = []
    for r in rows:
        for c in r["classes"]:
            if c not in seen:
                seen.append(c)
    if order is not None:
        seen = [c for c in order if c in seen] + [c for c in seen if c not in order]
    return ["all"] + seen


def summary_rows(rows: Sequence[Mapping[str, Any]], metric: str = "ratio",
                 order: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per class ("all" first, then each label the rows carry) and per layout: the summary of
    row[metric][layout] over the rows of that class where it is a number.  Each row is a per-shape
    record as the scripts write it: {"shape", "dtype", "classes", metric: {layout: value or None}, ...}.
    The worst shape of each group is named.  Returns dicts {class, layout, n, geomean, p10, median,
    min, max, worst}."""
    layouts: list[str] = []
    for r in rows:
        for k in (r.get(metric) or {}):
            if k not in layouts:
                layouts.append(k)
    out = []
    for cls in _groups(rows, order):
        members = [r for r in rows if cls == "all" or cls in r["classes"]]
        for lay in layouts:
            vals = [(r[metric][lay], r) for r in members
                    if (r.get(metric) or {}).get(lay) is not None and math.isfinite(r[metric][lay])]
            s: dict[str, Any] = dict(summarize(v for v, _ in vals))
            worst = min(vals, key=lambda t: t[0])[1] if vals else None
            s.update({"class": cls, "layout": lay,
                      "worst": None if worst is None else f"{shape_str(worst['shape'])} {worst['dtype']}"})
            out.append(s)
    return out


def shape_str(shape: Sequence[int]) -> str:
    return "x".join(str(int(s)) for s in shape)


def _f(x: float | None, fmt: str = "{:.3f}") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def md_summary(summary: Sequence[Mapping[str, Any]], title: str | None = None) -> str:
    """A markdown table of summary_rows(): class, layout, n, geomean, p10, median, min, worst shape."""
    lines = [title, ""] if title else []
    lines += ["| class | layout | n | geomean | p10 | median | min | worst shape |",
              "|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {s['class']} | {s['layout']} | {s['n']} | {_f(s['geomean'])} | {_f(s['p10'])} | "
                     f"{_f(s['median'])} | {_f(s['min'])} | {s['worst'] or ''} |")
    return "\n".join(lines)


def md_per_shape(rows: Sequence[Mapping[str, Any]], metric: str = "ratio", n: int | None = None) -> str:
    """One markdown line per shape (the n worst by their best layout when n is given): index, shape,
    dtype, classes, metric per layout."""
    layouts = list(next((r[metric] for r in rows if r.get(metric)), {}))
    pick = list(rows)
    if n is not None:
        def best(r: Mapping[str, Any]) -> float:
            return max((v for v in (r.get(metric) or {}).values() if v is not None), default=math.inf)
        pick = sorted(pick, key=best)[:n]
    lines = ["| # | shape | dtype | classes | " + " | ".join(layouts) + " |",
             "|---|---|---|---|" + "---|" * len(layouts)]
    for r in pick:
        vals = [(r.get(metric) or {}).get(k) for k in layouts]
        lines.append(f"| {r.get('index', '')} | {shape_str(r['shape'])} | {r['dtype']} | {', '.join(r['classes'])} | "
                     + " | ".join(_f(v) for v in vals) + " |")
    return "\n".join(lines)


def best_layout(rows: Sequence[Mapping[str, Any]], metric: str = "ratio") -> str | None:
    """The layout with the highest geomean of `metric` over every row where it is a number."""
    summ = [s for s in summary_rows(rows, metric) if s["class"] == "all" and s["n"]]
    return max(summ, key=lambda s: s["geomean"])["layout"] if summ else None


def transpose_targets(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """#26's targets on a run's rows, one line each with PASS / FAIL: the best layout's geomean >= 0.90
    of the copy, p10 >= 0.75, min >= 0.60, and at least torch's speed (vs_torch >= 1) on every draw
    where torch moves data."""
    lay = best_layout(rows)
    if lay is None:
        return ["targets: no rows"]
    s = summarize(r["ratio"][lay] for r in rows if r["ratio"].get(lay) is not None)
    vt = [(r["vs_torch"][lay], r) for r in rows if (r.get("vs_torch") or {}).get(lay) is not None]
    slow = [r for v, r in vt if v < 1.0]
    mark = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    out = [f"best layout by geomean: {lay}",
           f"geomean {s['geomean']:.3f} >= 0.90: {mark(s['geomean'] >= 0.90)}",
           f"p10 {s['p10']:.3f} >= 0.75: {mark(s['p10'] >= 0.75)}",
           f"min {s['min']:.3f} >= 0.60: {mark(s['min'] >= 0.60)}"]
    if vt:
        worst = min(vt, key=lambda t: t[0])
        out.append(f"at least torch's speed on the {len(vt)} draws where torch moves data: {mark(not slow)} "
                   f"({len(slow)} slower; worst {worst[0]:.3f} at {shape_str(worst[1]['shape'])} {worst[1]['dtype']})")
    else:
        out.append("vs torch: not measured (torch missing or no draw where it moves data)")
    return out


def read_jsonl(path: str) -> list[dict[str, Any]]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def report(rows: Sequence[Mapping[str, Any]], worst: int = 10) -> str:
    """The markdown summary of a run's per-shape rows (what the scripts print and append to --md)."""
    if not rows:
        return "(no rows)"
    op = rows[0]["op"]
    order = (["2-D", "batch", *TRANSPOSE_DTYPES, *TRANSPOSE_SHAPE_CLASSES] if op == "transpose"
             else [*GEMM_ITEMSIZE, *GEMM_SHAPE_CLASSES])
    ceiling = {"transpose": "the D2D copy of the same bytes over smemkit's time",
               "sgemm": "cuBLAS fp32 (TF32 off) time over smemkit's",
               "gemm": "cuBLAS time (same precision) over smemkit's"}[op]
    parts = [md_summary(summary_rows(rows, "ratio", order), f"Per-shape ratio = {ceiling} (> 1: smemkit faster)")]
    if op == "transpose":
        if any(r.get("vs_torch") for r in rows):
            parts.append(md_summary(summary_rows(rows, "vs_torch", order),
                                    "smemkit over torch's x.t().contiguous() / x.mT.contiguous() (> 1: smemkit "
                                    "faster; each side over the D2D copy of its own run; draws where torch moves "
                                    "data)"))
        parts.append("Targets (#26):\n\n" + "\n".join(f"- {t}" for t in transpose_targets(rows)))
    if worst:
        parts.append(f"The {min(worst, len(rows))} worst draws (by their best layout):\n\n"
                     + md_per_shape(rows, "ratio", worst))
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--law", choices=sorted(SAMPLERS), help="list the draws of this law")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--summarize", metavar="JSONL", help="summarise the per-shape rows a --random run wrote")
    ap.add_argument("--per-shape", action="store_true", help="with --summarize: every shape, not the 10 worst")
    ap.add_argument("--md", help="append the output to this markdown file")
    args = ap.parse_args(argv)
    if args.summarize:
        rows = read_jsonl(args.summarize)
        text = report(rows)
        if args.per_shape:
            text += "\n\nEvery draw:\n\n" + md_per_shape(rows, "ratio")
    elif args.law:
        text = "\n".join(f"{i}\t{d.op}\t{shape_str(d.shape)}\t{d.dtype}\t{', '.join(d.classes())}"
                         for i, d in enumerate(SAMPLERS[args.law](args.n, args.seed)))
    else:
        ap.print_help()
        return 2
    print(text)
    if args.md:
        with open(args.md, "a") as f:
            f.write(text + "\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
