"""smemkit.timeit / sweep / Table: argument handling and result types on the CPU (the C loop replaced
by a stand-in that calls the callables as the loop does), the real loop against smemkit.bench and
torch's own events on the GPU."""
import json
import statistics
import sys
import types

import numpy as np
import pytest

import smemkit
from smemkit import timing


class FakeC:
    """Stands in for smemkit._C's device side: _time_calls calls each callable warmup + reps times,
    interleaved, and returns times that say which callable and which rep they belong to."""

    def __init__(self):
        self.calls = []

    def _device_info(self):
        return {"name": "Fake GPU", "sms": 132, "l2_bytes": 50 << 20, "cc": (9, 0)}

    def device_name(self):
        return "Fake GPU"

    def _time_calls(self, fns, *, stream=0, warmup=1, reps=10, flush_bytes=0):
        self.calls.append(dict(n=len(fns), stream=stream, warmup=warmup, reps=reps, flush_bytes=flush_bytes))
        for _ in range(warmup + reps):
            for f in fns:
                f()
        return [[(i + 1) * 1.0 + r * 0.01 for r in range(reps)] for i in range(len(fns))]


@pytest.fixture
def fake(monkeypatch):
    c = FakeC()
    monkeypatch.setattr(timing, "_C", c)
    return c


@pytest.mark.parametrize("fn,kw,exc,match", [
    (42, {}, TypeError, "callable"),
    ("abc", {}, TypeError, "callable"),
    ({}, {}, ValueError, "between 1 and 64"),
    ([], {}, ValueError, "between 1 and 64"),
    ({1: lambda: None}, {}, TypeError, "labels must be str"),
    ({"a": 3}, {}, TypeError, "not callable"),
    (lambda: None, {"reps": 0}, ValueError, "reps"),
    (lambda: None, {"reps": True}, ValueError, "reps"),
    (lambda: None, {"rep_ms": 0}, ValueError, "rep_ms"),
    (lambda: None, {"warmup_ms": float("nan")}, ValueError, "finite"),
    (lambda: None, {"rep_ms": "10"}, TypeError, "milliseconds"),
    (lambda: None, {"nbytes": 1, "flops": 1}, ValueError, "not both"),
    (lambda: None, {"nbytes": -1}, ValueError, "nbytes"),
    (lambda: None, {"stream": "s"}, TypeError, "stream"),
    (lambda: None, {"stream": True}, TypeError, "stream"),
    (lambda: None, {"stream": -1}, ValueError, "stream"),
    (lambda: None, {"flush_l2": 1}, TypeError, "flush_l2"),
    (lambda: None, {"params": [1]}, TypeError, "params"),
])
def test_timeit_argument_errors_come_before_the_device(fn, kw, exc, match):
    calls = []
    with pytest.raises(exc, match=match):
        smemkit.timeit(fn, **kw) if not callable(fn) else smemkit.timeit(lambda: calls.append(1), **kw)
    assert not calls


@pytest.mark.skipif(smemkit.is_available(), reason="this machine has a GPU")
def test_timeit_without_gpu_says_so_and_calls_nothing():
    calls = []
    with pytest.raises(smemkit.CudaError, match="no usable GPU was found") as e:
        smemkit.timeit(lambda: calls.append(1), reps=3)
    assert not calls and "is_available()" in str(e.value)
    with pytest.raises(smemkit.CudaError, match="no usable GPU"):
        smemkit._C._time_calls([lambda: calls.append(1)], reps=3)
    assert not calls


def test_time_calls_checks_its_arguments():
    with pytest.raises(TypeError, match="not callable"):
        smemkit._C._time_calls([1])
    with pytest.raises(ValueError, match="between 1 and 64"):
        smemkit._C._time_calls([])
    with pytest.raises(TypeError, match="stream"):
        smemkit._C._time_calls([lambda: None], stream="x")
    with pytest.raises(ValueError, match="reps"):
        smemkit._C._time_calls([lambda: None], reps=0)


def test_timeit_returns_a_table_of_timings(fake):
    def mine():
        pass

    t = smemkit.timeit(mine, reps=5)
    assert type(t) is smemkit.Table and len(t) == 1 and isinstance(t[0], smemkit.Timing)
    r = t[0]
    assert r.label == "mine" and r.n == 5 and r.device == "Fake GPU" and r.params == {}
    assert r.times_ms == (1.0, 1.01, 1.02, 1.03, 1.04)
    assert r.min_ms == 1.0 and r.max_ms == 1.04 and r.median_ms == pytest.approx(1.02)
    assert r.p20_ms == pytest.approx(np.quantile(r.times_ms, 0.2)) and r.quantile(0.8) == pytest.approx(r.p80_ms)
    assert r.mean_ms == pytest.approx(statistics.fmean(r.times_ms)) and r.rate is None and r.unit is None
    # the loop got the run's parameters: warm-up from reps, an L2 flush of twice the L2, torch absent -> 0
    assert fake.calls == [dict(n=1, stream=0, warmup=1, reps=5, flush_bytes=100 << 20)]
    assert smemkit.timeit(mine, reps=5, flush_l2=False) and fake.calls[-1]["flush_bytes"] == 0


def test_timeit_ab_keeps_labels_in_order_and_interleaves(fake):
    order = []
    t = smemkit.timeit({"b": lambda: order.append("b"), "a": lambda: order.append("a")}, reps=10,
                       nbytes=2e6)
    assert [r.label for r in t] == ["b", "a"] and t["a"] is t[1]
    assert order[:4] == ["b", "a", "b", "a"]
    assert t["b"].unit == "GB/s" and t["b"].rate == pytest.approx(2e6 / t["b"].median_ms / 1e6)
    assert smemkit.timeit([lambda: None], reps=10, flops=1e9)[0].unit == "GFLOP/s"
    with pytest.raises(KeyError, match="labels"):
        t["c"]
    assert isinstance(t[:1], smemkit.Table)


def test_timeit_calibrates_like_bench(fake):
    t = smemkit.timeit(lambda: None, rep_ms=100, warmup_ms=25)
    probe, run = fake.calls
    assert probe["reps"] == 3 and probe["flush_bytes"] == 0
    per_round = statistics.median([1.0, 1.01, 1.02])
    assert (run["warmup"], run["reps"]) == timing.calibrate(per_round, 25, 100) == (25, 100)
    assert t[0].n == 100


def test_timeit_stream_argument(fake):
    smemkit.timeit(lambda: None, reps=1, stream=7)
    assert fake.calls[-1]["stream"] == 7
    smemkit.timeit(lambda: None, reps=1, stream=types.SimpleNamespace(cuda_stream=11))  # torch.cuda.Stream
    assert fake.calls[-1]["stream"] == 11
    smemkit.timeit(lambda: None, reps=1, stream=types.SimpleNamespace(ptr=12))  # cupy.cuda.Stream
    assert fake.calls[-1]["stream"] == 12

    class Proto:
        def __cuda_stream__(self):
            return (0, 13)

    smemkit.timeit(lambda: None, reps=1, stream=Proto())
    assert fake.calls[-1]["stream"] == 13


def test_a_callables_exception_propagates(fake):
    def boom():
        raise ZeroDivisionError("mine")

    with pytest.raises(ZeroDivisionError, match="mine"):
        smemkit.timeit(boom, reps=2)


def test_table_exports_and_displays(fake):
    t = smemkit.timeit({"x": lambda: None, "y": lambda: None}, reps=4, params={"size": 64})
    recs = t.to_records()
    assert [r["label"] for r in recs] == ["x", "y"] and recs[0]["size"] == 64
    assert isinstance(recs[0]["times_ms"], list)
    json.dumps(recs)  # JSON-ready
    text = str(t)
    assert "median ms" in text and "size" in text.splitlines()[0] and len(text.splitlines()) == 3
    html = t._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == 3 and "<th>label</th>" in html
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="to_records"):
            t.to_pandas()
    else:
        df = t.to_pandas()
        assert list(df["label"]) == ["x", "y"] and "median_ms" in df.columns


def test_sweep_rows_progress_and_plot(fake, capsys):
    made = []

    def make(n):
        made.append(n)
        return {"a": lambda: None, "b": lambda: None}

    t = smemkit.sweep(make, [64, 128, 256], nbytes=lambda n: 8.0 * n * n, reps=3)
    assert made == [64, 128, 256] and len(t) == 6 and all(isinstance(r, smemkit.Timing) for r in t)
    assert [r.params["size"] for r in t] == [64, 64, 128, 128, 256, 256] and t[5].unit == "GB/s"
    err = capsys.readouterr().err
    assert "3/3" in err and "size=256" in err
    t2 = smemkit.sweep(lambda m, n: (lambda: None), [{"m": 1, "n": 2}], show_progress=False, reps=3)
    assert t2[0].params == {"m": 1, "n": 2} and capsys.readouterr().err == ""
    plt = pytest.importorskip("matplotlib.pyplot")
    ax = t.plot()
    assert [ln.get_label() for ln in ax.get_lines()] == ["a", "b"] and ax.get_xlabel() == "size"
    assert list(ax.get_lines()[0].get_xdata()) == [64, 128, 256]
    plt.close(ax.figure)
    ax = t.plot(y="rate")
    assert "GB/s" in ax.get_ylabel()
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="no column"):
        t.plot(y="nope")
    with pytest.raises(ValueError, match="empty"):
        smemkit.sweep(make, [])
    with pytest.raises(TypeError, match="make"):
        smemkit.sweep(3, [1])


def test_bench_returns_a_bench_table_and_format_table_takes_one_row():
    import inspect
    assert inspect.signature(smemkit.bench).return_annotation in ("BenchTable", smemkit.BenchTable)
    row = smemkit.BenchResult("transpose", "pad", (4, 4), "float32", 3, 1.0, 0.9, 0.95, 1.05, (1.0, 0.9, 1.1), 1.0,
                              "GB/s", "cudaMemcpy D2D", 2.0, 0.5, "Fake GPU", 10, 0)
    one = smemkit.format_table(row)
    assert one == smemkit.format_table([row]) == smemkit.format_table(smemkit.Table([row]))
    assert "pad" in one and "50.0%" in one
    table = smemkit.Table([row])
    assert table["pad"] is row and "of ceiling" in str(table) and "<td>pad</td>" in table._repr_html_()
    with pytest.raises(TypeError):
        smemkit.format_table([1])


@pytest.mark.gpu
def test_timeit_agrees_with_bench_and_torch_events():
    """The same work three ways: smemkit.timeit on a callable, smemkit.bench's own kernel run and a
    loop of torch.cuda.Events written as a user would (flush, record, call, record): within 3%."""
    torch = pytest.importorskip("torch")
    n = 8192
    x = torch.randn(n, n, device="cuda")
    y = torch.empty(n, n, device="cuda")

    def work():
        smemkit.transpose(x, layout="pad", out=y)

    work()
    assert torch.equal(y, x.t())
    t = smemkit.timeit(work, rep_ms=300)[0]
    b = smemkit.bench("transpose", (n, n), layout="pad", rep_ms=300)[0]
    l2 = smemkit._C._device_info()["l2_bytes"]
    cache = torch.empty(2 * l2, dtype=torch.int8, device="cuda")
    reps = t.n
    for _ in range(max(1, reps // 10)):
        work()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for s, e in ev:
        cache.zero_()
        s.record()
        work()
        e.record()
    torch.cuda.synchronize()
    te = statistics.median(s.elapsed_time(e) for s, e in ev)
    assert t.median_ms == pytest.approx(b.median_ms, rel=0.03), (t, b)
    assert t.median_ms == pytest.approx(te, rel=0.03), (t, te)


@pytest.mark.gpu
def test_timeit_ab_against_torch_on_the_gpu():
    torch = pytest.importorskip("torch")
    x = torch.randn(4096, 4096, device="cuda")
    t = smemkit.timeit({"smemkit": lambda: smemkit.transpose(x), "torch": lambda: x.t().contiguous()},
                       rep_ms=50, nbytes=2 * x.numel() * 4)
    assert [r.label for r in t] == ["smemkit", "torch"]
    for r in t:
        assert r.n >= 10 and r.min_ms > 0 and r.min_ms <= r.median_ms <= r.max_ms and r.unit == "GB/s"
    s = smemkit.sweep(lambda n: (lambda: smemkit.transpose(x[:n, :n])), [256, 1024], reps=10, show_progress=False)
    assert len(s) == 2 and s[0].params == {"size": 256}


@pytest.mark.gpu
def test_timeit_propagates_a_callables_exception_on_the_gpu():
    def boom():
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        smemkit.timeit(boom, reps=3)
    assert smemkit.timeit(lambda: None, reps=3)[0].n == 3  # the runtime is still fine afterwards
