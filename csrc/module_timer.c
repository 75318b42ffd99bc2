/*
 * module_timer.c -- binding of smemkit.timeit's loop: Python callables timed by bench.c's event loop
 * (smk_time_ops_on), the loop every smemkit.bench figure comes from, so a user's kernel, a library
 * call (x.t().contiguous()) and smemkit's own ops are timed the same way: warm-up, an L2 flush before
 * each timed call, the callables interleaved A B C A B C ..., two events around each call on the stream
 * the callables enqueue on.  Conversion only; the loop and its rules live in bench.c.
 */
#include "module.h"

#include <string.h>

#include "bench.h"

#define SMK_TIMER_MAX_FNS 64

typedef struct {
    PyObject *fn;
    int *failed; /* set when a call raised: the Python exception is then pending */
} py_timed;

/* The loop's launcher: one call of the Python callable (the GIL is held throughout the loop, so no
 * re-acquiring here).  A Python exception stops the loop with a status that is not sticky. */
static int launch_py(void *ctx, cudaStream_t stream)
{
    py_timed *t = (py_timed *)ctx;
    PyObject *r = NULL;
    (void)stream; /* the callable enqueues on its library's current stream, which the caller passed */
    if (*t->failed)
        return (int)cudaErrorUnknown;
    r = PyObject_CallNoArgs(t->fn);
    if (!r) {
        *t->failed = 1;
        return (int)cudaErrorUnknown;
    }
    Py_DECREF(r);
    return (int)cudaSuccess;
}

PyDoc_STRVAR(time_calls_doc,
"_time_calls(fns, /, *, stream=0, warmup=1, reps=10, flush_bytes=0)\n--\n\n"
"Call each callable of the sequence `fns` (no arguments) `warmup` rounds untimed, then `reps` rounds\n"
"interleaved, each call between two CUDA events recorded on `stream` (a cudaStream_t handle as an\n"
"int: 0 the legacy default stream, 2 the per-thread one, else a stream of the caller's library) and\n"
"preceded by a write of `flush_bytes` (0: none) that evicts L2 -- csrc/bench.c's loop.  Returns one\n"
"list of `reps` times in milliseconds per callable.  An exception raised by a callable stops the loop\n"
"(after synchronising the stream) and propagates; CudaError without a GPU.");

static PyObject *py_time_calls(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fns", "stream", "warmup", "reps", "flush_bytes", NULL};
    PyObject *fns = NULL, *seq = NULL, *stream_obj = NULL, *warmup_obj = NULL, *reps_obj = NULL, *flush_obj = NULL;
    PyObject *res = NULL, *lst = NULL;
    long long warmup = 1, reps = 10, flush = 0;
    py_timed timed[SMK_TIMER_MAX_FNS];
    smk_timed_op ops[SMK_TIMER_MAX_FNS];
    cudaStream_t stream = NULL;
    float *times = NULL;
    int failed = 0, nfns, i, r;
    smk_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OOOO:_time_calls", kwlist, &fns, &stream_obj, &warmup_obj,
                                     &reps_obj, &flush_obj) ||
        smk_py_int_arg(warmup_obj, "timeit", "warmup", 0, INT32_MAX, &warmup) < 0 ||
        smk_py_int_arg(reps_obj, "timeit", "reps", 1, 1000000, &reps) < 0 ||
        smk_py_int_arg(flush_obj, "timeit", "flush_bytes", 0, (long long)1 << 40, &flush) < 0 ||
        !(seq = PySequence_Fast(fns, "timeit(): fns must be a sequence of callables")))
        return NULL;
    if (stream_obj && stream_obj != Py_None) {
        if (!PyLong_Check(stream_obj)) {
            PyErr_Format(PyExc_TypeError, "timeit(): stream must be an int (a cudaStream_t handle); got %.100s",
                         Py_TYPE(stream_obj)->tp_name);
            goto done;
        }
        stream = (cudaStream_t)PyLong_AsVoidPtr(stream_obj);
        if (PyErr_Occurred())
            goto done;
    }
    nfns = (int)PySequence_Fast_GET_SIZE(seq);
    if (nfns < 1 || nfns > SMK_TIMER_MAX_FNS) {
        PyErr_Format(PyExc_ValueError, "timeit(): between 1 and %d callables; got %d", SMK_TIMER_MAX_FNS, nfns);
        goto done;
    }
    /* 2 events per timed call, all alive until the final synchronisation */
    if ((long long)nfns * reps > 2000000) {
        PyErr_Format(PyExc_ValueError, "timeit(): %d callables x %lld reps is more than 2000000 timed calls", nfns,
                     reps);
        goto done;
    }
    for (i = 0; i < nfns; i++) {
        PyObject *fn = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyCallable_Check(fn)) {
            PyErr_Format(PyExc_TypeError, "timeit(): fns[%d] is not callable (%.100s)", i, Py_TYPE(fn)->tp_name);
            goto done;
        }
        timed[i].fn = fn;
        timed[i].failed = &failed;
        ops[i].launch = launch_py;
        ops[i].ctx = &timed[i];
    }
    st = smk_rt_ready();
    if (st.code != SMK_OK) {
        smk_py_raise_status(module, st);
        goto done;
    }
    if (!(times = (float *)PyMem_Calloc((size_t)nfns * (size_t)reps, sizeof(float)))) {
        PyErr_NoMemory();
        goto done;
    }
    /* the GIL stays held: every launch is a Python call */
    st = smk_time_ops_on(ops, nfns, (int)warmup, (int)reps, (size_t)flush, &stream, times);
    if (failed) /* the callable's own exception, not the loop's stand-in status */
        goto done;
    if (st.code != SMK_OK) {
        smk_py_raise_status(module, st);
        goto done;
    }
    if (!(res = PyList_New(nfns)))
        goto done;
    for (i = 0; i < nfns; i++) {
        if (!(lst = PyList_New(reps))) {
            Py_CLEAR(res);
            goto done;
        }
        for (r = 0; r < reps; r++) {
            PyObject *v = PyFloat_FromDouble((double)times[(size_t)i * (size_t)reps + (size_t)r]);
            if (!v) {
                Py_CLEAR(lst);
                Py_CLEAR(res);
                goto done;
            }
            PyList_SET_ITEM(lst, r, v);
        }
        PyList_SET_ITEM(res, i, lst);
        lst = NULL;
    }
done:
    PyMem_Free(times);
    Py_XDECREF(seq);
    return res;
}

PyMethodDef smk_timer_methods[] = {
    {"_time_calls", SMK_KW(py_time_calls), time_calls_doc},
    {NULL, NULL, 0, NULL},
};
