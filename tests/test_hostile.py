"""Hostile inputs (issue 16, part 2): no input can kill the process.

Every case below must end in a correct result, or in a TypeError / ValueError / MemoryError /
smemkit.CudaError whose message names the function and the argument -- and the next valid call in
the same process must still work.

How it runs: the cases are data (an expression, what it must give).  One child process (HARNESS)
evaluates a batch of them serially and prints one JSON line per case, so a segfault or an abort
fails the cases from the one that killed it on instead of killing pytest.  The few cases that could
genuinely take the process down (terabyte views that a missing size check would try to copy, bogus
device pointers) run in a child of their own.  After every case the child makes valid calls
(`valid()`): the CPU model and layout maps against values taken before any case ran, and the
kernels -- with a GPU, results compared with NumPy; without one, the same clean 'no usable GPU'
CudaError as before.

CPU cases need no GPU: every error they expect comes before device work (the host size check runs
before the GPU check, so the terabyte views are MemoryErrors on a machine without a GPU too).
Kernel cases that compute ("kernel" kind) check the result with a GPU and the clean CudaError
without one.  The `gpu` part takes PyTorch / CuPy tensors and hand-made __cuda_array_interface__
objects whose pointers are refused before any launch.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import smemkit

ROOT = Path(__file__).resolve().parents[1]

# The child: reads [{"id", "code", "expect", "needs"}] as JSON on stdin, prints one JSON line each.
HARNESS = r'''
import io, json, os, sys, contextlib, importlib
import numpy as np
import smemkit
from numpy.lib.stride_tricks import as_strided
if os.environ.get("SMK_HOSTILE_RLIMIT") and not smemkit.is_available():
    import resource  # a missing size check then dies of MemoryError here instead of thrashing
    lim = int(os.environ["SMK_HOSTILE_RLIMIT"])
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))

GPU = smemkit.is_available()
bm = smemkit.bank_model
A34 = np.arange(12, dtype=np.float32).reshape(3, 4)
F4 = np.ones((4, 4), np.float32)
ALLOWED = (TypeError, ValueError, MemoryError, smemkit.CudaError)


class CAI:
    """A hand-made __cuda_array_interface__ producer."""
    def __init__(self, **d):
        self.__cuda_array_interface__ = d


def cai(shape=(4, 4), typestr="<f4", data=(4096, False), **kw):
    return CAI(shape=shape, typestr=typestr, data=data, version=3, **kw)


class Raising:
    @property
    def __cuda_array_interface__(self):
        return 1 / 0


def cli(*argv):
    """python -m smemkit in process: (exit status, stderr)."""
    from smemkit.__main__ import main
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = main(list(argv))
        except SystemExit as e:
            rc = e.code
    return rc, err.getvalue()


def plot(*a, **k):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    try:
        return smemkit.plot_bank_map(*a, **k)
    finally:
        plt.close("all")


BASE = (smemkit.tile_offsets("pad", 8, 8)[0].tolist(), bm.wavefronts(np.arange(32) * 128),
        smemkit.explain("transpose", (64, 64), "naive").total(), smemkit.Swizzle(5, 0, 5)(37))


def valid():
    """The next valid calls: CPU tools unchanged, kernels right (GPU) or the same clean refusal."""
    got = (smemkit.tile_offsets("pad", 8, 8)[0].tolist(), bm.wavefronts(np.arange(32) * 128),
           smemkit.explain("transpose", (64, 64), "naive").total(), smemkit.Swizzle(5, 0, 5)(37))
    assert got == BASE, f"CPU tools changed: {got} != {BASE}"
    if GPU:
        assert np.array_equal(smemkit.transpose(A34), A34.T)
        assert np.array_equal(smemkit.matrix_transpose(np.stack([A34, A34])), np.stack([A34.T, A34.T]))
        assert np.allclose(smemkit.sgemm(A34, A34.T.copy()), A34 @ A34.T)
    else:
        for f in (lambda: smemkit.transpose(A34), lambda: smemkit.sgemm(A34, A34.T.copy())):
            try:
                f()
                raise AssertionError("a kernel ran without a GPU")
            except smemkit.CudaError as e:
                assert "no usable GPU" in str(e), str(e)


def run(case):
    out = {"id": case["id"]}
    for lib in case.get("needs") or ():
        try:
            globals()[lib] = importlib.import_module(lib)
        except ImportError:
            out["skip"] = f"needs {lib}"
            return out
    exp = case["expect"]
    kind = exp[0]
    try:
        r = eval(case["code"])
        out["returned"] = type(r).__name__
        if kind in ("ok", "kernel") and not (kind == "kernel" and not GPU):
            ok = eval(exp[1], globals(), {"r": r})
            out["check"] = bool(ok)
    except BaseException as e:  # noqa: BLE001 - the point is to see everything
        out["exc"] = type(e).__name__
        out["allowed"] = isinstance(e, ALLOWED)
        out["msg"] = str(e)[:600]
    try:
        valid()
        out["after"] = "ok"
    except BaseException as e:  # noqa: BLE001
        out["after"] = f"{type(e).__name__}: {e}"[:600]
    return out


for case in json.load(sys.stdin):
    print(json.dumps(run(case)), flush=True)
'''


def R(exc, *words):
    """Expect exc (a name, 'A|B' for either) with each of `words` in the message."""
    return ("raise", exc, list(words))


def OK(check):
    """Expect a result r for which `check` holds (CPU: no GPU needed)."""
    return ("ok", check)


def K(check):
    """A kernel call that must compute: with a GPU r must satisfy `check`; without one the call must
    be the clean CudaError 'no usable GPU'."""
    return ("kernel", check)


TB = "np.broadcast_to(np.float32(1), (2**20, 2**20))"  # 4 TiB if it were ever copied

# (id, expression, expectation[, isolate]).  Isolated cases run in a child of their own.
CPU_CASES = [
    # ---- (1) sizes that cannot fit: MemoryError naming the bytes, before any allocation or copy ----
    ("transpose-broadcast-4TiB", f"smemkit.transpose({TB})",
     R("MemoryError", "transpose()", "bytes", "refused before allocating"), True),
    ("transpose-zero-stride-64TiB",
     "smemkit.transpose(as_strided(np.zeros(1, np.float32), (2**22, 2**22), (0, 0)))",
     R("MemoryError", "transpose()", "bytes", "refused before allocating"), True),
    ("matrix_transpose-broadcast-16TiB",
     "smemkit.matrix_transpose(np.broadcast_to(np.float32(1), (2**10, 2**16, 2**16)))",
     R("MemoryError", "matrix_transpose()", "bytes", "refused before allocating"), True),
    ("sgemm-broadcast-4TiB", f"smemkit.sgemm({TB}, {TB})",
     R("MemoryError", "sgemm()", "bytes", "refused before allocating"), True),
    ("sgemm-output-4EiB",
     "smemkit.sgemm(as_strided(np.zeros(1, np.float32), (2**30, 1), (0, 0)), "
     "as_strided(np.zeros(1, np.float32), (1, 2**30), (0, 0)))",
     R("MemoryError", "sgemm()", "bytes", "refused before allocating"), True),
    ("sgemm-past-2**31", "smemkit.sgemm(np.broadcast_to(np.float32(1), (2**31 + 5, 1)), np.ones((1, 1), np.float32))",
     R("ValueError", "sgemm()", "2**31")),
    # ---- transpose / matrix_transpose: dtypes, dimensions, layouts, arguments ----
    ("transpose-object", "smemkit.transpose(np.zeros((2, 2), object))", R("TypeError", "transpose()", "dtype object")),
    ("transpose-structured", "smemkit.transpose(np.zeros((2, 2), 'i4,f4'))", R("TypeError", "transpose()", "dtype")),
    ("transpose-str", "smemkit.transpose(np.zeros((2, 2), 'U3'))", R("TypeError", "transpose()", "dtype")),
    ("transpose-datetime", "smemkit.transpose(np.zeros((2, 2), 'datetime64[s]'))",
     R("TypeError", "transpose()", "datetime64")),
    ("transpose-void", "smemkit.transpose(np.zeros((2, 2), 'V8'))", R("TypeError", "transpose()", "dtype")),
    ("transpose-0d", "smemkit.transpose(np.array(1, np.float32))", R("ValueError", "transpose()", "a must be 2-D")),
    ("transpose-1d", "smemkit.transpose(np.ones(3, np.float32))", R("ValueError", "transpose()", "a must be 2-D")),
    ("transpose-3d", "smemkit.transpose(np.ones((2, 2, 2), np.float32))",
     R("ValueError", "transpose()", "matrix_transpose")),
    ("transpose-numpy-scalar", "smemkit.transpose(np.float32(1))", R("TypeError", "transpose()", "a must be")),
    ("transpose-list", "smemkit.transpose([[1, 2]])", R("TypeError", "transpose()", "a must be", "list")),
    ("transpose-none", "smemkit.transpose(None)", R("TypeError", "transpose()", "a must be")),
    ("transpose-layout-int", "smemkit.transpose(F4, layout=5)", R("TypeError", "transpose()", "layout")),
    ("transpose-layout-unknown", "smemkit.transpose(F4, layout='Pad')", R("ValueError", "transpose()", "layout")),
    ("transpose-layout-bytes", "smemkit.transpose(F4, b'pad')", R("TypeError", "transpose()", "layout")),
    ("transpose-layout-nul", "smemkit.transpose(F4, 'pad\\0')", R("ValueError", "transpose()", "layout")),
    ("transpose-unknown-keyword", "smemkit.transpose(F4, lay='pad')", R("TypeError", "transpose()", "lay")),
    ("transpose-three-args", "smemkit.transpose(F4, 'pad', 3)", R("TypeError", "transpose()")),
    ("transpose-masked-array", "smemkit.transpose(np.ma.masked_array(F4, mask=np.eye(4)))",
     R("TypeError", "transpose()", "a is a masked array")),
    ("transpose-matrix-subclass", "smemkit.transpose(np.asmatrix(A34))", K("np.array_equal(r, A34.T)")),
    ("transpose-empty", "smemkit.transpose(np.zeros((0, 5), np.float32))", K("r.shape == (5, 0)")),
    ("transpose-byteswapped", "smemkit.transpose(A34.astype('>f4'))", K("np.array_equal(r, A34.T)")),
    ("transpose-negative-strides", "smemkit.transpose(A34[::-1, ::-2])", K("np.array_equal(r, A34[::-1, ::-2].T)")),
    ("transpose-unaligned",
     "smemkit.transpose(np.frombuffer(bytearray(49), np.float32, 12, 1).reshape(3, 4))", K("r.shape == (4, 3)")),
    ("matrix_transpose-1d", "smemkit.matrix_transpose(np.ones(3, np.float32))",
     R("ValueError", "matrix_transpose()", "at least 2 dimensions")),
    ("matrix_transpose-0d", "smemkit.matrix_transpose(np.array(1.0))", R("ValueError", "matrix_transpose()")),
    ("matrix_transpose-object", "smemkit.matrix_transpose(np.zeros((2, 2, 2), object))",
     R("TypeError", "matrix_transpose()", "dtype")),
    ("matrix_transpose-layout", "smemkit.matrix_transpose(F4, layout='xor')",
     R("ValueError", "matrix_transpose()", "layout")),
    ("matrix_transpose-64d", "smemkit.matrix_transpose(np.ones((1,) * 64, np.float32))", K("r.shape == (1,) * 64")),
    ("matrix_transpose-zero-stride-batch", "smemkit.matrix_transpose(np.broadcast_to(A34, (5, 3, 4)))",
     K("np.array_equal(r, np.broadcast_to(A34.T, (5, 4, 3)))")),
    # ---- sgemm: (5) alpha / beta, dtypes, shapes ----
    ("sgemm-alpha-str", "smemkit.sgemm(F4, F4, alpha='x')", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-bool", "smemkit.sgemm(F4, F4, alpha=True)", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-numpy-bool", "smemkit.sgemm(F4, F4, alpha=np.True_)", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-complex", "smemkit.sgemm(F4, F4, alpha=1j)", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-numpy-complex", "smemkit.sgemm(F4, F4, alpha=np.complex64(1j))", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-array", "smemkit.sgemm(F4, F4, alpha=np.array([1.0, 2.0]))", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-none", "smemkit.sgemm(F4, F4, alpha=None)", R("TypeError", "sgemm()", "alpha")),
    ("sgemm-alpha-past-double", "smemkit.sgemm(F4, F4, alpha=10**400)", R("ValueError", "sgemm()", "alpha")),
    ("sgemm-alpha-positional", "smemkit.sgemm(F4, F4, None, 2.0)", R("TypeError", "sgemm()")),
    ("sgemm-beta-list", "smemkit.sgemm(F4, F4, F4, beta=[1])", R("TypeError", "sgemm()", "beta")),
    ("sgemm-beta-inf-without-c", "smemkit.sgemm(F4, F4, beta=float('inf'))",
     R("ValueError", "sgemm()", "beta", "needs c")),
    ("sgemm-alpha-nan", "smemkit.sgemm(F4, F4, alpha=float('nan'))", K("np.isnan(r).all()")),
    ("sgemm-alpha-inf", "smemkit.sgemm(F4, F4, alpha=float('inf'))", K("np.isposinf(r).all()")),
    ("sgemm-beta-nan", "smemkit.sgemm(F4, F4, F4, beta=float('nan'))", K("np.isnan(r).all()")),
    ("sgemm-beta-minus-inf", "smemkit.sgemm(F4, F4, F4, beta=float('-inf'))", K("np.isneginf(r).all()")),
    ("sgemm-alpha-numpy-float", "smemkit.sgemm(F4, F4, alpha=np.float16(2))", K("(r == 8).all()")),
    ("sgemm-K0", "smemkit.sgemm(np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32))",
     K("r.shape == (3, 4) and not r.any()")),
    ("sgemm-float64", "smemkit.sgemm(F4.astype(np.float64), F4)", R("TypeError", "sgemm()", "a has dtype float64")),
    ("sgemm-float16-b", "smemkit.sgemm(F4, F4.astype(np.float16))", R("TypeError", "sgemm()", "b has dtype")),
    ("sgemm-int32-c", "smemkit.sgemm(F4, F4, F4.astype(np.int32), beta=1.0)", R("TypeError", "sgemm()", "c has dtype")),
    ("sgemm-object", "smemkit.sgemm(np.zeros((2, 2), object), F4)", R("TypeError", "sgemm()", "a has dtype object")),
    ("sgemm-datetime", "smemkit.sgemm(F4, np.zeros((4, 4), 'datetime64[s]'))", R("TypeError", "sgemm()", "b has dtype")),
    ("sgemm-1d", "smemkit.sgemm(np.ones(4, np.float32), F4)", R("ValueError", "sgemm()", "a must be 2-D")),
    ("sgemm-3d-b", "smemkit.sgemm(F4, np.ones((4, 4, 1), np.float32))", R("ValueError", "sgemm()", "b must be 2-D")),
    ("sgemm-0d", "smemkit.sgemm(np.array(1, np.float32), F4)", R("ValueError", "sgemm()", "a must be 2-D")),
    ("sgemm-inner-mismatch", "smemkit.sgemm(np.ones((2, 3), np.float32), F4)",
     R("ValueError", "sgemm()", "inner dimensions")),
    ("sgemm-c-shape", "smemkit.sgemm(F4, F4, np.ones((3, 3), np.float32), beta=1.0)",
     R("ValueError", "sgemm()", "c has shape")),
    ("sgemm-c-list", "smemkit.sgemm(F4, F4, [[1.0]])", R("TypeError", "sgemm()", "c must be")),
    ("sgemm-masked-c", "smemkit.sgemm(F4, F4, np.ma.ones((4, 4), np.float32), beta=1.0)",
     R("TypeError", "sgemm()", "c is a masked array")),
    ("sgemm-layout", "smemkit.sgemm(F4, F4, layout='swizzled')", R("ValueError", "sgemm()", "layout")),
    # ---- (3) mixed host / device operands: smemkit says which is where ----
    ("sgemm-host-a-device-b", "smemkit.sgemm(F4, cai())",
     R("TypeError", "sgemm()", "a is in host memory", "b is on the GPU")),
    ("sgemm-device-a-host-b", "smemkit.sgemm(cai(), F4)",
     R("TypeError", "sgemm()", "a is on the GPU", "b is in host memory")),
    ("sgemm-host-c", "smemkit.sgemm(cai(), cai(), F4, beta=1.0)", R("TypeError", "sgemm()", "c is in host memory")),
    # ---- (2, 3) __cuda_array_interface__ conformance: refused before any pointer is used ----
    ("cai-mask", "smemkit.transpose(cai(mask=cai()))", R("TypeError", "transpose()", "a.", "mask")),
    ("cai-no-typestr", "smemkit.transpose(CAI(shape=(2, 2), data=(4096, False)))",
     R("TypeError", "transpose()", "'typestr'")),
    ("cai-no-shape", "smemkit.transpose(CAI(typestr='<f4', data=(4096, False)))", R("TypeError", "transpose()", "'shape'")),
    ("cai-no-data", "smemkit.transpose(CAI(shape=(2, 2), typestr='<f4'))", R("TypeError", "transpose()", "'data'")),
    ("cai-not-a-dict", "smemkit.transpose(type('X', (), {'__cuda_array_interface__': [1, 2]})())",
     R("TypeError", "transpose()", "not a dict")),
    ("cai-typestr-bogus", "smemkit.transpose(cai(typestr='zz'))", R("TypeError", "transpose()", "typestr")),
    ("cai-typestr-int", "smemkit.transpose(cai(typestr=5))", R("TypeError", "transpose()", "typestr")),
    ("cai-typestr-object", "smemkit.transpose(cai(typestr='|O'))", R("TypeError", "transpose()", "dtype")),
    ("cai-shape-str", "smemkit.transpose(cai(shape='ab'))", R("TypeError", "transpose()", "'shape'")),
    ("cai-shape-negative", "smemkit.transpose(cai(shape=(-1, 4)))", R("ValueError", "transpose()", "shape entry")),
    ("cai-shape-float", "smemkit.transpose(cai(shape=(2.0, 2)))", R("TypeError", "transpose()", "shape entry")),
    ("cai-2**80-elements", "smemkit.transpose(cai(shape=(2**40, 2**40)))",
     R("ValueError", "transpose()", "a of shape", "more elements")),
    ("cai-shape-entry-2**80", "smemkit.transpose(cai(shape=(2**80, 1)))", R("ValueError", "transpose()", "shape entry")),
    ("cai-2**80-elements-sgemm", "smemkit.sgemm(cai(shape=(2**40, 2**40)), cai(shape=(2**40, 2)))",
     R("ValueError", "sgemm()", "2**31")),
    ("cai-2**80-elements-batched", "smemkit.matrix_transpose(cai(shape=(2**27, 2**27, 2**27)))",
     R("ValueError", "matrix_transpose()", "more elements")),
    ("cai-100-dims", "smemkit.matrix_transpose(cai(shape=(1,) * 100))",
     R("ValueError", "matrix_transpose()", "100 dimensions")),
    ("cai-data-none", "smemkit.transpose(cai(data=None))", R("TypeError", "transpose()", "'data'")),
    ("cai-data-negative", "smemkit.transpose(cai(data=(-1, False)))", R("ValueError", "transpose()", "'data' pointer")),
    ("cai-data-2**70", "smemkit.transpose(cai(data=(2**70, False)))", R("ValueError", "transpose()", "'data' pointer")),
    ("cai-data-float", "smemkit.transpose(cai(data=(4096.0, False)))", R("TypeError", "transpose()", "'data' pointer")),
    ("cai-data-null-not-empty", "smemkit.transpose(cai(data=(0, False)))", R("ValueError", "transpose()", "NULL")),
    ("cai-strides-str", "smemkit.transpose(cai(strides='ab'))", R("TypeError", "transpose()", "strides")),
    ("cai-strides-count", "smemkit.transpose(cai(strides=(4,)))", R("ValueError", "transpose()", "strides")),
    ("cai-strides-unaligned", "smemkit.transpose(cai(strides=(6, 4)))", R("ValueError", "transpose()", "itemsize")),
    ("cai-strides-2**80", "smemkit.transpose(cai(strides=(2**80, 4)))", R("ValueError", "transpose()", "strides entry")),
    ("cai-stream-str", "smemkit.transpose(cai(stream='x'))", R("TypeError", "transpose()", "'stream'")),
    ("cai-stream-zero", "smemkit.transpose(cai(stream=0))", R("ValueError", "transpose()", "'stream'")),
    ("cai-stream-2**70", "smemkit.transpose(cai(stream=2**70))", R("ValueError", "transpose()", "'stream'")),
    ("cai-version-str", "smemkit.transpose(CAI(shape=(2, 2), typestr='<f4', data=(4096, False), version='3'))",
     R("TypeError", "transpose()", "'version'")),
    ("cai-byteswapped", "smemkit.transpose(cai(typestr='>f4'))", R("TypeError", "transpose()", "byte order")),
    ("cai-property-raises", "smemkit.transpose(Raising())", R("TypeError", "transpose()", "ZeroDivisionError")),
    ("cai-sgemm-float64", "smemkit.sgemm(cai(typestr='<f8'), cai())", R("TypeError", "sgemm()", "a has dtype float64")),
    # ---- (2) bench: absurd shapes and bad arguments refused before the device is touched ----
    ("bench-2**40-square", "smemkit.bench('transpose', (2**40, 2**40))", R("ValueError", "bench()", "shape")),
    ("bench-2**80", "smemkit.bench('transpose', (2**80, 4))", R("ValueError", "bench()", "shape entry rows")),
    ("bench-negative", "smemkit.bench('transpose', (-1, 4))", R("ValueError", "bench()", "rows")),
    ("bench-zero-M", "smemkit.bench('sgemm', (0, 4, 4))", R("ValueError", "bench()", "shape entry M")),
    ("bench-sgemm-2**31", "smemkit.bench('sgemm', (2**31, 2**31, 2**31))", R("ValueError", "bench()", "shape")),
    ("bench-batch-overflow", "smemkit.bench('transpose', (2**40, 2**20, 2**20))", R("ValueError", "bench()", "shape")),
    ("bench-float-shape", "smemkit.bench('transpose', (4.5, 4))", R("TypeError", "bench()", "shape")),
    ("bench-shape-none", "smemkit.bench('transpose', None)", R("TypeError", "bench()", "shape")),
    ("bench-shape-4d", "smemkit.bench('transpose', (1, 2, 3, 4))", R("ValueError", "bench()", "shape")),
    ("bench-op-list", "smemkit.bench([], (4, 4))", R("ValueError", "bench()", "op")),
    ("bench-op-unknown", "smemkit.bench('conv', (4, 4))", R("ValueError", "bench()", "op")),
    ("bench-gemm-2d", "smemkit.bench('gemm', (4, 4))", R("ValueError", "bench()", "shape")),
    ("bench-gemm-f32", "smemkit.bench('gemm', (4, 4, 4), dtype='float32')", R("TypeError", "bench()", "dtype")),
    ("bench-gemm-swizzle-bad", "smemkit.bench('gemm', (64, 64, 64), layout=smemkit.Swizzle(1, 3, 3))",
     R("ValueError", "bench()", "Swizzle")),
    ("gemm-broadcast-tb", "smemkit.gemm(np.broadcast_to(np.float16(1), (2**20, 2**20)), "
     "np.broadcast_to(np.float16(1), (2**20, 2**20)))", R("MemoryError", "gemm()", "bytes")),
    ("gemm-mixed", "smemkit.gemm(np.zeros((2, 2), np.float16), np.zeros((2, 2), np.float32))",
     R("TypeError", "gemm()", "b")),
    ("gemm-object", "smemkit.gemm(np.zeros((2, 2), object), np.zeros((2, 2), object))",
     R("TypeError", "gemm()", "dtype")),
    ("gemm-out-dtype-str", "smemkit.gemm(np.zeros((2, 2), np.float16), np.zeros((2, 2), np.float16), "
     "out_dtype='nope')", R("TypeError", "gemm()", "out_dtype")),
    ("gemm-layout-obj", "smemkit.gemm(np.zeros((2, 2), np.float16), np.zeros((2, 2), np.float16), layout=object())",
     R("TypeError", "gemm()", "layout")),
    ("explain-gemm-f32", "smemkit.explain('gemm', (4, 4, 4), 'pad', 'float32')", R("TypeError", "explain()", "dtype")),
    ("bank-ldmatrix-width", "smemkit.bank_model.wavefronts(np.arange(32) * 16, 4, 'ldmatrix')", OK("r == 4")),
    ("bench-layout-int", "smemkit.bench('transpose', (4, 4), layout=5)", R("TypeError", "bench()", "layout")),
    ("bench-layout-unknown", "smemkit.bench('transpose', (4, 4), layout=['pad', 'x'])",
     R("ValueError", "bench()", "layout")),
    ("bench-dtype", "smemkit.bench('transpose', (4, 4), dtype='datetime64')", R("TypeError", "bench()", "dtype")),
    ("bench-dtype-object", "smemkit.bench('transpose', (4, 4), dtype=object())", R("TypeError", "bench()", "dtype")),
    ("bench-reps-2**80", "smemkit.bench('transpose', (4, 4), reps=2**80)", R("ValueError", "bench()", "reps")),
    ("bench-reps-zero", "smemkit.bench('transpose', (4, 4), reps=0)", R("ValueError", "bench()", "reps")),
    ("bench-warmup-str", "smemkit.bench('transpose', (4, 4), warmup_ms='x')", R("TypeError", "bench()", "warmup_ms")),
    ("bench-rep-ms-nan", "smemkit.bench('transpose', (4, 4), rep_ms=float('nan'))", R("ValueError", "bench()", "rep_ms")),
    ("bench-config-2**80", "smemkit.bench('transpose', (4, 4), config=2**80)", R("ValueError", "bench()", "config")),
    ("format_table-ints", "smemkit.format_table([1, 2])", R("TypeError", "format_table()", "BenchResult")),
    ("format_table-none", "smemkit.format_table(None)", R("TypeError", "format_table()", "BenchResult")),
    ("bench_configs-list", "smemkit.bench_configs([])", R("ValueError", "bench_configs()", "op")),
    ("bench_configs-none", "smemkit.bench_configs(None)", R("ValueError", "bench_configs()", "op")),
    # ---- explain ----
    ("explain-2**40", "smemkit.explain('transpose', (2**40, 2**40))", R("ValueError", "explain()", "rows")),
    ("explain-2**80", "smemkit.explain('sgemm', (4, 2**80, 4))", R("ValueError", "explain()", "shape entry N")),
    ("explain-negative", "smemkit.explain('transpose', (4, -1))", R("ValueError", "explain()", "cols")),
    ("explain-float-shape", "smemkit.explain('transpose', (4.5, 4))", R("TypeError", "explain()", "shape")),
    ("explain-shape-str", "smemkit.explain('transpose', 'ab')", R("TypeError", "explain()", "shape")),
    ("explain-shape-length", "smemkit.explain('sgemm', (4, 4))", R("ValueError", "explain()", "shape")),
    ("explain-sms-2**80", "smemkit.explain('sgemm', (4, 4, 4), sms=2**80)", R("ValueError", "explain()", "sms")),
    ("explain-sms-zero", "smemkit.explain('sgemm', (4, 4, 4), sms=0)", R("ValueError", "explain()", "sms")),
    ("explain-config-negative", "smemkit.explain('sgemm', (4, 4, 4), config=-1)", R("ValueError", "explain()", "config")),
    ("explain-config-999", "smemkit.explain('sgemm', (4, 4, 4), config=999)", R("ValueError", "explain()", "config")),
    ("explain-dtype-object", "smemkit.explain('transpose', (4, 4), dtype=object())", R("TypeError", "explain()", "dtype")),
    ("explain-op-list", "smemkit.explain([], (4, 4))", R("ValueError", "explain()", "op")),
    ("explain-layout-int", "smemkit.explain('transpose', (4, 4), 5)", R("TypeError", "explain()", "layout")),
    ("explain-total-what", "smemkit.explain('transpose', (64, 64)).total(what='x')",
     R("ValueError", "total()", "what")),
    ("explain-total-kind", "smemkit.explain('transpose', (64, 64)).total(kind='ld')",
     R("ValueError", "total()", "kind")),
    ("explain-largest", "smemkit.explain('transpose', (2**31 - 1, 2**31 - 1))", OK("r.blocks > 0")),
    ("explain-empty", "smemkit.explain('sgemm', (0, 0, 0))", OK("r.blocks == 0")),
    # ---- tile_offsets / bank_map ----
    ("tile_offsets-rows-2**80", "smemkit.tile_offsets('pad', 2**80, 32)", R("ValueError", "tile_offsets()", "rows")),
    ("tile_offsets-cols-2**80", "smemkit.tile_offsets('pad', 32, 2**80)", R("ValueError", "tile_offsets()", "cols")),
    ("tile_offsets-vec-2**80", "smemkit.tile_offsets('pad', 32, 32, vec=2**80)", R("ValueError", "tile_offsets()", "vec")),
    ("tile_offsets-itemsize-2**80", "smemkit.tile_offsets('pad', 32, 32, itemsize=2**80)",
     R("ValueError", "tile_offsets()", "itemsize")),
    ("tile_offsets-rows-negative", "smemkit.tile_offsets('pad', -1, 32)", R("ValueError", "tile_offsets()", "rows")),
    ("tile_offsets-cols-not-pow2", "smemkit.tile_offsets('pad', 32, 3)", R("ValueError", "tile_offsets()", "cols")),
    ("tile_offsets-rows-float", "smemkit.tile_offsets('pad', 3.5, 32)", R("TypeError", "tile_offsets()", "rows")),
    ("tile_offsets-rows-bool", "smemkit.tile_offsets('pad', True, 32)", R("TypeError", "tile_offsets()", "rows")),
    ("tile_offsets-layout-int", "smemkit.tile_offsets(5)", R("TypeError", "tile_offsets()", "layout")),
    ("tile_offsets-layout-unknown", "smemkit.tile_offsets('xor')", R("ValueError", "tile_offsets()", "layout")),
    ("tile_offsets-vec-past-cols", "smemkit.tile_offsets('pad', 8, 8, vec=16)", R("ValueError", "tile_offsets()", "vec")),
    ("tile_offsets-numpy-ints", "smemkit.tile_offsets('pad', np.int8(4), np.uint64(8))", OK("r[1] == 4 * 9")),
    ("bank_map-rows-2**80", "smemkit.bank_map('swizzle', 2**80)", R("ValueError", "bank_map()", "rows")),
    ("bank_map-itemsize-3", "smemkit.bank_map('swizzle', 32, 32, 3)", R("ValueError", "bank_map()", "itemsize")),
    ("bank_map-itemsize-str", "smemkit.bank_map('swizzle', 32, 32, '4')", R("TypeError", "bank_map()", "itemsize")),
    ("bank_map-layout-none", "smemkit.bank_map(None)", OK("r.shape == (32, 32) and len(set(r[:, 0])) == 32")),
    # ---- Swizzle ----
    ("Swizzle-b-2**80", "smemkit.Swizzle(2**80, 0, 5)", R("ValueError", "Swizzle", "b=")),
    ("Swizzle-b-float", "smemkit.Swizzle(1.5, 0, 5)", R("TypeError", "Swizzle", "b must be")),
    ("Swizzle-overlap", "smemkit.Swizzle(5, 0, 2)", R("ValueError", "Swizzle", "|s|")),
    ("Swizzle-negative-s", "smemkit.Swizzle(2, 1, -3)", R("ValueError", "Swizzle", "s=-3")),
    ("Swizzle-call-negative", "smemkit.Swizzle(5, 0, 5)(-1)", R("ValueError", "Swizzle(5, 0, 5)", "offsets")),
    ("Swizzle-call-2**80", "smemkit.Swizzle(5, 0, 5)(2**80)", R("ValueError", "Swizzle(5, 0, 5)", "offsets")),
    ("Swizzle-call-float", "smemkit.Swizzle(5, 0, 5)(3.7)", R("TypeError", "Swizzle(5, 0, 5)", "offsets")),
    ("Swizzle-call-str", "smemkit.Swizzle(5, 0, 5)('abc')", R("TypeError", "Swizzle(5, 0, 5)", "offsets")),
    ("Swizzle-call-uint64-max", "smemkit.Swizzle(5, 0, 5)(np.array([2**64 - 1], np.uint64))",
     R("ValueError", "Swizzle(5, 0, 5)", "offsets")),
    ("Swizzle-call-list", "smemkit.Swizzle(5, 0, 5)([33, 2**31 - 1])", OK("r.tolist() == [32, 2**31 - 32]")),
    # ---- (4) the bank model: -1 or [0, 227 KiB) ----
    ("wavefronts-minus-2", "bm.wavefronts([-2] + [0] * 31)", R("ValueError", "wavefronts()", "-1", "lane 0")),
    ("wavefronts-minus-2**62", "bm.wavefronts([0] * 31 + [-2**62])", R("ValueError", "wavefronts()", "lane 31")),
    ("wavefronts-227KiB", "bm.wavefronts([232448] + [0] * 31)", R("ValueError", "wavefronts()", "232448")),
    ("wavefronts-just-below-227KiB", "bm.wavefronts([232444] * 32)", OK("r == 1")),
    ("wavefronts-uint64-max", "bm.wavefronts(np.array([2**64 - 1] + [0] * 31, np.uint64))",
     R("ValueError", "wavefronts()", str(2**64 - 1))),
    ("wavefronts-2**80", "bm.wavefronts([2**80] + [0] * 31)", R("ValueError", "wavefronts()", str(2**80))),
    ("wavefronts-float", "bm.wavefronts(np.arange(32) * 4.0)", R("TypeError", "wavefronts()", "integers")),
    ("wavefronts-31-lanes", "bm.wavefronts([0] * 31)", R("ValueError", "wavefronts()", "32")),
    ("wavefronts-ragged", "bm.wavefronts([[0], [0, 1]])", R("ValueError", "wavefronts()", "addresses")),
    ("wavefronts-unaligned", "bm.wavefronts(np.arange(32) * 4 + 2)", R("ValueError", "wavefronts()", "multiple")),
    ("wavefronts-width-2**80", "bm.wavefronts([0] * 32, width=2**80)", R("ValueError", "wavefronts()", "width")),
    ("wavefronts-width-float", "bm.wavefronts([0] * 32, width=4.0)", R("TypeError", "wavefronts()", "width")),
    ("wavefronts-kind-int", "bm.wavefronts([0] * 32, kind=5)", R("ValueError", "wavefronts()", "kind")),
    ("wavefronts-all-inactive", "bm.wavefronts([-1] * 32)", OK("r == 0")),
    ("ideal-minus-2", "bm.ideal([-2] * 32)", R("ValueError", "ideal()", "-1")),
    ("replay-minus-3", "bm.replay(np.array([[0] * 32, [0, 0, 0, -3] + [0] * 28]))",
     R("ValueError", "replay()", "instruction 1, lane 3")),
    ("replay-3d", "bm.replay(np.zeros((2, 2, 32), np.int64))", R("ValueError", "replay()", "shape")),
    ("replay-empty", "bm.replay(np.zeros((0, 32), np.int64))", OK("len(r[0]) == 0")),
    ("rule-width", "bm.rule(2**80)", R("ValueError", "rule()", "width")),
    ("rule-kind", "bm.rule(4, None)", R("ValueError", "rule()", "kind")),
    # ---- plot_bank_map (skipped by the harness without matplotlib) ----
    ("plot_bank_map-access", "plot('pad', access='diag')", R("ValueError", "plot_bank_map()", "access")),
    ("plot_bank_map-index", "plot('pad', index=32)", R("ValueError", "plot_bank_map()", "index")),
    ("plot_bank_map-index-str", "plot('pad', index='0')", R("TypeError", "plot_bank_map()", "index")),
    ("plot_bank_map-rows-2**80", "plot('pad', rows=2**80)", R("ValueError", "plot_bank_map()", "rows")),
    ("plot_bank_map-layout", "plot(5)", R("TypeError", "plot_bank_map()", "layout")),
    ("plot_bank_map-ax", "plot('pad', ax=5)", R("TypeError", "plot_bank_map()", "ax")),
    ("plot_bank_map-itemsize", "plot('pad', itemsize=6)", R("ValueError", "plot_bank_map()", "itemsize")),
    ("plot_bank_map-16384-squared", "plot('pad', 16384, 16384)", R("ValueError", "plot_bank_map()", "rows * cols")),
    ("plot_bank_map-ok", "plot('swizzle', 8, 8, index=7)", OK("'8 distinct bank' in r.get_title()")),
    # ---- the CLI, in process (exit status, stderr); two more run as real processes below ----
    ("cli-op", "cli('--op', 'foo')", OK("r[0] == 2 and 'invalid choice' in r[1]")),
    ("cli-size-negative", "cli('--size', '-5')", OK("r[0] == 2 and '--size' in r[1]")),
    ("cli-size-huge", "cli('--cpu', '--size', '99999999999')", OK("r[0] == 2 and '--size' in r[1]")),
    ("cli-size-text", "cli('--size', 'abc')", OK("r[0] == 2 and '--size' in r[1]")),
    ("cli-rep-ms-nan", "cli('--rep-ms', 'nan')", OK("r[0] == 2 and '--rep-ms' in r[1]")),
    ("cli-rep-ms-inf", "cli('--rep-ms', 'inf')", OK("r[0] == 2 and '--rep-ms' in r[1]")),
    ("cli-layout", "cli('--layout', 'Pad')", OK("r[0] == 2 and '--layout' in r[1]")),
    ("cli-unknown-flag", "cli('--bogus')", OK("r[0] == 2 and 'unrecognized' in r[1]")),
    ("cli-valid", "cli('--cpu', '--op', 'transpose', '--size', '64', '--layout', 'pad')", OK("r == (0, '')")),
]

# Device cases: (id, expression, expectation, needs, isolate).  Tensors are made in the expression;
# every pointer here is refused before a launch, or real.
GPU_CASES = [
    ("torch-transposed-view", "smemkit.transpose(torch.arange(12., device='cuda').view(3, 4).t())",
     K("torch.equal(r, torch.arange(12., device='cuda').view(3, 4))"), ["torch"], False),
    ("torch-offset-view", "smemkit.transpose(torch.arange(48., device='cuda').view(6, 8)[1:, 3:])",
     K("torch.equal(r, torch.arange(48., device='cuda').view(6, 8)[1:, 3:].t())"), ["torch"], False),
    ("torch-stride-2", "smemkit.transpose(torch.arange(48., device='cuda').view(6, 8)[::2, ::2])",
     K("torch.equal(r, torch.arange(48., device='cuda').view(6, 8)[::2, ::2].t())"), ["torch"], False),
    ("torch-requires-grad", "smemkit.transpose(torch.ones(5, 7, device='cuda', requires_grad=True))",
     K("r.shape == (7, 5) and bool((r == 1).all())"), ["torch"], False),
    ("torch-empty", "smemkit.transpose(torch.empty(0, 5, device='cuda'))", K("tuple(r.shape) == (5, 0)"),
     ["torch"], False),
    ("torch-expanded-batch", "smemkit.matrix_transpose(torch.arange(12., device='cuda').view(3, 4).expand(5, 3, 4))",
     K("torch.equal(r, torch.arange(12., device='cuda').view(3, 4).t().expand(5, 4, 3))"), ["torch"], False),
    ("torch-cpu-tensor", "smemkit.transpose(torch.ones(2, 2))", R("TypeError", "transpose()", "CPU torch tensor"),
     ["torch"], False),
    ("torch-sgemm-float64", "smemkit.sgemm(torch.ones(4, 4, device='cuda', dtype=torch.float64), "
     "torch.ones(4, 4, device='cuda'))", R("TypeError", "sgemm()", "a has dtype float64"), ["torch"], False),
    ("torch-sgemm-host-a", "smemkit.sgemm(F4, torch.ones(4, 4, device='cuda'))",
     R("TypeError", "sgemm()", "a is in host memory", "b is on the GPU"), ["torch"], False),
    ("torch-sgemm-host-c", "smemkit.sgemm(torch.ones(4, 4, device='cuda'), torch.ones(4, 4, device='cuda'), F4, "
     "beta=1.0)", R("TypeError", "sgemm()", "c is in host memory"), ["torch"], False),
    ("torch-sgemm-transposed-nan-alpha", "smemkit.sgemm(torch.ones(4, 4, device='cuda').t(), "
     "torch.ones(4, 4, device='cuda'), alpha=float('nan'))", K("bool(r.isnan().all())"), ["torch"], False),
    ("torch-sgemm-empty-K", "smemkit.sgemm(torch.empty(3, 0, device='cuda'), torch.empty(0, 4, device='cuda'))",
     K("tuple(r.shape) == (3, 4) and not bool(r.any())"), ["torch"], False),
    ("torch-sparse", "smemkit.transpose(torch.eye(4, device='cuda').to_sparse())",
     R("TypeError", "transpose()", "a"), ["torch"], False),
    ("torch-bool", "smemkit.transpose(torch.ones(3, 5, dtype=torch.bool, device='cuda'))",
     K("tuple(r.shape) == (5, 3) and bool(r.all())"), ["torch"], False),
    ("torch-complex32", "smemkit.transpose(torch.ones(3, 5, dtype=torch.complex32, device='cuda'))",
     R("TypeError", "transpose()", "torch dtype"), ["torch"], False),
    ("cupy-transposed-view", "smemkit.transpose(cupy.arange(12, dtype=cupy.float32).reshape(3, 4).T)",
     K("bool((r == cupy.arange(12, dtype=cupy.float32).reshape(3, 4)).all())"), ["cupy"], False),
    ("cupy-sgemm-host-b", "smemkit.sgemm(cupy.ones((4, 4), cupy.float32), F4)",
     R("TypeError", "sgemm()", "a is on the GPU", "b is in host memory"), ["cupy"], False),
    ("cupy-empty", "smemkit.matrix_transpose(cupy.empty((2, 0, 3), cupy.float32))", K("r.shape == (2, 3, 0)"),
     ["cupy"], False),
    # hand-made interfaces whose pointers are not device memory: refused before a result is allocated
    ("cai-host-pointer", "smemkit.transpose(cai(shape=(3, 4), data=(A34.ctypes.data, False)))",
     R("ValueError", "transpose()", "a is not CUDA device memory"), [], True),
    ("cai-bogus-pointer", "smemkit.transpose(cai(shape=(1024, 1024), data=(0xdeadbeef000, False)))",
     R("ValueError", "transpose()", "a is not CUDA device memory"), [], True),
    ("cai-huge-pointer", "smemkit.transpose(cai(shape=(1024, 1024), data=(2**64 - 4096, False)))",
     R("ValueError", "transpose()", "a is not CUDA device memory"), [], True),
    ("cai-bogus-pointer-4GiB-claim", "smemkit.transpose(cai(shape=(2**15, 2**15), data=(0x7000000000, False)))",
     R("ValueError", "transpose()", "a is not CUDA device memory"), [], True),
    ("cai-bogus-pointer-sgemm-b", "smemkit.sgemm(cupy.ones((4, 4), cupy.float32), cai(data=(0xdeadbeef000, False)))",
     R("TypeError|ValueError", "sgemm()", "b"), ["cupy"], True),
]


def _harness(cases, rlimit=True):
    """Run `cases` serially in one child; {id: its JSON report}.  rlimit: cap the child's address space
    (CPU only; without a GPU) so a missing size check fails fast instead of swapping."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    if rlimit:
        env["SMK_HOSTILE_RLIMIT"] = str(32 << 30)
    p = subprocess.run([sys.executable, "-c", HARNESS], input=json.dumps(cases), capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env=env)
    got = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            got[d["id"]] = d
    for c in cases:  # cases the child never reported: it died at (or before) the first of them
        got.setdefault(c["id"], {"id": c["id"], "died": f"rc={p.returncode}\n{p.stderr[-3000:]}"})
    return got


def _as_case(cid, code, expect, needs=()):
    return {"id": cid, "code": code, "expect": list(expect), "needs": list(needs)}


def _check(res, expect):
    assert "died" not in res, f"the process died on this case or an earlier one of its batch: {res['died']}"
    if "skip" in res:
        pytest.skip(res["skip"])
    kind = expect[0]
    if kind == "raise":
        names, words = expect[1].split("|"), expect[2]
        assert "exc" in res, f"expected {expect[1]}, got a result ({res.get('returned')})"
        assert res["exc"] in names, f"expected {expect[1]}, got {res['exc']}: {res['msg']}"
        missing = [w for w in words if w not in res["msg"]]
        assert not missing, f"{res['exc']} message lacks {missing}: {res['msg']!r}"
    elif kind == "kernel" and not smemkit.is_available():
        assert res.get("exc") == "CudaError" and "no usable GPU" in res["msg"], res
    else:
        assert "exc" not in res, f"expected a result, got {res['exc']}: {res['msg']}"
        assert res.get("check") is True, f"wrong result: {res}"
    assert res["after"] == "ok", f"the next valid call failed: {res['after']}"


# ---- CPU -----------------------------------------------------------------------------------------------

def _cpu_params():
    return [pytest.param(c, id=c[0]) for c in CPU_CASES]


@pytest.fixture(scope="module")
def cpu_results():
    batch = [_as_case(c[0], c[1], c[2], ["matplotlib"] if c[0].startswith("plot") else [])
             for c in CPU_CASES if len(c) < 4]
    return _harness(batch)


def test_enough_cases():
    assert len(CPU_CASES) + len(GPU_CASES) >= 60
    assert len({c[0] for c in CPU_CASES + GPU_CASES}) == len(CPU_CASES) + len(GPU_CASES), "duplicate case ids"


@pytest.mark.parametrize("case", _cpu_params())
def test_cpu_hostile(case, cpu_results):
    cid, code, expect = case[:3]
    if len(case) > 3:  # could kill the process (a missing size check copies terabytes): a child of its own
        res = _harness([_as_case(cid, code, expect)])[cid]
    else:
        res = cpu_results[cid]
    _check(res, expect)


@pytest.mark.parametrize("argv,words", [
    (["--op", "foo"], ["invalid choice"]),
    (["--cpu", "--size", "99999999999"], ["--size must be in"]),
])
def test_cli_process_exits_nonzero_without_traceback(argv, words):
    p = subprocess.run([sys.executable, "-m", "smemkit", *argv], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode != 0
    assert "Traceback" not in p.stderr and all(w in p.stderr for w in words), p.stderr


# ---- GPU -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpu_results():
    return _harness([_as_case(c[0], c[1], c[2], c[3]) for c in GPU_CASES if not c[4]], rlimit=False)


@pytest.mark.gpu
@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in GPU_CASES])
def test_gpu_hostile(case, gpu_results):
    cid, code, expect, needs, isolate = case
    for lib in needs:
        pytest.importorskip(lib)
    res = _harness([_as_case(cid, code, expect, needs)], rlimit=False)[cid] if isolate else gpu_results[cid]
    _check(res, expect)
