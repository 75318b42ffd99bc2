"""smemkit.bench and BenchResult (timing on the GPU; argument errors everywhere)."""
import pytest

import smemkit


@pytest.mark.parametrize("args,kw,exc", [
    (("gemm", (4, 4)), {}, ValueError),
    (("conv", (4, 4)), {}, ValueError),
    (("transpose", (4, 4)), {"dtype": "datetime64"}, TypeError),
    (("sgemm", (4, 4, 4)), {"dtype": "float64"}, TypeError),
    (("transpose", (4, 4)), {"layout": "xor"}, ValueError),
    (("transpose", (4, 4)), {"rep_ms": 0}, ValueError),
])
def test_argument_errors_come_first(args, kw, exc):
    with pytest.raises(exc):
        smemkit.bench(*args, **kw)


@pytest.mark.skipif(smemkit.is_available(), reason="this machine has a GPU")
def test_bench_without_gpu_is_cuda_error():
    with pytest.raises(smemkit.CudaError, match="no usable GPU"):
        smemkit.bench("transpose", (64, 64))


@pytest.mark.gpu
@pytest.mark.parametrize("op,shape,unit,ceiling", [("transpose", (2048, 1000), "GB/s", "cudaMemcpy D2D"),
                                                   ("sgemm", (512, 384, 256), "GFLOP/s", "cuBLAS fp32")])
def test_bench_all_layouts(op, shape, unit, ceiling):
    rs = smemkit.bench(op, shape, rep_ms=20, warmup_ms=5)
    assert type(rs) is smemkit.Table and [r.layout for r in rs] == list(smemkit.LAYOUTS)
    for r in rs:
        assert r.op == op and r.shape == shape and r.unit == unit and r.n >= 10
        assert r.min_ms <= r.p20_ms <= r.median_ms <= r.p80_ms
        assert len(r.times_ms) == r.n and all(t > 0 for t in r.times_ms)
        assert r.ceiling_name == ceiling and r.ceiling > 0 and r.ratio == pytest.approx(r.rate / r.ceiling)
        assert r.device == smemkit.device_name()
        assert r.predicted_wavefronts == smemkit.explain(op, shape, r.layout).total()
        assert op in repr(r) and r.layout in repr(r)
    naive = rs[0]
    # pad and swizzle leave no bank conflict on the shared side (every LDS / STS at its ideal); what excess they
    # keep is the cp.async copies' global side (the LDGSTS rule: the SGEMM deep kernel's A rows on one 128-byte
    # position, since session 46), which no shared layout removes -- and naive has more
    for r in rs[1:]:
        e = smemkit.explain(op, shape, r.layout)
        assert all(a.wavefronts == a.ideal for a in e.accesses if a.instr == "ldst"), r.layout
        assert r.predicted_excess == sum(a.excess for a in e.accesses if a.instr.startswith("cp.async"))
    assert naive.predicted_excess > max(rs[1].predicted_excess, rs[2].predicted_excess)
    table = smemkit.format_table(rs)
    assert table.count("\n") >= 4 and ceiling in table
    with pytest.raises(Exception):
        rs[0].median_ms = 1.0  # frozen


@pytest.mark.gpu
def test_bench_returns_the_same_type_for_one_layout():
    t = smemkit.bench("transpose", (256, 256), layout="pad", dtype="float64", rep_ms=10)
    assert type(t) is smemkit.Table and len(t) == 1 and t["pad"] is t[0]
    r = t[0]
    assert isinstance(r, smemkit.BenchResult) and r.layout == "pad" and r.dtype == "float64"
    assert r.to_dict()["layout"] == "pad" and t.to_records()[0]["layout"] == "pad"
    assert smemkit.format_table(r) == smemkit.format_table(t)
