"""Checks shared by several test files (not collected: no test_ prefix).  Each function is one test body that
used to stand, copied, in each of the files named at its section; a test calls it after setting its own knobs.

SGEMM (tests/test_sgemm_gemv.py, test_sgemm_gemv_wide.py, test_sgemm_rows_n.py; operands and check_numpy_call also
test_sgemm_narrow.py, _prefetch.py, _skinny.py, _splitk.py): NumPy operands, torch views from the file's own
`torch_case` (dense, NaN frames, odd pitches), out= in a NaN frame, NaN / Inf propagation and repeats, dense law
draws; all against test_sgemm.check (float64 reference within gamma_{K+2}).

Skinny transposes (tests/test_transpose_skinny_lean.py, _narrow.py, _strip.py, _strip_b.py, _strip_fp16.py, _dlv.py):
torch device views (odd bases, strided rows and matrices, padded rows, out= off 16 bytes inside a 0xFF buffer), NumPy
host views, every fp16 special, and knob modes agreeing; all bit-exact against NumPy (test_transpose_dtypes); a new
skinny level's choice on the law's draws.

explain() against Nsight Compute (tests/test_sgemm_ncu.py, test_sgemm_deep_ncu.py, test_sgemm_narrow_ncu.py): the
instructions and wavefronts of a list of accesses, as the tables' columns sum them; a cp.async kernel's row checked."""
import sys
from pathlib import Path

import numpy as np

import smemkit
from test_sgemm import check
from test_sgemm_epi import framed
from test_transpose_dtypes import assert_bits_equal, np_dtype, random_bits, swapped
from test_transpose_oddpitch import torch_bits


# ---- SGEMM ------------------------------------------------------------------------------------------------

def operands(rng, M, N, K, beta):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32) if beta != 0 else None
    return a, b, c


def dense_operands(torch, g, M, N, K):
    """A, B, C as dense device tensors (torch_case's "dense")."""
    return tuple(torch.randn(r, n, device="cuda", generator=g) for r, n in ((M, K), (K, N), (M, N)))


def check_numpy_call(rng, mnk, alpha, beta, layout):
    """One NumPy call within the bound; C left as it was."""
    a, b, c = operands(rng, *mnk, beta)
    c_before = None if c is None else c.copy()
    d = smemkit.sgemm(a, b, c, alpha=alpha, beta=beta, layout=layout)
    check(d, a, b, c, alpha, beta)
    if c is not None:
        np.testing.assert_array_equal(c, c_before)


def check_torch_views(torch, torch_case, layout, how, mnk):
    """torch_case(torch, g, M, N, K, how)'s operands, alpha / beta without and with C, within the bound."""
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + 7 * N + 13 * K)
    a, b, c = torch_case(torch, g, M, N, K, how)
    for alpha, beta in [(1.0, 0.0), (0.5, -1.5)]:
        d = smemkit.sgemm(a, b, c if beta else None, alpha=alpha, beta=beta, layout=layout)
        torch.cuda.synchronize()
        check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(),
              c.cpu().numpy() if beta else None, alpha, beta)


def check_out_and_c_in_nan_frames(torch, torch_case, mnk, shift):
    """out= a view `shift` floats past 16 bytes in a NaN frame: nothing written outside it; beta = 0 with C all
    NaN reads no C; out=c (C aliasing D) with beta != 0."""
    M, N, K = mnk
    g = torch.Generator(device="cuda").manual_seed(M + N + K + shift)
    a, b, _ = torch_case(torch, g, M, N, K, "frames")
    nan_c = torch.full((M, N), float("nan"), device="cuda")
    d, full = framed(torch, g, M, N, N, shift, fill=False)
    assert smemkit.sgemm(a, b, nan_c, alpha=2.0, beta=0.0, out=d) is d
    torch.cuda.synchronize()
    frame = torch.cat([full[:shift], full[shift + M * N:]])
    assert torch.isnan(frame).all(), "a store outside out"
    check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), None, 2.0, 0.0)
    c = torch.randn(M, N, device="cuda", generator=g)
    c0 = c.cpu().numpy()
    assert smemkit.sgemm(a, b, c, alpha=-1.0, beta=0.5, out=c) is c
    torch.cuda.synchronize()
    check(np.ascontiguousarray(c.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c0, -1.0, 0.5)


def check_nan_inf_and_repeats(mnk):
    """NaN / Inf propagate like NumPy's (and nowhere else); repeated calls give the same bits."""
    M, N, K = mnk
    a = np.ones((M, K), np.float32)
    b = np.ones((K, N), np.float32)
    a[M - 1, K // 2] = np.nan
    b[K - 1, N - 1] = np.inf
    d = smemkit.sgemm(a, b)
    want = a @ b
    np.testing.assert_array_equal(np.isnan(d), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(d), np.isinf(want))
    rng = np.random.default_rng(M + N + K)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    first = smemkit.sgemm(a, b)
    for _ in range(3):
        np.testing.assert_array_equal(smemkit.sgemm(a, b), first)


def check_dense_draws(torch, shapes, seed, layout):
    """Each (M, N, K) of `shapes` as dense torch operands (one generator seeded `seed`), alpha 0.75, beta -0.5."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    for M, N, K in shapes:
        a, b, c = dense_operands(torch, g, M, N, K)
        d = smemkit.sgemm(a, b, c, alpha=0.75, beta=-0.5, layout=layout)
        torch.cuda.synchronize()
        check(np.ascontiguousarray(d.cpu().numpy()), a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), 0.75, -0.5)


# ---- Skinny transposes ------------------------------------------------------------------------------------

def check_device_views(torch, rng, layout, dtype, view, short, case_b=False):
    """Three short x 4099 matrices (case_b: 4099 x short) as torch views: the input base off by one element
    ("offset-1"; "offset-3": three), every other row ("row-slice"), every other matrix ("batch-step"), padded rows
    ("padded-cols": in_rs > cols); out= off by 1 / 3 elements ("out-offset" / "out-offset-3") inside a 0xFF-filled
    buffer whose other bytes must stay 0xFF."""
    L = 4099
    n = 3 * short * L
    flat = random_bits((n + (3 if case_b else 1),), np.dtype(dtype), rng)
    x = torch.from_numpy(flat).cuda()
    rc = (L, short) if case_b else (short, L)
    off_in = 3 if view == "offset-3" else 1
    xs, bs = x[off_in:off_in + n].view(3, *rc), flat[off_in:off_in + n].reshape(3, *rc)
    if view.startswith("out-offset"):
        off = 1 if view == "out-offset" else 3
        wide = flat.itemsize == 2
        buf = torch.full((n + 2 * off,), -1 if wide else 255, dtype=torch.int16 if wide else torch.uint8, device="cuda")
        out = buf[off:off + n].view(x.dtype).view(3, rc[1], rc[0])
        smemkit.matrix_transpose(xs, layout=layout, out=out)
        assert_bits_equal(out.cpu().numpy(), swapped(bs))
        rest = torch.cat([buf[:off], buf[off + n:]]).cpu().numpy()
        assert np.all(rest == (-1 if wide else 0xFF))
        return
    xv, bv = {"offset-1": (xs, bs), "offset-3": (xs, bs), "row-slice": (xs[:, ::2], bs[:, ::2]),
              "batch-step": (xs[::2], bs[::2]), "padded-cols": (xs[:, :, : L - 2], bs[:, :, : L - 2])}[view]
    out = smemkit.matrix_transpose(xv, layout=layout)
    assert_bits_equal(out.cpu().numpy(), swapped(bv))


def check_out_into_ff(torch, fn, x, want, layout="naive"):
    """fn(x, layout=layout, out=out) with `out` one element into a 0xFF-filled byte buffer (the transposed shape): the
    call returns `out`, whose bytes are `want` (torch_bits of the expected result), and every other byte of the buffer
    is still 0xFF."""
    m, esz = x.numel(), x.element_size()
    raw = torch.full(((m + 2) * esz,), 0xFF, dtype=torch.uint8, device="cuda")
    out = raw[esz:(m + 1) * esz].view(x.dtype).view(x.mT.shape)
    assert fn(x, layout=layout, out=out) is out
    assert np.array_equal(torch_bits(torch, out), want)
    rest = torch.cat([raw[:esz], raw[(m + 1) * esz:]])
    assert bool((rest == 0xFF).all())


def check_host_views(rng, layout, dtype, short):
    """NumPy views: rows reversed (a negative row stride), an odd column offset, every other row."""
    a = random_bits((2 * short + 1, 9003), np_dtype(dtype), rng)
    for v in (a[short - 1::-1], a[:short, 1:], a[1::2][:short], a[:short, 3:-2]):
        assert_bits_equal(smemkit.transpose(v, layout=layout), v.T)


def check_fp16_specials(layout, shorts, case_b=False):
    """Every fp16 NaN payload (both signs), infinities, -0.0 and subnormals, moved as bits: s x 9001 matrices
    (case_b: 9001 x s) for s in `shorts`."""
    bits = np.concatenate([np.arange(0x7C00, 0x8001), np.arange(0xFC00, 0x10000), np.arange(0, 0x400)])
    for s in shorts:
        a = np.resize(bits.astype(np.uint16), s * 9001).view(np.float16).reshape((9001, s) if case_b else (s, 9001))
        assert_bits_equal(smemkit.transpose(a, layout=layout), a.T)


def check_modes_agree(set_knobs, a, old, new):
    """transpose_skinny modes `new` (a tuple) and `old` on the same tensor, every layout: each of `new` bit-equal
    to `old`, and new[0] to NumPy."""
    for layout in smemkit.LAYOUTS:
        got = {}
        for mode in (old, *new):
            set_knobs(transpose_skinny=mode)
            got[mode] = smemkit.matrix_transpose(a, layout=layout)
        for mode in new:
            assert_bits_equal(got[mode], got[old])
        assert_bits_equal(got[new[0]], swapped(a))


def check_level_on_draws(seeds, n, old, new, in_class, prefix, at_least):
    """n draws of #26's law for each seed: transpose_skinny level `new` sends exactly the draws in_class(shape, itemsize)
    to the kernel whose config starts with `prefix` (which `old` does not) and leaves every other draw's path as `old`'s;
    at least `at_least` draws in the class."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "timing"))
    from draws import transpose_draws
    from smemkit import _testing
    seen = 0
    for seed in seeds:
        for d in transpose_draws(n, seed):
            got = []
            for mode in (old, new):
                with _testing.knobs(transpose_skinny=mode):
                    got.append(smemkit.explain("transpose", d.shape, "pad", d.dtype).config)
            if in_class(d.shape, d.itemsize):
                seen += 1
                assert got[1].startswith(prefix) and not got[0].startswith(prefix), d
            else:
                assert got[1] == got[0], d
    assert seen >= at_least


# ---- explain() against Nsight Compute ---------------------------------------------------------------------

def counts(accesses):
    """(instructions, wavefronts) of explain()'s `accesses`, summed as ncu sums a launch's (the tables' *_instr and
    *_sass / *_l1 / ldgsts columns)."""
    accesses = list(accesses)
    return sum(a.instructions for a in accesses), sum(a.wavefronts for a in accesses)


def check_cp_async_row(e, row):
    """explain() `e` of an SGEMM launch with cp.async copies against its ncu table row: LDS and STS instructions and
    per-instruction (SASS) wavefronts exactly, LDGSTS instructions exactly.  Returns (the plan's LDGSTS wavefronts,
    the row's), whose tolerance the caller states."""
    ldst = [a for a in e.accesses if a.instr == "ldst"]
    cp = [a for a in e.accesses if a.instr.startswith("cp.async")]
    n_ld, wf_ld = counts(a for a in ldst if a.kind == "load")
    n_st, wf_st = counts(a for a in ldst if a.kind == "store")
    assert (n_ld, n_st) == (int(row["ld_instr"]), int(row["st_instr"]))
    assert (wf_ld, wf_st) == (int(row["ld_sass"]), int(row["st_sass"]))
    n_cp, wf_cp = counts(cp)
    assert n_cp == int(row["ldgsts_instr"])
    return wf_cp, int(row["ldgsts"])
