/*
 * py_operand.c -- Python objects <-> smk_operand (see py_operand.h).  A NumPy array becomes an
 * smk_operand here (smk_py_from_ndarray); a CUDA array (CuPy, PyTorch, __cuda_array_interface__,
 * DLPack) too (from_device: smemkit/_device.py reads the library's attributes, this file fills the
 * same struct).  From then on both travel the same path.
 */
#include "py_operand.h"

#include <stdint.h>
#include <string.h>

#include "rules.h"

/* like.new_empty(shape) of a PyTorch tensor, straight from C (a small call's per-call cost): the new
 * tensor and its data_ptr, or NULL with an exception set. */
static PyObject *torch_new_empty(PyObject *like, PyObject *shape, unsigned long long *ptr)
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

/* dtype facts of an operand.  The name comes from the scalar type ("numpy.float32" -> "float32"), not
 * from str(dtype), which runs Python code on every call. */
void smk_py_set_dtype(smk_operand *op, PyArray_Descr *d)
{
    const char *tn = d->typeobj->tp_name, *dot = strrchr(tn, '.'), *name = dot ? dot + 1 : tn;
    op->esz = (int)PyDataType_ELSIZE(d);
    op->kind = PyDataType_ELSIZE(d) == 0 || PyDataType_HASFIELDS(d) || PyDataType_HASSUBARRAY(d) ||
               PyDataType_REFCHK(d) ? '\0' : d->kind;
    op->native = PyArray_ISNBO(d->byteorder);
    op->dtype = SMK_DT_OTHER;
    if (d->kind == 'f' && op->esz == 4)
        op->dtype = SMK_DT_F32;
    else if (d->kind == 'f' && op->esz == 2)
        op->dtype = SMK_DT_F16;
    else if (op->esz == 2 && strcmp(name, "bfloat16") == 0) /* ml_dtypes.bfloat16 */
        op->dtype = SMK_DT_BF16;
    if (op->kind == 'V' && (op->dtype == SMK_DT_BF16 || strncmp(name, "float8_", 7) == 0))
        op->kind = 'f'; /* ml_dtypes' floats (bfloat16, float8_*): numbers that move bitwise */
    else if (op->kind == 'V')
        op->kind = '\0'; /* raw void / structured bytes are not numbers */
    snprintf(op->dtype_name, sizeof op->dtype_name, "%s%s", op->native ? "" : "byte-swapped ", name);
}

void smk_py_from_ndarray(PyArrayObject *a, const char *arg, smk_operand *op)
{
    int i;
    memset(op, 0, sizeof *op);
    op->arg = arg;
    op->ptr = PyArray_DATA(a);
    op->ndim = PyArray_NDIM(a);
    op->device = -1;
    smk_py_set_dtype(op, PyArray_DESCR(a));
    for (i = 0; i < op->ndim; i++) {
        op->shape[i] = PyArray_DIM(a, i);
        op->strides[i] = op->esz ? PyArray_STRIDE(a, i) / op->esz : 0; /* host strides stay NumPy's */
    }
    op->contiguous = !PyArray_ISALIGNED(a) ? 0 : PyArray_IS_C_CONTIGUOUS(a) ? 1 : PyArray_IS_F_CONTIGUOUS(a) ? 2 : 0;
    op->writeable = PyArray_ISWRITEABLE(a);
}

/* A CUDA array through smemkit._device.describe.  1 filled, 0 not a device array, -1 error set. */
static int from_device(PyObject *module, PyObject *obj, const char *fname, const char *arg, smk_operand *op)
{
    smk_py_state *st = smk_py_state_of(module);
    PyObject *t = NULL, *shape, *strides, *fs, *as;
    PyArray_Descr *descr = NULL;
    Py_ssize_t i, nd;
    int64_t acc;
    int rc = -1;
    if (!st->describe) {
        PyObject *m = PyImport_ImportModule("smemkit._device");
        st->describe = m ? PyObject_GetAttrString(m, "describe") : NULL;
        st->empty = m ? PyObject_GetAttrString(m, "empty") : NULL;
        Py_XDECREF(m);
        if (!st->describe || !st->empty)
            return -1;
    }
    fs = smk_py_cstr(fname);
    as = fs ? smk_py_cstr(arg) : NULL;
    t = as ? PyObject_CallFunctionObjArgs(st->describe, obj, fs, as, NULL) : NULL;
    Py_XDECREF(fs);
    Py_XDECREF(as);
    if (!t || t == Py_None) {
        rc = t ? 0 : -1;
        goto done;
    }
    memset(op, 0, sizeof *op);
    if (!PyArg_ParseTuple(t, "KO!O!O&iKi", (unsigned long long *)&op->ptr, &PyTuple_Type, &shape, &PyTuple_Type,
                          &strides, PyArray_DescrConverter, &descr, &op->device, (unsigned long long *)&op->stream,
                          &op->lib))
        goto done;
    nd = PyTuple_GET_SIZE(shape);
    if (nd > SMK_MAX_NDIM || PyTuple_GET_SIZE(strides) != nd) {
        PyErr_Format(PyExc_ValueError, "%s(): %s has %zd dimensions (at most %d) or mismatched strides", fname, arg,
                     nd, SMK_MAX_NDIM);
        goto done;
    }
    for (i = 0; i < nd; i++) {
        op->shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        op->strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i));
        if (PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError, "%s(): %s has a shape or stride that does not fit 64 bits", fname, arg);
            goto done;
        }
    }
    op->arg = arg;
    op->ndim = (int)nd;
    op->on_device = 1;
    op->contiguous = 1; /* C order: every axis of extent > 1 steps over everything inside it */
    for (i = nd - 1, acc = 1; i >= 0; i--) {
        if (op->shape[i] != 1 && op->strides[i] != acc)
            op->contiguous = 0;
        acc *= op->shape[i];
    }
    if (acc == 0) /* no elements: contiguous whatever the strides say (NumPy's rule; torch gives (64, 0) strides (1, 1)) */
        op->contiguous = 1;
    op->writeable = 1;
    smk_py_set_dtype(op, descr);
    rc = 1;
done:
    Py_XDECREF(descr);
    Py_XDECREF(t);
    return rc;
}

/* Any argument -> smk_operand.  0, or -1 with an exception set (TypeError for non-arrays). */
int smk_py_to_operand(PyObject *module, PyObject *obj, const char *fname, const char *arg, smk_operand *op)
{
    int rc;
    if (PyArray_Check(obj)) {
        if (!PyArray_CheckExact(obj) && PyObject_HasAttrString(obj, "_mask")) { /* numpy.ma: .data would drop it */
            PyErr_Format(PyExc_TypeError, "%s(): %s is a masked array (%.100s); smemkit does not support masked "
                         "arrays -- pass %s.filled(...) or %s.data", fname, arg, Py_TYPE(obj)->tp_name, arg, arg);
            return -1;
        }
        smk_py_from_ndarray((PyArrayObject *)obj, arg, op);
        return 0;
    }
    rc = from_device(module, obj, fname, arg, op);
    if (rc == 0)
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a numpy.ndarray or a CUDA array (CuPy, PyTorch, "
                     "__cuda_array_interface__, __dlpack__); got %.100s", fname, arg, Py_TYPE(obj)->tp_name);
    return rc > 0 ? 0 : -1;
}

/* A new C-contiguous result beside `like` (host: a NumPy array of descr; device: an array of the same
 * library on the same device, of descr or, when descr is NULL, of like's dtype) and its operand.
 * NULL with an exception set on failure. */
PyObject *smk_py_new_result(PyObject *module, PyObject *like_obj, const smk_operand *like, PyArray_Descr *descr,
                            int ndim, const int64_t *shape, smk_operand *out)
{
    PyObject *res = NULL, *t = NULL, *shp = NULL;
    unsigned long long ptr = 0;
    npy_intp dims[SMK_MAX_NDIM];
    int64_t acc = 1;
    int i;
    for (i = 0; i < ndim; i++)
        dims[i] = (npy_intp)shape[i];
    if (!like->on_device) {
        Py_INCREF(descr); /* stolen */
        res = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, dims, NULL, NULL, 0, NULL);
        if (res)
            smk_py_from_ndarray((PyArrayObject *)res, "the output", out);
        return res;
    }
    shp = PyArray_IntTupleFromIntp(ndim, dims);
    if (shp && like->lib == SMK_LIB_TORCH && !descr) /* the common case, without a Python frame */
        t = torch_new_empty(like_obj, shp, &ptr);
    else if (shp)
        t = PyObject_CallFunction(smk_py_state_of(module)->empty, "OiiOO", like_obj, like->lib, like->device, shp,
                                  descr ? (PyObject *)descr : Py_None);
    if (t && (PyTuple_Check(t) ? PyArg_ParseTuple(t, "OK", &res, &ptr) : (res = t) != NULL)) {
        Py_INCREF(res);
        *out = *like;
        out->arg = "the output";
        out->ptr = (void *)(uintptr_t)ptr;
        out->ndim = ndim;
        for (i = ndim - 1; i >= 0; i--) {
            out->shape[i] = shape[i];
            out->strides[i] = acc;
            acc *= shape[i] ? shape[i] : 1;
        }
        out->contiguous = 1;
    }
    Py_XDECREF(shp);
    Py_XDECREF(t);
    return res;
}

/* The device guard of a call (torch's rule: a PyTorch tensor runs on its own device, as torch's ops do).
 * The operands' device is made current for the call when some operand is a PyTorch tensor; CuPy
 * arrays, __cuda_array_interface__ producers and NumPy arrays keep the current device (CuPy's rule:
 * its current stream is the current device's).  The rules have already refused operands on different
 * devices.  *prev: what smk_py_leave_device puts back, -1 for nothing.  0, or -1 with an exception. */
int smk_py_enter_device(PyObject *module, const smk_operand *const ops[], int n, int *prev)
{
    int i, dev = -1;
    smk_status st;
    *prev = -1;
    for (i = 0; i < n && dev < 0; i++)
        if (ops[i] && ops[i]->on_device && ops[i]->lib == SMK_LIB_TORCH)
            dev = ops[i]->device;
    if (dev < 0)
        return 0;
    st = smk_rt_enter_device(dev, prev);
    return st.code != SMK_OK ? (smk_py_raise_status(module, st), -1) : 0;
}

/* Put back the device smk_py_enter_device replaced.  A device with no CUDA context yet (a thread whose
 * current device was never used) is put back the way torch's own guard does it,
 * torch.cuda._maybe_exchange_device: torch remembers it as current without creating a context on that
 * GPU (which would cost its memory in every process of a torchrun job).  Keeps a pending exception. */
void smk_py_leave_device(int prev)
{
    PyObject *torch_cuda = NULL, *r = NULL;
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = NULL;
#else
    PyObject *et = NULL, *ev = NULL, *tb = NULL;
#endif
    if (prev < 0)
        return;
    if (smk_rt_has_context(prev)) {
        smk_rt_leave_device(prev);
        return;
    }
#if PY_VERSION_HEX >= 0x030C0000
    exc = PyErr_GetRaisedException();
#else
    PyErr_Fetch(&et, &ev, &tb);
#endif
    torch_cuda = PyImport_ImportModule("torch.cuda"); /* imported already: a torch operand got us here */
    r = torch_cuda ? PyObject_CallMethod(torch_cuda, "_maybe_exchange_device", "i", prev) : NULL;
    if (!r) {
        PyErr_Clear();
        smk_rt_leave_device(prev); /* an older torch: put it back plainly */
    }
    Py_XDECREF(r);
    Py_XDECREF(torch_cuda);
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(et, ev, tb);
#endif
}

/* Refuse what cannot fit, host first (no GPU needed), then device (for device arrays device_bytes is
 * the temporaries alone: their library allocates the result and reports its own out-of-memory).
 * 0, or -1 with an exception set. */
int smk_py_check_fits(PyObject *module, const char *fname, size_t host_bytes, size_t device_bytes)
{
    smk_error err;
    smk_status st;
    size_t free_b = 0, total_b = 0;
    if (smk_check_fits(fname, host_bytes, 0, 0, &err) < 0)
        return smk_py_raise_error(module, &err), -1;
    st = smk_rt_ready();
    if (st.code != SMK_OK)
        return smk_py_raise_status(module, st), -1;
    if (device_bytes == 0)
        return 0;
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_mem_info(&free_b, &total_b);
    if (st.code == SMK_OK && device_bytes > free_b && smk_rt_trim().code == SMK_OK) /* the pool's cache counts as used */
        st = smk_rt_mem_info(&free_b, &total_b);
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK)
        return smk_py_raise_status(module, st), -1;
    if (smk_check_fits(fname, 0, device_bytes, free_b ? free_b : 1, &err) < 0)
        return smk_py_raise_error(module, &err), -1;
    return 0;
}

/* out=: the caller's array as the result, checked against the result's shape and dtype and against
 * the inputs (rules.c: smk_check_out), before any device work.  A new reference, or NULL. */
PyObject *smk_py_take_out(PyObject *module, PyObject *out_obj, const char *fname, const smk_operand *like, int ndim,
                          const int64_t *shape, const smk_operand *const *ins, int n, const smk_operand *may_alias,
                          smk_operand *o)
{
    smk_error err;
    if (smk_py_to_operand(module, out_obj, fname, "out", o) < 0)
        return NULL;
    if (smk_check_out(fname, o, like, ndim, shape, like->dtype, like->esz, like->dtype_name, ins, n, may_alias,
                      &err) < 0)
        return smk_py_raise_error(module, &err);
    return Py_NewRef(out_obj);
}

/* Host operands of a GEMM as native, aligned, C-contiguous arrays of their own dtype (a copy when they
 * are not). */
int smk_py_stage_host(PyObject **objs, smk_operand **ops, PyObject **keep)
{
    int i;
    for (i = 0; i < 3; i++) {
        PyArray_Descr *native = NULL;
        if (!ops[i] || ops[i]->on_device || (ops[i]->contiguous == 1 && ops[i]->native))
            continue;
        native = PyArray_DescrNewByteorder(PyArray_DESCR((PyArrayObject *)objs[i]), NPY_NATIVE);
        keep[i] = native ? PyArray_FromArray((PyArrayObject *)objs[i], native, NPY_ARRAY_C_CONTIGUOUS |
                                             NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST) : NULL; /* steals native */
        if (!keep[i])
            return -1;
        smk_py_from_ndarray((PyArrayObject *)keep[i], ops[i]->arg, ops[i]);
    }
    return 0;
}
