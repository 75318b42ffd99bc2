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
