/*
 * py_convert.c -- the bottom of the binding files (see py_convert.h): the argument converters every
 * binding shares, the exceptions a failed call raises, the layout names and the test knobs.  It uses
 * no other binding file.
 */
#include "py_convert.h"

#include <stdint.h>
#include <string.h>

#include "api/gemm16.h"
#include "api/wgmma.h"
#include "bench.h"
#include "layout.h"

/* One table of layout names: the C enum order, Python's LAYOUTS, error messages. */
const char *const smk_layout_names[SMK_NUM_LAYOUTS] = {"naive", "pad", "swizzle"};
#define SMK_LAYOUT_LIST "'naive', 'pad', 'swizzle'"

volatile int smk_py_sgemm_config = 0;   /* tests: a forced SGEMM tile config (_set_knob) */
volatile int smk_py_sgemm_splits = 0;   /* tests: a forced SGEMM K split (_set_knob) */
volatile int smk_py_gemm16_variant = 0; /* tests: a forced tensor-core GEMM variant (_set_knob) */

/* ---- errors ----------------------------------------------------------------------------------- */

static void raise_cuda(PyObject *module, int status, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    PyObject *exc = NULL, *code = NULL;
    va_start(ap, fmt);
    PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    exc = PyObject_CallFunction(smk_py_state_of(module)->CudaError, "s", msg);
    if (!exc)
        return;
    code = PyLong_FromLong(status);
    if (code && PyObject_SetAttrString(exc, "status", code) == 0)
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_XDECREF(code);
    Py_DECREF(exc);
}

/* Turn a failed smk_status into the Python exception it stands for.  Always returns NULL. */
PyObject *smk_py_raise_status(PyObject *module, smk_status s)
{
    const char *name = smk_rt_error_name(s.cuda), *text = smk_rt_error_string(s.cuda);
    const char *where = s.where ? s.where : "running";
    if (s.code == SMK_E_NOMEM)
        PyErr_Format(PyExc_MemoryError, "smemkit: out of device memory: could not allocate %zu bytes (%s)", s.bytes,
                     s.where ? s.where : "allocation");
    else if (s.code == SMK_E_NODEVICE) {
        char why[560];
        smk_rt_no_device_text(s.cuda, why, sizeof why);
        raise_cuda(module, s.cuda, "%s", why);
    }
    else if (s.code == SMK_E_POISONED)
        raise_cuda(module, s.cuda, "%s: %s -- an earlier error corrupted the CUDA context; restart the process "
                   "(notebook kernel) to use the GPU again", name, text);
    else if (smk_rt_is_sticky(s.cuda))
        raise_cuda(module, s.cuda, "%s: %s (while %s) -- the CUDA context is now unusable; restart the process "
                   "(notebook kernel) to use the GPU again", name, text, where);
    else
        raise_cuda(module, s.cuda, "%s: %s (while %s)", name, text, where);
    return NULL;
}

PyObject *smk_py_raise_error(PyObject *module, const smk_error *e)
{
    if (e->type == SMK_ERR_STATUS)
        return smk_py_raise_status(module, e->status);
    PyErr_SetString(e->type == SMK_ERR_TYPE ? PyExc_TypeError
                    : e->type == SMK_ERR_MEMORY ? PyExc_MemoryError : PyExc_ValueError, e->msg);
    return NULL;
}

/* ---- arguments -------------------------------------------------------------------------------- */

/* layout=None means the default ("swizzle").  0 on success, -1 with an exception set. */
int smk_py_parse_layout(PyObject *obj, const char *fname, int *layout)
{
    int i;
    if (obj == NULL || obj == Py_None) {
        *layout = SMK_SWIZZLE;
        return 0;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s(): layout must be a str, one of " SMK_LAYOUT_LIST "; got %.100s",
                     fname, Py_TYPE(obj)->tp_name);
        return -1;
    }
    for (i = 0; i < SMK_NUM_LAYOUTS; i++)
        if (PyUnicode_CompareWithASCIIString(obj, smk_layout_names[i]) == 0) {
            *layout = i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "%s(): unknown layout %R; expected one of " SMK_LAYOUT_LIST, fname, obj);
    return -1;
}

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
int smk_py_wgmma_layout_ok(const char *fname, int layout, const int swz[3])
{
    if (smk_gemm16_kernel() != 1 || smk_wgmma_mode(layout, swz[0], swz[1], swz[2]) >= 0)
        return 0;
    if (layout == SMK_PAD)
        PyErr_Format(PyExc_ValueError, "%s(): layout 'pad' cannot run on the wgmma kernel: TMA writes a tile into "
                     "shared memory only as whole rows in one of its swizzle modes, and wgmma reads only those modes "
                     "or the unswizzled core-matrix layout, so a padded row is expressible by neither; use 'swizzle' "
                     "(128B), Swizzle(2, 3, 3) (64B), Swizzle(1, 3, 3) (32B) or 'naive' (no swizzle)", fname);
    else
        PyErr_Format(PyExc_ValueError, "%s(): Swizzle(%d, %d, %d) is not a TMA / wgmma swizzle mode; the wgmma kernel "
                     "takes 'swizzle' (128B), Swizzle(3, 3, 3) (128B), Swizzle(2, 3, 3) (64B), Swizzle(1, 3, 3) (32B) "
                     "or 'naive' (no swizzle)", fname, swz[0], swz[1], swz[2]);
    return -1;
}

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
    if (smk_gemm16_kernel() == 1 && (swz[0] || swz[1] || swz[2]))
        return smk_py_wgmma_layout_ok(fname, *layout, swz);
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



/* op name and shape tuple -> SMK_OP_* and dims[] with entries in [lo, hi] (transpose: (rows, cols),
 * or with `batch` also (rows, cols, batch); sgemm: (M, N, K)); -1 with TypeError / ValueError set,
 * naming fname and the entry. */
int smk_py_parse_op_shape(const char *fname, const char *op, PyObject *shape, long long lo, long long hi, int batch,
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
