/*
 * module_tune.c -- bindings of the measured choices of the SGEMM (csrc/sgemm/tune.cu, api/sgemm_tune.h) and of the
 * transposes (csrc/transpose/tune.cu, api/transpose_tune.h): the switch, the caches and the candidates of a shape;
 * and the tiled transposes' raster by shape (csrc/transpose/configs.h raster_group).  Conversion only;
 * smemkit/tuning.py is the public face.
 */
#include "py_convert.h"

#include "api/sgemm.h"
#include "api/sgemm_tune.h"
#include "api/transpose_tune.h"
#include "layout.h"

#include <stdint.h>
#include <string.h>

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

/* A list of one(item) for the n items of `size` bytes at `items`; NULL with an exception set on failure. */
static PyObject *list_of(const void *items, size_t size, int n, PyObject *(*one)(const void *item))
{
    PyObject *lst = PyList_New(n > 0 ? n : 0);
    for (int i = 0; lst && i < n; i++) {
        PyObject *v = one((const char *)items + (size_t)i * size);
        if (!v) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, i, v);
    }
    return lst;
}

/* A cache's entries as a list: get(NULL, 0) counts them, get(buf, max) copies them. */
static PyObject *cache_list(int (*get)(void *buf, int max), size_t size, PyObject *(*one)(const void *item))
{
    const int n = get(NULL, 0);
    void *buf = PyMem_Calloc(n > 0 ? (size_t)n : 1, size);
    PyObject *lst;
    int got;
    if (!buf)
        return PyErr_NoMemory();
    got = get(buf, n);
    lst = list_of(buf, size, got < n ? got : n, one);
    PyMem_Free(buf);
    return lst;
}

static int sgemm_entries(void *buf, int max) { return smk_sgemm_tune_entries((smk_sgemm_tune_entry *)buf, max); }

static PyObject *sgemm_entry(const void *item)
{
    const smk_sgemm_tune_entry *e = (const smk_sgemm_tune_entry *)item;
    PyObject *name = config_name(e->config);
    return name ? Py_BuildValue("{s:i,s:L,s:L,s:L,s:i,s:N,s:i,s:d,s:d,s:i}", "device", e->device, "M", (long long)e->M,
                                "N", (long long)e->N, "K", (long long)e->K, "flags", e->flags, "config", name,
                                "splits", e->splits, "best_us", e->best_us, "model_us", e->model_us, "timed", e->timed)
                : NULL;
}

PyDoc_STRVAR(autotune_cache_doc,
"_autotune_cache()\n--\n\n"
"The SGEMM tuning cache: a list of dicts {device, M, N, K, flags, config, splits, best_us, model_us, timed}\n"
"(config 'auto': the model's choice won or the shape was not timed; 'gemv/S': the matrix-vector route with S K\n"
"slices; 'rows-n/L': the narrow-N rows route at level L; flags: 1 A, 2 B, 4 D and C on 16-byte rows, 8 beta != 0).");
static PyObject *py_autotune_cache(PyObject *module, PyObject *noargs)
{
    return cache_list(sgemm_entries, sizeof(smk_sgemm_tune_entry), sgemm_entry);
}

PyDoc_STRVAR(autotune_clear_doc, "_autotune_clear()\n--\n\nEmpty the SGEMM and transpose tuning caches (every device).");
static PyObject *py_autotune_clear(PyObject *module, PyObject *noargs)
{
    smk_sgemm_tune_clear();
    smk_transpose_tune_clear();
    Py_RETURN_NONE;
}

/* A transpose's params from (rows, cols, esz, in_rs, in_cs, batch, in_bs, in_off, out_off): the pointers are the
 * 32-byte residues alone (the candidates and the cache key read nothing else of them). */
static int transpose_shape(PyObject *args, const char *fmt, smk_transpose_params *p, int *a, int *b)
{
    long long rows = 0, cols = 0, in_rs = 0, in_cs = 0, batch = 1, in_bs = 0;
    int esz = 0, in_off = 0, out_off = 0;
    memset(p, 0, sizeof *p);
    if (a ? !PyArg_ParseTuple(args, fmt, &rows, &cols, &esz, a, b, &in_rs, &in_cs, &batch, &in_bs, &in_off, &out_off)
          : !PyArg_ParseTuple(args, fmt, &rows, &cols, &esz, &in_rs, &in_cs, &batch, &in_bs, &in_off, &out_off))
        return -1;
    if (rows < 0 || cols < 0 || batch < 1 || !smk_transpose_supports(esz) || in_off < 0 || in_off > 31 ||
        out_off < 0 || out_off > 31) {
        PyErr_Format(PyExc_ValueError, "rows, cols >= 0, batch >= 1, an element size the transposes move "
                     "(1, 2, 4, 8, 16) and 32-byte residues 0..31; got %lld, %lld, %lld, %d, %d, %d",
                     rows, cols, batch, esz, in_off, out_off);
        return -1;
    }
    p->rows = rows, p->cols = cols, p->esz = esz, p->batch = batch, p->in_bs = in_bs;
    p->in_rs = in_rs, p->in_cs = in_cs;
    p->in = (const void *)(uintptr_t)(in_off + 256); /* never read: residues only */
    p->out = (void *)(uintptr_t)(out_off + 256);
    return 0;
}

PyDoc_STRVAR(transpose_tune_candidates_doc,
"_transpose_tune_candidates(rows, cols, esz, in_rs, in_cs, batch, in_bs, in_off, out_off, /)\n--\n\n"
"The paths a tuned transpose of that shape (element strides, the pointers' 32-byte residues in_off / out_off)\n"
"times under the knobs as they are now, the defaults' first: a list of (transpose_sector, transpose_flat) levels;\n"
"[] where the call is not tuned.  Pure: no GPU needed.");
static PyObject *transpose_cand(const void *item)
{
    const smk_transpose_tune_cand *c = (const smk_transpose_tune_cand *)item;
    return Py_BuildValue("(ii)", c->sector, c->flat);
}

static PyObject *py_transpose_tune_candidates(PyObject *module, PyObject *args)
{
    smk_transpose_params p;
    smk_transpose_tune_cand c[8];
    int n;
    if (transpose_shape(args, "LLiLLLLii:_transpose_tune_candidates", &p, NULL, NULL) < 0)
        return NULL;
    n = smk_transpose_tune_candidates(&p, c, 8);
    return list_of(c, sizeof c[0], n > 1 ? n : 0, transpose_cand);
}

PyDoc_STRVAR(transpose_raster_group_doc,
"_transpose_raster_group(rows, cols, esz, batch=1, variant=0, /)\n--\n\n"
"The raster group G a tiled transpose launch of that shape takes under the knob transpose_group as it is now\n"
"(csrc/transpose/configs.h raster_group): bands of G tile rows walked down their tile columns, 0 row-major;\n"
"-1 where variant is not a tiled one.  Pure: no GPU needed.");
static PyObject *py_transpose_raster_group(PyObject *module, PyObject *args)
{
    long long rows = 0, cols = 0, batch = 1;
    int esz = 0, variant = 0;
    if (!PyArg_ParseTuple(args, "LLi|Li:_transpose_raster_group", &rows, &cols, &esz, &batch, &variant))
        return NULL;
    if (rows < 0 || cols < 0 || batch < 1 || !smk_transpose_supports(esz) || variant < 0)
        return PyErr_Format(PyExc_ValueError, "_transpose_raster_group(): rows, cols >= 0, batch >= 1, an element size "
                            "the transposes move (1, 2, 4, 8, 16), variant >= 0; got %lld, %lld, %d, %lld, %d",
                            rows, cols, esz, batch, variant);
    return PyLong_FromLongLong((long long)smk_transpose_raster_group(rows, cols, esz, batch, variant));
}

PyDoc_STRVAR(transpose_tune_pin_doc,
"_transpose_tune_pin(rows, cols, esz, sector, flat, in_rs, in_cs, batch, in_bs, in_off, out_off, /)\n--\n\n"
"Pin (transpose_sector, transpose_flat) levels as the current device's tuned winner of that shape and those\n"
"32-byte residues.  Tests (every candidate's launch); no GPU work.");
static PyObject *py_transpose_tune_pin(PyObject *module, PyObject *args)
{
    smk_transpose_params p;
    int sector = 0, flat = 0, e;
    if (transpose_shape(args, "LLiiiLLLLii:_transpose_tune_pin", &p, &sector, &flat) < 0)
        return NULL;
    if (sector < 0 || sector > 7 || flat < 0 || flat > 2)
        return PyErr_Format(PyExc_ValueError, "_transpose_tune_pin(): sector 0..7, flat 0..2; got %d, %d", sector, flat);
    e = smk_transpose_tune_pin(&p, sector, flat);
    if (e != 0)
        return PyErr_Format(PyExc_RuntimeError, "_transpose_tune_pin(): no current CUDA device (cudaError %d)", e);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(transpose_tune_cache_doc,
"_transpose_tune_cache()\n--\n\n"
"The transpose tuning cache: a list of dicts {device, rows, cols, batch, in_rs, in_cs, in_bs, esz, in_off,\n"
"out_off, sector, flat, best_us, model_us, timed} (sector / flat: the winner's transpose_sector and\n"
"transpose_flat levels; timed 0: pinned, or a candidate could not run and the default stays).");
static int transpose_entries(void *buf, int max)
{
    return smk_transpose_tune_entries((smk_transpose_tune_entry *)buf, max);
}

static PyObject *transpose_entry(const void *item)
{
    const smk_transpose_tune_entry *e = (const smk_transpose_tune_entry *)item;
    return Py_BuildValue("{s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:i,s:i,s:i,s:i,s:i,s:d,s:d,s:i}", "device", e->device,
                         "rows", (long long)e->rows, "cols", (long long)e->cols, "batch", (long long)e->batch,
                         "in_rs", (long long)e->in_rs, "in_cs", (long long)e->in_cs, "in_bs", (long long)e->in_bs,
                         "esz", e->esz, "in_off", e->flags & 31, "out_off", (e->flags >> 5) & 31, "sector",
                         e->win.sector, "flat", e->win.flat, "best_us", e->best_us, "model_us", e->model_us,
                         "timed", e->timed);
}

static PyObject *py_transpose_tune_cache(PyObject *module, PyObject *noargs)
{
    return cache_list(transpose_entries, sizeof(smk_transpose_tune_entry), transpose_entry);
}

PyDoc_STRVAR(tune_candidates_doc,
"_sgemm_tune_candidates(M, N, K, sms, layout, /)\n--\n\n"
"The candidates a tuned SGEMM call of M x N x K on a device with `sms` SMs times, the model's choice first: a\n"
"list of (config name, splits, price ns) -- 'auto' the model's choice, 'gemv/S' the matrix-vector route with S K\n"
"slices, 'rows-n/L' the narrow-N rows route at level L; [] where the shape is not tuned.  Pure: no GPU needed.");
static PyObject *sgemm_cand(const void *item)
{
    const smk_sgemm_tune_cand *c = (const smk_sgemm_tune_cand *)item;
    PyObject *name = config_name(c->config);
    return name ? Py_BuildValue("(Nid)", name, c->splits, c->price) : NULL;
}

static PyObject *py_tune_candidates(PyObject *module, PyObject *args)
{
    long long M = 0, N = 0, K = 0;
    int sms = 0, layout = 0, n;
    smk_sgemm_tune_cand c[32];
    if (!PyArg_ParseTuple(args, "LLLii:_sgemm_tune_candidates", &M, &N, &K, &sms, &layout))
        return NULL;
    if (M < 0 || N < 0 || K < 0 || sms < 1 || layout < 0 || layout >= SMK_NUM_LAYOUTS)
        return PyErr_Format(PyExc_ValueError, "_sgemm_tune_candidates(): M, N, K >= 0, sms >= 1 and a layout index "
                            "0..%d; got %lld, %lld, %lld, %d, %d", SMK_NUM_LAYOUTS - 1, M, N, K, sms, layout);
    n = smk_sgemm_tune_candidates(M, N, K, sms, layout, c, 32);
    return list_of(c, sizeof c[0], n, sgemm_cand);
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
    {"_transpose_tune_candidates", py_transpose_tune_candidates, METH_VARARGS, transpose_tune_candidates_doc},
    {"_transpose_tune_pin", py_transpose_tune_pin, METH_VARARGS, transpose_tune_pin_doc},
    {"_transpose_raster_group", py_transpose_raster_group, METH_VARARGS, transpose_raster_group_doc},
    {"_transpose_tune_cache", py_transpose_tune_cache, METH_NOARGS, transpose_tune_cache_doc},
    {NULL, NULL, 0, NULL},
};
