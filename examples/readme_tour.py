"""The README's examples as one script a type checker reads like a user's (tests/test_typing.py runs
mypy --strict and pyright's strict mode on it) and that runs anywhere: the GPU part is behind
smemkit.is_available(), the way a notebook or a pytest skipif guards it.

    python examples/readme_tour.py
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

import smemkit


def cpu_part() -> None:
    """The bank model, the maps and explain(): no GPU needed."""
    print(smemkit.explain("transpose", (8192, 8192), "naive"))       # every shared access, predicted
    assert smemkit.bank_model.wavefronts(np.arange(32) * 128) == 32  # 32: one bank, 32 rows
    banks = smemkit.bank_map("swizzle", 32, 32)                      # bank of each element of a tile
    assert len(set(banks[:, 0].tolist())) == 32
    sw = smemkit.Swizzle(5, 0, 5)
    assert sw(33) == 32 and sw(np.arange(1024)).shape == (1024,)     # CuTe's Swizzle<B,M,S> on offsets
    layout: smemkit.Layout
    for layout in smemkit.LAYOUTS:                                   # ("naive", "pad", "swizzle")
        e = smemkit.explain("transpose", (1024, 1024), layout)
        print(f"{layout:<8} excess wavefronts: {e.total(what='excess')}")


def gpu_part() -> None:
    """The README's kernels and its A/B timing loop (needs a GPU)."""
    a = np.random.rand(4096, 1000).astype(np.float32)
    for layout in smemkit.LAYOUTS:
        t = smemkit.transpose(a, layout=layout)                      # new C-contiguous array == a.T
        assert np.array_equal(t, a.T)
    b = np.random.rand(1000, 300).astype(np.float32)
    d = smemkit.sgemm(a, b, layout="pad")
    smemkit.sgemm(a, b, out=d)                                       # out=: a reused buffer of the result
    table = smemkit.bench("transpose", (4096, 4096))                 # always a BenchTable of BenchResult
    print(smemkit.format_table(table))
    pad: smemkit.BenchResult = table["pad"]
    print(f"pad: {pad.median_ms:.4f} ms, {pad.rate:.0f} {pad.unit}")

    x = np.random.rand(2048, 2048).astype(np.float32)
    y = np.empty((2048, 2048), np.float32)

    def smemkit_pad() -> None:
        smemkit.transpose(x, layout="pad", out=y)

    def numpy_copy() -> None:
        np.ascontiguousarray(x.T)

    ab: smemkit.Table[smemkit.Timing] = smemkit.timeit({"smemkit pad": smemkit_pad, "numpy": numpy_copy},
                                                       reps=20, nbytes=2 * x.nbytes)
    print(ab)
    print(ab["smemkit pad"].median_ms, ab.to_records()[0]["label"])

    def make(n: int) -> dict[str, Callable[[], object]]:
        xs = np.random.rand(n, n).astype(np.float32)
        return {"transpose": lambda: smemkit.transpose(xs)}

    def nbytes(n: int) -> float:
        return 2.0 * 4 * n * n

    sweep = smemkit.sweep(make, [256, 512, 1024], nbytes=nbytes, reps=10)
    print(sweep)


def main() -> int:
    cpu_part()
    if smemkit.is_available():
        gpu_part()
    else:
        print("No GPU: the bank model ran; the kernels and timings need one.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
