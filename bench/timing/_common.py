"""What the bench/ scripts share: the commit, and BenchResults (from smemkit.bench, the one timing path)
as a markdown table with the ratio to the ceiling measured in the same run."""
import datetime
import subprocess

import smemkit


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:  # noqa: BLE001 - an sdist or a copy without git
        return "unknown"


def header(what):
    return f"{what} -- {smemkit.device_name()}, {datetime.date.today().isoformat()}, commit {commit()}"


def md_table(results):
    """One row per BenchResult: shape, config, layout, median, rate, ratio to the ceiling, wavefronts."""
    rows = ["| shape | config | layout | median ms | rate | of ceiling | ceiling | predicted wavefronts |",
            "|---|---|---|---|---|---|---|---|"]
    for r in results:
        ratio = "n/a" if r.ratio is None else f"{r.ratio:.1%}"
        ceil = "n/a" if r.ceiling is None else f"{r.ceiling_name} {r.ceiling:.0f}"
        rows.append(f"| {'x'.join(map(str, r.shape))} {r.dtype} | {r.config} | {r.layout} | {r.median_ms:.4f} | "
                    f"{r.rate:.0f} {r.unit} | {ratio} | {ceil} | {r.predicted_wavefronts} |")
    return "\n".join(rows)


def emit(text, md=None):
    """Print a result and, with --md, append it to that markdown file."""
    print(text)
    if md:
        with open(md, "a") as f:
            f.write(text + "\n\n")


def require_gpu(script):
    """Exit non-zero with a clear message when no CUDA device is usable (every timing mode needs one)."""
    import sys
    if not smemkit.is_available():
        sys.exit(f"{script}: no usable CUDA GPU (smemkit.is_available() is False); its timing modes need one. "
                 f"--help works anywhere; bench/timing/draws.py lists the draws and summarises a run's "
                 f"--out file without a GPU.")


def random_run(draws, time_one, *, seed, out=None, md=None, title, every=20):
    """Time each draw with time_one(draw) -> dict of per-shape fields ("ratio": {layout: x}, ...), write
    one JSON line per draw to `out` as it goes (so a cut-off run keeps what it measured), print a
    progress line every `every` draws (stderr) and finally the markdown summary (stdout, appended to
    `md`).  A draw that raises is recorded with its error and skipped; three in a row stop the run
    (the device is then probably unusable).  Returns the rows."""
    import json
    import sys
    import time

    import draws as D
    device, rev = smemkit.device_name(), commit()
    rows, fails, t0 = [], 0, time.perf_counter()
    f = open(out, "w") if out else None
    try:
        for i, d in enumerate(draws):
            row = {"index": i, "seed": seed, **d.to_dict(), "classes": list(d.classes()), "device": device,
                   "commit": rev}
            t1 = time.perf_counter()
            try:
                row.update(time_one(d))
                fails = 0
            except (smemkit.CudaError, MemoryError, ValueError, RuntimeError) as e:
                row.update({"ratio": {}, "error": f"{type(e).__name__}: {e}"})
                fails += 1
                print(f"draw {i} {D.shape_str(d.shape)} {d.dtype}: {row['error']}", file=sys.stderr, flush=True)
            row["wall_s"] = round(time.perf_counter() - t1, 4)
            rows.append(row)
            if f:
                f.write(json.dumps(row) + "\n")
                f.flush()
            if (i + 1) % every == 0 or i + 1 == len(draws):
                so_far = {s["layout"]: s["geomean"] for s in D.summary_rows(rows) if s["class"] == "all"}
                print(f"[{i + 1}/{len(draws)}] {time.perf_counter() - t0:.0f} s; geomean so far: "
                      + ", ".join(f"{k} {v:.3f}" for k, v in so_far.items()), file=sys.stderr, flush=True)
            if fails >= 3:
                print("three draws in a row failed: stopping", file=sys.stderr, flush=True)
                break
    finally:
        if f:
            f.close()
    errors = [r for r in rows if "error" in r]
    text = (header(title) + f"\n\nseed {seed}, {len(rows)} draws"
            + (f" ({len(errors)} failed: see the per-shape file)" if errors else "")
            + f", {time.perf_counter() - t0:.0f} s" + (f"; per-shape rows in {out}" if out else "")
            + "\n\n" + D.report([r for r in rows if "error" not in r]))
    emit(text, md)
    if fails >= 3:
        sys.exit(1)
    return rows


def reps_arg(value):
    """--random N: an int >= 1."""
    import argparse
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return n
