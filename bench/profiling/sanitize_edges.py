"""compute-sanitizer cases for skinny_prmt's phase 3 (csrc/transpose/skinny_prmt.cuh PrmtBlock::runs_out, session
57): case B (rows > cols) of 1- and 2-byte matrices, whose output runs start off 16 bytes, so that every whole
block stores each run's first and last chunk as aligned pieces in its tail steps; short sides from 1 to 64 and,
under knob transpose_skinny = 4, the wide class (S = 65..256: two tail steps past S = 128), row counts that leave
a partial last block or none, single matrices and batches, every layout, each result checked bit for bit against
NumPy.

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 bench/profiling/sanitize_edges.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 bench/profiling/sanitize_edges.py
"""
import numpy as np
import smemkit
from smemkit import _testing

rng = np.random.default_rng(57)
n = 0
for knob, sides in ((3, (1, 2, 3, 5, 9, 17, 31, 38, 56, 64)), (4, (65, 129, 200, 256))):
    with _testing.knobs(transpose_skinny=knob):
        for dt in (np.uint8, np.float16):
            for S in sides:
                for shape in [(20001, S), (8192, S), (3, 2001, S)]:
                    a = (rng.integers(0, 256, size=shape, dtype=np.uint8) if dt == np.uint8
                         else rng.standard_normal(shape).astype(dt))
                    for lay in smemkit.LAYOUTS:
                        y = (smemkit.matrix_transpose if a.ndim == 3 else smemkit.transpose)(a, layout=lay)
                        want = np.ascontiguousarray(np.swapaxes(a, -1, -2))
                        assert np.array_equal(y.view(np.uint8), want.view(np.uint8)), (shape, dt, lay)
                        n += 1
print("sanitize cases", n, "ok")
