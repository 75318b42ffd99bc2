"""Every kernel x layout x edge shape, through the Python API, for compute-sanitizer (bench/profiling/sanitize.sh).

Small shapes on purpose: tile +-1, 1x1, K = 0, non-multiples, odd leading dimensions.  Checks the
results too, so a sanitizer run is also a correctness run.  --no-frameworks leaves out the CuPy /
PyTorch cases: their memory pools keep blocks until exit, which memcheck's leak check would report.
--only-subword runs only the 1- and 2-byte transposes at odd pitches and offsets.
"""
import sys

import numpy as np

import smemkit
from smemkit._testing import knobs

TRANSPOSE_SHAPES = [(1, 1), (1, 7), (7, 1), (33, 31), (63, 65), (64, 64), (65, 64), (64, 65), (129, 3)]
SGEMM_SHAPES = [(1, 1, 1), (7, 13, 5), (33, 31, 17), (63, 65, 7), (64, 64, 0), (65, 129, 9), (128, 128, 8),
                (129, 127, 9), (37, 45, 1031), (5, 3, 4099)]  # the last two take the split-K path


# 1- and 2-byte elements: odd row pitches in and out (full tiles take the re-aligning whole-word path,
# edges the element-wise one), row end == tile end, a batch with an odd matrix stride
SUBWORD_SHAPES = [(129, 131), (131, 129), (128, 129), (129, 128), (257, 259), (256, 257), (33, 31), (1, 300),
                  (256, 256)]


def subword_cases(rng, frameworks):
    """Sub-word transposes at odd pitches and (device arrays, CuPy without its pool, so an allocation is
    exactly the operand) odd base offsets, input and output ending on their allocation's last byte."""
    bad = 0
    for layout in smemkit.LAYOUTS:
        for dtype in ("uint8", "float16"):
            for shape in SUBWORD_SHAPES:
                a = rng.integers(0, 256, (shape[0], shape[1] * np.dtype(dtype).itemsize), np.uint8).view(dtype)
                bad += not np.array_equal(smemkit.transpose(a, layout=layout).view(np.uint8), a.T.copy().view(np.uint8))
            a = rng.integers(0, 256, (3, 129, 131 * np.dtype(dtype).itemsize), np.uint8).view(dtype)
            bad += not np.array_equal(smemkit.matrix_transpose(a, layout=layout).view(np.uint8),
                                      np.swapaxes(a, 1, 2).copy().view(np.uint8))
    try:
        import cupy
    except ImportError:
        cupy = None
    if frameworks and cupy is not None:
        cupy.cuda.set_allocator(None)  # plain cudaMalloc of exactly the bytes asked for
        R, C = 257, 259
        for dtype in ("uint8", "float16"):
            for off in (1, 2, 3):
                for view in ("contiguous", "odd-pitch", "batch"):
                    if view == "contiguous":
                        buf = cupy.empty(off + R * C, dtype)
                        x = buf[off:].reshape(R, C)
                    elif view == "odd-pitch":  # rows C + 2 apart, the view's last element is the buffer's
                        buf = cupy.empty(off + R * (C + 2), dtype)
                        x = buf[off:].reshape(R, C + 2)[:, 2:]
                    else:
                        buf = cupy.empty(off + 2 * R * C, dtype)
                        x = buf[off:].reshape(2, R, C)
                    h = rng.integers(0, 256, buf.size * buf.itemsize, np.uint8).view(dtype)
                    buf.set(h)
                    obuf = cupy.empty(1 + x.size, dtype)
                    out = obuf[1:].reshape(x.shape[:-2] + (x.shape[-1], x.shape[-2]))
                    for layout in smemkit.LAYOUTS:
                        y = smemkit.matrix_transpose(x, layout=layout, out=out)
                        want = np.swapaxes(cupy.asnumpy(x), -1, -2).copy()
                        bad += not np.array_equal(cupy.asnumpy(y).view(np.uint8), want.view(np.uint8))
                    del buf, x, obuf, out, y
        bad += skinny_cases(rng, cupy)
        cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)
    print(f"sanitize cases (1- and 2-byte, odd pitches and offsets): {bad} wrong results")
    return bad


# skinny 1- / 2-byte matrices (a side below a tile, down to 1) of every skinny kernel's class: case A (rows <= cols)
# and case B, short sides 1..100 (the wide class from 65), long sides off every word and chunk
SKINNY_SHAPES = [(1, 3001), (3001, 1), (3, 5001), (5001, 3), (13, 4099), (4099, 13), (36, 2049), (2049, 36),
                 (64, 2051), (2051, 64), (100, 1031), (1031, 100)]


def skinny_cases(rng, cupy):
    """The skinny kernels' whole-word and 16-byte loads at the operand's ends: each operand its own exact
    cudaMalloc (the caller turned CuPy's pool off), starting 0, 1 or 3 elements in and ending on the allocation's
    last byte, and a batch of two; every skinny mode (knob transpose_skinny 1..12, the layouts in turn)."""
    bad = 0
    for mode in range(1, 13):
        layout = smemkit.LAYOUTS[mode % 3]
        with knobs(transpose_skinny=mode):
            for dtype in ("uint8", "float16"):
                for R, C in SKINNY_SHAPES:
                    for off, b in ((0, 1), (1, 1), (3, 1), (1, 2)):
                        buf = cupy.empty(off + b * R * C, dtype)
                        buf.set(rng.integers(0, 256, buf.size * buf.itemsize, np.uint8).view(dtype))
                        x = buf[off:].reshape((b, R, C) if b > 1 else (R, C))
                        obuf = cupy.empty(1 + x.size, dtype)
                        out = obuf[1:].reshape(x.shape[:-2] + (C, R))
                        y = smemkit.matrix_transpose(x, layout=layout, out=out)
                        want = np.swapaxes(cupy.asnumpy(x), -1, -2).copy()
                        bad += not np.array_equal(cupy.asnumpy(y).view(np.uint8), want.view(np.uint8))
                        del buf, x, obuf, out, y
    print(f"sanitize cases (skinny 1- and 2-byte at allocation ends, every skinny mode): {bad} wrong results")
    return bad


def sgemm_b_at_allocation_end(rng, configs):
    """B whose last element is its allocation's last (CuPy without its pool): a float4 of B that
    straddles N is read whole in every k-tile but those of B's last rows, so memcheck must see no read
    past the end -- packed rows (the float4 runs into the next row; N = 1 reaches three rows on) and
    16-byte pitches (the float4 path), every config forced, unsplit and split."""
    try:
        import cupy
    except ImportError:
        return 0
    bad = 0
    cupy.cuda.set_allocator(None)
    for m, n, k in ((70, 1, 300), (37, 2, 129), (33, 3, 64), (65, 5, 77), (20, 131, 41)):
        for ldb in (n, (n + 3) // 4 * 4):
            a_h = rng.standard_normal((m, k)).astype(np.float32)
            b_h = rng.standard_normal((k, n)).astype(np.float32)
            ref = a_h.astype(np.float64) @ b_h
            buf = cupy.full((k - 1) * ldb + n, np.nan, np.float32)  # the pitch's gap: NaN, defined
            b = cupy.lib.stride_tricks.as_strided(buf, (k, n), (ldb * 4, 4))
            b[...] = cupy.asarray(b_h)
            a = cupy.asarray(a_h)
            for ci in range(1, len(configs)):
                for splits in (1, 3):
                    with knobs(sgemm_config=ci, sgemm_splits=splits):
                        for layout in smemkit.LAYOUTS:
                            d = cupy.asnumpy(smemkit.sgemm(a, b, layout=layout))
                            bad += not np.allclose(d, ref, rtol=1e-4, atol=1e-4)
            del a, b, buf
    cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)
    print(f"sanitize cases (B ending at its allocation's end): {bad} wrong results")
    return bad


@knobs(poison=True)  # every output starts as NaN, so a result the kernel never wrote cannot pass
def main(frameworks=True, only_subword=False):
    rng = np.random.default_rng(0)
    bad = subword_cases(rng, frameworks)
    if only_subword:
        return 1 if bad else 0
    for layout in smemkit.LAYOUTS:
        for dtype in ("float32", "float64"):
            for shape in TRANSPOSE_SHAPES:
                a = rng.standard_normal(shape).astype(dtype)
                bad += not np.array_equal(smemkit.transpose(a, layout=layout), a.T)
        for m, n, k in SGEMM_SHAPES:
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            c = rng.standard_normal((m, n)).astype(np.float32)
            for alpha, beta in ((1.0, 0.0), (0.5, -1.0)):
                d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
                ref = alpha * (a.astype(np.float64) @ b) + beta * c
                bad += not np.allclose(d, ref, rtol=1e-4, atol=1e-4)
    # every SGEMM tile config forced, unsplit and split, on edges in M, N and a ragged K: the edge blocks'
    # stand-in rows / columns and the last k-tile's partial loads end exactly at the operands' ends
    configs = smemkit.bench_configs("sgemm")
    for m, n, k in ((70, 5, 300), (37, 3, 129), (129, 127, 9)):
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        for ci in range(1, len(configs)):
            for splits in (1, 3):
                with knobs(sgemm_config=ci, sgemm_splits=splits):
                    for layout in smemkit.LAYOUTS:
                        bad += not np.allclose(smemkit.sgemm(a, b, layout=layout), ref, rtol=1e-4, atol=1e-4)
    if frameworks:
        bad += sgemm_b_at_allocation_end(rng, configs)
    # the host transfer modes (pageable, page-locked, pipelined in column bands, staged through the pool)
    for mode in (0, 1, 2, 3):
        with knobs(host_mode=mode):
            a = rng.standard_normal((300, 700)).astype(np.float32)
            bad += not np.array_equal(smemkit.transpose(a), a.T)
    # device arrays, where a framework is installed (strided SGEMM operands take the device copy path)
    for lib in ("cupy", "torch") if frameworks else ():
        try:
            mod = __import__(lib)
        except ImportError:
            continue
        h = rng.standard_normal((65, 33)).astype(np.float32)
        x = mod.asarray(h) if lib == "cupy" else mod.from_numpy(h).cuda()
        xt = x.T if lib == "cupy" else x.t()
        for layout in smemkit.LAYOUTS:
            t = smemkit.transpose(xt, layout=layout)
            d = smemkit.sgemm(xt, x, layout=layout)
            t_h = mod.asnumpy(t) if lib == "cupy" else t.cpu().numpy()
            d_h = mod.asnumpy(d) if lib == "cupy" else d.cpu().numpy()
            bad += not np.array_equal(t_h, h)
            bad += not np.allclose(d_h, h.T.astype(np.float64) @ h, rtol=1e-4, atol=1e-4)
        # hand the frameworks' cached blocks back, so --leak-check reports only real leaks
        del x, xt, t, d
        if lib == "cupy":
            mod.get_default_memory_pool().free_all_blocks()
        else:
            mod.cuda.synchronize()
            mod.cuda.empty_cache()
    smemkit.empty_cache()
    print(f"sanitize cases: {bad} wrong results")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(frameworks="--no-frameworks" not in sys.argv, only_subword="--only-subword" in sys.argv))
