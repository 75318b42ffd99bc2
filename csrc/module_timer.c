/*
 * module_timer.c -- binding of smemkit.timeit's loop: Python callables timed by event_loop.c's loop
 * (smk_time_ops_on), the loop every smemkit.bench figure comes from, so a user's kernel, a library
 * call (x.t().contiguous()) and smemkit's own ops are timed the same way: warm-up, an L2 flush before
 * each timed call, the callables interleaved A B C A B C ..., two events around each call on the stream
 * the callables enqueue on.  Conversion only; the loop and its rules live in event_loop.c.
 */
#include "py_convert.h"

#include <string.h>

#include "event_loop.h"

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
"preceded by a write of `flush_bytes` (0: none) that evicts L2 -- csrc/event_loop.c's loop.  Returns one\n"
"list of `reps` times in milliseconds per callable.  An exception raised by a callable stops the loop\n"
"(after synchronising the stream) and propagates; CudaError without a GPU.");

/* stream=None / an int cudaStream_t handle.  0, or -1 with an exception set. */
static int parse_stream(PyObject *obj, cudaStream_t *stream)
{
    *stream = NULL;
    if (!obj || obj == Py_None)
        return 0;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "timeit(): stream must be an int (a cudaStream_t handle); got %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *stream = (cudaStream_t)PyLong_AsVoidPtr(obj);
    return PyErr_Occurred() ? -1 : 0;
}

/* The callables of seq as launchers of event_loop.c's loop; their count, or -1 with an exception set. */
static int collect_fns(PyObject *seq, long long reps, py_timed *timed, smk_timed_op *ops, int *failed)
{
    const int nfns = (int)PySequence_Fast_GET_SIZE(seq);
    int i;
    if (nfns < 1 || nfns > SMK_TIMER_MAX_FNS) {
        PyErr_Format(PyExc_ValueError, "timeit(): between 1 and %d callables; got %d", SMK_TIMER_MAX_FNS, nfns);
        return -1;
    }
    /* 2 events per timed call, all alive until the final synchronisation */
    if ((long long)nfns * reps > 2000000) {
        PyErr_Format(PyExc_ValueError, "timeit(): %d callables x %lld reps is more than 2000000 timed calls", nfns,
                     reps);
        return -1;
    }
    for (i = 0; i < nfns; i++) {
        PyObject *fn = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyCallable_Check(fn)) {
            PyErr_Format(PyExc_TypeError, "timeit(): fns[%d] is not callable (%.100s)", i, Py_TYPE(fn)->tp_name);
            return -1;
        }
        timed[i].fn = fn;
        timed[i].failed = failed;
        ops[i].launch = launch_py;
        ops[i].ctx = &timed[i];
    }
    return nfns;
}

/* times[nfns][reps] as a list of nfns lists of floats; NULL with an exception set. */
static PyObject *times_to_lists(const float *times, int nfns, long long reps)
{
    PyObject *res = PyList_New(nfns), *lst = NULL;
    int i;
    long long r;
    if (!res)
        return NULL;
    for (i = 0; i < nfns; i++) {
        if (!(lst = PyList_New((Py_ssize_t)reps)))
            goto fail;
        for (r = 0; r < reps; r++) {
            PyObject *v = PyFloat_FromDouble((double)times[(size_t)i * (size_t)reps + (size_t)r]);
            if (!v)
                goto fail;
            PyList_SET_ITEM(lst, (Py_ssize_t)r, v);
        }
        PyList_SET_ITEM(res, i, lst);
        lst = NULL;
    }
    return res;
fail:
    Py_XDECREF(lst);
    Py_DECREF(res);
    return NULL;
}

static PyObject *py_time_calls(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fns", "stream", "warmup", "reps", "flush_bytes", NULL};
    PyObject *fns = NULL, *seq = NULL, *stream_obj = NULL, *warmup_obj = NULL, *reps_obj = NULL, *flush_obj = NULL;
    PyObject *res = NULL;
    long long warmup = 1, reps = 10, flush = 0;
    py_timed timed[SMK_TIMER_MAX_FNS];
    smk_timed_op ops[SMK_TIMER_MAX_FNS];
    cudaStream_t stream = NULL;
    float *times = NULL;
    int failed = 0, nfns;
    smk_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OOOO:_time_calls", kwlist, &fns, &stream_obj, &warmup_obj,
                                     &reps_obj, &flush_obj) ||
        smk_py_int_arg(warmup_obj, "timeit", "warmup", 0, INT32_MAX, &warmup) < 0 ||
        smk_py_int_arg(reps_obj, "timeit", "reps", 1, 1000000, &reps) < 0 ||
        smk_py_int_arg(flush_obj, "timeit", "flush_bytes", 0, (long long)1 << 40, &flush) < 0 ||
        !(seq = PySequence_Fast(fns, "timeit(): fns must be a sequence of callables")))
        return NULL;
    if (parse_stream(stream_obj, &stream) < 0 || (nfns = collect_fns(seq, reps, timed, ops, &failed)) < 0)
        goto done;
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
    if (st.code != SMK_OK)
        smk_py_raise_status(module, st);
    else
        res = times_to_lists(times, nfns, reps);
done:
    PyMem_Free(times);
    Py_XDECREF(seq);
    return res;
}

PyMethodDef smk_timer_methods[] = {
    {"_time_calls", SMK_KW(py_time_calls), time_calls_doc},
    {NULL, NULL, 0, NULL},
};
