"""bench/timing/draws.py: the random-shape laws of issues #26 / #27 / #28, their classes and the summary
statistics (CPU only), and the --random flags of the three scripts that use them (--help and the
no-GPU exit, without a GPU)."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import smemkit

ROOT = Path(__file__).resolve().parent.parent
TIMING = ROOT / "bench" / "timing"
sys.path.insert(0, str(TIMING))
import draws as D  # noqa: E402

T_SIZES = {"uint8": 1, "float16": 2, "float32": 4, "float64": 8, "complex128": 16}


# ---- the laws --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_transpose_law(seed):
    ds = D.transpose_draws(3000, seed)
    assert len(ds) == 3000
    for i, d in enumerate(ds):
        assert d.op == "transpose" and d.dtype in T_SIZES
        assert len(d.shape) == (2 if i % 2 == 0 else 3)  # even draws 2-D, odd batched
        r, c = d.shape[-2:]
        assert 1 <= r <= 1 << 22 and 1 <= c <= 1 << 22
        if len(d.shape) == 3:
            assert 2 <= d.shape[0] <= 64
        nbytes = math.prod(d.shape) * T_SIZES[d.dtype]
        assert d.nbytes == nbytes and 4 << 20 <= nbytes <= 1 << 30
    assert {d.dtype for d in ds} == set(T_SIZES)
    batches = [d.shape[0] for d in ds if len(d.shape) == 3]
    assert min(batches) == 2 and max(batches) == 64
    # the byte window is reached at both ends, and thin shapes (rows or cols of 1) occur
    nb = sorted(d.nbytes for d in ds)
    assert nb[0] < 8 << 20 and nb[-1] > 512 << 20
    assert any(min(d.shape[-2:]) == 1 for d in ds)


@pytest.mark.parametrize("law, side, dtypes", [("sgemm", 4096, {"float32"}), ("gemm", 8192, {"float16", "bfloat16"})])
def test_gemm_laws(law, side, dtypes):
    ds = D.SAMPLERS[law](4000, 3)
    for i, d in enumerate(ds):
        M, N, K = d.shape
        assert 1 <= M <= 16384 and 1 <= N <= 16384 and 1 <= K <= 65536
        assert M * N >= 64 and M * N * K >= 1 << 20 and 2 * M * N * K <= 2 * side ** 3
        assert d.flops == 2 * M * N * K
        if law == "gemm":
            assert d.dtype == ("float16" if i % 2 == 0 else "bfloat16")
    assert {d.dtype for d in ds} == dtypes
    mnk = [math.prod(d.shape) for d in ds]
    assert max(mnk) > (side // 2) ** 3  # the upper cut is approached, not an artefact of a tighter one
    if law == "gemm":
        assert max(mnk) > 4096 ** 3  # the gemm law goes past the sgemm law's cut
    assert max(d.shape[2] for d in ds) > 32768 and max(max(d.shape[:2]) for d in ds) > 8192


def test_loguniform_int():
    """round(exp(U(0, ln hi))): in [1, hi], and ln of it uniform (half the mass below sqrt(hi))."""
    rng = np.random.default_rng(0)
    x = D.loguniform_int(rng, 1 << 22, 200000)
    assert x.min() >= 1 and x.max() <= 1 << 22 and x.dtype == np.int64
    assert abs(np.mean(x <= 1 << 11) - 0.5) < 0.01
    assert abs(np.mean(x <= 1 << 5) - 5 / 22) < 0.01
    assert np.mean(x == 1) == pytest.approx(math.log(1.5) / math.log(1 << 22), abs=0.003)


@pytest.mark.parametrize("law", sorted(D.SAMPLERS))
def test_reproducible_and_seeded(law):
    f = D.SAMPLERS[law]
    a, b = f(500, 11), f(500, 11)
    assert a == b
    assert f(500, 12) != a and f(500, 0) != a
    assert f(137, 11) == a[:137]  # a run's first draws do not depend on n
    assert f(0, 11) == []
    with pytest.raises(ValueError):
        f(10, -1)
    with pytest.raises(ValueError):
        f(-1, 1)


def test_laws_independent_across_issues():
    """sgemm and gemm draw from different streams for the same seed (no shared prefix of shapes)."""
    s = [d.shape for d in D.sgemm_draws(50, 1)]
    g = [d.shape for d in D.gemm_draws(50, 1)]
    assert len(set(s) & set(g)) < 5


# ---- classes -----------------------------------------------------------------------------------------


def test_classes():
    c = D.classes
    assert c("transpose", (4096, 4096), "float32") == ("2-D", "float32", "plain")
    assert c("transpose", (3, 4096, 4096), "uint8") == ("batch", "uint8", "plain")
    assert c("transpose", (4096, 4095), "float32") == ("2-D", "float32", "unaligned")
    assert c("transpose", (4194304, 1), "complex128") == ("2-D", "complex128", "vector")
    assert c("transpose", (4194304, 3), "float32") == ("2-D", "float32", "skinny", "unaligned")
    assert c("transpose", (31, 65536), "complex128") == ("2-D", "complex128", "skinny")
    assert c("sgemm", (4096, 4096, 4096), "float32") == ("float32", "plain")
    assert c("sgemm", (4096, 4096, 4094), "float32") == ("float32", "unaligned")
    assert c("sgemm", (4096, 4094, 4096), "float32") == ("float32", "unaligned")
    assert c("sgemm", (4093, 4096, 4096), "float32") == ("float32", "plain")  # M is no row length
    assert c("sgemm", (32, 4096, 4096), "float32") == ("float32", "matrix-vector")
    assert c("sgemm", (4096, 4096, 16), "float32") == ("float32", "tiny K")
    assert c("sgemm", (128, 256, 1024), "float32") == ("float32", "K-heavy")
    assert c("sgemm", (128, 256, 1020), "float32") == ("float32", "plain")
    assert c("gemm", (64, 64, 65536), "bfloat16") == ("bfloat16", "K-heavy")
    assert c("gemm", (4096, 4096, 4092), "float16") == ("float16", "unaligned")  # 4092 halves: not 16 bytes
    assert c("gemm", (8, 8, 3), "float16") == ("float16", "matrix-vector", "tiny K", "unaligned")
    assert D.Draw("sgemm", (8, 8, 3), "float32").classes() == ("float32", "matrix-vector", "tiny K", "unaligned")
    with pytest.raises(ValueError):
        c("conv", (1, 2), "float32")


def test_torch_moves_data():
    assert not D.torch_moves_data((5000000, 1)) and not D.torch_moves_data((4, 1, 5000000))
    assert D.torch_moves_data((2, 2)) and D.torch_moves_data((7, 3, 5))


def test_reps_for():
    small = D.Draw("transpose", (2048, 2048), "uint8")
    big = D.Draw("transpose", (32768, 32768), "uint8")
    assert D.reps_for(small, 4) == 100  # flush-bound: capped
    assert D.reps_for(big, 4) == 23     # ~0.86 ms a launch: 80 ms / (4 x 0.9 ms)
    assert D.reps_for(big, 4, budget_ms=10) == 10  # the floor
    assert D.reps_for(big, 4, budget_ms=300) == math.ceil(300 / (4 * (D.est_ms(big) + D.FLUSH_MS))) == 83
    g = D.Draw("gemm", (8192, 8192, 8192), "float16")
    assert D.est_ms(g) == pytest.approx(2 * 8192 ** 3 / 250e9 + 0.005)
    assert D.reps_for(g, 5) == 10


# ---- statistics --------------------------------------------------------------------------------------


def test_summarize_known():
    assert D.geomean([1, 4]) == pytest.approx(2) and D.geomean([2, 8, 4]) == pytest.approx(4)
    assert math.isnan(D.geomean([]))
    with pytest.raises(ValueError):
        D.geomean([1.0, 0.0])
    s = D.summarize([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])
    assert s["n"] == 10 and s["min"] == 1 and s["max"] == 10 and s["median"] == 5.5
    assert s["p10"] == pytest.approx(1.9)  # rank 0.9 of 0..9: 1 + 0.9 * (2 - 1)
    assert s["geomean"] == pytest.approx(math.factorial(10) ** 0.1)
    assert D.summarize([])["n"] == 0


def _rows():
    return [
        {"index": 0, "op": "sgemm", "shape": [4096, 4096, 4096], "dtype": "float32", "classes": ["float32", "plain"],
         "ratio": {"naive": 0.5, "swizzle": 1.0}},
        {"index": 1, "op": "sgemm", "shape": [8, 4096, 4096], "dtype": "float32",
         "classes": ["float32", "matrix-vector"], "ratio": {"naive": 0.25, "swizzle": 0.25}},
        {"index": 2, "op": "sgemm", "shape": [4096, 4096, 3], "dtype": "float32", "classes": ["float32", "tiny K"],
         "ratio": {"naive": 2.0, "swizzle": None}},  # None: not measured, skipped
        {"index": 3, "op": "sgemm", "shape": [16, 4096, 4096], "dtype": "float32",
         "classes": ["float32", "matrix-vector"], "ratio": {"naive": 1.0, "swizzle": 4.0}},
    ]


def test_summary_rows():
    s = {(x["class"], x["layout"]): x for x in D.summary_rows(_rows(), order=D.GEMM_SHAPE_CLASSES)}
    assert list(dict.fromkeys(c for c, _ in s)) == ["all", "matrix-vector", "tiny K", "plain", "float32"]
    assert s["all", "naive"]["n"] == 4 and s["all", "swizzle"]["n"] == 3
    assert s["all", "naive"]["geomean"] == pytest.approx((0.5 * 0.25 * 2.0 * 1.0) ** 0.25)
    assert s["all", "swizzle"]["geomean"] == pytest.approx(1.0) and s["all", "swizzle"]["min"] == 0.25
    assert s["all", "swizzle"]["worst"] == "8x4096x4096 float32"
    assert s["matrix-vector", "swizzle"]["n"] == 2 and s["matrix-vector", "swizzle"]["median"] == pytest.approx(2.125)
    assert s["tiny K", "swizzle"]["n"] == 0 and s["tiny K", "swizzle"]["worst"] is None
    assert D.best_layout(_rows()) == "swizzle"
    md = D.md_summary(D.summary_rows(_rows()))
    assert "| all | swizzle | 3 | 1.000 | " in md and "| tiny K | swizzle | 0 | n/a |" in md
    per = D.md_per_shape(_rows(), n=2)
    assert per.count("\n") == 3 and "| 1 | 8x4096x4096 |" in per.splitlines()[2]


def _trow(i, ratio, vs_torch, shape=(4096, 4096)):
    return {"index": i, "op": "transpose", "shape": list(shape), "dtype": "float32", "classes": ["2-D", "float32"],
            "ratio": {"pad": ratio}, "vs_torch": None if vs_torch is None else {"pad": vs_torch}}


def test_transpose_targets():
    good = [_trow(i, 0.95, 1.2) for i in range(20)] + [_trow(20, 0.95, None, (1, 5000000))]
    t = D.transpose_targets(good)
    assert t[0] == "best layout by geomean: pad" and all("PASS" in x for x in t[1:])
    assert "20 draws where torch moves data" in t[4]
    bad = good[:-1] + [_trow(21, 0.55, 0.9, (4096, 3))]
    t = D.transpose_targets(bad)
    assert "FAIL" in t[3] and "FAIL" in t[4] and "worst 0.900 at 4096x3 float32" in t[4]
    assert "PASS" in t[1]  # the geomean of 20 x 0.95 and 0.55 is still above 0.90
    assert "not measured" in D.transpose_targets([_trow(0, 1.0, None)])[4]


def test_summarize_cli(tmp_path, capsys):
    rows = [{**r, "seed": 1} for r in _rows()]
    p = tmp_path / "run.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    md = tmp_path / "out.md"
    assert D.main(["--summarize", str(p), "--per-shape", "--md", str(md)]) == 0
    out = capsys.readouterr().out
    assert "| all | naive | 4 |" in out and "Every draw:" in out and md.read_text().strip() == out.strip()
    assert D.main(["--law", "gemm", "--n", "3", "--seed", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[1].split("\t")[3] == "bfloat16"


# ---- the scripts' new flags, without a GPU ---------------------------------------------------------

SCRIPTS = ["bench_widths.py", "bench_sgemm.py", "bench_gemm.py", "bench_calls.py"]


def _run(script, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(TIMING / script), *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_help(script):
    p = _run(script, "--help")
    assert p.returncode == 0, p.stderr
    assert "--random N" in p.stdout and "--seed" in p.stdout and "--out" in p.stdout


@pytest.mark.skipif(smemkit.is_available(), reason="checks the no-GPU exit")
@pytest.mark.parametrize("script", SCRIPTS)
def test_script_without_gpu(script, tmp_path):
    p = _run(script, "--random", "3", "--seed", "1", "--out", str(tmp_path / "x.jsonl"))
    assert p.returncode != 0 and "no usable CUDA GPU" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "x.jsonl").exists()


# ---- the --random runs end to end on a stand-in device ---------------------------------------------
# No GPU here: smemkit.bench / smemkit.timeit are replaced by fakes with known times (layout i takes
# base * (1 + i / 4), the ceiling base), and torch by a shape-only stand-in, so what is checked is the
# scripts' plumbing: the draws they time, the rows they write, the ratios they derive, the summary.


def _fake_bench(calls):
    from smemkit.bench import BenchResult
    from smemkit.timing import Table

    def bench(op, shape, *, layout=None, dtype=None, reps=None, **kw):
        calls.append((op, tuple(shape), dtype, reps))
        dtype = dtype or ("float16" if op == "gemm" else "float32")
        layouts = list(smemkit.LAYOUTS if layout is None else layout)
        esz = T_SIZES[dtype] if op == "transpose" else (4 if op == "sgemm" else 2)
        work = (2 * math.prod(shape) * esz if op == "transpose" else 2 * math.prod(shape)) / 1e6
        base = 0.01 + work / 2e6
        out = Table()
        for i, lay in enumerate(layouts):
            med = base * (1 + i / 4)
            name = lay if isinstance(lay, str) else repr(lay)
            out.append(BenchResult(op, name, tuple(shape), dtype, reps, med, med, med, med, (med,) * reps, work / med,
                                   "GB/s" if op == "transpose" else "GFLOP/s", "ceiling", work / base,
                                   base / med, "fake", 0, 0))
        return out
    return bench


class _FakeTorchTensor:
    def __init__(self, shape):
        self.shape = tuple(shape)

    def view(self, dtype):
        return self

    def random_(self):
        return self

    def dim(self):
        return len(self.shape)

    def t(self):
        assert len(self.shape) == 2
        return _FakeTorchTensor(self.shape[::-1])

    @property
    def mT(self):
        return _FakeTorchTensor(self.shape[:-2] + self.shape[:-3:-1])

    def contiguous(self):
        return self

    def copy_(self, other):
        assert other.shape == self.shape
        return self


def _fake_torch():
    import types
    t = types.ModuleType("torch")
    t.uint8, t.float16, t.float32, t.float64, t.complex128 = "uint8", "float16", "float32", "float64", "complex128"
    t.empty = lambda shape, dtype=None, device=None: _FakeTorchTensor(shape)
    t.empty_like = lambda x: _FakeTorchTensor(x.shape)
    t.cuda = types.SimpleNamespace(is_available=lambda: True, empty_cache=lambda: None)
    return t


def _fake_timeit(fns, *, reps=None, nbytes=None, **kw):
    from smemkit.timing import Table, Timing
    out = Table()
    for label, fn in fns.items():
        fn()
        med = {"torch": 2.0, "copy": 1.0}[label]  # torch's transpose at half its copy's speed
        out.append(Timing.from_times(label, [med] * reps, "fake", nbytes, "GB/s"))
    return out


def _import_script(name):
    import importlib
    sys.modules.pop(name, None)
    return importlib.import_module(name)


@pytest.mark.parametrize("script, n", [("bench_widths", 40), ("bench_sgemm", 30), ("bench_gemm", 30)])
@pytest.mark.parametrize("with_torch", [True, False])
def test_random_run_faked(script, n, with_torch, monkeypatch, tmp_path, capsys):
    if script != "bench_widths" and not with_torch:
        pytest.skip("torch only matters to the transpose")
    calls = []
    monkeypatch.setattr(smemkit, "bench", _fake_bench(calls))
    monkeypatch.setattr(smemkit, "timeit", _fake_timeit)
    monkeypatch.setattr(smemkit, "is_available", lambda: True)
    monkeypatch.setattr(smemkit, "device_name", lambda: "fake")
    monkeypatch.setitem(sys.modules, "torch", _fake_torch() if with_torch else None)
    mod = _import_script(script)
    if script == "bench_sgemm":
        monkeypatch.setattr(mod, "device_info", lambda: {"sms": 132})
    if script in ("bench_sgemm", "bench_gemm"):
        monkeypatch.setattr(mod, "check", lambda *a: None)
    out, md = tmp_path / "rows.jsonl", tmp_path / "out.md"
    monkeypatch.setattr(sys, "argv", [script, "--random", str(n), "--seed", "5", "--out", str(out), "--md", str(md)])
    mod.main()
    cap = capsys.readouterr()
    rows = D.read_jsonl(str(out))
    law = {"bench_widths": "transpose", "bench_sgemm": "sgemm", "bench_gemm": "gemm"}[script]
    want = D.SAMPLERS[law](n, 5)
    assert [(r["op"], tuple(r["shape"]), r["dtype"]) for r in rows] == [(d.op, d.shape, d.dtype) for d in want]
    assert [c[:3] for c in calls] == [(law, d.shape, d.dtype if law != "sgemm" else None) for d in want]
    assert [c[3] for c in calls] == [r["reps"] for r in rows]
    layouts = ["naive", "pad", "swizzle"] + (["Swizzle(2, 3, 2)"] if law == "gemm" else [])
    for r in rows:
        assert r["seed"] == 5 and r["classes"] == list(D.classes(law, r["shape"], r["dtype"])) and "error" not in r
        assert list(r["ratio"]) == layouts
        assert [r["ratio"][k] for k in layouts] == pytest.approx([1 / (1 + i / 4) for i in range(len(layouts))])
        ceil = "copy" if law == "transpose" else "cublas"
        assert r["median_ms"]["naive"] == pytest.approx(r["median_ms"][ceil])
        if law == "sgemm":
            assert r["choice"][1] >= 1
        if law == "transpose":
            moves = D.torch_moves_data(r["shape"])
            assert r["torch_moves_data"] == moves
            if with_torch and moves:
                assert r["torch"]["share"] == pytest.approx(0.5)
                assert r["vs_torch"]["pad"] == pytest.approx(0.8 / 0.5)
            else:
                assert r["torch"] is None and r["vs_torch"] is None
    assert f"[20/{n}]" in cap.err and f"[{n}/{n}]" in cap.err
    assert "| all | naive | %d | 1.000 |" % n in cap.out and md.read_text().strip() == cap.out.strip().split(
        "torch with CUDA not found: the torch comparison is skipped\n")[-1].strip()
    if law == "transpose":
        assert ("smemkit over torch" in cap.out) == with_torch and "Targets (#26)" in cap.out
        assert "best layout by geomean: naive" in cap.out


def test_random_run_records_errors(monkeypatch, tmp_path, capsys):
    """A draw that raises is written with its error and left out of the summary; three in a row stop."""
    good = _fake_bench([])
    seen = []

    def flaky(op, shape, **kw):
        seen.append(shape)
        if len(seen) == 2 or len(seen) >= 5:
            raise MemoryError(f"fake: {shape}")
        return good(op, shape, **kw)

    monkeypatch.setattr(smemkit, "bench", flaky)
    monkeypatch.setattr(smemkit, "is_available", lambda: True)
    monkeypatch.setattr(smemkit, "device_name", lambda: "fake")
    mod = _import_script("bench_sgemm")
    monkeypatch.setattr(mod, "device_info", lambda: {"sms": 132})
    monkeypatch.setattr(mod, "check", lambda *a: None)
    out = tmp_path / "rows.jsonl"
    monkeypatch.setattr(sys, "argv", ["bench_sgemm", "--random", "20", "--out", str(out)])
    with pytest.raises(SystemExit) as e:
        mod.main()
    assert e.value.code == 1
    rows = D.read_jsonl(str(out))
    assert len(rows) == 7 and [("error" in r) for r in rows] == [False, True, False, False, True, True, True]
    assert "three draws in a row failed" in capsys.readouterr().err


def test_profile_calls_arms_are_checked_before_the_device():
    """profile_calls.py --arm SUFFIX:NAME=V[,NAME=V] (the same-run A/B by the acceptance's method): a bad arm is
    a usage error on any machine; a good one reaches the device check (the no-GPU exit here)."""
    bad = _run("profile_calls.py", "--op", "transpose", "--random", "3", "--arm", "k9:no_such_knob=1")
    assert bad.returncode == 2 and "--arm k9:no_such_knob=1" in bad.stderr and "Traceback" not in bad.stderr
    bad = _run("profile_calls.py", "--op", "transpose", "--random", "3", "--arm", "transpose_skinny=2")
    assert bad.returncode == 2 and "want SUFFIX:NAME=INT" in bad.stderr
    if not smemkit.is_available():
        good = _run("profile_calls.py", "--op", "transpose", "--random", "3", "--arm", "k2:transpose_skinny=2")
        assert good.returncode != 0 and "no usable CUDA GPU" in good.stderr and "Traceback" not in good.stderr
