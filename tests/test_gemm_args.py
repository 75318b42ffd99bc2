"""gemm(): dtype dispatch and argument errors, all before any device work (these run without a GPU)."""
import numpy as np
import pytest

import smemkit

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)


def z(shape, dtype):
    return np.zeros(shape, dtype)


@pytest.mark.parametrize("a,b,c,kw,exc,match", [
    (z((2, 3), F16), z((3, 4), np.float32), None, {}, TypeError, "a is float16 but b is float32"),
    (z((2, 3), F16), z((3, 4), BF16), None, {}, TypeError, "a is float16 but b is bfloat16"),
    (z((2, 3), np.float64), z((3, 4), np.float64), None, {}, TypeError, "float64"),
    (z((2, 3), np.int16), z((3, 4), np.int16), None, {}, TypeError, "int16"),
    (z((2, 3), BF16), z((3, 4), BF16), z((2, 4), F16), {"beta": 1.0}, TypeError, "c must be bfloat16"),
    (z((2, 3), F16), z((3, 4), F16), z((2, 4), F16), {"beta": 1.0, "out_dtype": np.float32}, TypeError,
     "c must be float32"),
    (z((2, 3), F16), z((3, 4), F16), None, {"out_dtype": np.float64}, TypeError, "out_dtype"),
    (z((2, 3), F16), z((3, 4), F16), None, {"out_dtype": "bogus"}, TypeError, "out_dtype"),
    (z((2, 3), np.float32), z((3, 4), np.float32), None, {"out_dtype": np.float16}, TypeError, "float32"),
    (z((2, 3), F16), z((4, 4), F16), None, {}, ValueError, r"inner dimensions differ: a has shape \(2, 3\)"),
    (z((2, 3), F16), z((3, 4), F16), z((3, 4), F16), {"beta": 1.0}, ValueError, r"c has shape \(3, 4\)"),
    (z((2, 3), F16), z((3, 4), F16), None, {"beta": 1.0}, ValueError, "beta != 0 needs c"),
    (z((2, 3, 1), F16), z((3, 4), F16), None, {}, ValueError, "2-D"),
    (z((2, 3), F16), z((3, 4), F16), None, {"layout": "xor"}, ValueError, "'naive', 'pad', 'swizzle'"),
    (z((2, 3), F16), z((3, 4), F16), None, {"layout": 3}, TypeError, "layout"),
    (z((2, 3), F16), z((3, 4), F16), None, {"layout": smemkit.Swizzle(1, 3, 3)}, ValueError,
     r"Swizzle\(1, 3, 3\) is not compiled.*Swizzle\(2, 3, 2\)"),
    (z((2, 3), np.float32), z((3, 4), np.float32), None, {"layout": smemkit.Swizzle(2, 3, 2)}, ValueError,
     "float32 goes to sgemm"),
    (z((2, 3), F16), z((3, 4), F16), None, {"alpha": "x"}, TypeError, r"gemm\(\): alpha"),
    (z((2, 3), F16), z((3, 4), F16), None, {"out": z((2, 4), np.float32)}, TypeError, "out has dtype float32"),
    (z((2, 3), F16), z((3, 4), F16), None, {"out": z((4, 2), F16)}, ValueError, "out has shape"),
    ([[1.0]], z((1, 1), F16), None, {}, TypeError, "numpy.ndarray"),
])
def test_gemm_argument_errors(a, b, c, kw, exc, match):
    with pytest.raises(exc, match=match):
        smemkit.gemm(a, b, c, **kw)


def test_gemm_signature():
    import inspect
    assert str(inspect.signature(smemkit.gemm)) == (
        "(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle', out_dtype=None, out=None)")


def test_supported_swizzles_are_listed_and_accepted_by_explain():
    for s in (smemkit.Swizzle(2, 3, 2), smemkit.Swizzle(2, 3, 3), smemkit.Swizzle(3, 3, 3)):
        e = smemkit.explain("gemm", (256, 256, 256), s, "float16")
        assert e.layout == repr(s)
    with pytest.raises(ValueError, match="explicit swizzles are a gemm option"):
        smemkit.explain("sgemm", (64, 64, 64), smemkit.Swizzle(2, 3, 2))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_explain_gemm_conflicts(dtype):
    """naive ldmatrix phases conflict, pad and the conflict-free swizzle do not, the article's Swizzle(2,3,2)
    sits between them on the kernel's own tiles."""
    shape = (1024, 1024, 1024)
    naive, pad, swz = (smemkit.explain("gemm", shape, l, dtype) for l in ("naive", "pad", "swizzle"))
    art = smemkit.explain("gemm", shape, smemkit.Swizzle(2, 3, 2), dtype)
    ld = lambda e: sum(a.wavefronts for a in e.accesses if a.instr.startswith("ldmatrix"))  # noqa: E731
    ideal = sum(a.ideal for a in pad.accesses if a.instr.startswith("ldmatrix"))
    assert ld(pad) == ld(swz) == ideal
    assert ld(naive) > ld(art) >= ideal
    assert all(a.instr in ("ldmatrix.x4", "cp.async") for a in naive.accesses)


def test_bank_model_ldmatrix_kind():
    rows = np.arange(8) * 128              # 8 rows of 128 bytes: all in one 16-byte bank slot
    addr = np.concatenate([rows + 16 * q for q in range(4)])
    assert smemkit.bank_model.wavefronts(addr, 16, "ldmatrix") == 32   # 8-way in each of 4 matrices
    assert smemkit.bank_model.wavefronts(np.arange(32) * 16, 16, "ldmatrix") == 4
    with pytest.raises(ValueError, match="width must be 16"):
        smemkit.bank_model.wavefronts(np.arange(32) * 16, 8, "ldmatrix")
    with pytest.raises(ValueError, match="'load' or 'store'"):
        smemkit.bank_model.rule(16, "ldmatrix")


def test_explain_gemm_unaligned_rows_and_small_grids():
    """Variant 0 pads rows that are not 16-byte aligned where the GEMM dwarfs the copies and runs the
    cp.async kernel (its plan says so), else reads them in place; a forced variant reads them in place
    and fills its tiles with st.shared.v4.  Tiles follow the chooser (variant 10: the old rule)."""
    odd = smemkit.explain("gemm", (4097, 4095, 4093), "swizzle", "float16")
    assert "unaligned rows padded" in odd.config and odd.config.startswith("128x256x64")
    assert {a.instr for a in odd.accesses} == {"ldmatrix.x4", "cp.async", "cp.async.zfill", "ldst"}  # ldst: zeros past K
    assert not any("register-staged" in a.name for a in odd.accesses)
    aligned = smemkit.explain("gemm", (4096, 4096, 4096), "swizzle", "float16")
    assert "padded" not in aligned.config
    staged = smemkit.explain("gemm", (4097, 4095, 4093), "swizzle", "float16", config=2)
    fills = [a for a in staged.accesses if not a.instr.startswith("ldmatrix") and not a.name.startswith("D-tile")]
    assert [(a.instr, a.kind, a.width) for a in fills] == [("ldst", "store", 16)] * 2
    # odd N: D staged through its shared tile (gemm16_epi 1, the default), 4-byte pairs in, 16-byte rows out
    assert [(a.kind, a.width) for a in staged.accesses if a.name.startswith("D-tile")] == [("store", 4), ("load", 16)]
    assert all("register-staged" in a.name for a in fills)
    # variant 10 = variant 0 before #28: 128x128 tiles under half a wave of 128x256
    assert smemkit.explain("gemm", (1024, 1024, 1024), "swizzle", config=10).config.startswith("128x128x64")
    assert smemkit.explain("gemm", (1024, 1024, 1024), "swizzle", sms=40, config=10).config.startswith("128x256x64")
    # variant 0 (csrc/gemm16_choose.c): 64x128 tiles fill 128 of 132 SMs at 1024^3; rows in place when small
    assert smemkit.explain("gemm", (1024, 1024, 1024), "swizzle").config.startswith("64x128x64")
    assert smemkit.explain("gemm", (1024, 1024, 1024), "swizzle", sms=40).config.startswith("128x256x64")
    assert smemkit.explain("gemm", (2048, 2048, 2048), "swizzle").config.startswith("128x256x64")
    small = smemkit.explain("gemm", (300, 260, 333), "swizzle", "float16")
    assert any(t in small.config for t in ("unaligned rows in place", "in place, deep x4", "half tile, deep x4"))  # gemm16_staged, _small
    assert all("register-staged" in a.name for a in small.accesses if not a.instr.startswith("ldmatrix"))


class _FakeTorchDtype:
    """Stands in for a torch.dtype (torch is not needed on the CPU machine): the same type name, module
    and str() as torch's own, which is all smemkit reads of it."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


_FakeTorchDtype.__name__ = "dtype"
_FakeTorchDtype.__module__ = "torch"


@pytest.mark.parametrize("spelling", [np.float32, np.dtype(np.float32), "float32", _FakeTorchDtype("float32")])
def test_out_dtype_spellings_mean_float32(spelling):
    # a float16 c with out_dtype=float32 is refused by the rules, naming float32: the spelling was understood
    with pytest.raises(TypeError, match="c must be float32"):
        smemkit.gemm(z((2, 3), F16), z((3, 4), F16), z((2, 4), F16), beta=1.0, out_dtype=spelling)


@pytest.mark.parametrize("spelling,inputs", [("bfloat16", BF16), (_FakeTorchDtype("bfloat16"), BF16),
                                             (_FakeTorchDtype("float16"), F16)])
def test_out_dtype_spellings_of_the_inputs_dtype(spelling, inputs):
    with pytest.raises(TypeError, match="out has dtype float32"):
        smemkit.gemm(z((2, 3), inputs), z((3, 4), inputs), out=z((2, 4), np.float32), out_dtype=spelling)


@pytest.mark.parametrize("spelling", [_FakeTorchDtype("int8"), _FakeTorchDtype("float64"), "float8", object()])
def test_out_dtype_unknown_spellings_are_type_errors(spelling):
    with pytest.raises(TypeError, match="out_dtype"):
        smemkit.gemm(z((2, 3), F16), z((3, 4), F16), out_dtype=spelling)


@pytest.mark.gpu
def test_out_dtype_as_torch_spells_it():
    torch = pytest.importorskip("torch")
    a = torch.randn(33, 70, device="cuda", dtype=torch.float16)
    b = torch.randn(70, 17, device="cuda", dtype=torch.float16)
    d = smemkit.gemm(a, b, out_dtype=torch.float32)
    assert d.dtype == torch.float32 and d.shape == (33, 17)
    ref = a.double() @ b.double()
    assert torch.allclose(d.double(), ref, rtol=1e-3, atol=1e-3)
    assert smemkit.gemm(a, b, out_dtype=torch.float16).dtype == torch.float16
