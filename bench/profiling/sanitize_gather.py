"""compute-sanitizer cases for the gather kernel's two tiles (csrc/transpose/gather.cuh, session 55): 1- and 2-byte
matrices on exact CuPy allocations (no pool, so a byte read past the operand is a memcheck error), starting 0, 1 or 3
elements in, around the 128- and 256-row tiles and their halo rows, batches; every layout; knob transpose_gather 11
(256 rows), 21 (128) and 3 (the default), each result checked against NumPy.

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 bench/profiling/sanitize_gather.py
"""
import numpy as np, cupy as cp, smemkit
from smemkit._testing import knobs
cp.cuda.set_allocator(None)
rng = np.random.default_rng(5)
n = bad = 0
for level in (11, 21, 3):
    for dt in ("uint8", "float16"):
        for lay in ("pad", "swizzle", "naive"):
            for shape in [(257, 259), (259, 1031), (513, 130), (300, 4099), (1031, 515), (3, 259, 131), (2, 517, 1029)]:
                for off in (0, 1, 3):
                    size = int(np.prod(shape))
                    h = rng.integers(0, 256, (size + off) * np.dtype(dt).itemsize, dtype=np.uint8).view(dt)
                    d = cp.asarray(h)[off:].reshape(shape)
                    with knobs(transpose_gather=level, transpose_skinny=0, transpose_sector=0, transpose_copy=0):
                        y = (smemkit.matrix_transpose if len(shape) == 3 else smemkit.transpose)(d, layout=lay)
                    ref = np.swapaxes(h[off:].reshape(shape), -1, -2)
                    n += 1
                    if not np.array_equal(cp.asnumpy(y).view(np.uint8), np.ascontiguousarray(ref).view(np.uint8)):
                        bad += 1
                        print("WRONG", level, dt, lay, shape, off)
cp.cuda.Device().synchronize()
print(f"gather memcheck cases: {n} run, {bad} wrong")
