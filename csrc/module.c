/*
 * module.c -- smemkit._C: the module and its ops (transpose, matrix_transpose, sgemm, gemm).  The
 * binding files only convert: arguments in -> one plain C operand description (py_operand.c) -> a
 * call into code that knows no Python (rules.c, dispatch.c, host.c, the kernels) -> a result or an
 * exception out.  The tools (maps, bank model, plans, timing, device facts, knobs) are
 * module_maps.c's and module_tools.c's; the converters all of them share are py_convert.c's.
 *
 * Style: NULL-initialised locals, one `fail:` label with Py_XDECREFs, never overwrite a pending
 * exception, docstrings that start with the signature.  Multi-phase init; NumPy is imported in the
 * exec slot.
 */
#define SMK_MODULE_MAIN
#include "module.h"

#include <stdint.h>
#include <string.h>

#include "dispatch.h"
#include "layout.h"
#include "py_operand.h"
#include "rules.h"

/* ---- transpose ---------------------------------------------------------------------------------- */


/* transpose (batched = 0) and matrix_transpose (1): one path for host and device arrays. */
static PyObject *transpose_impl(PyObject *module, PyObject *a_obj, PyObject *layout_obj, PyObject *out_obj,
                                const char *fname, int batched)
{
    PyObject *src = NULL, *out = NULL;
    smk_operand a, o;
    smk_error err;
    int64_t shape[SMK_MAX_NDIM];
    size_t host_b = 0, dev_b = 0;
    int layout = SMK_SWIZZLE, rc, prev = -1;
    if (smk_py_parse_layout(layout_obj, fname, &layout) < 0 || smk_py_to_operand(module, a_obj, fname, "a", &a) < 0)
        return NULL;
    if (smk_check_transpose(fname, &a, batched, &err) < 0)
        return smk_py_raise_error(module, &err);
    smk_transpose_out_shape(&a, shape);
    if (out_obj && out_obj != Py_None) {
        const smk_operand *ins[1] = {&a};
        if (!(out = smk_py_take_out(module, out_obj, fname, &a, a.ndim, shape, ins, 1, NULL, &o)))
            return NULL;
    }
    smk_need_transpose(&a, out != NULL, &host_b, &dev_b);
    if (smk_py_enter_device(module, (const smk_operand *const[]){&a, out ? &o : NULL}, 2, &prev) < 0 ||
        smk_py_check_fits(module, fname, host_b, dev_b) < 0)
        goto fail;
    if (smk_check_placement(fname, (const smk_operand *const[]){&a, out ? &o : NULL}, 2, &err) < 0) {
        smk_py_raise_error(module, &err);
        goto fail;
    }
    if (!a.on_device && (!a.contiguous || (a.contiguous == 2 && a.ndim > 2))) {
        src = PyArray_NewCopy((PyArrayObject *)a_obj, NPY_CORDER); /* slices, negative strides, unaligned */
        if (!src)
            goto fail;
        smk_py_from_ndarray((PyArrayObject *)src, "a", &a);
    }
    if (!out && !(out = smk_py_new_result(module, a_obj, &a, a.on_device ? NULL : PyArray_DESCR((PyArrayObject *)a_obj),
                                          a.ndim, shape, &o)))
        goto fail;
    Py_BEGIN_ALLOW_THREADS
    rc = smk_run_transpose(fname, &a, &o, layout, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        smk_py_raise_error(module, &err);
        goto fail;
    }
    smk_py_leave_device(prev);
    Py_XDECREF(src);
    return out;
fail:
    smk_py_leave_device(prev);
    Py_XDECREF(src);
    Py_XDECREF(out);
    return NULL;
}

PyDoc_STRVAR(transpose_doc,
"transpose(a, layout='swizzle', *, out=None)\n--\n\n"
"Return ``a.T`` as a new C-contiguous array, bit for bit, computed on the GPU by a tiled kernel\n"
"whose shared-memory tile uses ``layout``.\n\n"
"Parameters\n----------\n"
"a : numpy.ndarray or CUDA array (CuPy, PyTorch, __cuda_array_interface__, DLPack), 2-D\n"
"    Any shape (including empty), any strides or byte order.  Elements are moved bitwise, so NaN\n"
"    payloads and signed zeros survive.  For stacks of matrices use matrix_transpose().\n"
"layout : {'naive', 'pad', 'swizzle'}\n"
"    Shared-memory index map of the tile.  All three run the same kernel; 'naive' makes the\n"
"    tile's column read a 32-way bank conflict, 'pad' and 'swizzle' make it conflict-free.\n"
"out : array, optional\n"
"    Where to write the result (NumPy's rules: exactly the result's shape and dtype, C-contiguous,\n"
"    writeable, on the same side as ``a``, sharing no memory with it); it is returned.\n\n"
"A NumPy input gives a NumPy result; a CUDA array gives a new array of the same library, enqueued\n"
"on that library's current stream without synchronising (zero copy).\n\n"
"Raises\n------\n"
"TypeError for non-arrays and unsupported dtypes, ValueError for non-2-D input or an unknown\n"
"layout, MemoryError when the call cannot fit (named in bytes, refused before anything is\n"
"allocated), smemkit.CudaError for CUDA failures (including 'no usable GPU was found').");

static PyObject *py_transpose(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "layout", "out", NULL};
    PyObject *a = NULL, *layout = NULL, *out = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$O:transpose", kwlist, &a, &layout, &out))
        return NULL;
    return transpose_impl(module, a, layout, out, "transpose", 0);
}

PyDoc_STRVAR(matrix_transpose_doc,
"matrix_transpose(a, layout='swizzle', *, out=None)\n--\n\n"
"Return ``numpy.matrix_transpose(a)`` (``a.mT``: the last two axes swapped, leading axes kept) as a\n"
"new C-contiguous array, bit for bit; ndim >= 2.  Host and device arrays as for transpose().");

static PyObject *py_matrix_transpose(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "layout", "out", NULL};
    PyObject *a = NULL, *layout = NULL, *out = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$O:matrix_transpose", kwlist, &a, &layout, &out))
        return NULL;
    return transpose_impl(module, a, layout, out, "matrix_transpose", 1);
}


/* sgemm (float32) and the tensor-core GEMM (float16 / bfloat16) share one binding path. */
typedef struct {
    int (*check)(const char *, const smk_operand *, const smk_operand *, const smk_operand *, const smk_gemm_opts *,
                 smk_error *);
    void (*need)(const smk_operand *, const smk_operand *, const smk_operand *, const smk_gemm_opts *, int, size_t *,
                 size_t *);
    int (*run)(const char *, const smk_operand *, const smk_operand *, const smk_operand *, const smk_operand *,
               const smk_gemm_opts *, smk_error *);
} gemm_kind;
static const gemm_kind kSgemm = {smk_check_sgemm, smk_need_sgemm, smk_run_sgemm};
static const gemm_kind kGemm16 = {smk_check_gemm16, smk_need_gemm16, smk_run_gemm16};

/* What the result looks like: a's operand with the result's dtype, and its NumPy descr (NULL: a's own,
 * for a device result). */
static PyArray_Descr *result_like(PyObject *a_obj, const smk_operand *a, const smk_gemm_opts *o, smk_operand *like)
{
    *like = *a;
    if (a->dtype == SMK_DT_F32 || o->out_dtype == SMK_DT_F32) {
        like->dtype = SMK_DT_F32, like->esz = 4, like->kind = 'f', like->native = 1;
        snprintf(like->dtype_name, sizeof like->dtype_name, "float32");
        return PyArray_DescrFromType(NPY_FLOAT32);
    }
    like->native = 1;
    snprintf(like->dtype_name, sizeof like->dtype_name, "%s", a->dtype == SMK_DT_F16 ? "float16" : "bfloat16");
    return a->on_device ? NULL : PyArray_DescrNewByteorder(PyArray_DESCR((PyArrayObject *)a_obj), NPY_NATIVE);
}

static PyObject *gemm_impl(PyObject *module, PyObject *objs[4], const smk_gemm_opts *o, const char *fname,
                           const gemm_kind *k)
{
    static const char *const names[3] = {"a", "b", "c"};
    PyObject *keep[3] = {NULL, NULL, NULL}, *out = NULL;
    PyArray_Descr *rd = NULL;
    smk_operand opd[3], d, like;
    smk_operand *ops[3] = {&opd[0], &opd[1], objs[2] != Py_None ? &opd[2] : NULL};
    smk_error err;
    int64_t shape[2];
    size_t host_b = 0, dev_b = 0;
    int i, rc, prev = -1;
    for (i = 0; i < 3; i++)
        if (ops[i] && smk_py_to_operand(module, objs[i], fname, names[i], ops[i]) < 0)
            return NULL;
    if (k->check(fname, ops[0], ops[1], ops[2], o, &err) < 0)
        return smk_py_raise_error(module, &err);
    shape[0] = opd[0].shape[0];
    shape[1] = opd[1].shape[1];
    rd = result_like(objs[0], &opd[0], o, &like);
    if (objs[3] && objs[3] != Py_None &&
        !(out = smk_py_take_out(module, objs[3], fname, &like, 2, shape, (const smk_operand *const *)ops, 3,
                                o->beta != 0.0 ? ops[2] : NULL, &d)))
        goto fail;
    k->need(ops[0], ops[1], ops[2], o, out != NULL, &host_b, &dev_b);
    if (smk_py_enter_device(module, (const smk_operand *const[]){ops[0], ops[1], ops[2], out ? &d : NULL}, 4,
                            &prev) < 0 ||
        smk_py_check_fits(module, fname, host_b, dev_b) < 0)
        goto fail;
    if (smk_check_placement(fname, (const smk_operand *const[]){ops[0], ops[1], ops[2], out ? &d : NULL}, 4,
                            &err) < 0) {
        smk_py_raise_error(module, &err);
        goto fail;
    }
    if (o->beta == 0.0)
        ops[2] = NULL; /* BLAS: c is not read when beta == 0 */
    if (smk_py_stage_host(objs, ops, keep) < 0 ||
        (!out && !(out = smk_py_new_result(module, objs[0], &like, rd, 2, shape, &d))))
        goto fail;
    Py_BEGIN_ALLOW_THREADS
    rc = k->run(fname, ops[0], ops[1], ops[2], &d, o, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        smk_py_raise_error(module, &err);
        goto fail;
    }
    smk_py_leave_device(prev);
    for (i = 0; i < 3; i++)
        Py_XDECREF(keep[i]);
    Py_XDECREF(rd);
    return out;
fail:
    smk_py_leave_device(prev);
    for (i = 0; i < 3; i++)
        Py_XDECREF(keep[i]);
    Py_XDECREF(rd);
    Py_XDECREF(out);
    return NULL;
}


/* out_dtype=: None (the inputs' dtype) or float32 / float16 / bfloat16, as SMK_DT_*; -1 with TypeError.
 * Spelled as NumPy understands it (numpy.float32, "float32", a CuPy dtype, ml_dtypes.bfloat16) or as the
 * inputs' own library does: smemkit._device.gemm_dtype_name names torch dtypes and "bfloat16" (which
 * NumPy knows only with ml_dtypes). */
static int parse_out_dtype(PyObject *obj, const char *fname, int *dt)
{
    static const struct { const char *name; int dt; } names[] = {
        {"float32", SMK_DT_F32}, {"float16", SMK_DT_F16}, {"bfloat16", SMK_DT_BF16}};
    PyArray_Descr *d = NULL;
    PyObject *m, *r;
    smk_operand tmp;
    size_t i;
    *dt = SMK_DT_OTHER;
    if (!obj || obj == Py_None)
        return 0;
    if (!PyArray_DescrConverter(obj, &d)) {
        PyErr_Clear();
        m = PyImport_ImportModule("smemkit._device");
        r = m ? PyObject_CallMethod(m, "gemm_dtype_name", "O", obj) : NULL;
        Py_XDECREF(m);
        if (!r)
            return -1;
        for (i = 0; PyUnicode_Check(r) && i < sizeof names / sizeof names[0]; i++)
            if (PyUnicode_CompareWithASCIIString(r, names[i].name) == 0)
                *dt = names[i].dt;
        Py_DECREF(r);
        if (*dt != SMK_DT_OTHER)
            return 0;
        PyErr_Format(PyExc_TypeError, "%s(): out_dtype must be None or a dtype (numpy.float32, torch.float32, "
                     "\"float32\"); got %R", fname, obj);
        return -1;
    }
    smk_py_set_dtype(&tmp, d);
    Py_DECREF(d);
    *dt = tmp.dtype;
    if (*dt == SMK_DT_OTHER || !tmp.native) {
        PyErr_Format(PyExc_TypeError, "%s(): out_dtype must be None, float32, float16 or bfloat16; got %R", fname, obj);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(gemm_doc,
"gemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle', out_dtype=None, out=None)\n--\n\n"
"Return ``alpha * a @ b + beta * c`` computed on the GPU, dispatching on the inputs' dtype:\n"
"float32 goes to sgemm(); float16 and bfloat16 (ml_dtypes.bfloat16 on the host, torch.bfloat16 on\n"
"the device) go to the tensor-core GEMM: tiles loaded with cp.async, read with ldmatrix into\n"
"mma.sync m16n8k16, fp32 accumulation, the result in the inputs' dtype unless out_dtype=float32.\n\n"
"Parameters\n----------\n"
"a : (M, K), b : (K, N) of one dtype; c : (M, N) in the result's dtype, optional\n"
"    NumPy arrays or CUDA arrays of one library, any strides.  Mixed dtypes, or a c in another\n"
"    dtype than the result's, are TypeErrors: nothing is converted silently.  c is read only when\n"
"    beta != 0.\n"
"layout : 'naive', 'pad', 'swizzle', or a smemkit.Swizzle (2-byte inputs only)\n"
"    The shared-memory map of the A and B tiles: 'naive' row-major tiles whose ldmatrix phases\n"
"    conflict, 'pad' one 16-byte vector per row, 'swizzle' the conflict-free Swizzle<B,3,3> of\n"
"    csrc/layout.h; Swizzle(2, 3, 2) is the article's, still 2-way conflicted on 64-byte rows.\n"
"out_dtype : None or float32 (numpy.float32, torch.float32, \"float32\", a CuPy dtype)\n"
"out : array, optional\n"
"    Where to write the result (as for sgemm: out may be c itself when beta != 0).\n\n"
"Any M, N, K >= 0.  Errors as for transpose().");

static PyObject *py_gemm(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "b", "c", "alpha", "beta", "layout", "out_dtype", "out", NULL};
    PyObject *objs[4] = {NULL, NULL, Py_None, NULL}, *alpha = NULL, *beta = NULL, *layout = NULL, *odt = NULL;
    smk_gemm_opts o = {.alpha = 1.0, .layout = SMK_SWIZZLE, .out_dtype = SMK_DT_OTHER};
    smk_operand a;
    int swz[3];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O$OOOOO:gemm", kwlist, &objs[0], &objs[1], &objs[2], &alpha,
                                     &beta, &layout, &odt, &objs[3]) ||
        smk_py_real_arg(alpha, "gemm", "alpha", &o.alpha) < 0 || smk_py_real_arg(beta, "gemm", "beta", &o.beta) < 0 ||
        smk_py_parse_gemm_layout(layout, "gemm", &o.layout, swz) < 0 || parse_out_dtype(odt, "gemm", &o.out_dtype) < 0 ||
        smk_py_to_operand(module, objs[0], "gemm", "a", &a) < 0)
        return NULL;
    o.swz_b = swz[0], o.swz_m = swz[1], o.swz_s = swz[2];
    o.config = smk_py_gemm16_variant;
    if (a.dtype == SMK_DT_F16 || a.dtype == SMK_DT_BF16)
        return smk_py_wgmma_layout_ok("gemm", o.layout, swz) < 0 ? NULL : gemm_impl(module, objs, &o, "gemm", &kGemm16);
    if (a.dtype != SMK_DT_F32)
        return PyErr_Format(PyExc_TypeError, "gemm(): a has dtype %s; gemm computes in float32 (sgemm), float16 or "
                            "bfloat16 (tensor cores): nothing is converted silently", a.dtype_name);
    if (swz[0] || swz[1] || swz[2])
        return PyErr_Format(PyExc_ValueError, "gemm(): float32 goes to sgemm, whose layouts are 'naive', 'pad' and "
                            "'swizzle'; Swizzle instances are for float16 / bfloat16");
    if (o.out_dtype != SMK_DT_OTHER && o.out_dtype != SMK_DT_F32)
        return PyErr_Format(PyExc_TypeError, "gemm(): float32 inputs give a float32 result; out_dtype must be None or "
                            "float32");
    o.config = smk_py_sgemm_config;
    o.splits = smk_py_sgemm_splits;
    return gemm_impl(module, objs, &o, "gemm", &kSgemm);
}

PyDoc_STRVAR(sgemm_doc,
"sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle', out=None)\n--\n\n"
"Return ``alpha * a @ b + beta * c`` as a new float32 array, computed on the GPU by a warp-tiled\n"
"SGEMM whose shared-memory tiles use ``layout``.  ``c`` is not modified.\n\n"
"Parameters\n----------\n"
"a : float32, shape (M, K);  b : float32, shape (K, N);  c : float32, shape (M, N), optional\n"
"    NumPy arrays, or CUDA arrays of one library (the result is then that library's, enqueued on\n"
"    its current stream).  ``c`` is required when ``beta != 0``; when ``beta == 0`` it is not read\n"
"    (NaN in c does not propagate, as in BLAS).\n"
"alpha, beta : float\n"
"layout : {'naive', 'pad', 'swizzle'}\n"
"    Shared-memory index map of the A and B tiles.  'naive' is the article's layout, whose\n"
"    transposed A-tile store conflicts 2-way; 'pad' and 'swizzle' remove that conflict.\n"
"out : float32 array (M, N), optional\n"
"    Where to write the result (C-contiguous, writeable, same side as the inputs, sharing no memory\n"
"    with them -- except that out may be c itself when beta != 0, the BLAS convention); returned.\n\n"
"Any M, N, K >= 0 (K == 0 gives ``beta * c`` or zeros), any strides and byte order.  Other dtypes\n"
"raise TypeError: nothing is downcast silently.  Errors as for transpose().");

static PyObject *py_sgemm(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "b", "c", "alpha", "beta", "layout", "out", NULL};
    PyObject *objs[4] = {NULL, NULL, Py_None, NULL}, *alpha = NULL, *beta = NULL, *layout = NULL;
    smk_gemm_opts o = {.alpha = 1.0, .layout = SMK_SWIZZLE, .out_dtype = SMK_DT_OTHER};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O$OOOO:sgemm", kwlist, &objs[0], &objs[1], &objs[2], &alpha,
                                     &beta, &layout, &objs[3]) ||
        smk_py_real_arg(alpha, "sgemm", "alpha", &o.alpha) < 0 || smk_py_real_arg(beta, "sgemm", "beta", &o.beta) < 0 ||
        smk_py_parse_layout(layout, "sgemm", &o.layout) < 0)
        return NULL;
    o.config = smk_py_sgemm_config;
    o.splits = smk_py_sgemm_splits;
    return gemm_impl(module, objs, &o, "sgemm", &kSgemm);
}

/* ---- module ----------------------------------------------------------------------------------- */

static PyMethodDef smk_methods[] = {
    {"transpose", SMK_KW(py_transpose), transpose_doc},
    {"matrix_transpose", SMK_KW(py_matrix_transpose), matrix_transpose_doc},
    {"sgemm", SMK_KW(py_sgemm), sgemm_doc},
    {"gemm", SMK_KW(py_gemm), gemm_doc},
    {NULL, NULL, 0, NULL},
};

static int smk_exec(PyObject *m)
{
    smk_py_state *st = smk_py_state_of(m);
    PyObject *layouts = NULL;
    if (PyArray_ImportNumPyAPI() < 0)
        return -1;
    st->CudaError = PyErr_NewExceptionWithDoc(
        "smemkit.CudaError",
        "A CUDA runtime failure.  .status is the cudaError_t value; the message reads\n"
        "'cudaErrorName: text'.  After a sticky error (illegal address, launch failure, ...) every\n"
        "later call on that GPU raises this too: the process must be restarted.",
        PyExc_RuntimeError, NULL);
    if (!st->CudaError || PyModule_AddObjectRef(m, "CudaError", st->CudaError) < 0 ||
        PyModule_AddFunctions(m, smk_map_methods) < 0 || PyModule_AddFunctions(m, smk_tool_methods) < 0 ||
        PyModule_AddFunctions(m, smk_timer_methods) < 0 || PyModule_AddFunctions(m, smk_tune_methods) < 0)
        return -1;
    layouts = Py_BuildValue("(sss)", smk_layout_names[0], smk_layout_names[1], smk_layout_names[2]);
    if (!layouts || PyModule_AddObject(m, "LAYOUTS", layouts) < 0) {
        Py_XDECREF(layouts);
        return -1;
    }
    return 0;
}

static int smk_traverse(PyObject *m, visitproc visit, void *arg)
{
    Py_VISIT(smk_py_state_of(m)->CudaError);
    Py_VISIT(smk_py_state_of(m)->describe);
    Py_VISIT(smk_py_state_of(m)->empty);
    return 0;
}

static int smk_clear(PyObject *m)
{
    Py_CLEAR(smk_py_state_of(m)->CudaError);
    Py_CLEAR(smk_py_state_of(m)->describe);
    Py_CLEAR(smk_py_state_of(m)->empty);
    return 0;
}

static void smk_free(void *m) { (void)smk_clear((PyObject *)m); }

static PyModuleDef_Slot smk_slots[] = {{Py_mod_exec, smk_exec}, {0, NULL}};

static struct PyModuleDef smk_module = {
    PyModuleDef_HEAD_INIT, "smemkit._C",
    "smemkit's compiled core: GPU kernels (transpose, SGEMM) with naive / pad / swizzle shared-memory\n"
    "layouts, the layout maps of csrc/layout.h, and the CPU bank-conflict model.",
    sizeof(smk_py_state), smk_methods, smk_slots, smk_traverse, smk_clear, smk_free,
};

PyMODINIT_FUNC PyInit__C(void) { return PyModuleDef_Init(&smk_module); }
