"""compute-sanitizer cases for the skinny kernels' 64-word F rows (csrc/transpose/skinny_vec.cuh skinny_vec_long_row,
session 56): 1- and 2-byte matrices whose short side S is one the rows changed for in pad or swizzle (11, 22, 31, 33,
44, 55, 62) and three neighbours that did not (30, 64), both cases (rows > cols: skinny_prmt; rows < cols: skinny_lean
or skinny_strip), single matrices and batches, every layout, each result checked bit for bit against NumPy.

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 bench/profiling/sanitize_long_rows.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 bench/profiling/sanitize_long_rows.py
"""
import numpy as np
import smemkit

rng = np.random.default_rng(5)
n = 0
for dt in (np.uint8, np.float16):
    for S in (11, 22, 31, 33, 44, 55, 62, 30, 64):
        for shape in [(20001, S), (S, 20003), (3, 2001, S), (3, S, 2003)]:
            a = rng.integers(0, 256, size=shape, dtype=np.uint8) if dt == np.uint8 else rng.standard_normal(shape).astype(dt)
            for lay in smemkit.LAYOUTS:
                y = (smemkit.matrix_transpose if a.ndim == 3 else smemkit.transpose)(a, layout=lay)
                want = np.ascontiguousarray(np.swapaxes(a, -1, -2))
                assert np.array_equal(y.view(np.uint8), want.view(np.uint8)), (shape, dt, lay)
                n += 1
print("sanitize cases", n, "ok")
