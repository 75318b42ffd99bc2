"""Lean paths with constant interior row counts (knob transpose_mid = 3; configs.h mid_fits, lean.cuh's X): mode 2's
launches on transpose_kernel<.., MID = 3>, whose interior tiles (every row and column of the tile inside the matrix)
run their own copy of lean.cuh's load and store with the stripe's valid row counts as the constant TE: no compare
a word on the load, no compare and branch a word on the store.  Edge tiles and aligned interiors run mode 2's code.

GPU: bit for bit on poisoned outputs, every layout, interior-heavy odd pitches on both sides (rows and columns off
words, odd input pitches, odd view offsets), edge tiles beside them, batches (later matrices off a word), torch views,
fp16 NaN payloads, modes 2 and 3 agreeing.  CPU: explain names the path exactly where mode 2 names the lean edges,
with mode 2's shared counts; the knob's range; ptxas keeps the MID = 3 kernels at 64 registers with no spill.
"""
import numpy as np
import pytest

import smemkit
from smemkit._testing import knobs
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_lean import _tool
from test_transpose_oddpitch import test_torch_odd_offsets as _torch_odd_offsets  # not collected again here

WIDTHS = ["uint8", "float16"]
FULL = dict(transpose_mid=3, transpose_skinny=0, transpose_sector=0)  # the tiled kernel for every shape
# interior tiles on every pitch phase: sides of several tiles (128 uint8 / fp16 elements), odd and off words
SHAPES = [(1394, 4829), (4829, 1394), (521, 1029), (1029, 523), (387, 5761), (258, 386), (257, 259), (640, 1280),
          (131, 130), (3, 999), (999, 2), (1521, 524)]
BATCHES = [(3, 521, 387), (5, 259, 1031), (2, 1029, 130), (4, 130, 129)]


# ---- GPU: bit-exact ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_full_bit_exact(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(**FULL)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("tall", [False, True], ids=["short-rows", "short-cols"])
@pytest.mark.parametrize("dtype", WIDTHS)
def test_full_short_sides(dtype, tall, rng, poison, set_knobs):
    """Short sides 120..400 (interior tiles from 128 on, edge tiles beside them), long sides odd and on words."""
    set_knobs(**FULL)
    for s in range(120, 401, 7):
        n = 389 + 2 * s if s % 2 else 384 + 4 * s
        shape = (n, s) if tall else (s, n)
        a = random_bits(shape, np_dtype(dtype), rng)
        assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", BATCHES, ids=lambda s: "x".join(map(str, s)))
def test_full_batches(shape, dtype, layout, rng, poison, set_knobs):
    set_knobs(**FULL)
    a = random_bits(shape, np_dtype(dtype), rng)
    assert_bits_equal(smemkit.matrix_transpose(a, layout=layout), swapped(a))


@pytest.mark.gpu
@pytest.mark.parametrize("pad", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(1031, 700), (700, 2053), (4099, 387), (640, 1280)], ids=lambda s: "x".join(map(str, s)))
def test_full_odd_input_pitch(shape, dtype, pad, rng, poison, set_knobs):
    """Input rows `pad` elements apart past their length: interior tiles at every input phase."""
    set_knobs(**FULL)
    a = random_bits((shape[0], shape[1] + pad), np_dtype(dtype), rng)[:, :shape[1]]
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", smemkit.LAYOUTS)
@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("view", ["offset", "offset-slice", "odd-pitch", "batch-offset"])
@pytest.mark.parametrize("shape", [(517, 395), (1153, 1027), (4099, 129)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_full_torch_odd_offsets(torch, layout, dtype, view, shape, poison, set_knobs):
    """Device views one or three elements past an aligned base, odd pitches, out= at an odd offset inside 0xFF."""
    set_knobs(**FULL)
    _torch_odd_offsets(torch, layout, dtype, view, shape, None)


@pytest.mark.gpu
def test_full_fp16_specials(poison, set_knobs):
    set_knobs(**FULL)
    bits = np.array([0x7E01, 0xFE55, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0x0001, 0x3C00], dtype=np.uint16)
    a = np.resize(bits, (1029, 523)).view(np.float16)
    assert_bits_equal(smemkit.transpose(a, layout="pad"), a.T)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WIDTHS)
def test_full_agrees_with_mode_2(dtype, rng, poison, set_knobs):
    """Defaults otherwise (skinny kernels, sector store as shipped): modes 2 and 3 give the same bits."""
    for shape in [(5, 517, 1731), (2049, 1031), (1394, 4829)]:
        a = random_bits(shape, np_dtype(dtype), rng)
        set_knobs(transpose_mid=2)
        two = smemkit.matrix_transpose(a, layout="pad")
        set_knobs(transpose_mid=3)
        assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), two)


# ---- CPU: the choice, the plan, the kernels' registers ----------------------------------------------------

@pytest.mark.parametrize("dtype", WIDTHS + ["float32"])
def test_full_choice_property(dtype):
    """Over 3000 shapes of the random law's kind: mode 3 names its path exactly where mode 2 names the lean edges
    (a pure function of the shape and itemsize), with mode 2's shared counts."""
    r = np.random.default_rng(3480)
    for _ in range(3000):
        s = int(r.integers(1, 3000))
        n = int(np.exp(r.uniform(np.log(2), np.log(3e6))))
        shape = (s, n) if r.random() < 0.5 else (n, s)
        if r.random() < 0.3:
            shape = (int(r.integers(2, 60)),) + shape
        with knobs(transpose_mid=2):
            e2 = smemkit.explain("transpose", shape, "pad", dtype)
        with knobs(transpose_mid=3):
            e3 = smemkit.explain("transpose", shape, "pad", dtype)
        assert e3.config == e2.config.replace(", lean edges", ", lean edges, full interiors"), (shape, e2.config)
        assert ("full interiors" in e3.config) == ("lean edges" in e2.config)
        assert [(a.name, a.instructions, a.wavefronts) for a in e3.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in e2.accesses]


@pytest.mark.parametrize("dtype", WIDTHS)
@pytest.mark.parametrize("shape", [(1394, 482869), (1521003, 524), (3679, 24103), (52, 1685, 8373), (255, 257)])
def test_full_plan_every_layout(dtype, shape):
    for lay in smemkit.LAYOUTS:
        with knobs(transpose_mid=2, transpose_skinny=0, transpose_sector=0):
            e2 = smemkit.explain("transpose", shape, lay, dtype)
        with knobs(transpose_mid=3, transpose_skinny=0, transpose_sector=0):
            e3 = smemkit.explain("transpose", shape, lay, dtype)
        assert e3.config == e2.config.replace(", lean edges", ", lean edges, full interiors")
        assert "full interiors" in e3.config
        assert [(a.name, a.instructions, a.wavefronts) for a in e3.accesses] == \
               [(a.name, a.instructions, a.wavefronts) for a in e2.accesses]


def test_full_knob_range():
    with knobs(transpose_mid=3):
        pass
    with pytest.raises(ValueError):
        with knobs(transpose_mid=4):
            pass


def test_full_kernels_registers(tmp_path):
    """ptxas (sm_90, -O3): the six MID = 3 kernels at most 64 registers, no spill (the store's FULL lim / whole
    shortcut spilled 8 bytes in uint8 naive / pad while it was there: lean.cuh keeps the store's lim test)."""
    import re
    import subprocess
    from pathlib import Path
    nvcc = _tool("nvcc")
    if not nvcc:
        pytest.skip("needs nvcc")
    csrc = Path(__file__).resolve().parent.parent / "csrc"
    src = tmp_path / "lean_full.cu"
    src.write_text('#include "transpose/kernel.cuh"\nvoid go(Args a, FastPlace f)\n{\n' + "".join(
        f"    transpose_kernel<{lay}, {esz}, {tile}, 8, false, 3><<<1, dim3({tile}, 8)>>>(a, f);\n"
        for lay in range(3) for esz, tile in ((1, 32), (2, 64))) + "}\n")
    out = subprocess.run([nvcc, "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-Xptxas", "-v", "-I", str(csrc),
                          "-o", str(tmp_path / "lean_full.cubin"), str(src)],
                         check=True, capture_output=True, text=True, timeout=600)
    regs = [int(m) for m in re.findall(r"Used (\d+) registers", out.stderr)]
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out.stderr)
    assert len(regs) == 6 and max(regs) <= 64, out.stderr
    assert len(spills) == 6 and all(a == "0" and b == "0" for a, b in spills), out.stderr
    dis = _tool("nvdisasm") or _tool("cuobjdump")
    if dis:  # session 43's ptxas fault: no VIMNMX with a predicate output choosing a store path (test_lean_store_sass)
        args = [dis, "-c"] if dis.endswith("nvdisasm") else [dis, "-sass"]
        sass = subprocess.run(args + [str(tmp_path / "lean_full.cubin")], check=True, capture_output=True, text=True,
                              timeout=120).stdout
        assert not [ln for ln in sass.splitlines() if re.search(r"\bVIMNMX\S*\s+R\w+\s*,\s*!?P\d", ln)]


# ---- part 0's multiply-shift raster (global.cuh tile_place_fast, launch.cu fastdiv_magic) --------------------------

def _fastdiv_magic(d):
    """launch.cu's fastdiv_magic, line for line."""
    l = 0
    while l < 31 and (1 << l) < d:
        l += 1
    m = 0 if d <= 1 else 1 if d >= 1 << 31 else (1 << (31 + l)) // d + 1
    t = 31 if d >= 1 << 31 else l - 1 if l > 0 else 0
    return m, t


def _fastdiv(x, m, t):
    return x if m == 0 else ((x * m) >> 32) >> t


def test_fastdiv_exact():
    """floor(x / d) for 0 <= x < 2^31: every d up to 4096 against x at the quotient boundaries, and random large d;
    m always fits 32 bits."""
    r = np.random.default_rng(3482)
    ds = list(range(1, 4097)) + [int(v) for v in r.integers(4097, 1 << 33, 3000)] + [(1 << 31) - 1, 1 << 31, 1 << 32]
    for d in ds:
        m, t = _fastdiv_magic(d)
        assert 0 <= m < 1 << 32 and 0 <= t <= 31
        xs = {0, 1, (1 << 31) - 1, (1 << 31) - 2} | {int(v) for v in r.integers(0, 1 << 31, 40)}
        for q in {int(v) for v in r.integers(0, max(1, ((1 << 31) - 1) // d) + 1, 20)}:
            xs |= {x for x in (q * d - 1, q * d, q * d + d - 1) if 0 <= x < 1 << 31}
        for x in xs:
            assert _fastdiv(x, m, t) == x // d, (x, d, m, t)


def _group_tile(pid, g, tiles_y, tiles_x):
    """common/raster.cuh's group_tile_rt."""
    first = pid // (g * tiles_x) * g
    r = pid - first * tiles_x
    rows = min(g, tiles_y - first)
    return first + (r - r // rows * rows), r // rows


def _group_tile_fast(pid, g, tiles_y, tiles_x):
    """global.cuh's tile_place_fast with launch.cu's group_magics (g = 0, the row-major raster: G = 1)."""
    g = max(g, 1)
    last_rows = tiles_y - (tiles_y - 1) // g * g
    mg = [_fastdiv_magic(g * tiles_x), _fastdiv_magic(g), _fastdiv_magic(max(last_rows, 1))]
    first = _fastdiv(pid, *mg[0]) * g
    r = pid - first * tiles_x
    last = tiles_y - first < g
    rows = tiles_y - first if last else g
    n = _fastdiv(r, *(mg[2] if last else mg[1]))
    return first + (r - n * rows), n


def test_tile_place_fast_same_tiles():
    """Every block of 400 random grids (groups 1..65536, short last bands) gets group_tile_rt's tile."""
    r = np.random.default_rng(3483)
    for _ in range(400):
        tiles_y, tiles_x = int(r.integers(1, 60)), int(r.integers(1, 60))
        g = int(r.choice([1, 2, 3, 5, 8, 13, 64, 65536, int(r.integers(1, 70))]))
        seen = set()
        for pid in range(tiles_y * tiles_x):
            t = _group_tile_fast(pid, g, tiles_y, tiles_x)
            assert t == _group_tile(pid, g, tiles_y, tiles_x), (pid, g, tiles_y, tiles_x)
            seen.add(t)
        assert len(seen) == tiles_y * tiles_x
        for pid in range(tiles_y * tiles_x):  # transpose_group 0: tile_place's row-major order
            assert _group_tile_fast(pid, 0, tiles_y, tiles_x) == (pid // tiles_x, pid % tiles_x)
    for tiles_y, tiles_x, g in [(3773, 11, 8), (8, 11883, 8), (1 << 15, 1 << 15, 8), (11, (1 << 31) // 12, 8)]:
        for pid in [int(v) for v in r.integers(0, tiles_y * tiles_x, 2000)] + [tiles_y * tiles_x - 1]:
            assert _group_tile_fast(pid, g, tiles_y, tiles_x) == _group_tile(pid, g, tiles_y, tiles_x)


@pytest.mark.gpu
@pytest.mark.parametrize("group", [0, 1, 3, 8, 11, 65536])
@pytest.mark.parametrize("dtype", WIDTHS)
def test_full_raster_groups(dtype, group, rng, poison, set_knobs):
    """Mode 3's part 0 on every raster knob value, with short last bands (tile rows 11, 5, 1) and batches."""
    set_knobs(transpose_group=group, **FULL)
    for shape in [(1394, 1521), (521, 4829), (3, 521, 387), (97, 3001)]:
        a = random_bits(shape, np_dtype(dtype), rng)
        assert_bits_equal(smemkit.matrix_transpose(a, layout="pad"), swapped(a))
