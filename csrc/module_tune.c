/*
 * module_tune.c -- bindings of the SGEMM's measured choice (csrc/sgemm/tune.cu, api/sgemm_tune.h): the switch, the
 * cache and the candidates of a shape.  Conversion only; smemkit/tuning.py is the public face.
 */
#include "py_convert.h"

#include "api/sgemm.h"
#include "api/sgemm_tune.h"
#include "layout.h"

PyDoc_STRVAR(autotune_doc,
"_autotune(level=None, /)\n--\n\n"
"The knob sgemm_tune: with no argument its level (0 off, 1 on but not under a CUDA tool, 2 always); else sets it\n"
"(0..2) and returns the new level.");
static PyObject *py_autotune(PyObject *module, PyObject *args)
{
    PyObject *arg = Py_None;
    long level = -1;
    if (!PyArg_ParseTuple(args, "|O:_autotune", &arg))
        return NULL;
    if (arg != Py_None) {
        level = PyLong_AsLong(arg);
        if (level == -1 && PyErr_Occurred())
            return NULL;
        if (level < 0 || level > 2)
            return PyErr_Format(PyExc_ValueError, "_autotune(): level must be 0, 1 or 2; got %ld", level);
    }
    if (level >= 0)
        smk_sgemm_set_tune((int)level);
    return PyLong_FromLong(smk_sgemm_tune_level());
}

static PyObject *config_name(int config)
{
    if (config == 0)
        return PyUnicode_FromString("auto");
    if (config <= -100)
        return PyUnicode_FromFormat("gemv/%d", -config - 100);
    if (config < 0)
        return PyUnicode_FromFormat("rows-n/%d", -config);
    return PyUnicode_FromString(smk_sgemm_config_name(config));
}

PyDoc_STRVAR(autotune_cache_doc,
"_autotune_cache()\n--\n\n"
"The SGEMM tuning cache: a list of dicts {device, M, N, K, flags, config, splits, best_us, model_us, timed}\n"
"(config 'auto': the model's choice won or the shape was not timed; 'gemv/S': the matrix-vector route with S K\n"
"slices; 'rows-n/L': the narrow-N rows route at level L; flags: 1 A, 2 B, 4 D and C on 16-byte rows, 8 beta != 0).");
static PyObject *py_autotune_cache(PyObject *module, PyObject *noargs)
{
    const int n = smk_sgemm_tune_entries(NULL, 0);
    smk_sgemm_tune_entry *e = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *e);
    PyObject *lst = NULL;
    int got, i;
    if (!e)
        return PyErr_NoMemory();
    got = smk_sgemm_tune_entries(e, n);
    got = got < n ? got : n;
    lst = PyList_New(got);
    for (i = 0; lst && i < got; i++) {
        PyObject *name = config_name(e[i].config);
        PyObject *d = name ? Py_BuildValue("{s:i,s:L,s:L,s:L,s:i,s:N,s:i,s:d,s:d,s:i}", "device", e[i].device,
                                           "M", (long long)e[i].M, "N", (long long)e[i].N, "K", (long long)e[i].K,
                                           "flags", e[i].flags, "config", name, "splits", e[i].splits,
                                           "best_us", e[i].best_us, "model_us", e[i].model_us, "timed", e[i].timed)
                           : NULL;
        if (!d) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, i, d);
    }
    PyMem_Free(e);
    return lst;
}

PyDoc_STRVAR(autotune_clear_doc, "_autotune_clear()\n--\n\nEmpty the SGEMM tuning cache (every device).");
static PyObject *py_autotune_clear(PyObject *module, PyObject *noargs)
{
    smk_sgemm_tune_clear();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(tune_candidates_doc,
"_sgemm_tune_candidates(M, N, K, sms, layout, /)\n--\n\n"
"The candidates a tuned SGEMM call of M x N x K on a device with `sms` SMs times, the model's choice first: a\n"
"list of (config name, splits, price ns) -- 'auto' the model's choice, 'gemv/S' the matrix-vector route with S K\n"
"slices, 'rows-n/L' the narrow-N rows route at level L; [] where the shape is not tuned.  Pure: no GPU needed.");
static PyObject *py_tune_candidates(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int sms = 0, layout = 0, n, i;
    smk_sgemm_tune_cand c[32];
    PyObject *lst;
    if (!PyArg_ParseTuple(args, "LLLii:_sgemm_tune_candidates", &M, &N, &K, &sms, &layout))
        return NULL;
    if (M < 0 || N < 0 || K < 0 || sms < 1 || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return PyErr_Format(PyExc_ValueError, "_sgemm_tune_candidates(): M, N, K >= 0, sms >= 1 and a layout index "
                            "0..%d; got %lld, %lld, %lld, %d, %d", SMK_NUM_LAYOUTS - 1, M, N, K, sms, layout);
    n = smk_sgemm_tune_candidates(M, N, K, sms, layout, c, 32);
    lst = PyList_New(n);
    for (i = 0; lst && i < n; i++) {
        PyObject *t = Py_BuildValue("(Nid)", config_name(c[i].config), c[i].splits, c[i].price);
        if (!t) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, i, t);
    }
    return lst;
}

PyDoc_STRVAR(autotune_pin_doc,
"_autotune_pin(M, N, K, config, splits, flags=-1, /)\n--\n\n"
"Pin candidate (config code, splits) as the current device's tuned winner of M x N x K (flags -1: every alignment\n"
"combination) -- config as smk_sgemm_tune_cand codes it: 0 the model's choice, >= 1 a tile config index, -1 / -3\n"
"the rows route level, -100 - S the matrix-vector route with S slices.  Tests (every candidate's launch); no GPU work.");
static PyObject *py_autotune_pin(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int config = 0, splits = 0, flags = -1, e;
    if (!PyArg_ParseTuple(args, "LLLii|i:_autotune_pin", &M, &N, &K, &config, &splits, &flags))
        return NULL;
    if (M < 0 || N < 0 || K < 0 || flags < -1 || flags > 15 || splits < 0 || config >= smk_sgemm_num_configs())
        return PyErr_Format(PyExc_ValueError, "_autotune_pin(): M, N, K, splits >= 0, config < %d, flags -1..15",
                            smk_sgemm_num_configs());
    e = smk_sgemm_tune_pin(M, N, K, flags, config, splits);
    if (e != 0)
        return PyErr_Format(PyExc_RuntimeError, "_autotune_pin(): no current CUDA device (cudaError %d)", e);
    Py_RETURN_NONE;
}

PyMethodDef smk_tune_methods[] = {
    {"_autotune_pin", py_autotune_pin, METH_VARARGS, autotune_pin_doc},
    {"_autotune", py_autotune, METH_VARARGS, autotune_doc},
    {"_autotune_cache", py_autotune_cache, METH_NOARGS, autotune_cache_doc},
    {"_autotune_clear", py_autotune_clear, METH_NOARGS, autotune_clear_doc},
    {"_sgemm_tune_candidates", py_tune_candidates, METH_VARARGS, tune_candidates_doc},
    {NULL, NULL, 0, NULL},
};
