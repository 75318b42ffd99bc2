/*
 * module_tools.c -- the binding of smemkit's tools: the layout maps of csrc/layout.h, the CPU bank
 * model (bank_model.c), the kernels' access plans (explain), the timing loop (bench.c), device facts
 * and the test knobs.  Conversion only, as in module.c (which holds the module, its errors and the
 * ops); the work is in files that know no Python.
 */
#include "module.h"

#include <stdint.h>
#include <string.h>

#include "api/debug.h"
#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "bank_model.h"
#include "bench.h"
#include "host.h"
#include "hostpool.h"
#include "layout.h"
#include "runtime.h"

/* ---- argument converters shared with module.c ----------------------------------------------------- */

int smk_py_int_arg(PyObject *obj, const char *fname, const char *arg, long long lo, long long hi, long long *v)
{
    PyObject *i = NULL;
    long long x = 0;
    int over = 0;
    if (obj == NULL)
        return 0;
    if (PyBool_Check(obj) || !(i = PyNumber_Index(obj))) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): %s must be an int; got %.100s", fname, arg, Py_TYPE(obj)->tp_name);
        return -1;
    }
    x = PyLong_AsLongLongAndOverflow(i, &over);
    Py_DECREF(i);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (over) /* no %S: str() of a huge int can itself fail (sys.set_int_max_str_digits) */
        PyErr_Format(PyExc_ValueError, "%s(): %s must be in [%lld, %lld]; got a %s value past 64 bits", fname, arg,
                     lo, hi, over > 0 ? "positive" : "negative");
    else if (x < lo || x > hi)
        PyErr_Format(PyExc_ValueError, "%s(): %s must be in [%lld, %lld]; got %lld", fname, arg, lo, hi, x);
    else
        return *v = x, 0;
    return -1;
}

/* layout= of the tensor-core GEMM: a name, or a Swizzle (smemkit.Swizzle: int attributes b, m, s) that
 * the kernel instantiates.  0, or -1 with TypeError / ValueError set. */
int smk_py_parse_gemm_layout(PyObject *obj, const char *fname, int *layout, int swz[3])
{
    static const char *const attr[3] = {"b", "m", "s"};
    char list[160] = "";
    size_t used = 0;
    int i, b, m, sh;
    swz[0] = swz[1] = swz[2] = 0;
    if (!obj || obj == Py_None || PyUnicode_Check(obj))
        return smk_py_parse_layout(obj, fname, layout);
    for (i = 0; i < 3; i++) {
        PyObject *v = PyObject_GetAttrString(obj, attr[i]);
        long x = v && PyLong_Check(v) ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (x < 0 || x > 24) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s(): layout must be 'naive', 'pad', 'swizzle' or a smemkit.Swizzle; got "
                         "%.100s", fname, Py_TYPE(obj)->tp_name);
            return -1;
        }
        swz[i] = (int)x;
    }
    *layout = SMK_SWIZZLE;
    if (smk_gemm16_supports_swizzle(swz[0], swz[1], swz[2]) && (swz[0] || swz[1] || swz[2]))
        return 0;
    for (b = 1; b <= 4; b++)
        for (m = 0; m <= 4; m++)
            for (sh = 1; sh <= 6; sh++)
                if (smk_gemm16_supports_swizzle(b, m, sh) && used < sizeof list)
                    used += (size_t)snprintf(list + used, sizeof list - used, "%sSwizzle(%d, %d, %d)", used ? ", " : "",
                                             b, m, sh);
    PyErr_Format(PyExc_ValueError, "%s(): Swizzle(%d, %d, %d) is not compiled into the tensor-core GEMM; supported: %s",
                 fname, swz[0], swz[1], swz[2], list);
    return -1;
}

/* alpha / beta: a real number (bool excluded), named in the error. */
int smk_py_real_arg(PyObject *obj, const char *fname, const char *arg, double *v)
{
    if (obj == NULL)
        return 0;
    /* numpy.complex64 / numpy.bool_ are refused like complex / bool: float() would drop .imag silently */
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool) || PyComplex_Check(obj) ||
        PyArray_IsScalar(obj, ComplexFloating) || !PyNumber_Check(obj) || !(*v = PyFloat_AsDouble(obj), 1) ||
        (*v == -1.0 && PyErr_Occurred())) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) { /* an int past the double range: a value, not a type */
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s(): %s is too large to be a float", fname, arg);
            return -1;
        }
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a real number; got %.100s", fname, arg, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

/* The instruction kinds of smk_access.kind / SMK_BANK_KIND_*, as Python names them. */
static const char *const kInstr[SMK_BANK_NUM_KINDS] = {"ldst", "ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4",
                                                       "cp.async", "cp.async.zfill"};

/* ---- layout maps (CPU; the same functions the kernels use) ------------------------------------ */

/* A power of two in [1, hi], named in the error.  0, or -1 with an exception set. */
static int parse_pow2(PyObject *obj, const char *fname, const char *what, int hi, long long *v, int *log2v)
{
    if (smk_py_int_arg(obj, fname, what, 1, hi, v) < 0)
        return -1;
    if ((*v & (*v - 1)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s(): %s must be a power of two in [1, %d]; got %lld", fname, what, hi, *v);
        return -1;
    }
    *log2v = smk_ilog2((int)*v);
    return 0;
}

/* (layout, cols, vec, itemsize) -> smk_tile (automatic swizzle); vec and isz NULL: their defaults. */
static int parse_tile(PyObject *layout, PyObject *cols_obj, PyObject *vec_obj, PyObject *isz_obj, const char *fname,
                      smk_tile *t)
{
    long long cols = 0, vec = 1, isz = 4;
    memset(t, 0, sizeof *t);
    if (smk_py_parse_layout(layout, fname, &t->layout) < 0 ||
        parse_pow2(cols_obj, fname, "cols", 1 << 14, &cols, &t->log2_cols) < 0 ||
        (vec_obj && parse_pow2(vec_obj, fname, "vec", 16, &vec, &t->log2_vec) < 0) ||
        (isz_obj && parse_pow2(isz_obj, fname, "itemsize", 16, &isz, &t->log2_esz) < 0))
        return -1;
    if (!isz_obj)
        t->log2_esz = 2;
    if (vec > cols) {
        PyErr_Format(PyExc_ValueError, "%s(): vec (%lld) must not exceed cols (%lld)", fname, vec, cols);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(tile_offsets_doc,
"_tile_offsets(layout, rows, cols, vec=1, itemsize=4, *, fname='tile_offsets')\n--\n\n"
"(offsets int64 (rows, cols), storage_elems): the element offset in shared storage of each logical\n"
"(r, c), from csrc/layout.h's smk_tile_offset (the function the kernels call).  Errors name `fname`\n"
"(the public function that called).");

static PyObject *py_tile_offsets(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"layout", "rows", "cols", "vec", "itemsize", "fname", NULL};
    PyObject *layout = NULL, *rows_obj = NULL, *cols_obj = NULL, *vec_obj = NULL, *isz_obj = NULL, *out = NULL;
    const char *fname = "tile_offsets";
    long long rows = 0, cols, r, c;
    npy_intp dims[2];
    smk_tile t;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|OO$s:_tile_offsets", kwlist, &layout, &rows_obj, &cols_obj,
                                     &vec_obj, &isz_obj, &fname) ||
        parse_tile(layout, cols_obj, vec_obj, isz_obj, fname, &t) < 0 ||
        smk_py_int_arg(rows_obj, fname, "rows", 1, 1 << 14, &rows) < 0)
        return NULL;
    cols = 1LL << t.log2_cols;
    dims[0] = (npy_intp)rows;
    dims[1] = (npy_intp)cols;
    out = PyArray_SimpleNew(2, dims, NPY_INT64);
    for (r = 0; out && r < rows; r++)
        for (c = 0; c < cols; c++)
            ((int64_t *)PyArray_DATA((PyArrayObject *)out))[r * cols + c] = smk_tile_offset(t, (int)r, (int)c);
    return out ? Py_BuildValue("Ni", out, smk_tile_elems(t, (int)rows)) : NULL;
}

PyDoc_STRVAR(tile_swizzle_doc,
"_tile_swizzle(cols, vec=1, itemsize=4)\n--\n\n"
"(B, M, S) of the Swizzle<B,M,S> the 'swizzle' layout uses for that row length, access width and\n"
"element size (csrc/layout.h smk_tile_swizzle).");

static PyObject *py_tile_swizzle(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cols", "vec", "itemsize", NULL};
    PyObject *cols = NULL, *vec = NULL, *isz = NULL;
    smk_tile t;
    smk_swz z;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO:_tile_swizzle", kwlist, &cols, &vec, &isz) ||
        parse_tile(NULL, cols, vec, isz, "_tile_swizzle", &t) < 0)
        return NULL;
    z = smk_tile_swizzle(t);
    return Py_BuildValue("iii", z.b, z.m, z.s);
}

PyDoc_STRVAR(swizzle_doc,
"_swizzle(offsets, b, m, s, /)\n--\n\n"
"Apply Swizzle<B,M,S> (csrc/layout.h smk_swizzle) to an array of offsets in [0, 2**31); returns an\n"
"int64 array of the same shape.  The parameters are validated by smemkit.Swizzle.");

static PyObject *py_swizzle(PyObject *module, PyObject *args)
{
    PyObject *obj = NULL;
    PyArrayObject *in = NULL, *out = NULL;
    int b = 0, m = 0, s = 0;
    npy_intp i, n;
    if (!PyArg_ParseTuple(args, "Oiii:_swizzle", &obj, &b, &m, &s))
        return NULL;
    in = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                                                               NPY_ARRAY_FORCECAST);
    out = in ? (PyArrayObject *)PyArray_NewLikeArray(in, NPY_CORDER, NULL, 0) : NULL;
    n = out ? PyArray_SIZE(in) : 0;
    for (i = 0; i < n; i++) {
        const int64_t v = ((const int64_t *)PyArray_DATA(in))[i];
        if (v < 0 || v > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "Swizzle offsets must be in [0, 2**31); got %lld", (long long)v);
            Py_CLEAR(out);
            break;
        }
        ((int64_t *)PyArray_DATA(out))[i] = smk_swizzle((int)v, b, m, s);
    }
    Py_XDECREF(in);
    return (PyObject *)out;
}

/* ---- bank model (CPU) ------------------------------------------------------------------------- */

PyDoc_STRVAR(bank_replay_doc,
"_bank_replay(addresses, width, kind, instr='ldst', sources=None, /)\n--\n\n"
"addresses: C-contiguous int64 array (n, 32) of byte offsets (negative = inactive lane), shaped by\n"
"smemkit.bank_model.  sources (instr 'cp.async' / 'cp.async.zfill'): the lanes' global byte offsets:\n"
"the LDGSTS rule (smk_bank_replay_ldgsts).  Returns (wavefronts, ideal): two int32 arrays of length n\n"
"(csrc/bank_model.c).");

static PyObject *py_bank_replay(PyObject *module, PyObject *args)
{
    PyArrayObject *a = NULL;
    PyObject *wf = NULL, *id = NULL, *src_obj = Py_None;
    PyArrayObject *g = NULL;
    const char *kind = NULL, *instr = "ldst";
    int width = 0, err = 0, k = 0;
    long long n, bad = -1, total;
    npy_intp dims[1];
    char msg[200];
    if (!PyArg_ParseTuple(args, "O!is|sO:_bank_replay", &PyArray_Type, &a, &width, &kind, &instr, &src_obj))
        return NULL;
    if (src_obj != Py_None) {
        if (!PyArray_Check(src_obj) || strncmp(instr, "cp.async", 8) != 0)
            return PyErr_Format(PyExc_ValueError, "_bank_replay(): sources are for instr 'cp.async' / 'cp.async.zfill', "
                                "as an int64 array");
        g = (PyArrayObject *)src_obj;
        if (PyArray_TYPE(g) != NPY_INT64 || PyArray_NDIM(g) != 2 || !PyArray_IS_C_CONTIGUOUS(g) ||
            !PyArray_ISALIGNED(g) || PyArray_NDIM(a) != 2 || PyArray_DIM(g, 0) != PyArray_DIM(a, 0) ||
            PyArray_DIM(g, 1) != SMK_WARP_LANES)
            return PyErr_Format(PyExc_ValueError, "_bank_replay(): sources must be an aligned C-contiguous int64 "
                                "array of the addresses' shape");
    }
    while (k < SMK_BANK_NUM_KINDS && strcmp(instr, kInstr[k]) != 0)
        k++;
    if (k == SMK_BANK_NUM_KINDS)
        return PyErr_Format(PyExc_ValueError, "_bank_replay(): unknown instruction kind '%s'", instr);
    if (PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != SMK_WARP_LANES ||
        !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || (strcmp(kind, "load") && strcmp(kind, "store")))
        return PyErr_Format(PyExc_ValueError, "_bank_replay(): need an aligned C-contiguous int64 (n, 32) array "
                            "and kind 'load' or 'store'");
    n = (long long)PyArray_DIM(a, 0);
    dims[0] = (npy_intp)n;
    wf = PyArray_SimpleNew(1, dims, NPY_INT32);
    id = wf ? PyArray_SimpleNew(1, dims, NPY_INT32) : NULL;
    if (!id)
        goto fail;
    Py_BEGIN_ALLOW_THREADS
    if (g)
        total = smk_bank_replay_ldgsts((const long long *)PyArray_DATA(a), (const long long *)PyArray_DATA(g), n,
                                       k == SMK_BANK_KIND_CPASYNC_ZFILL,
                                       (int *)PyArray_DATA((PyArrayObject *)wf), (int *)PyArray_DATA((PyArrayObject *)id),
                                       &bad, &err);
    else
        total = smk_bank_replay_kind((const long long *)PyArray_DATA(a), n, k, width, kind[0] == 's',
                                     (int *)PyArray_DATA((PyArrayObject *)wf), (int *)PyArray_DATA((PyArrayObject *)id),
                                     &bad, &err);
    Py_END_ALLOW_THREADS
    if (total >= 0)
        return Py_BuildValue("NN", wf, id);
    if (bad >= 0 && bad < n &&
        smk_bank_validate((const long long *)PyArray_DATA(a) + bad * SMK_WARP_LANES, width, kind[0] == 's', msg,
                          (int)sizeof msg) != SMK_BANK_OK)
        PyErr_Format(PyExc_ValueError, "instruction %lld: %s", bad, msg);
    else
        PyErr_Format(PyExc_ValueError, "instruction %lld: %s", bad, smk_bank_strerror(err));
fail:
    Py_XDECREF(wf);
    Py_XDECREF(id);
    return NULL;
}

PyDoc_STRVAR(bank_rule_doc,
"_bank_rule(width, kind, /)\n--\n\n"
"(pass_lanes, phase_lanes) of the model's rule for that access width and kind ('load' or 'store').");

static PyObject *py_bank_rule(PyObject *module, PyObject *args)
{
    const char *kind = NULL;
    int width = 0;
    smk_bank_rule rule;
    if (!PyArg_ParseTuple(args, "is:_bank_rule", &width, &kind))
        return NULL;
    if ((strcmp(kind, "load") && strcmp(kind, "store")) ||
        smk_bank_get_rule(width, kind[0] == 's', &rule) != SMK_BANK_OK)
        return PyErr_Format(PyExc_ValueError, "_bank_rule(): width must be 4, 8 or 16 and kind 'load' or 'store'");
    return Py_BuildValue("ii", rule.pass_lanes, rule.phase_lanes);
}

/* ---- access plans (CPU) ----------------------------------------------------------------------- */

/* op name and shape tuple -> SMK_OP_* and dims[] with entries in [lo, hi] (transpose: (rows, cols),
 * or with `batch` also (rows, cols, batch); sgemm: (M, N, K)); -1 with TypeError / ValueError set,
 * naming fname and the entry. */
static int parse_op_shape(const char *fname, const char *op, PyObject *shape, long long lo, long long hi, int batch,
                          int64_t dims[3])
{
    static const char *const kTr[3] = {"shape entry rows", "shape entry cols", "shape entry batch"};
    static const char *const kMm[3] = {"shape entry M", "shape entry N", "shape entry K"};
    const int is_gemm16 = strcmp(op, "gemm") == 0, is_sgemm = strcmp(op, "sgemm") == 0 || is_gemm16;
    Py_ssize_t i, n = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
    long long v = 0;
    if (!is_sgemm && strcmp(op, "transpose") != 0)
        return PyErr_Format(PyExc_ValueError, "%s(): op must be 'transpose', 'sgemm' or 'gemm'; got '%s'", fname,
                            op), -1;
    if (is_sgemm ? n != 3 : (n != 2 && (!batch || n != 3)))
        return PyErr_Format(PyExc_ValueError, "%s(): %s shape must be a tuple %s", fname, op,
                            is_sgemm ? "(M, N, K)" : batch ? "(rows, cols) or (rows, cols, batch)" : "(rows, cols)"), -1;
    dims[2] = 0;
    for (i = 0; i < n; i++) {
        if (smk_py_int_arg(PyTuple_GET_ITEM(shape, i), fname, (is_sgemm ? kMm : kTr)[i], lo, hi, &v) < 0)
            return -1;
        dims[i] = v;
    }
    return is_gemm16 ? SMK_OP_GEMM16 : is_sgemm ? SMK_OP_SGEMM : SMK_OP_TRANSPOSE;
}

static int fill_plan(int op, const int64_t *d, int layout, const int *swz, int isz, int sms, int config, int splits,
                     smk_plan *plan)
{
    if (op == SMK_OP_GEMM16)
        return smk_gemm16_plan(d[0], d[1], d[2], layout, swz[0], swz[1], swz[2], config, sms, plan);
    return op == SMK_OP_SGEMM ? smk_sgemm_plan(d[0], d[1], d[2], layout, sms, config, splits, plan)
                              : smk_transpose_plan(d[0], d[1], isz, layout, plan);
}


PyDoc_STRVAR(plan_doc,
"_plan(op, shape, layout, itemsize=4, sms=132, config=0, splits=0, *, swizzle=None)\n--\n\n"
"The shared-memory instructions of one block of the kernel `op` ('transpose' or 'sgemm') for a\n"
"problem of `shape`, replayed on the host by the kernel's own index code (sgemm: the tile config and\n"
"K split the launch would use on `sms` SMs, or the forced ones; repeats count every K slice's\n"
"blocks and the config string ends in ', splits S').  Returns a dict: config,\n"
"blocks, threads, smem_bytes, accesses = [(name, width, kind, repeats, addresses (n_instr, 32), instr,\n"
"sources)]: instr the instruction kind, sources the global byte offsets of a gemm cp.async (else None).");

static PyObject *py_plan(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"op", "shape", "layout", "itemsize", "sms", "config", "splits", "swizzle", NULL};
    const char *op = NULL;
    PyObject *shape = NULL, *layout_obj = NULL, *lst = NULL, *arrays[SMK_PLAN_MAX] = {NULL}, *garrays[SMK_PLAN_MAX] = {NULL};
    PyObject *isz_obj = NULL, *sms_obj = NULL, *config_obj = NULL, *splits_obj = NULL, *swz_obj = Py_None;
    int swz[3] = {0, 0, 0};
    int64_t dims[3];
    long long isz = 4, sms = 132, config = 0, splits = 0;
    int layout = 0, i, opk = 0;
    smk_plan plan;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|OOOO$O:_plan", kwlist, &op, &shape, &layout_obj, &isz_obj,
                                     &sms_obj, &config_obj, &splits_obj, &swz_obj) ||
        (swz_obj != Py_None && !PyArg_ParseTuple(swz_obj, "iii:swizzle", &swz[0], &swz[1], &swz[2])) ||
        smk_py_parse_layout(layout_obj, "explain", &layout) < 0 ||
        (opk = parse_op_shape("explain", op, shape, 0, INT32_MAX, 0, dims)) < 0 ||
        smk_py_int_arg(isz_obj, "explain", "itemsize", 1, 16, &isz) < 0 ||
        smk_py_int_arg(sms_obj, "explain", "sms", 1, 1 << 16, &sms) < 0 ||
        smk_py_int_arg(config_obj, "explain", "config", 0, INT32_MAX, &config) < 0 ||
        smk_py_int_arg(splits_obj, "explain", "splits", 0, INT32_MAX, &splits) < 0)
        return NULL;
    memset(&plan, 0, sizeof plan); /* pass 1: counts; pass 2: addresses into the arrays */
    if (fill_plan(opk, dims, layout, swz, (int)isz, (int)sms, (int)config, (int)splits, &plan) != 0)
        return PyErr_Format(PyExc_ValueError, "explain(): no plan for %s with itemsize=%lld, sms=%lld, config=%lld, "
                            "splits=%lld (config: an index of smemkit.bench_configs('%s'))", op, isz, sms, config, splits, op);
    for (i = 0; i < plan.n; i++) {
        npy_intp d[2] = {plan.acc[i].n_instr, 32};
        if (!(arrays[i] = PyArray_SimpleNew(2, d, NPY_INT64)))
            goto fail;
        plan.acc[i].addr = (long long *)PyArray_DATA((PyArrayObject *)arrays[i]);
        if ((plan.acc[i].kind == SMK_ACC_CPASYNC || plan.acc[i].kind == SMK_ACC_CPASYNC_ZFILL) && opk == SMK_OP_GEMM16) {
            if (!(garrays[i] = PyArray_SimpleNew(2, d, NPY_INT64)))
                goto fail;
            plan.acc[i].gaddr = (long long *)PyArray_DATA((PyArrayObject *)garrays[i]);
        }
    }
    (void)fill_plan(opk, dims, layout, swz, (int)isz, (int)sms, (int)config, (int)splits, &plan);
    if (!(lst = PyList_New(plan.n)))
        goto fail;
    for (i = 0; i < plan.n; i++) {
        const int k = plan.acc[i].kind >= 0 && plan.acc[i].kind < SMK_BANK_NUM_KINDS ? plan.acc[i].kind : 0;
        PyObject *t = Py_BuildValue("sisLNsN", plan.acc[i].name, plan.acc[i].width, plan.acc[i].is_store ? "store" : "load",
                                    plan.acc[i].repeats, arrays[i], kInstr[k], garrays[i] ? garrays[i] : Py_NewRef(Py_None));
        arrays[i] = garrays[i] = NULL;
        if (!t)
            goto fail;
        PyList_SET_ITEM(lst, i, t);
    }
    return Py_BuildValue("{s:s,s:L,s:i,s:i,s:N}", "config", plan.config, "blocks", plan.blocks, "threads",
                         plan.threads, "smem_bytes", plan.smem_bytes, "accesses", lst);
fail:
    for (i = 0; i < SMK_PLAN_MAX; i++) {
        Py_XDECREF(arrays[i]);
        Py_XDECREF(garrays[i]);
    }
    Py_XDECREF(lst);
    return NULL;
}

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
        (s.op = parse_op_shape("bench", op, shape, 1, (long long)1 << 40, 1, s.dims)) < 0 ||
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
        if (smk_py_parse_gemm_layout(PySequence_Fast_GET_ITEM(seq, i), "bench", &s.layouts[i], s.swz[i]) < 0)
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
             "pool (up to 1 GiB) to the driver, and its idle pinned host staging units (up to 128 MiB) to the "
             "system.  Without a usable GPU nothing is cached, and it does nothing.");
static PyObject *py_empty_cache(PyObject *module, PyObject *unused)
{
    smk_status st = {0, 0, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    smk_stage_trim();
    if (smk_rt_device_count() > 0)
        st = smk_rt_trim();
    Py_END_ALLOW_THREADS
    return st.code != SMK_OK ? smk_py_raise_status(module, st) : Py_NewRef(Py_None);
}

PyDoc_STRVAR(debug_fault_doc, "_debug_fault()\n--\n\nTesting aid: run a kernel that stores to an illegal address and "
             "synchronise.  Raises smemkit.CudaError (cudaErrorIllegalAddress) and leaves the CUDA context unusable: "
             "every later GPU call in this process raises too.  Only for tests, in a subprocess.");
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

PyObject *smk_py_cstr(const char *s)
{
    /* fname / arg are string literals: their addresses are stable, so a pointer-keyed table of interned
     * str saves building two str objects on every call (a small call's per-call cost).  Full: a new str. */
    static struct { const char *key; PyObject *str; } cache[32];
    int i;
    for (i = 0; i < 32 && cache[i].key; i++)
        if (cache[i].key == s)
            return Py_NewRef(cache[i].str);
    if (i < 32) {
        PyObject *str = PyUnicode_InternFromString(s);
        if (!str)
            return NULL;
        cache[i].str = Py_NewRef(str); /* kept for the process's life, as interned names are */
        cache[i].key = s;
        return str;
    }
    return PyUnicode_FromString(s);
}

PyObject *smk_py_torch_new_empty(PyObject *like, PyObject *shape, unsigned long long *ptr)
{
    static PyObject *new_empty = NULL, *data_ptr = NULL; /* interned once; the module keeps them */
    PyObject *res, *p;
    if (!new_empty && !(new_empty = PyUnicode_InternFromString("new_empty")))
        return NULL;
    if (!data_ptr && !(data_ptr = PyUnicode_InternFromString("data_ptr")))
        return NULL;
    res = PyObject_CallMethodOneArg(like, new_empty, shape);
    p = res ? PyObject_CallMethodNoArgs(res, data_ptr) : NULL;
    if (p)
        *ptr = PyLong_AsUnsignedLongLong(p);
    Py_XDECREF(p);
    if (!p || PyErr_Occurred())
        Py_CLEAR(res);
    return res;
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
"shape, else a forced tile config of _configs('sgemm')), 'sgemm_splits'\n"
"(0 chosen per shape, else the K slices to force), 'transpose_odd_path' (1, the default: 1- and 2-byte\n"
"rows that do not start on a 4-byte boundary move as whole words re-aligned in registers; 0: element\n"
"by element, as before), 'gemm16_variant' (0 the shipped default, else a forced tensor-core GEMM\n"
"variant of bench_configs('gemm'), for gemm() on 2-byte inputs).");
volatile int smk_py_gemm16_variant = 0;
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
    else if (strcmp(name, "gemm16_variant") == 0 && v >= 0 && v < smk_gemm16_num_variants())
        smk_py_gemm16_variant = v;
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

PyDoc_STRVAR(configs_doc, "_configs(op, /)\n--\n\nThe tile configurations compiled in for op: 'transpose' -> "
             "[(tile, block_rows), ...] (index 0 ships), 'sgemm' -> [name, ...] (index 0: chosen per shape).");
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

PyMethodDef smk_tool_methods[] = {
    {"_bench", SMK_KW(py_bench), bench_doc},
    {"_plan", SMK_KW(py_plan), plan_doc},
    {"_bank_replay", py_bank_replay, METH_VARARGS, bank_replay_doc},
    {"_bank_rule", py_bank_rule, METH_VARARGS, bank_rule_doc},
    {"_tile_offsets", SMK_KW(py_tile_offsets), tile_offsets_doc},
    {"_tile_swizzle", SMK_KW(py_tile_swizzle), tile_swizzle_doc},
    {"_swizzle", py_swizzle, METH_VARARGS, swizzle_doc},
    {"_configs", py_configs, METH_O, configs_doc},
    {"_sgemm_choose", py_sgemm_choose, METH_VARARGS, sgemm_choose_doc},
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
