/*
 * module.c -- smemkit._C, the only file that includes Python.h and NumPy.
 *
 * Parsing, validation, GIL release and error mapping live here; the work lives in runtime.c, the
 * kernels (*.cu) and the CPU model (bank_model.c).  Arguments are validated completely before any
 * device work, so a machine without a GPU reports argument errors exactly as one with a GPU does.
 *
 * Style: NULL-initialised locals, one `fail:` label with Py_XDECREFs, never overwrite a pending
 * exception, docstrings that start with the signature.  Multi-phase init; NumPy is imported in the
 * exec slot.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>

#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "runtime.h"

/* One table of layout names: the C enum order, Python's LAYOUTS, error messages. */
static const char *const kLayoutNames[SMK_NUM_LAYOUTS] = {"naive", "pad", "swizzle"};
#define SMK_LAYOUT_LIST "'naive', 'pad', 'swizzle'"

typedef struct {
    PyObject *CudaError;
} smk_state;

static smk_state *get_state(PyObject *module) { return (smk_state *)PyModule_GetState(module); }

/* ---- errors ----------------------------------------------------------------------------------- */

static void raise_cuda(PyObject *module, int status, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    PyObject *exc = NULL, *code = NULL;
    va_start(ap, fmt);
    PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    exc = PyObject_CallFunction(get_state(module)->CudaError, "s", msg);
    if (!exc)
        return;
    code = PyLong_FromLong(status);
    if (!code || PyObject_SetAttrString(exc, "status", code) < 0) {
        Py_XDECREF(code);
        Py_DECREF(exc);
        return;
    }
    Py_DECREF(code);
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
}

/* Turn a failed smk_status into the Python exception it stands for.  Always returns NULL. */
static PyObject *raise_status(PyObject *module, smk_status s)
{
    const char *name = smk_rt_error_name(s.cuda), *text = smk_rt_error_string(s.cuda);
    switch (s.code) {
    case SMK_E_NOMEM:
        PyErr_Format(PyExc_MemoryError, "smemkit: out of device memory: could not allocate %zu bytes (%s)",
                     s.bytes, s.where ? s.where : "allocation");
        break;
    case SMK_E_NODEVICE:
        raise_cuda(module, s.cuda, "no usable GPU was found (%s: %s)", name, text);
        break;
    case SMK_E_POISONED:
        raise_cuda(module, s.cuda,
                   "%s: %s -- an earlier error corrupted the CUDA context; restart the process (notebook "
                   "kernel) to use the GPU again",
                   name, text);
        break;
    default:
        if (smk_rt_is_sticky(s.cuda))
            raise_cuda(module, s.cuda,
                       "%s: %s (while %s) -- the CUDA context is now unusable; restart the process "
                       "(notebook kernel) to use the GPU again",
                       name, text, s.where ? s.where : "running");
        else
            raise_cuda(module, s.cuda, "%s: %s (while %s)", name, text, s.where ? s.where : "running");
    }
    return NULL;
}

/* ---- argument helpers ------------------------------------------------------------------------- */

/* layout=None means the default ("swizzle").  0 on success, -1 with an exception set. */
static int parse_layout(PyObject *obj, const char *fname, int *layout)
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
    for (i = 0; i < SMK_NUM_LAYOUTS; i++) {
        if (PyUnicode_CompareWithASCIIString(obj, kLayoutNames[i]) == 0) {
            *layout = i;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "%s(): unknown layout %R; expected one of " SMK_LAYOUT_LIST, fname, obj);
    return -1;
}

/* Shape as "(3, 4)" for messages. */
static PyObject *shape_repr(PyArrayObject *a)
{
    PyObject *t = PyTuple_New(PyArray_NDIM(a)), *r = NULL;
    int i;
    if (!t)
        return NULL;
    for (i = 0; i < PyArray_NDIM(a); i++) {
        PyObject *d = PyLong_FromSsize_t(PyArray_DIM(a, i));
        if (!d) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    r = PyObject_Repr(t);
    Py_DECREF(t);
    return r;
}

static int require_ndarray(PyObject *obj, const char *fname, const char *arg)
{
    if (PyArray_Check(obj))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s(): %s must be a numpy.ndarray; got %.100s", fname, arg,
                 Py_TYPE(obj)->tp_name);
    return -1;
}

static int require_2d(PyArrayObject *a, const char *fname, const char *arg)
{
    PyObject *shape = NULL;
    if (PyArray_NDIM(a) == 2)
        return 0;
    shape = shape_repr(a);
    if (shape)
        PyErr_Format(PyExc_ValueError, "%s(): %s must be 2-D; got a %d-D array of shape %U", fname, arg,
                     PyArray_NDIM(a), shape);
    Py_XDECREF(shape);
    return -1;
}

/* ---- transpose -------------------------------------------------------------------------------- */

/* Element types the transpose moves bitwise: 4- and 8-byte integers, floats and complex64. */
static int transpose_dtype_ok(PyArray_Descr *d)
{
    return (d->kind == 'i' || d->kind == 'u' || d->kind == 'f' || d->kind == 'c') &&
           (PyDataType_ELSIZE(d) == 4 || PyDataType_ELSIZE(d) == 8);
}

/* Host in, host out: upload, launch, download, free.  Runs without the GIL. */
static smk_status host_transpose(const void *host_in, void *host_out, smk_transpose_params p, size_t bytes)
{
    void *din = NULL, *dout = NULL;
    smk_status s = smk_rt_alloc(&din, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_alloc(&dout, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_h2d(din, host_in, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dout, bytes);
    if (s.code == SMK_OK) {
        p.in = din;
        p.out = dout;
        s = smk_rt_check_launch(smk_transpose_launch(&p, smk_rt_stream()), "launching the transpose kernel");
    }
    if (s.code == SMK_OK)
        s = smk_rt_d2h(host_out, dout, bytes);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    smk_rt_free(din);
    smk_rt_free(dout);
    return s;
}

PyDoc_STRVAR(transpose_doc,
"transpose(a, layout='swizzle')\n--\n\n"
"Return a new C-contiguous array equal to ``numpy.ascontiguousarray(a.T)``, bit for bit,\n"
"computed on the GPU by a tiled kernel whose shared-memory tile uses ``layout``.\n\n"
"Parameters\n----------\n"
"a : numpy.ndarray, 2-D\n"
"    Any shape (including empty), any strides or byte order.  dtype: a 4- or 8-byte integer,\n"
"    float or complex type (int32, uint32, float32, int64, uint64, float64, complex64); elements\n"
"    are moved bitwise, so NaN payloads and signed zeros survive.\n"
"layout : {'naive', 'pad', 'swizzle'}\n"
"    Shared-memory index map of the tile.  All three run the same kernel; 'naive' makes the\n"
"    tile's column read a 32-way bank conflict, 'pad' and 'swizzle' make it conflict-free.\n\n"
"Raises\n------\n"
"TypeError for non-arrays and unsupported dtypes, ValueError for non-2-D input or an unknown\n"
"layout, MemoryError when the device is out of memory, smemkit.CudaError for CUDA failures\n"
"(including 'no usable GPU was found').");

static PyObject *py_transpose(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "layout", NULL};
    PyObject *a_obj = NULL, *layout_obj = NULL;
    PyArrayObject *a = NULL, *src = NULL, *out = NULL;
    PyArray_Descr *descr = NULL;
    smk_transpose_params p;
    smk_status st;
    npy_intp out_dims[2];
    int layout = SMK_SWIZZLE;
    size_t bytes;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:transpose", kwlist, &a_obj, &layout_obj))
        return NULL;
    if (parse_layout(layout_obj, "transpose", &layout) < 0)
        return NULL;
    if (require_ndarray(a_obj, "transpose", "a") < 0)
        return NULL;
    a = (PyArrayObject *)a_obj;
    if (require_2d(a, "transpose", "a") < 0)
        return NULL;
    descr = PyArray_DESCR(a);
    if (!transpose_dtype_ok(descr)) {
        PyErr_Format(PyExc_TypeError,
                     "transpose(): unsupported dtype %R; supported: 4- and 8-byte integer, float and complex "
                     "dtypes (int32, uint32, float32, int64, uint64, float64, complex64)",
                     (PyObject *)descr);
        return NULL;
    }

    memset(&p, 0, sizeof p);
    p.rows = PyArray_DIM(a, 0);
    p.cols = PyArray_DIM(a, 1);
    p.esz = (int)PyDataType_ELSIZE(descr);
    p.layout = layout;
    bytes = (size_t)p.rows * (size_t)p.cols * (size_t)p.esz;

    /* Upload the caller's memory as it lies when it is one contiguous block (C or Fortran order);
     * otherwise (slices, negative strides, unaligned) make one C-ordered copy on the host. */
    if (PyArray_ISALIGNED(a) && PyArray_IS_C_CONTIGUOUS(a)) {
        src = a;
        Py_INCREF(src);
        p.in_rs = p.cols;
        p.in_cs = 1;
    } else if (PyArray_ISALIGNED(a) && PyArray_IS_F_CONTIGUOUS(a)) {
        src = a;
        Py_INCREF(src);
        p.in_rs = 1;
        p.in_cs = p.rows;
    } else {
        src = (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
        if (!src)
            goto fail;
        p.in_rs = p.cols;
        p.in_cs = 1;
    }

    out_dims[0] = (npy_intp)p.cols;
    out_dims[1] = (npy_intp)p.rows;
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    out = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, 2, out_dims, NULL, NULL, 0, NULL);
    if (!out)
        goto fail;

    st = smk_rt_ready();
    if (st.code != SMK_OK) {
        raise_status(module, st);
        goto fail;
    }
    if (bytes) {
        Py_BEGIN_ALLOW_THREADS
        st = host_transpose(PyArray_DATA(src), PyArray_DATA(out), p, bytes);
        Py_END_ALLOW_THREADS
        if (st.code != SMK_OK) {
            raise_status(module, st);
            goto fail;
        }
    }
    Py_DECREF(src);
    return (PyObject *)out;
fail:
    Py_XDECREF(src);
    Py_XDECREF(out);
    return NULL;
}

/* ---- layout maps (CPU; the same functions the kernels use) ------------------------------------ */

static int parse_pow2(long long v, const char *what, int lo, int hi, int *log2v)
{
    if (v < lo || v > hi || (v & (v - 1)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be a power of two in [%d, %d]; got %lld", what, lo, hi, v);
        return -1;
    }
    *log2v = smk_ilog2((int)v);
    return 0;
}

/* Parse (layout, cols, vec, itemsize) into an smk_tile. */
static int parse_tile(PyObject *layout_obj, long long cols, long long vec, long long itemsize, const char *fname,
                      smk_tile *t)
{
    if (parse_layout(layout_obj, fname, &t->layout) < 0 || parse_pow2(cols, "cols", 1, 1 << 14, &t->log2_cols) < 0 ||
        parse_pow2(vec, "vec", 1, 16, &t->log2_vec) < 0 || parse_pow2(itemsize, "itemsize", 1, 16, &t->log2_esz) < 0)
        return -1;
    if (vec > cols) {
        PyErr_Format(PyExc_ValueError, "vec (%lld) must not exceed cols (%lld)", vec, cols);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(tile_offsets_doc,
"_tile_offsets(layout, rows, cols, vec=1, itemsize=4)\n--\n\n"
"int64 array (rows, cols): the element offset in shared storage of each logical (r, c), from\n"
"csrc/layout.h's smk_tile_offset (the function the kernels call).  Returns (offsets, storage_elems).");

static PyObject *py_tile_offsets(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"layout", "rows", "cols", "vec", "itemsize", NULL};
    PyObject *layout_obj = NULL;
    long long rows = 0, cols = 0, vec = 1, itemsize = 4;
    smk_tile t;
    PyArrayObject *out = NULL;
    npy_intp dims[2];
    int64_t *o;
    int r, c;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLL|LL:_tile_offsets", kwlist, &layout_obj, &rows, &cols, &vec,
                                     &itemsize))
        return NULL;
    if (parse_tile(layout_obj, cols, vec, itemsize, "_tile_offsets", &t) < 0)
        return NULL;
    if (rows < 1 || rows > (1 << 14)) {
        PyErr_Format(PyExc_ValueError, "rows must be in [1, 16384]; got %lld", rows);
        return NULL;
    }
    dims[0] = (npy_intp)rows;
    dims[1] = (npy_intp)cols;
    out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64);
    if (!out)
        return NULL;
    o = (int64_t *)PyArray_DATA(out);
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++)
            o[(int64_t)r * cols + c] = smk_tile_offset(t, r, c);
    return Py_BuildValue("Ni", (PyObject *)out, smk_tile_elems(t, (int)rows));
}

PyDoc_STRVAR(tile_swizzle_doc,
"_tile_swizzle(cols, vec=1, itemsize=4)\n--\n\n"
"(B, M, S) of the Swizzle<B,M,S> the 'swizzle' layout uses for a tile of that row length,\n"
"access width and element size (csrc/layout.h smk_tile_swizzle).");

static PyObject *py_tile_swizzle(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cols", "vec", "itemsize", NULL};
    long long cols = 0, vec = 1, itemsize = 4;
    smk_tile t;
    smk_swz z;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|LL:_tile_swizzle", kwlist, &cols, &vec, &itemsize))
        return NULL;
    if (parse_tile(NULL, cols, vec, itemsize, "_tile_swizzle", &t) < 0)
        return NULL;
    z = smk_tile_swizzle(t);
    return Py_BuildValue("iii", z.b, z.m, z.s);
}

PyDoc_STRVAR(swizzle_doc,
"_swizzle(offsets, b, m, s)\n--\n\n"
"Apply Swizzle<B,M,S> (csrc/layout.h smk_swizzle) to an array of non-negative integer offsets;\n"
"returns an int64 array of the same shape.");

static PyObject *py_swizzle(PyObject *module, PyObject *args)
{
    PyObject *obj = NULL;
    PyArrayObject *in = NULL, *out = NULL;
    int b = 0, m = 0, s = 0;
    npy_intp i, n;
    const int64_t *src;
    int64_t *dst;
    (void)module;
    if (!PyArg_ParseTuple(args, "Oiii:_swizzle", &obj, &b, &m, &s))
        return NULL;
    if (b < 0 || m < 0 || b > 24 || m > 24 || s < -24 || s > 24 || (s < 0 && -s > m) ) {
        PyErr_Format(PyExc_ValueError,
                     "Swizzle(b=%d, m=%d, s=%d): need 0 <= b, m <= 24 and |s| <= 24 (and -s <= m for s < 0)",
                     b, m, s);
        return NULL;
    }
    if (abs(s) < b) {
        PyErr_Format(PyExc_ValueError,
                     "Swizzle(b=%d, m=%d, s=%d): |s| must be >= b, or the yyy and zzz bit fields overlap", b, m, s);
        return NULL;
    }
    in = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST);
    if (!in)
        return NULL;
    out = (PyArrayObject *)PyArray_NewLikeArray(in, NPY_CORDER, NULL, 0);
    if (!out)
        goto fail;
    n = PyArray_SIZE(in);
    src = (const int64_t *)PyArray_DATA(in);
    dst = (int64_t *)PyArray_DATA(out);
    for (i = 0; i < n; i++) {
        if (src[i] < 0 || src[i] > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "Swizzle offsets must be in [0, 2**31); got %lld", (long long)src[i]);
            goto fail;
        }
        dst[i] = smk_swizzle((int)src[i], b, m, s);
    }
    Py_DECREF(in);
    return (PyObject *)out;
fail:
    Py_XDECREF(in);
    Py_XDECREF(out);
    return NULL;
}

/* ---- device info ------------------------------------------------------------------------------ */

PyDoc_STRVAR(device_count_doc,
"device_count()\n--\n\n"
"Number of CUDA devices the runtime sees (0 without a GPU or driver).  Never raises.");

static PyObject *py_device_count(PyObject *module, PyObject *unused)
{
    int n;
    (void)module;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    n = smk_rt_device_count();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

PyDoc_STRVAR(device_name_doc,
"device_name()\n--\n\n"
"Name of the current CUDA device.  Raises smemkit.CudaError without a usable GPU.");

static PyObject *py_device_name(PyObject *module, PyObject *unused)
{
    char name[256];
    smk_status st = smk_rt_ready();
    (void)unused;
    if (st.code != SMK_OK)
        return raise_status(module, st);
    smk_rt_device_name(name, sizeof name);
    return PyUnicode_FromString(name);
}

PyDoc_STRVAR(empty_cache_doc,
"empty_cache()\n--\n\n"
"Return the device memory smemkit's pool keeps between calls (up to 1 GiB) to the driver.");

static PyObject *py_empty_cache(PyObject *module, PyObject *unused)
{
    smk_status st;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_trim();
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK)
        return raise_status(module, st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(set_poison_doc,
"_set_poison(on)\n--\n\n"
"Testing aid: when on, every kernel output buffer is filled with 0xFF bytes (NaN) before the\n"
"kernel runs, so an element the kernel fails to write shows up in a bit-exact comparison.");

static PyObject *py_set_poison(PyObject *module, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    (void)module;
    if (on < 0)
        return NULL;
    smk_rt_set_poison(on);
    Py_RETURN_NONE;
}

/* ---- device-resident timing (the benchmark's engine) ------------------------------------------ */

typedef struct {
    smk_transpose_params p;
    int variant;
} transpose_timed;

static int launch_transpose_timed(void *ctx, cudaStream_t s)
{
    transpose_timed *t = (transpose_timed *)ctx;
    return smk_transpose_launch_variant(&t->p, t->variant, s);
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} copy_timed;

static int launch_copy_timed(void *ctx, cudaStream_t s)
{
    copy_timed *c = (copy_timed *)ctx;
    return (int)cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
}

/* Fill device memory with non-zero pseudo-random bits (timing never runs on zeros). */
static smk_status fill_random(void *dst, size_t bytes)
{
    size_t chunk = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20), off, i;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    uint64_t *h = (uint64_t *)malloc(chunk + 8);
    smk_status s = {SMK_OK, 0, 0, NULL};
    if (!h) {
        s.code = SMK_E_NOMEM;
        s.where = "host staging memory";
        return s;
    }
    for (i = 0; i < chunk / 8 + 1; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = x;
    }
    for (off = 0; off < bytes && s.code == SMK_OK; off += chunk) {
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        s = smk_rt_h2d((char *)dst + off, h, n);
        if (s.code == SMK_OK)
            s = smk_rt_sync();
    }
    free(h);
    return s;
}

PyDoc_STRVAR(bench_transpose_doc,
"_bench_transpose(rows, cols, itemsize=4, variant=0, warmup=10, reps=50, flush_bytes=0)\n--\n\n"
"Time the transpose kernel for each layout and a cudaMemcpy device-to-device of the same bytes,\n"
"on device-resident data, with CUDA events, interleaved naive pad swizzle copy ... per rep.\n"
"Returns {'naive': [ms...], 'pad': [...], 'swizzle': [...], 'copy': [...]}.");

static PyObject *py_bench_transpose(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rows", "cols", "itemsize", "variant", "warmup", "reps", "flush_bytes", NULL};
    long long rows = 0, cols = 0, itemsize = 4, flush = 0;
    int variant = 0, warmup = 10, reps = 50, i, r;
    void *din = NULL, *dout = NULL;
    float *times = NULL;
    transpose_timed tt[SMK_NUM_LAYOUTS];
    copy_timed ct;
    smk_timed_op ops[SMK_NUM_LAYOUTS + 1];
    smk_status st;
    size_t bytes;
    PyObject *result = NULL, *lst = NULL;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LL|LiiiL:_bench_transpose", kwlist, &rows, &cols, &itemsize,
                                     &variant, &warmup, &reps, &flush))
        return NULL;
    if (rows < 1 || cols < 1 || (itemsize != 4 && itemsize != 8) || variant < 0 ||
        variant >= smk_transpose_num_variants() || warmup < 0 || reps < 1 || reps > 100000 || flush < 0) {
        PyErr_SetString(PyExc_ValueError, "_bench_transpose(): bad arguments");
        return NULL;
    }
    st = smk_rt_ready();
    if (st.code != SMK_OK)
        return raise_status(module, st);
    bytes = (size_t)rows * (size_t)cols * (size_t)itemsize;
    times = (float *)PyMem_Calloc((size_t)(SMK_NUM_LAYOUTS + 1) * reps, sizeof(float));
    if (!times)
        return PyErr_NoMemory();

    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_alloc(&din, bytes);
    if (st.code == SMK_OK)
        st = smk_rt_alloc(&dout, bytes);
    if (st.code == SMK_OK)
        st = fill_random(din, bytes);
    if (st.code == SMK_OK) {
        for (i = 0; i < SMK_NUM_LAYOUTS; i++) {
            memset(&tt[i].p, 0, sizeof tt[i].p);
            tt[i].p.in = din;
            tt[i].p.out = dout;
            tt[i].p.rows = rows;
            tt[i].p.cols = cols;
            tt[i].p.in_rs = cols;
            tt[i].p.in_cs = 1;
            tt[i].p.esz = (int)itemsize;
            tt[i].p.layout = i;
            tt[i].variant = variant;
            ops[i].launch = launch_transpose_timed;
            ops[i].ctx = &tt[i];
        }
        ct.dst = dout;
        ct.src = din;
        ct.bytes = bytes;
        ops[SMK_NUM_LAYOUTS].launch = launch_copy_timed;
        ops[SMK_NUM_LAYOUTS].ctx = &ct;
        st = smk_rt_time(ops, SMK_NUM_LAYOUTS + 1, warmup, reps, (size_t)flush, times);
    }
    smk_rt_free(din);
    smk_rt_free(dout);
    if (st.code == SMK_OK)
        st = smk_rt_sync();
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK) {
        raise_status(module, st);
        goto fail;
    }
    result = PyDict_New();
    if (!result)
        goto fail;
    for (i = 0; i <= SMK_NUM_LAYOUTS; i++) {
        lst = PyList_New(reps);
        if (!lst)
            goto fail;
        for (r = 0; r < reps; r++) {
            PyObject *f = PyFloat_FromDouble(times[i * reps + r]);
            if (!f)
                goto fail;
            PyList_SET_ITEM(lst, r, f);
        }
        if (PyDict_SetItemString(result, i < SMK_NUM_LAYOUTS ? kLayoutNames[i] : "copy", lst) < 0)
            goto fail;
        Py_CLEAR(lst);
    }
    PyMem_Free(times);
    return result;
fail:
    PyMem_Free(times);
    Py_XDECREF(lst);
    Py_XDECREF(result);
    return NULL;
}

PyDoc_STRVAR(transpose_variants_doc,
"_transpose_variants()\n--\n\n"
"List of (tile, block_rows) of the compiled transpose shapes; index 0 is the one transpose() uses.");

static PyObject *py_transpose_variants(PyObject *module, PyObject *unused)
{
    int n = smk_transpose_num_variants(), i, tile = 0, rows = 0;
    PyObject *lst = PyList_New(n);
    (void)module;
    (void)unused;
    if (!lst)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *t;
        smk_transpose_variant_geometry(i, &tile, &rows);
        t = Py_BuildValue("ii", tile, rows);
        if (!t) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, t);
    }
    return lst;
}

/* ---- module ----------------------------------------------------------------------------------- */

static PyMethodDef smk_methods[] = {
    {"transpose", (PyCFunction)(void (*)(void))py_transpose, METH_VARARGS | METH_KEYWORDS, transpose_doc},
    {"device_count", py_device_count, METH_NOARGS, device_count_doc},
    {"device_name", py_device_name, METH_NOARGS, device_name_doc},
    {"empty_cache", py_empty_cache, METH_NOARGS, empty_cache_doc},
    {"_tile_offsets", (PyCFunction)(void (*)(void))py_tile_offsets, METH_VARARGS | METH_KEYWORDS, tile_offsets_doc},
    {"_tile_swizzle", (PyCFunction)(void (*)(void))py_tile_swizzle, METH_VARARGS | METH_KEYWORDS, tile_swizzle_doc},
    {"_swizzle", py_swizzle, METH_VARARGS, swizzle_doc},
    {"_bench_transpose", (PyCFunction)(void (*)(void))py_bench_transpose, METH_VARARGS | METH_KEYWORDS,
     bench_transpose_doc},
    {"_set_poison", py_set_poison, METH_O, set_poison_doc},
    {"_transpose_variants", py_transpose_variants, METH_NOARGS, transpose_variants_doc},
    {NULL, NULL, 0, NULL},
};

static int smk_exec(PyObject *m)
{
    smk_state *st = get_state(m);
    PyObject *layouts = NULL;
    int i;

    if (PyArray_ImportNumPyAPI() < 0)
        return -1;
    st->CudaError = PyErr_NewExceptionWithDoc(
        "smemkit.CudaError",
        "A CUDA runtime failure.  .status is the cudaError_t value; the message reads\n"
        "'cudaErrorName: text'.  After a sticky error (illegal address, launch failure, ...) every\n"
        "later GPU call raises this too: the process must be restarted.",
        PyExc_RuntimeError, NULL);
    if (!st->CudaError)
        return -1;
    if (PyModule_AddObjectRef(m, "CudaError", st->CudaError) < 0)
        return -1;
    layouts = PyTuple_New(SMK_NUM_LAYOUTS);
    if (!layouts)
        return -1;
    for (i = 0; i < SMK_NUM_LAYOUTS; i++) {
        PyObject *s = PyUnicode_FromString(kLayoutNames[i]);
        if (!s) {
            Py_DECREF(layouts);
            return -1;
        }
        PyTuple_SET_ITEM(layouts, i, s);
    }
    if (PyModule_AddObject(m, "LAYOUTS", layouts) < 0) {
        Py_DECREF(layouts);
        return -1;
    }
    return 0;
}

static int smk_traverse(PyObject *m, visitproc visit, void *arg)
{
    Py_VISIT(get_state(m)->CudaError);
    return 0;
}

static int smk_clear(PyObject *m)
{
    Py_CLEAR(get_state(m)->CudaError);
    return 0;
}

static void smk_free(void *m) { (void)smk_clear((PyObject *)m); }

static PyModuleDef_Slot smk_slots[] = {
    {Py_mod_exec, smk_exec},
    {0, NULL},
};

static struct PyModuleDef smk_module = {
    PyModuleDef_HEAD_INIT,
    "smemkit._C",
    "smemkit's compiled core: GPU kernels (transpose, SGEMM) with naive / pad / swizzle shared-memory\n"
    "layouts, the layout maps of csrc/layout.h, and the CPU bank-conflict model.",
    sizeof(smk_state),
    smk_methods,
    smk_slots,
    smk_traverse,
    smk_clear,
    smk_free,
};

PyMODINIT_FUNC PyInit__C(void) { return PyModuleDef_Init(&smk_module); }
