/*
 * module_maps.c -- the binding of the CPU tools: the layout maps of csrc/layout.h, the bank model
 * (bank_model.c) and the kernels' access plans (explain).  Conversion only; the work is in files that
 * know no Python.
 */
#include "module.h"

#include <stdint.h>
#include <string.h>

#include "api/gemm16.h"
#include "api/sgemm.h"
#include "api/transpose.h"
#include "bank_model.h"
#include "bench.h"
#include "layout.h"

/* The instruction kinds of smk_access.kind / SMK_BANK_KIND_*, as Python names them. */
static const char *const kInstr[SMK_BANK_NUM_KINDS] = {"ldst",        "ldmatrix.x1", "ldmatrix.x2",
                                                       "ldmatrix.x4", "cp.async",    "cp.async.zfill",
                                                       "stmatrix.x1", "stmatrix.x2", "stmatrix.x4"};

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
        total = smk_bank_replay_ldgsts_w((const long long *)PyArray_DATA(a), (const long long *)PyArray_DATA(g), n,
                                         k == SMK_BANK_KIND_CPASYNC_ZFILL, width,
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
        return PyErr_Format(PyExc_ValueError, "_bank_rule(): width must be 1, 2, 4, 8 or 16 and kind 'load' or 'store'");
    return Py_BuildValue("ii", rule.pass_lanes, rule.phase_lanes);
}


static int fill_plan(int op, const int64_t *d, int layout, const int *swz, int isz, int sms, int config, int splits,
                     int64_t batch, smk_plan *plan)
{
    if (op == SMK_OP_GEMM16)
        return smk_gemm16_plan(d[0], d[1], d[2], layout, swz[0], swz[1], swz[2], config, sms, plan);
    return op == SMK_OP_SGEMM ? smk_sgemm_plan(d[0], d[1], d[2], layout, sms, config, splits, plan)
                              : smk_transpose_plan_batched(batch, d[0], d[1], isz, layout, plan);
}


PyDoc_STRVAR(plan_doc,
"_plan(op, shape, layout, itemsize=4, sms=132, config=0, splits=0, *, swizzle=None, batch=1)\n--\n\n"
"The shared-memory instructions of one block of the kernel `op` ('transpose' or 'sgemm') for a\n"
"problem of `shape`, replayed on the host by the kernel's own index code (sgemm: the tile config and\n"
"K split the launch would use on `sms` SMs, or the forced ones; repeats count every K slice's\n"
"blocks and the config string ends in ', splits S').  Returns a dict: config,\n"
"blocks, threads, smem_bytes, accesses = [(name, width, kind, repeats, addresses (n_instr, 32), instr,\n"
"sources)]: instr the instruction kind, sources the global byte offsets of a gemm cp.async (else None).\n"
"transpose: batch, the matrices of one launch (the launcher's choice depends on it), scales blocks and repeats.");

static PyObject *py_plan(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"op", "shape", "layout", "itemsize", "sms", "config", "splits", "swizzle", "batch", NULL};
    const char *op = NULL;
    PyObject *shape = NULL, *layout_obj = NULL, *lst = NULL, *arrays[SMK_PLAN_MAX] = {NULL}, *garrays[SMK_PLAN_MAX] = {NULL};
    PyObject *isz_obj = NULL, *sms_obj = NULL, *config_obj = NULL, *splits_obj = NULL, *swz_obj = Py_None, *batch_obj = NULL;
    int swz[3] = {0, 0, 0};
    int64_t dims[3];
    long long isz = 4, sms = 132, config = 0, splits = 0, batch = 1;
    int layout = 0, i, opk = 0;
    smk_plan plan;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|OOOO$OO:_plan", kwlist, &op, &shape, &layout_obj, &isz_obj,
                                     &sms_obj, &config_obj, &splits_obj, &swz_obj, &batch_obj) ||
        (swz_obj != Py_None && !PyArg_ParseTuple(swz_obj, "iii:swizzle", &swz[0], &swz[1], &swz[2])) ||
        smk_py_parse_layout(layout_obj, "explain", &layout) < 0 ||
        (opk = smk_py_parse_op_shape("explain", op, shape, 0, INT32_MAX, 0, dims)) < 0 ||
        smk_py_int_arg(isz_obj, "explain", "itemsize", 1, 16, &isz) < 0 ||
        smk_py_int_arg(sms_obj, "explain", "sms", 1, 1 << 16, &sms) < 0 ||
        smk_py_int_arg(config_obj, "explain", "config", 0, INT32_MAX, &config) < 0 ||
        smk_py_int_arg(splits_obj, "explain", "splits", 0, INT32_MAX, &splits) < 0 ||
        smk_py_int_arg(batch_obj, "explain", "batch", 0, INT64_MAX / 4, &batch) < 0)
        return NULL;
    memset(&plan, 0, sizeof plan); /* pass 1: counts; pass 2: addresses into the arrays */
    if (fill_plan(opk, dims, layout, swz, (int)isz, (int)sms, (int)config, (int)splits, batch, &plan) != 0)
        return PyErr_Format(PyExc_ValueError, "explain(): no plan for %s with itemsize=%lld, sms=%lld, config=%lld, "
                            "splits=%lld (config: an index of smemkit.bench_configs('%s'))", op, isz, sms, config, splits, op);
    for (i = 0; i < plan.n; i++) {
        npy_intp d[2] = {plan.acc[i].n_instr, 32};
        if (!(arrays[i] = PyArray_SimpleNew(2, d, NPY_INT64)))
            goto fail;
        plan.acc[i].addr = (long long *)PyArray_DATA((PyArrayObject *)arrays[i]);
        if (plan.acc[i].kind == SMK_ACC_CPASYNC || plan.acc[i].kind == SMK_ACC_CPASYNC_ZFILL) { /* with its sources */
            if (!(garrays[i] = PyArray_SimpleNew(2, d, NPY_INT64)))
                goto fail;
            plan.acc[i].gaddr = (long long *)PyArray_DATA((PyArrayObject *)garrays[i]);
        }
    }
    (void)fill_plan(opk, dims, layout, swz, (int)isz, (int)sms, (int)config, (int)splits, batch, &plan);
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

PyMethodDef smk_map_methods[] = {
    {"_plan", SMK_KW(py_plan), plan_doc},
    {"_bank_replay", py_bank_replay, METH_VARARGS, bank_replay_doc},
    {"_bank_rule", py_bank_rule, METH_VARARGS, bank_rule_doc},
    {"_tile_offsets", SMK_KW(py_tile_offsets), tile_offsets_doc},
    {"_tile_swizzle", SMK_KW(py_tile_swizzle), tile_swizzle_doc},
    {"_swizzle", py_swizzle, METH_VARARGS, swizzle_doc},
    {NULL, NULL, 0, NULL},
};
