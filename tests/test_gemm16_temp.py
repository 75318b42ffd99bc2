"""csrc/gemm16_temp.c: the tensor-core GEMM's temporaries from the shape alone
(smk_gemm16_temp_bytes_shape) answer what the launcher's own query (gemm16.cu smk_gemm16_temp_bytes,
on a params struct) answers, for every case the size checks ask about.  Both are pure CPU functions of
the built extension, called through ctypes: no GPU needed."""
import ctypes
import itertools

import pytest

from smemkit import _C, _testing

SMK_SWIZZLE = 2
PRE28 = 10  # api/gemm16.h SMK_GEMM16_VARIANT_PRE28: variant 0 before #28 (always pads)


class Gemm16Params(ctypes.Structure):  # csrc/api/gemm16.h smk_gemm16_params, field for field
    _fields_ = [("A", ctypes.c_void_p), ("B", ctypes.c_void_p), ("C", ctypes.c_void_p), ("D", ctypes.c_void_p),
                ("M", ctypes.c_int64), ("N", ctypes.c_int64), ("K", ctypes.c_int64),
                ("lda", ctypes.c_int64), ("ldb", ctypes.c_int64), ("ldc", ctypes.c_int64), ("ldd", ctypes.c_int64),
                ("alpha", ctypes.c_float), ("beta", ctypes.c_float),
                ("dtype", ctypes.c_int), ("out_f32", ctypes.c_int), ("layout", ctypes.c_int),
                ("swz_b", ctypes.c_int), ("swz_m", ctypes.c_int), ("swz_s", ctypes.c_int), ("variant", ctypes.c_int)]


@pytest.fixture(scope="module")
def lib():
    so = ctypes.CDLL(_C.__file__)
    so.smk_gemm16_temp_bytes.argtypes = [ctypes.POINTER(Gemm16Params), ctypes.c_int]
    so.smk_gemm16_temp_bytes.restype = ctypes.c_size_t
    so.smk_gemm16_temp_bytes_shape.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int] * 4
    so.smk_gemm16_temp_bytes_shape.restype = ctypes.c_size_t
    return so


def pad8(n):
    return (n + 7) // 8 * 8


@pytest.mark.parametrize("kmax", [64, 0, 128])
@pytest.mark.parametrize("mode", [0, 1, 2, 3, 4])
def test_shape_query_equals_the_launchers_query(lib, mode, kmax):
    # 0: the tiles' copies and splits; 1..4: the matvec workspace (MMA: none); kmax 0: the routing before MMA
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_kmax=kmax):
        _equal_queries(lib, mode)


def _equal_queries(lib, mode):
    base_a, base_b = 1 << 20, 1 << 22
    checked = nonzero = 0
    for M, N, K in itertools.product([0, 1, 7, 8, 9, 100, 4000], [0, 1, 6, 8, 33, 3000], [0, 1, 8, 13, 64, 3001]):
        for variant, alpha, off_a, off_b, da, db in itertools.product([0, 1, PRE28], [1.0, 0.0], [0, 2, 16], [0, 6],
                                                                     [0, 1, 8], [0, 3, 8]):
            lda, ldb = K + da, N + db
            p = Gemm16Params(A=base_a + off_a, B=base_b + off_b, D=1 << 24, M=M, N=N, K=K, lda=lda, ldb=ldb,
                             ldc=N, ldd=max(N, 1), alpha=alpha, beta=0.0, layout=SMK_SWIZZLE, variant=variant)
            want = lib.smk_gemm16_temp_bytes(ctypes.byref(p), 132)
            a_al = (base_a + off_a) % 16 == 0 and lda % 8 == 0
            b_al = (base_b + off_b) % 16 == 0 and ldb % 8 == 0
            got = lib.smk_gemm16_temp_bytes_shape(M, N, K if alpha else 0, variant, a_al, b_al, 132)
            assert got == want, (M, N, K, variant, alpha, off_a, off_b, lda, ldb)
            checked += 1
            nonzero += want > 0
    assert checked > 1000 and (mode != 0 or nonzero > 100)  # the grid reaches the copying cases


@_testing.knobs(gemm16_matvec=0)  # 33 x 17 x 13 is the memory-bound path's otherwise (M <= 32)
def test_shape_query_counts_the_padded_rows(lib):
    # The pre-#28 variant copies every unaligned operand: A (M x K) M rows of pad8(K) two-byte elements,
    # B (K x N) likewise, both the sum.  Variant 0 copies only where its cost model says so
    # (tests/test_gemm16_choose.py); at 33x17x13 it reads the rows in place.
    M, N, K = 33, 17, 13
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, PRE28, 0, 1, 132) == M * pad8(K) * 2
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, PRE28, 1, 0, 132) == K * pad8(N) * 2
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, PRE28, 0, 0, 132) == (M * pad8(K) + K * pad8(N)) * 2
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, PRE28, 1, 1, 132) == 0
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, 0, 0, 132) == 0  # in place
    M, N, K = 4097, 4095, 4093  # variant 0 copies both here
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, 0, 0, 132) == (M * pad8(K) + K * pad8(N)) * 2
    assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 1, 0, 0, 132) == 0  # variants 1.. read such rows in place
    assert lib.smk_gemm16_temp_bytes_shape(M, N, 0, 0, 0, 0, 132) == 0  # K == 0 (or alpha == 0): A, B not read
    assert lib.smk_gemm16_temp_bytes_shape(-1, N, K, 0, 0, 0, 132) == 0


def test_shape_query_counts_the_matvec_workspace(lib):
    """Variant 0's memory-bound path (csrc/gemm16/matvec.h) borrows S * M * N fp32 partials when it
    splits K, whatever the alignment, and copies nothing."""
    from test_gemm16_matvec import mirror
    # the routes before SKINNY (its own workspace test below) and before gemm16_mv_level (test_gemm16_mv_level.py)
    with _testing.knobs(gemm16_mv_skinny=0, gemm16_mv_level=0):
        check_matvec_workspace(lib, mirror)


def check_matvec_workspace(lib, mirror):
    for M, N, K in [(8, 4096, 4096), (3, 2449, 16303), (74, 6, 13105), (9066, 2, 470), (700, 900, 9)]:
        kind, splits = mirror(M, N, K)
        want = splits * M * N * 4 if splits > 1 else 0
        for al in itertools.product([0, 1], [0, 1]):
            assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, *al, 132) == want, (M, N, K, kind)
    assert lib.smk_gemm16_temp_bytes_shape(8, 4096, 4096, 0, 1, 1, 132) > 0


@pytest.mark.parametrize("mode,skinny", [(1, 1), (1, 2), (1, 7), (5, 0), (6, 0), (1, 18), (7, 0)])  # 16, 7: TALL
def test_shape_query_equals_the_launchers_query_skinny(lib, mode, skinny):
    # the SKINNY / SKINNY_M kernels' partials (csrc/gemm16/gemm16_skinny.cu), automatic and forced
    with _testing.knobs(gemm16_matvec=mode, gemm16_mv_skinny=skinny):
        _equal_queries(lib, mode)


def test_shape_query_counts_the_skinny_workspace(lib):
    from test_gemm16_skinny import mirror
    for M, N, K in [(7819, 24, 30630), (163, 11, 19937), (6964, 6, 40324), (1000, 32, 33), (30, 26, 11606),
                    (13, 485, 12998), (21, 3559, 44)]:
        kind, splits = mirror(M, N, K, skinny=7)
        assert kind.startswith("SKINNY")
        want = splits * M * N * 4 if splits > 1 else 0
        with _testing.knobs(gemm16_mv_skinny=7, gemm16_mv_level=3):  # the mirror's 4-warp SKINNY
            for al in itertools.product([0, 1], [0, 1]):
                assert lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, *al, 132) == want, (M, N, K)
        with _testing.knobs(gemm16_mv_skinny=7, gemm16_mv_level=7):  # A <= 8 MiB: 8-warp blocks with a scratch
            got = lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, 1, 1, 132)
            assert got > 0 if kind == "SKINNY" and M * K * 2 <= 8 << 20 else got == want, (M, N, K, got)


def test_shape_query_follows_the_level15_rule(lib):
    """gemm16_mv_level 15 (matvec.h smk_mv_skinny_fused_pays): where the rule keeps a small A off the 8-warp
    SKINNY, the workspace is the 4-warp SKINNY's (level 3's: partials only, none at one slice), else level
    7's (the 8-warp blocks' scratch); both queries agree."""
    from test_gemm16_mv_rule import LOSERS, WINNERS, pays
    for M, N, K in LOSERS + WINNERS + [(9000, 3, 256), (4225, 2, 200), (4224, 2, 200)]:
        q = {}
        for level in (3, 7, 15):
            with _testing.knobs(gemm16_mv_level=level, gemm16_mv_skinny=2):  # SKINNY's rule: TALL off
                q[level] = lib.smk_gemm16_temp_bytes_shape(M, N, K, 0, K % 8 == 0, N % 8 == 0, 132)
                p = Gemm16Params(A=1 << 20, B=1 << 22, D=1 << 24, M=M, N=N, K=K, lda=K, ldb=N, ldc=N, ldd=N,
                                 alpha=1.0, beta=0.0, layout=SMK_SWIZZLE, variant=0)
                assert lib.smk_gemm16_temp_bytes(ctypes.byref(p), 132) == q[level], (M, N, K, level)
        assert q[7] > 0 and q[15] == (q[7] if pays(M, N, K) else q[3]), (M, N, K, q)
        if not pays(M, N, K):
            assert q[3] == (M * N * 4 * 2 if K >= 256 else 0), (M, N, K, q)  # K // 128 slices of 128
