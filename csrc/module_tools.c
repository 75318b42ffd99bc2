/*
 * module_tools.c -- the binding of smemkit's run-time tools: the timing loop (bench.c), device facts,
 * the cache, the test knobs, the SGEMM chooser and the config tables.  Conversion only, as in
 * module.c; the work is in files that know no Python.
 */
#include "module.h"
#include <stdint.h>
#include <string.h>

#include "api/debug.h"
#include "api/gemm16.h"
#include "api/gemm16_small.h"
#include "api/gemm16_pick.h"
#include "api/wgmma.h"
#include "api/sgemm.h"
#include "api/sgemm_deep.h"
#include "api/sgemm_epi.h"
#include "api/sgemm_gemv.h"
#include "api/sgemm_rows_n.h"
#include "api/sgemm_tinyk.h"
#include "api/splitk.h"
#include "api/transpose.h"
#include "api/transpose_tune.h"
#include "gemm16/matvec.h"
#include "bench.h"
#include "host.h"
#include "hostpool.h"

/* ---- timing: smk_bench_run (bench.c) ---------------------------------------------------------- */

static PyObject *bench_result(const smk_bench_spec *s, const smk_bench_info *info, const float *times)
{
    PyObject *d = PyDict_New(), *lst = NULL;
    char buf[40];
    int i, r;
    for (i = 0; d && i < s->nlayouts + info->have_ceiling; i++) {
        const char *name = i < s->nlayouts ? smk_layout_names[s->layouts[i]] : info->ceiling;
        if (i < s->nlayouts && (s->swz[i][0] || s->swz[i][1] || s->swz[i][2])) /* as repr(smemkit.Swizzle) */
            snprintf(buf, sizeof buf, "Swizzle(%d, %d, %d)", s->swz[i][0], s->swz[i][1], s->swz[i][2]), name = buf;
        if (!(lst = PyList_New(s->reps)))
            break;
        for (r = 0; r < s->reps; r++)
            PyList_SET_ITEM(lst, r, PyFloat_FromDouble(times[i * s->reps + r]));
        if (PyErr_Occurred() || PyDict_SetItemString(d, name, lst) < 0)
            break;
        Py_CLEAR(lst);
    }
    if (PyErr_Occurred() || !d) {
        Py_XDECREF(lst);
        Py_XDECREF(d);
        return NULL;
    }
    return Py_BuildValue("{s:N,s:z,s:s}", "times", d, "ceiling", info->ceiling, "ceiling_why",
                         info->have_ceiling ? (info->path ? info->path : "") : info->why);
}

PyDoc_STRVAR(bench_doc,
"_bench(op, shape, layouts, *, itemsize=4, config=0, splits=0, ceiling=True, warmup=10, reps=50, flush_bytes=0, check_only=False, dtype=None)\n--\n\n"
"op 'gemm' is the tensor-core GEMM: dtype 'float16' or 'bfloat16'; layouts may be Swizzle objects.\n"
"Time `op` ('transpose' (rows, cols[, batch]) or 'sgemm' (M, N, K)) for each layout name in\n"
"`layouts` and, when `ceiling`, the ceiling (cudaMemcpy D2D of the same bytes, or cuBLAS fp32) on\n"
"device-resident random data with CUDA events, interleaved per rep (csrc/bench.c).  `config`: the\n"
"transpose tile variant or the SGEMM tile config (0: what the op ships); `splits` the SGEMM K\n"
"slices (0: chosen per shape).  Returns {'times': {name:\n"
"[ms, ...]}, 'ceiling': name or None, 'ceiling_why': str}.  `check_only`: validate every argument\n"
"(ValueError / TypeError naming it) and return None without touching the device.");

static PyObject *py_bench(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"op", "shape", "layouts", "itemsize", "config", "splits", "ceiling", "warmup", "reps",
                             "flush_bytes", "check_only", "dtype", NULL};
    const char *op = NULL, *bad, *dtype = NULL;
    PyObject *shape = NULL, *layouts = NULL, *seq = NULL, *res = NULL;
    PyObject *isz_obj = NULL, *config_obj = NULL, *warmup_obj = NULL, *reps_obj = NULL, *flush_obj = NULL;
    long long flush = 0, isz = 4, config = 0, splits = 0, warmup = 10, reps = 50;
    PyObject *splits_obj = NULL;
    int check_only = 0;
    smk_bench_spec s;
    smk_bench_info info;
    smk_status st;
    float *times = NULL;
    int i;
    memset(&s, 0, sizeof s);
    s.ceiling = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|$OOOpOOOpz:_bench", kwlist, &op, &shape, &layouts, &isz_obj,
                                     &config_obj, &splits_obj, &s.ceiling, &warmup_obj, &reps_obj, &flush_obj, &check_only,
                                     &dtype) ||
        (s.op = smk_py_parse_op_shape("bench", op, shape, 1, (long long)1 << 40, 1, s.dims)) < 0 ||
        smk_py_int_arg(isz_obj, "bench", "itemsize", 1, 16, &isz) < 0 ||
        smk_py_int_arg(config_obj, "bench", "config", 0, INT32_MAX, &config) < 0 ||
        smk_py_int_arg(splits_obj, "bench", "splits", 0, INT32_MAX, &splits) < 0 ||
        smk_py_int_arg(warmup_obj, "bench", "warmup", 0, INT32_MAX, &warmup) < 0 ||
        smk_py_int_arg(reps_obj, "bench", "reps", 1, 1000000, &reps) < 0 ||
        smk_py_int_arg(flush_obj, "bench", "flush_bytes", 0, (long long)1 << 40, &flush) < 0 ||
        !(seq = PySequence_Fast(layouts, "bench(): layouts must be a sequence of layout names")))
        return NULL;
    s.esz = (int)isz, s.config = (int)config, s.splits = (int)splits, s.warmup = (int)warmup, s.reps = (int)reps;
    if (s.op == SMK_OP_GEMM16) /* the tensor-core GEMM's dtype: 0 float16, 1 bfloat16 */
        s.esz = dtype && strcmp(dtype, "bfloat16") == 0 ? 1 : dtype && strcmp(dtype, "float16") == 0 ? 0 : -1;
    s.nlayouts = (int)PySequence_Fast_GET_SIZE(seq);
    s.flush_bytes = (size_t)flush;
    for (i = 0; i < s.nlayouts && i < SMK_BENCH_MAX_LAYOUTS; i++)
        if (smk_py_parse_gemm_layout(PySequence_Fast_GET_ITEM(seq, i), "bench", &s.layouts[i], s.swz[i]) < 0 ||
            (s.op == SMK_OP_GEMM16 && smk_py_wgmma_layout_ok("bench", s.layouts[i], s.swz[i]) < 0))
            goto done;
    if ((bad = smk_bench_check(&s)) != NULL) {
        PyErr_Format(PyExc_ValueError, "bench(): %s", bad);
        goto done;
    }
    if (check_only) { /* every argument checked, nothing touched the device */
        res = Py_NewRef(Py_None);
        goto done;
    }
    if (!(times = (float *)PyMem_Calloc((size_t)(s.nlayouts + 1) * (size_t)s.reps, sizeof(float)))) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    st = smk_bench_run(&s, times, &info);
    Py_END_ALLOW_THREADS
    res = st.code == SMK_OK ? bench_result(&s, &info, times) : smk_py_raise_status(module, st);
done:
    PyMem_Free(times);
    Py_XDECREF(seq);
    return res;
}

/* ---- device facts and test knobs -------------------------------------------------------------- */

PyDoc_STRVAR(device_count_doc, "device_count()\n--\n\nNumber of CUDA devices the runtime sees (0 without a GPU or "
             "driver).  Never raises.");
static PyObject *py_device_count(PyObject *module, PyObject *unused)
{
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = smk_rt_device_count();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

PyDoc_STRVAR(device_name_doc, "device_name()\n--\n\nName of the current CUDA device.  Raises smemkit.CudaError "
             "without a usable GPU.");
static PyObject *py_device_name(PyObject *module, PyObject *unused)
{
    char name[256];
    smk_status st = smk_rt_ready();
    if (st.code != SMK_OK)
        return smk_py_raise_status(module, st);
    smk_rt_device_name(name, sizeof name);
    return PyUnicode_FromString(name);
}

PyDoc_STRVAR(device_info_doc, "_device_info()\n--\n\n{'name', 'sms', 'l2_bytes', 'cc'} of the current device.  "
             "Raises CudaError without one.");
static PyObject *py_device_info(PyObject *module, PyObject *unused)
{
    char name[256];
    int sms = 0, l2 = 0, major = 0, minor = 0;
    smk_status st = smk_rt_device_info(&sms, &l2, &major, &minor);
    if (st.code != SMK_OK)
        return smk_py_raise_status(module, st);
    smk_rt_device_name(name, sizeof name);
    return Py_BuildValue("{s:s,s:i,s:i,s:(ii)}", "name", name, "sms", sms, "l2_bytes", l2, "cc", major, minor);
}

PyDoc_STRVAR(mem_info_doc, "_mem_info()\n--\n\n(free, total) device memory in bytes.");
static PyObject *py_mem_info(PyObject *module, PyObject *unused)
{
    size_t free_b = 0, total_b = 0;
    smk_status st;
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_mem_info(&free_b, &total_b);
    Py_END_ALLOW_THREADS
    return st.code != SMK_OK ? smk_py_raise_status(module, st)
                             : Py_BuildValue("nn", (Py_ssize_t)free_b, (Py_ssize_t)total_b);
}

PyDoc_STRVAR(empty_cache_doc, "empty_cache()\n--\n\nReturn what smemkit keeps between calls: the device memory of its "
             "pools (up to 1 GiB per device, on every device smemkit has run on; the current device is put back) "
             "to the driver, and its idle pinned host staging units (up to 128 MiB) to the system.  Without a "
             "usable GPU nothing is cached, and it does nothing.");
static PyObject *py_empty_cache(PyObject *module, PyObject *unused)
{
    smk_status st = {0, 0, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    smk_stage_trim();
    if (smk_rt_device_count() > 0)
        st = smk_rt_trim_all();
    Py_END_ALLOW_THREADS
    return st.code != SMK_OK ? smk_py_raise_status(module, st) : Py_NewRef(Py_None);
}

PyDoc_STRVAR(debug_fault_doc, "_debug_fault()\n--\n\nTesting aid: run a kernel that stores to an illegal address and "
             "synchronise on the current device.  Raises smemkit.CudaError (cudaErrorIllegalAddress) and leaves that "
             "device's CUDA context unusable: every later call on it in this process raises too.  Only for tests, "
             "in a subprocess.");
static PyObject *py_debug_fault(PyObject *module, PyObject *unused)
{
    smk_status st = smk_rt_ready();
    if (st.code != SMK_OK)
        return smk_py_raise_status(module, st);
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_check_launch(smk_debug_fault_launch(smk_rt_stream()), "launching the fault kernel");
    if (st.code == SMK_OK)
        st = smk_rt_sync();
    Py_END_ALLOW_THREADS
    return st.code != SMK_OK ? smk_py_raise_status(module, st) : Py_NewRef(Py_None);
}

PyDoc_STRVAR(staging_info_doc,
"_staging_info()\n--\n\n"
"The pinned host staging pool: {'held', 'in_use', 'cap', 'peak'} in bytes, and 'threads' (the host\n"
"copy threads, the caller included).");
static PyObject *py_staging_info(PyObject *module, PyObject *unused)
{
    size_t held, in_use, cap, peak;
    int threads;
    Py_BEGIN_ALLOW_THREADS
    smk_stage_info(&held, &in_use, &cap, &peak);
    threads = smk_par_threads();
    Py_END_ALLOW_THREADS
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:i}", "held", (Py_ssize_t)held, "in_use", (Py_ssize_t)in_use, "cap",
                         (Py_ssize_t)cap, "peak", (Py_ssize_t)peak, "threads", threads);
}

PyDoc_STRVAR(set_knob_doc,
"_set_knob(name, value, /)\n--\n\n"
"Tests and benchmarks: 'poison' (1: every kernel output starts as 0xFF bytes, NaN), 'host_mode'\n"
"(-1 automatic, 0 pageable, 1 page-locked, 2 page-locked and pipelined, 3 staged through the pinned\n"
"pool; see csrc/host.h), 'staging_cap_mib' (the pinned pool's cap), 'sgemm_config' (0 chosen per\n"
"shape, else a forced tile config of _configs('sgemm')), 'sgemm_splits'\n(0 chosen per shape, else the K slices to force), 'transpose_odd_path' (1, the default: 1- and 2-byte\n"
"rows that do not start on a 4-byte boundary move as whole words re-aligned in registers; 0: element\nby element, as before), 'transpose_skinny' (16, the default since session 61: 15 with case B of cols 2..4 (uint8) / 2..8 (2-byte) on\nilv.cu's de-interleave;\n15: 14 with 2-byte case A of rows 65..84 and 129..144 on skinny_strip.cuh; 14 (session 58's): 13 with case A of rows <= 16 on transpose/ilv.cu's interleave; 13 (session 54's): 11 with 2-byte rows > cols = 65..128 on the tiled kernel; 11: 10 with 1-byte rows <= 84; 8 (session 43's): 7 and the lean case A; 7: 3 and 6's 2-byte rows > cols; 3: for 1- and 2-byte "
"elements with short sides up to 64, the register-transpose kernel (skinny_prmt) where it fits, else the "
"word-wise one; 2: the word-wise skinny kernel alone there; 1: the element-wise skinny kernel alone; 0: the tiled "
"kernel always; 4: as 3 and skinny_prmt for short sides 65..256 too, case A with any rows; 5: as 3 and "
"skinny_prmt for every rows <= cols up to 64 (rows * esz off words too); 6: as 4 for short sides 65..128 only; 7: "
"as 6 for 2-byte elements with rows > cols only; 8: as 7 and rows <= cols on skinny_lean; 9: as 8 where 7 runs skinny_vec only; 10: as 8 and rows <= cols with\nrows 17..127 (1 byte) / 17..64 (2 bytes) on skinny_strip, full-height strips; 12: as 11 and rows > cols = 17..64 with packed rows on skinny_strip_b), 'transpose_group' (the tiled kernel's raster: -1, "
"the default since session 52, by shape -- groups of 8 tile rows walked column by column, or whole tile columns; 0 row-major; any G up to 65536), 'transpose_sector' "
"(4, the default since session 50: the tiled kernel writes each output row from its first 32-byte sector on, whole "
"aligned words, for a single uint8 matrix of at least 16 MiB whose sides both span at least 1.5 KB and single float32 "
"ones with sides of at least 1 KB; 3: the uint8 ones alone; 0: never; 1: 4-byte elements whose output pitch is at least 2 "
"KB; 2: 1-, 2- and 4-byte elements at any pitch; 5: 3's gate for uint8 and float16 matrices, on the sector kernel "
"that loads its band last (64 registers, no spill); 6: 5 and batches, each matrix's sides by 3's rule and the "
"whole call at least 16 MiB; 7 (tests): as 2, the uint8 and float16 ones on that kernel), 'transpose_mid' (2, the "
"default since session 43: the lean paths; 0: the 1- and 2-byte tiled kernel's edge tiles move element by element; 1: as whole words clipped to the "
"matrix where the rows' columns are contiguous; 2: transpose/lean.cuh's paths), 'transpose_shift' (0, the default: none; 1: the 1- and 2-byte "
"tiled kernel's tiles that would cross the matrix's last row or column move inward to end on it, interior tiles "
"overlapping a neighbour; 2: every width), 'transpose_copy' (2, the default since session 44: 1 x n and n x 1 matrices whose elements are contiguous move as a copy (transpose/copy.cuh); 1: 1- and 2-byte ones only; 0: never), 'transpose_flat' (1, the default since session 50: 4- and 8-byte matrices with rows = 33..64 <= cols on transpose/skinny_flat.cuh; 2: both cases and short sides to 128; 0: never), 'transpose_gather' (3, the default since session 53: 1- and 2-byte tiled matrices with packed rows, both sides >= 128 bytes, a pitch off words and output rows of >= 1024 bytes on transpose/gather.cuh, a byte gather from raw rows, and since session 59 rows > cols with input rows of 64..127 bytes; its tile 256 rows where the call moves >= 128 MiB or the rows are under 128 bytes, else 128 (session 55); 2: every pitch off words; 1: every such matrix; 4: 1 and rows > cols with input rows of 64..127 bytes; 0: never; 11-14 / 21-24: levels 1-4 with 256- / 128-row tiles always), 'transpose_tune' (1, the default since session 51: with smemkit.autotune() on and every other transpose knob at its default, the first call of a shape whose path those leave open times the open paths and caches the fastest per device, csrc/transpose/tune.cu; 0: the defaults' own path),\n"
"'gemm16_variant' (0 the shipped default, else a forced tensor-core GEMM\n"
"variant of bench_configs('gemm'), for gemm() on 2-byte inputs), 'gemm16_matvec' (variant 0's\n"
"memory-bound path, csrc/gemm16/matvec.h: 1 automatic, the default; 0 off; 2 / 3 / 4 forced ROWS / COLS\n"
"/ MMA, 5 / 6 forced SKINNY where N <= 32 / SKINNY_M where M <= 32, 7 forced TALL where N <= 8, 8 forced MROW where M <= 8), 'gemm16_mv_kmax' (the MMA kernel's K bound, 16 .. 128, default 32; 0: the routing before it),\n'gemm16_mv_v16' (1, the default: the MMA kernel stores 16 bytes per lane where D allows; 0: 4-byte pairs),\n"
"'gemm16_mv_skinny' (bits, 82 the default since session 44 (2 before); 0: off; 1: the SKINNY kernel (A streamed once, K split across\n"
"blocks) for 9 <= N <= 32, M > 8, K > 16 where the MMA kernel does not take the shape; 2: SKINNY for N <= 8\n"
"with M > 8, K > 16 (COLS's); 4: SKINNY_M (B streamed) for 9 <= M <= 32, N > 32, K > 16; 8: SKINNY's\n"
"B fragments by 4-byte loads + movmatrix where B's rows start on 4 bytes; 16: TALL for N <= 8, M >= 1024, K > 16 before SKINNY (csrc/gemm16/matvec_tall.h:\n" "16-row warps, a 4-group ring, K slices summed in the block, one launch; 18 = 2 + it); 32: TALL's second chunks by quad shuffles, 6 groups in flight, 50 = 18 + it; 64: TALL only where M >= 4096, 40 < K <= 768, 82 = 18 + it),\n"
"'gemm16_mv_level' (bits, 1855 the default since session 45 (319 + bits 512, 1024: MROW); 319 session 42's (63 + bit 256); 63 session 41's (15 + bits 4, 5); 7 session 40's; 3 session 39's; 0: neither; 1: ROWS in 8-warp blocks that sum their K slices in-kernel,\n"
"one launch where that is enough (matvec.h smk_mv_rows_fused); 2: TINYK's block width by N; 4: the small-call\n"
"latency rules: N <= 8, K <= kmax to the MMA kernel, SKINNY on a small A in 8-warp blocks that sum K in-kernel\n"
"(smk_mv_skinny_fused), the 8-warp blocks' sums spread over their warps; 7: all; 8 (with 4): the 8-warp\n"
"SKINNY only where every warp has a K slice or the 4-warp grid leaves most SMs idle (smk_mv_skinny_fused_pays),\n"
"else the 4-warp SKINNY as at 3; 15: all (the default: session 41's A/B); 16 (with 1, sm_90): ROWS' short K slices in thread-block\n"
"clusters of 2 .. 8 8-warp blocks that sum them in-kernel (smk_mv_rows_cluster: B <= 8 MiB, one launch); 31 = 15 + it;\n"
"32 (with 1): the fused ROWS' K groups G rounded down to one wave of resident blocks (smk_mv_rows_fused_at); 63 = 31 + it;\n"
"64: ROWS' narrow outputs (M <= 8, N <= 124, K > 16) to SKINNY_M (smk_mv_narrow_takes); 127 = 63 + it;\n"
"128: TINYK as TINYK16, D in aligned 16-byte row chunks where D is 2-byte and C is not read (gemm16_tinyk.cu); 191 = 63 + it;\n"
"256: the MMA kernel's D in aligned 16-byte row chunks at any ldd / offset (K <= 32) and TINYK's shapes to it\n"
"(matvec.h smk_mv_chunks_takes); 319 = 63 + it; 512: M <= 8 calls whose ROWS route pays a reduce launch to MROW (matvec_mrow.h:\n" "tensor cores, B in 16-byte row chunks over one wave); 831 = 319 + it; 1024 (with 512): every M <= 8 to MROW; 1855),\n"
"'gemm16_kernel' (0 the mma.sync kernel; 1 the sm_90a TMA + wgmma kernel where it can run, else\n"
"mma.sync; 2 auto: wgmma where smk_gemm16_kernel_for's grid rule takes the shape; 3 (session 38's default) auto\n"
"with unaligned rows too: wgmma on padded copies of them where smk_wgmma_auto_padded says the copies pay;\n"
"4 wgmma wherever its layout runs, unaligned rows through padded copies; 5 as 3 by the cost model alone,\n"
"smk_wgmma_auto_cost, aligned rows included; 6 as 3, and K of 64..255 where B's rows are aligned\n"
"(hopper/wgmma_mode.c wgmma_auto_mid; the default since session 42)),\n"
"'gemm16_epi' (the mma.sync kernel's epilogue: 0 from registers; 1 (session 38's default) staged through shared\n"
"memory and stored as aligned 16-byte row chunks where D is 2-byte, beta == 0 and D's pairs are not 4-byte\n"
"aligned or K <= 64; 2 staged wherever D is 2-byte and beta == 0; 3: 1, and variant 0's K <= 16 outputs of\n"
"M N >= 2^20, K >= 4 on the tiles in place of the TINYK kernel; 4, the default since session 42: 1, and K <= 256 with N >= 512 (api/gemm16_epi.h)),\n"
"'sgemm_new_paths' (11, the default since session 39: 7 and 9's short tile, without 8's matvec rows or 10's prices; 10, opt-in: 9 and the padded path wherever it beats the scalar path's price; 9, opt-in: 8 and the short 32x128x16 tile past M = 32 where M mod 64 is 1..32; 8, opt-in: 7 and the matrix-vector rows matvec-m2 / -m4 / -m8 for M <= 8; 7 (the default before session 39): 6 with the skinny-n/pf rows' scalar A loads allocating in L1; 6: 5\n"
"with skinny-n priced by waves of latency-bound blocks, its own K split and no skinny-n below one k-tile of K; 5: 4 and the prefetching rows skinny-m/pf, skinny-m4/pf,\n"
"skinny-n/pf in place of skinny-m, skinny-n; 4: 3 and the short tile for 8 < M <= 16, no skinny-n for K <= 16; 3: issue\n"
"27's paths before those; 2: without the short 32x128x16 tile for\n"
"M <= 32, the split of under-filled skinny-n grids and the tiny-K row by fill; 2 still has the\n"
"matrix-vector rows skinny-m16 / skinny-m32 and one M tile per skinny-m launch; 1: without those (the SGEMM's skinny kernels stream rows that are\n"
"not 16-byte aligned as re-aligned float4, K <= 16 may take the tiny-K kernel, the padded tile path);\n"
"0: the paths before issue 27),\n"
"'pdl' (0, the default: split-K reductions launch after their GEMM; 1: as programmatic dependent\nlaunches on sm_90, overlapping the GEMM's tail, whose wait a profiler counts as device time),\n"
"'splitk_fixup' (0, the default: split-K's partial tiles summed by a separate reduction kernel; 1: by the\n"
"last-arriving block of each tile inside the SGEMM tile kernel (sgemm/fixup.cuh) or the tensor-core GEMM's\n"
"mma.sync kernel (gemm16/fixup.cuh) where smk_sgemm_fixup_gate / smk_gemm16_fixup_gate say its serial chain\n"
"is short; 2: on every such split launch whose tiles fit the counters, for tests; 3: on sm_90, split\n"
"launches of 2..8 slices as thread-block clusters whose blocks sum the tile together, the separate\n"
"kernel elsewhere),\n"
"'sgemm_epi' (the SGEMM tile kernel's epilogue: 0 from registers; 1, the default, staged through shared\n"
"memory and stored as whole rows (sgemm/epilogue_staged.cuh) where smk_sgemm_epi_gate says: K <= 64 per\n"
"block, M N >= 2^19, output rows not all on 128-byte lines; 2 staged on every tile launch (tests); 3 staged\n"
"where K <= 256 and M N >= 2^19, any rows (probes)),\n"
"'sgemm_deep' (the SGEMM tile kernel's load pipeline: 0 two stages through registers (sgemm/tile.cuh);\n"
"1 the BK = 16 rows' deep pipeline (sgemm/tile_deep.cuh: 4 shared stages filled by cp.async, 3 k-tiles of loads in\n"
"flight) where smk_sgemm_deep_gate says: K > 16 per block and at most 2 blocks per SM; 2: at most 4 blocks per SM;\n"
"3: as 1, with 64x64x16's launches on the deep 32x64x16 half tile (sgemm/deep.h); 4: every launch of those rows\n"
"(tests); 5: as 4, 64x64x16's on the half tile (tests); 6, the default: as 3 where N >= 32 (its own conflict-free A tile in swizzle: sgemm/deep.h)),\n"
"'sgemm_tinyk' (the SGEMM tiny-K kernel: 0 sgemm/tinyk.cuh; 1, the default, its lean variant (sgemm/tinyk_lean.cuh:\n"
"per-lane pointers computed once, the register panel as deep as the K slice, 1..16; D bit for bit the same)),\n"
"'sgemm_narrow' (the SGEMM chooser's narrow-N rows: 0, the default, as before; 1 skinny-n16 / skinny-n32\n(sgemm/skinny_n.cuh: one 16- / 32-column N tile, A streamed once) offered for 8 < N <= 32, priced by waves),\n"
"'sgemm_redchain' (the SGEMM chooser's price of a K split's reduction: 0 its bytes and launch; 1, the default, also\n"
"its lanes' chain of dependent slice loads, ~1.8 us per round trip past the first (sgemm/choose.cu)),\n'sgemm_model' (the SGEMM chooser's price of the tile rows: 0, the default, as before (sgemm/choose.cu); 1 on the mid class\n(M, N > 32, K > 16) the level-1 price fitted to the H100 tile grid: rounds of resident blocks, the deep kernel's launches, a split's\nmeasured price, every tile row offered (sgemm/choose_fit.cu)),\n'sgemm_gemv' (4, the default since session 44; 3: as 1 for N == 1 alone; 0 off; 1: automatic SGEMM calls with M == 1 or N == 1 on the matrix-vector kernels, sgemm/gemv.cuh: issue 27, a K split summed by sgemm/reduce.cuh; 2: as 1, the split summed in the kernel by its last block per grid column; 3: as 1 for N == 1 alone; 4: as 3 for N == 1, and calls with M <= 4 (N > 1) on the wide kernel, sgemm/gemv_wide.cuh, its K split summed in the kernel; 5: as 4 for M == 1 alone; 6: as 4, its K split summed by sgemm/reduce.cuh; 7: as 4, the fused tail's count one acq_rel atomic, no device-wide fence),\n"
"'sgemm_rows_n' (the SGEMM's narrow-N rows route, session 44: 0, the default, off; 1 automatic calls with\n9 <= N <= 32, M >= 1024, K >= 17 on sgemm/rows_n.cuh: A streamed once, B's K slice in shared memory; 2 as 1\nfor 2 <= N <= 32; 3 as 1 with 4, 2 or 1 rows of A a warp by\nsgemm/rows_n.cu's price; 4 as 3 with the rows a warp by the warps alone),\n"
"'splitk_fence' (1, the default: the fused reduction's blocks count after a barrier and one device-wide\nfence each; 0: a fence in every thread, session 39's protocol),\n"
"'gemm16_staged' (variant 0's 64x64 tiles on rows read in place: 0 one k-tile of loads in\n"
"flight per block; 1, the default: 4 k-tiles (gemm16/load_deep.cuh, one block per SM) where smk_gemm16_staged_deep says:\n"
"grid within a wave, >= 2 k-tiles per slice; 2: 1, and the chooser's K split of <= 8 k-tiles dropped there;\n"
"3 (tests): the deep path on every in-place 64x64 launch, forced variant 9 included),\n"
"'gemm16_shortk' (variant 0's short-K tiles: 0 as the chooser models; 1, the default: its one-slice, uncopied\n"
"128x256 and 128x128 one-block-per-SM choices with K <= 64 retiled to 128x128 at 2 blocks per SM, or 64x64 where\n"
"that grid is within one block per SM (gemm16_choose.c shortk_retile)),\n'gemm16_small' (1, the default since session 43; 0: variant 0's in-place 64x64 launches as they are; 1 on the 32x64 half tile\n(gemm16/small.h) where api/gemm16_small.h smk_gemm16_small_tile says: its grid within a wave; 2 (tests) every one; 3, 4: 1, 2 with 16-byte loads, deep 64x64 too),\n'gemm16_narrow_async' (1, the default since session 45; 3 (session 44's): 1 on split slices >= 512 deep; 0: variant 0's rows read in place through registers;\n1: rows aligned to 4 / 8 bytes copied by 4- / 8-byte cp.async (gemm16/load_narrow.cuh) on the K-heavy in-place launches\n(api/gemm16.h smk_gemm16_narrow); 2: on every in-place launch, forced variants too),\n'gemm16_pick' (0: the cost model's; V * 1000 + S: chooser tile variant V with S K slices forced, api/gemm16_pick.h).");
static PyObject *py_set_knob(PyObject *module, PyObject *args)
{
    const char *name = NULL;
    int v = 0;
    if (!PyArg_ParseTuple(args, "si:_set_knob", &name, &v))
        return NULL;
    if (strcmp(name, "poison") == 0)
        smk_rt_set_poison(v);
    else if (strcmp(name, "host_mode") == 0 && smk_host_set_mode(v) == 0)
        ;
    else if (strcmp(name, "staging_cap_mib") == 0 && v >= 0 && v <= 65536) {
        Py_BEGIN_ALLOW_THREADS
        smk_stage_set_cap((size_t)v << 20);
        Py_END_ALLOW_THREADS
    }
    else if (strcmp(name, "sgemm_config") == 0 && v >= 0 && v < smk_sgemm_num_configs())
        smk_py_sgemm_config = v;
    else if (strcmp(name, "sgemm_splits") == 0 && v >= 0 && v <= 65535)
        smk_py_sgemm_splits = v;
    else if (strcmp(name, "transpose_odd_path") == 0 && (v == 0 || v == 1))
        smk_transpose_set_odd_path(v);
    else if (strcmp(name, "sgemm_new_paths") == 0 && v >= 0 && v <= 11)
        smk_sgemm_set_new_paths(v);
    else if (strcmp(name, "pdl") == 0 && (v == 0 || v == 1))
        smk_rt_set_pdl(v);
    else if (strcmp(name, "splitk_fixup") == 0 && v >= 0 && v <= 3)
        smk_sgemm_set_fixup(v);
    else if (strcmp(name, "sgemm_epi") == 0 && v >= 0 && v <= 3)
        smk_sgemm_set_epi(v);
    else if (strcmp(name, "sgemm_deep") == 0 && v >= 0 && v <= 6)
        smk_sgemm_set_deep(v);
    else if ((strcmp(name, "sgemm_narrow") == 0 && (v == 0 || v == 1)) || (strcmp(name, "sgemm_gemv") == 0 && v >= 0 && v <= 7))
        (strcmp(name, "sgemm_gemv") == 0 ? smk_sgemm_set_gemv : smk_sgemm_set_narrow)(v);
    else if ((strcmp(name, "sgemm_redchain") == 0 && (v == 0 || v == 1)) || (strcmp(name, "sgemm_rows_n") == 0 && v >= 0 && v <= 4))
        (strcmp(name, "sgemm_rows_n") == 0 ? smk_sgemm_set_rows_n : smk_sgemm_set_redchain)(v);
    else if ((strcmp(name, "sgemm_tinyk") == 0 || strcmp(name, "sgemm_model") == 0) && (v == 0 || v == 1))
        (strcmp(name, "sgemm_model") == 0 ? smk_sgemm_set_model : smk_sgemm_set_tinyk)(v);
    else if (strcmp(name, "splitk_fence") == 0 && (v == 0 || v == 1))
        smk_splitk_set_fence(v);
    else if (strcmp(name, "transpose_skinny") == 0 && v >= 0 && v <= 16)
        smk_transpose_set_skinny(v);
    else if (strcmp(name, "transpose_group") == 0 && v >= -1 && v <= 65536)
        smk_transpose_set_raster_group(v);
    else if ((strcmp(name, "transpose_sector") == 0 && v >= 0 && v <= 7) || (strcmp(name, "transpose_gather") == 0 && v >= 0 && v <= 24 && v % 10 <= 4 && (v < 10 || v % 10)))
        (strcmp(name, "transpose_sector") == 0 ? smk_transpose_set_sector : smk_transpose_set_gather)(v);
    else if ((strcmp(name, "transpose_mid") == 0 || strcmp(name, "transpose_shift") == 0) && v >= 0 && v <= 2)
        (strcmp(name, "transpose_mid") == 0 ? smk_transpose_set_mid : smk_transpose_set_shift)(v);
    else if ((strcmp(name, "transpose_copy") == 0 || strcmp(name, "transpose_flat") == 0) && v >= 0 && v <= 2)
        (strcmp(name, "transpose_copy") == 0 ? smk_transpose_set_copy : smk_transpose_set_flat)(v);
    else if (strcmp(name, "transpose_tune") == 0 && (v == 0 || v == 1))
        smk_transpose_set_tune(v);
    else if (strcmp(name, "gemm16_variant") == 0 && v >= 0 && v < smk_gemm16_num_variants())
        smk_py_gemm16_variant = v;
    else if ((strcmp(name, "gemm16_matvec") == 0 && smk_gemm16_set_matvec(v) == 0) ||
             (strcmp(name, "gemm16_mv_kmax") == 0 && smk_gemm16_set_mv_kmax(v) == 0))
        ;
    else if ((strcmp(name, "gemm16_mv_v16") == 0 && smk_gemm16_set_mv_v16(v) == 0) ||
             (strcmp(name, "gemm16_mv_skinny") == 0 && smk_gemm16_set_mv_skinny(v) == 0) ||
             (strcmp(name, "gemm16_mv_level") == 0 && smk_gemm16_set_mv_level(v) == 0))
        ;
    else if ((strcmp(name, "gemm16_kernel") == 0 && smk_gemm16_set_kernel(v) == 0) ||
             (strcmp(name, "gemm16_epi") == 0 && smk_gemm16_set_epi(v) == 0))
        ;
    else if ((strcmp(name, "gemm16_staged") == 0 && smk_gemm16_set_staged(v) == 0) ||
             (strcmp(name, "gemm16_pick") == 0 && smk_gemm16_set_pick(v) == 0) ||
             (strcmp(name, "gemm16_narrow_async") == 0 && smk_gemm16_set_narrow_async(v) == 0) ||
             (strcmp(name, "gemm16_shortk") == 0 && smk_gemm16_set_shortk(v) == 0) ||
             (strcmp(name, "gemm16_small") == 0 && smk_gemm16_set_small(v) == 0))
        ;
    else
        return PyErr_Format(PyExc_ValueError, "_set_knob(): bad knob %s=%d", name, v);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(sgemm_choose_doc,
"_sgemm_choose(M, N, K, sms, /)\n--\n\n"
"(config name, splits): the tile config and K slices smk_sgemm_launch chooses for an M x N x K\n"
"SGEMM on a device with `sms` SMs (smk_sgemm_choose, a pure function: no GPU needed).");
static PyObject *py_sgemm_choose(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int sms = 0;
    smk_sgemm_choice ch;
    if (!PyArg_ParseTuple(args, "LLLi:_sgemm_choose", &M, &N, &K, &sms))
        return NULL;
    if (smk_sgemm_choose(M, N, K, sms, &ch) != 0)
        return PyErr_Format(PyExc_ValueError, "_sgemm_choose(): M, N, K must be >= 0 and sms >= 1; got %lld, %lld, "
                            "%lld, %d", M, N, K, sms);
    return Py_BuildValue("si", smk_sgemm_config_name(ch.config), ch.splits);
}

PyDoc_STRVAR(sgemm_fixup_gate_doc,
"_sgemm_fixup_gate(M, N, S, config, knob, /)\n--\n\n"
"1 where an SGEMM split launch of tile config number `config` over S K slices of an M x N output reduces\n"
"in the tile kernel's last block (fused fixup) at splitk_fixup level `knob`, 2 where the tile's blocks run\n"
"as one cluster and reduce it together (level 3; the launcher also wants sm_90), 0 where the separate\n"
"reduction runs (smk_sgemm_fixup_gate, a pure function: no GPU needed).");
/* Both fixup gates take (M, N, S, config or variant, knob) and answer 0 / 1 / 2 (csrc/api/splitk.h). */
static PyObject *fixup_gate_call(PyObject *args, const char *format, int (*gate)(int64_t, int64_t, int, int, int))
{
    long long M = 0, N = 0;
    int S = 0, which = 0, knob = 0;
    if (!PyArg_ParseTuple(args, format, &M, &N, &S, &which, &knob))
        return NULL;
    return PyLong_FromLong(gate(M, N, S, which, knob));
}

static PyObject *py_sgemm_fixup_gate(PyObject *module, PyObject *args)
{
    return fixup_gate_call(args, "LLiii:_sgemm_fixup_gate", smk_sgemm_fixup_gate);
}

PyDoc_STRVAR(sgemm_epi_gate_doc,
"_sgemm_epi_gate(M, N, K, rows, config, knob, /)\n--\n\n"
"1 where an SGEMM tile launch of config number `config` over an M x N output, K deep per block, whose output\n"
"rows are `rows` (2 all on 128-byte lines, 1 on 16 bytes, 0 neither) stores through shared memory at\n"
"sgemm_epi level `knob` (smk_sgemm_epi_gate, a pure function: no GPU needed).");
static PyObject *py_sgemm_epi_gate(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int rows = 0, config = 0, knob = 0;
    if (!PyArg_ParseTuple(args, "LLLiii:_sgemm_epi_gate", &M, &N, &K, &rows, &config, &knob))
        return NULL;
    return PyLong_FromLong(smk_sgemm_epi_gate(M, N, K, rows, config, knob));
}

PyDoc_STRVAR(sgemm_deep_gate_doc,
"_sgemm_deep_gate(M, N, K, splits, config, sms, knob, /)\n--\n\n"
"1 where an SGEMM tile launch of config number `config` over an M x N output, K deep per block, in `splits` K\n"
"slices on `sms` SMs runs the deep cp.async pipeline (sgemm/tile_deep.cuh) of its own tile at sgemm_deep level\n"
"`knob`, 2 of the 32x64x16 half tile, 0 neither (smk_sgemm_deep_gate, a pure function: no GPU needed).");
static PyObject *py_sgemm_deep_gate(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int splits = 0, config = 0, sms = 0, knob = 0;
    if (!PyArg_ParseTuple(args, "LLLiiii:_sgemm_deep_gate", &M, &N, &K, &splits, &config, &sms, &knob))
        return NULL;
    return PyLong_FromLong(smk_sgemm_deep_gate(M, N, K, splits, config, sms, knob));
}

PyDoc_STRVAR(gemm16_fixup_gate_doc,
"_gemm16_fixup_gate(M, N, S, variant, knob, /)\n--\n\n"
"1 where a tensor-core GEMM split launch of variant `variant` (1..) over S K slices of an M x N output\n"
"reduces in the mma.sync kernel's last block (fused fixup) at splitk_fixup level `knob`, 2 where the\n"
"tile's blocks run as one cluster and reduce it together (level 3; the launcher also wants sm_90), else 0\n"
"(pure: no GPU needed).");
static PyObject *py_gemm16_fixup_gate(PyObject *module, PyObject *args)
{
    return fixup_gate_call(args, "LLiii:_gemm16_fixup_gate", smk_gemm16_fixup_gate);
}

PyDoc_STRVAR(sgemm_pad_choice_doc,
"_sgemm_pad_choice(M, N, K, sms, a_aligned, b_aligned, dc_aligned, /)\n--\n\n"
"The padded path smk_sgemm_launch takes for the automatic choice on rows off 16 bytes: a mask, 1 A and\n"
"2 B copied to 16-byte rows, 4 D through the aligned workspace and reduction; 0 none (a pure function).");
static PyObject *py_sgemm_pad_choice(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int sms = 0, a = 0, b = 0, dc = 0, mask = 0;
    if (!PyArg_ParseTuple(args, "LLLippp:_sgemm_pad_choice", &M, &N, &K, &sms, &a, &b, &dc))
        return NULL;
    if (smk_sgemm_pad_choice(M, N, K, sms, a, b, dc, &mask) != 0)
        return PyErr_Format(PyExc_ValueError, "_sgemm_pad_choice(): M, N, K must be >= 0 and sms >= 1");
    return PyLong_FromLong(mask);
}

PyDoc_STRVAR(configs_doc, "_configs(op, /)\n--\n\nThe tile configurations compiled in for op: 'transpose' -> "
             "[(tile, block_rows), ...] (index 0 ships; (0, 0): the skinny kernel, tiled by shape), 'sgemm' -> [name, ...] (index 0: chosen per shape).");
static PyObject *py_configs(PyObject *module, PyObject *arg)
{
    const int sg = PyUnicode_Check(arg) && PyUnicode_CompareWithASCIIString(arg, "sgemm") == 0;
    const int g16 = PyUnicode_Check(arg) && PyUnicode_CompareWithASCIIString(arg, "gemm") == 0;
    const int n = sg ? smk_sgemm_num_configs() : g16 ? smk_gemm16_num_variants() : smk_transpose_num_variants();
    PyObject *lst = NULL;
    int i, tile = 0, rows = 0;
    if (!sg && !g16 && !(PyUnicode_Check(arg) && PyUnicode_CompareWithASCIIString(arg, "transpose") == 0))
        return PyErr_Format(PyExc_ValueError, "_configs(): op must be 'transpose', 'sgemm' or 'gemm'");
    lst = PyList_New(n);
    for (i = 0; lst && i < n; i++) {
        if (!sg && !g16)
            smk_transpose_variant_geometry(i, &tile, &rows);
        PyList_SET_ITEM(lst, i, sg ? PyUnicode_FromString(smk_sgemm_config_name(i))
                                : g16 ? PyUnicode_FromString(smk_gemm16_variant_name(i)) : Py_BuildValue("ii", tile, rows));
    }
    if (lst && PyErr_Occurred())
        Py_CLEAR(lst);
    return lst;
}

PyDoc_STRVAR(wgmma_mode_doc,
"_wgmma_mode(layout, b, m, s, /)\n--\n\n"
"The wgmma kernel's swizzle width in bytes (128, 64, 32; 0 = interleaved, no swizzle) for a layout\n"
"index (0 naive, 1 pad, 2 swizzle) and Swizzle(b, m, s) (0, 0, 0: the layout's own), or -1 where TMA\n"
"and wgmma cannot express it (smk_wgmma_mode; pure, no GPU).");
static PyObject *py_wgmma_mode(PyObject *module, PyObject *args)
{
    int layout = 0, b = 0, m = 0, s = 0;
    if (!PyArg_ParseTuple(args, "iiii:_wgmma_mode", &layout, &b, &m, &s))
        return NULL;
    return PyLong_FromLong(smk_wgmma_mode(layout, b, m, s));
}

PyDoc_STRVAR(wgmma_launches_doc,
"_wgmma_launches()\n--\n\n"
"How many TMA + wgmma kernels this process has enqueued (tests check the kernel they mean ran).");
static PyObject *py_wgmma_launches(PyObject *module, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(smk_wgmma_launches());
}

PyDoc_STRVAR(wgmma_descs_doc,
"_wgmma_descs(swb, /)\n--\n\n"
"The 16 wgmma matrix descriptors of one k-tile of the wgmma kernel in mode swb (128, 64, 32, 0), as\n"
"its own a_desc / b_desc compute them for a stage at shared offset 0: item 2 * (4 * cw + kk) is A's,\n"
"the next B's, of consumer warpgroup cw and k16 step kk (smk_wgmma_descs; pure, no GPU).  ValueError\n"
"for another swb.");
static PyObject *py_wgmma_descs(PyObject *module, PyObject *arg)
{
    uint64_t d[16] = {0};
    PyObject *t = NULL;
    const long swb = PyLong_AsLong(arg);
    if (swb == -1 && PyErr_Occurred())
        return NULL;
    if (smk_wgmma_descs((int)swb, d) != 0) {
        PyErr_Format(PyExc_ValueError, "_wgmma_descs(): swb must be 128, 64, 32 or 0; got %ld", swb);
        return NULL;
    }
    t = PyTuple_New(16);
    for (int i = 0; t && i < 16; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(d[i]);
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

PyDoc_STRVAR(gemm16_kernel_for_doc,
"_gemm16_kernel_for(knob, variant, M, N, K, layout, b, m, s, rows_aligned, cc_major, cc_minor, sms,\n"
"                   b_rows_aligned=-1, /)\n--\n\n"
"1 where the tensor-core GEMM launcher runs the sm_90a wgmma kernel, 0 for mma.sync (smk_gemm16_kernel_for_ab;\n"
"pure, no GPU).  knob: 0 mma, 1 wgmma, 2 auto, 3 auto with padded copies of unaligned rows, 4 wgmma with\n"
"padded copies, 5 the cost model with padded copies, -1 the gemm16_kernel knob's current value.  rows_aligned: A's and B's rows both 16-byte\n"
"aligned, or (b_rows_aligned given, 0 / 1) A's alone.");
static PyObject *py_gemm16_kernel_for(PyObject *module, PyObject *args)
{
    int knob = 0, variant = 0, layout = 0, b = 0, m = 0, s = 0, aligned = 0, ccmaj = 0, ccmin = 0, sms = 0;
    int b_aligned = -1;
    long long M = 0, N = 0, K = 0;
    if (!PyArg_ParseTuple(args, "iiLLLiiiiiiii|i:_gemm16_kernel_for", &knob, &variant, &M, &N, &K, &layout, &b, &m,
                          &s, &aligned, &ccmaj, &ccmin, &sms, &b_aligned))
        return NULL;
    if (knob < 0)
        knob = smk_gemm16_kernel();
    return PyLong_FromLong(smk_gemm16_kernel_for_ab(knob, variant, M, N, K, layout, b, m, s, aligned,
                                                    b_aligned < 0 ? aligned : b_aligned, ccmaj, ccmin, sms));
}

PyMethodDef smk_tool_methods[] = {
    {"_wgmma_mode", py_wgmma_mode, METH_VARARGS, wgmma_mode_doc},
    {"_gemm16_kernel_for", py_gemm16_kernel_for, METH_VARARGS, gemm16_kernel_for_doc},
    {"_wgmma_launches", py_wgmma_launches, METH_NOARGS, wgmma_launches_doc},
    {"_wgmma_descs", py_wgmma_descs, METH_O, wgmma_descs_doc},
    {"_bench", SMK_KW(py_bench), bench_doc},
    {"_configs", py_configs, METH_O, configs_doc},
    {"_sgemm_choose", py_sgemm_choose, METH_VARARGS, sgemm_choose_doc},
    {"_sgemm_fixup_gate", py_sgemm_fixup_gate, METH_VARARGS, sgemm_fixup_gate_doc},
    {"_gemm16_fixup_gate", py_gemm16_fixup_gate, METH_VARARGS, gemm16_fixup_gate_doc},
    {"_sgemm_epi_gate", py_sgemm_epi_gate, METH_VARARGS, sgemm_epi_gate_doc},
    {"_sgemm_deep_gate", py_sgemm_deep_gate, METH_VARARGS, sgemm_deep_gate_doc},
    {"_sgemm_pad_choice", py_sgemm_pad_choice, METH_VARARGS, sgemm_pad_choice_doc},
    {"device_count", py_device_count, METH_NOARGS, device_count_doc},
    {"device_name", py_device_name, METH_NOARGS, device_name_doc},
    {"empty_cache", py_empty_cache, METH_NOARGS, empty_cache_doc},
    {"_staging_info", py_staging_info, METH_NOARGS, staging_info_doc},
    {"_device_info", py_device_info, METH_NOARGS, device_info_doc},
    {"_mem_info", py_mem_info, METH_NOARGS, mem_info_doc},
    {"_debug_fault", py_debug_fault, METH_NOARGS, debug_fault_doc},
    {"_set_knob", py_set_knob, METH_VARARGS, set_knob_doc},
    {NULL, NULL, 0, NULL},
};
