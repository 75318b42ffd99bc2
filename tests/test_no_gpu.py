"""The first minutes without a GPU: what the kernels say, and what `python -m smemkit` does with each
flag.  On a GPU machine the CLI tests take the same path through --cpu; the message tests skip."""
import json
import subprocess
import sys

import numpy as np
import pytest

import smemkit
from smemkit import __main__ as cli

NO_GPU = not smemkit.is_available()
CPU = [] if NO_GPU else ["--cpu"]  # the CPU analysis, with or without a GPU


def run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "smemkit", *CPU, *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.skipif(not NO_GPU, reason="this machine has a GPU")
@pytest.mark.parametrize("call", [
    lambda: smemkit.transpose(np.ones((4, 4), np.float32)),
    lambda: smemkit.sgemm(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)),
    lambda: smemkit.bench("transpose", (64, 64)),
    lambda: smemkit.device_name(),
])
def test_no_gpu_message_names_what_is_missing_and_what_works(call):
    with pytest.raises(smemkit.CudaError) as e:
        call()
    msg = str(e.value)
    assert msg.startswith("no usable GPU was found: ")
    # what is missing, in words: no driver at all / a driver too old / a driver without a GPU
    assert any(w in msg for w in ("no NVIDIA driver was found", "older than the CUDA", "sees no GPU")), msg
    assert "insufficient for CUDA runtime" not in msg  # the runtime's text, wrong with no driver at all
    assert "need an NVIDIA GPU" in msg and "bank model" in msg and "explain()" in msg
    assert "smemkit.is_available()" in msg
    assert e.value.status != 0


def test_is_available_is_a_bool_and_never_raises():
    assert isinstance(smemkit.is_available(), bool)
    assert smemkit.is_available() == (smemkit.device_count() > 0)


def test_readme_names_is_available_for_guards():
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "is_available()" in readme and "skipif" in readme


def test_cli_size_is_honoured():
    p = run("--op", "transpose", "--size", "256")
    assert p.returncode == 0, p.stderr
    assert "transpose 256x256:" in p.stdout and "transpose 4096x4096" not in p.stdout


def test_cli_sweep_analyses_every_size():
    p = run("--op", "transpose", "--layout", "pad", "--sweep")
    assert p.returncode == 0, p.stderr
    for n in cli.SWEEP["transpose"]:
        assert f"transpose {n}x{n}:" in p.stdout


def test_cli_size_and_sweep_conflict_is_an_error():
    p = run("--sweep", "--size", "64")
    assert p.returncode == 2 and "exclude each other" in p.stderr


def test_cli_rep_ms_without_a_gpu_says_it_is_ignored():
    p = run("--op", "transpose", "--size", "64", "--rep-ms", "5")
    assert p.returncode == 0 and "--rep-ms" in p.stderr and "nothing is timed" in p.stderr


def test_cli_json_has_one_schema():
    p = run("--json", "--size", "256")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"schema", "smemkit", "device", "timed", "rows"}
    assert out["schema"] == cli.JSON_SCHEMA and out["timed"] is False and out["device"] is None
    assert out["smemkit"] == smemkit.__version__
    assert len(out["rows"]) == 3 * len(smemkit.LAYOUTS)
    for row in out["rows"]:
        assert tuple(row) == cli.ROW_KEYS
        assert row["median_ms"] is None and row["times_ms"] is None and row["ratio"] is None
        assert row["shape"] in ([256, 256], [256, 256, 256]) and row["accesses"]
        e = smemkit.explain(row["op"], tuple(row["shape"]), row["layout"], row["dtype"])
        assert row["predicted_wavefronts"] == e.total() and row["predicted_excess"] == e.total(what="excess")


def test_cli_json_rows_match_bench_results():
    """With a GPU the rows are BenchResult.to_dict() plus the accesses: the same keys."""
    import dataclasses
    assert set(cli.ROW_KEYS) == {f.name for f in dataclasses.fields(smemkit.BenchResult)} | {"accesses"}


def test_cli_plot_without_gpu_draws_the_prediction(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "x.png"
    p = run("--op", "transpose", "--size", "512", "--plot", str(png))
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {png}" in p.stderr
    png2 = tmp_path / "sweep.png"
    p = run("--op", "sgemm", "--sweep", "--json", "--plot", str(png2))
    assert p.returncode == 0 and png2.is_file() and json.loads(p.stdout)["rows"]


def test_cli_plot_without_matplotlib_is_a_clear_error(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; from smemkit.__main__ import main; "
            f"sys.exit(main({[*CPU, '--op', 'transpose', '--size', '64', '--plot', str(tmp_path / 'x.png')]!r}))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "needs matplotlib" in p.stderr and not (tmp_path / "x.png").exists()
