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

#include <pthread.h>
#include <unistd.h>
#include <stdint.h>
#include <string.h>

#include "bank_model.h"
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
    PyErr_Format(PyExc_TypeError,
                 "%s(): %s must be a numpy.ndarray or a CUDA array (CuPy, PyTorch, __cuda_array_interface__, "
                 "__dlpack__); got %.100s",
                 fname, arg, Py_TYPE(obj)->tp_name);
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

/* How a NumPy transpose moves its bytes (tests and benchmarks may force one):
 *   0  pageable: cudaMemcpy from / to the caller's memory as it is (the driver stages it)
 *   1  registered: the caller's buffers are page-locked in place (cudaHostRegister) for the copies
 *   2  pipelined: registered, and the matrix goes in column bands over 3 streams, so the upload of
 *      band j+1, the kernel on band j and the download of band j-1 overlap (both copy engines busy)
 *  -1  automatic: 2 for C-contiguous inputs of at least 16 MiB, else 0 */
static volatile int g_host_mode = -1;
/* Page-locking is per address range and process-wide: two threads transposing the same array would
 * otherwise unregister its pages under each other's copies.  The page-locked paths (which are bound
 * by the host link anyway) take this lock, without the GIL. */
static pthread_mutex_t g_register_lock = PTHREAD_MUTEX_INITIALIZER;
#define SMK_PIPELINE_MIN_BYTES ((size_t)16 << 20)
#define SMK_PIPELINE_STREAMS 3

/* Do [a, a+n) and [b, b+n) touch a common page?  (Registration is per page.) */
static int pages_overlap(const void *a, const void *b, size_t n)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), pa = (uintptr_t)a, pb = (uintptr_t)b;
    const uintptr_t a0 = pa / page, a1 = (pa + n - 1) / page, b0 = pb / page, b1 = (pb + n - 1) / page;
    return a0 <= b1 && b0 <= a1;
}

/* Page-lock [p, p+n) for the copies; 1 if registered (unregister later), 0 if not (fall back). */
static int try_register(void *p, size_t n, unsigned flags)
{
    if (cudaHostRegister(p, n, flags) == cudaSuccess)
        return 1;
    (void)cudaGetLastError(); /* e.g. read-only pages the driver will not lock: stay pageable */
    return 0;
}

/* Host in, host out: upload, launch, download, free.  Runs without the GIL. */
static smk_status host_transpose_simple(const void *host_in, void *host_out, smk_transpose_params p, size_t bytes)
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

/* Column bands of a C-contiguous input, three streams deep (mode 2).  Runs without the GIL. */
static smk_status host_transpose_pipelined(const void *host_in, void *host_out, smk_transpose_params p)
{
    const size_t esz = (size_t)p.esz, rows = (size_t)p.rows, cols = (size_t)p.cols;
    size_t band = ((size_t)32 << 20) / (rows * esz) / 64 * 64; /* ~32 MiB bands, whole 64-wide tiles */
    cudaStream_t st[SMK_PIPELINE_STREAMS] = {NULL};
    void *bin[SMK_PIPELINE_STREAMS] = {NULL}, *bout[SMK_PIPELINE_STREAMS] = {NULL};
    smk_status s = {SMK_OK, 0, 0, NULL};
    cudaError_t e = cudaSuccess;
    size_t c0;
    int i, j;
    if (band < 64)
        band = 64;
    if (band > cols)
        band = cols;
    for (i = 0; i < SMK_PIPELINE_STREAMS && s.code == SMK_OK; i++) {
        s = smk_rt_alloc(&bin[i], rows * band * esz);
        if (s.code == SMK_OK)
            s = smk_rt_alloc(&bout[i], rows * band * esz);
        if (s.code == SMK_OK && (e = cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking)) != cudaSuccess)
            s = smk_rt_fail(e, "creating a copy stream");
    }
    if (s.code == SMK_OK)
        s = smk_rt_sync(); /* the allocations are ordered on the per-thread stream */
    for (c0 = 0, j = 0; c0 < cols && s.code == SMK_OK; c0 += band, j++) {
        const size_t w = cols - c0 < band ? cols - c0 : band;
        const int k = j % SMK_PIPELINE_STREAMS;
        smk_transpose_params q = p;
        e = cudaMemcpy2DAsync(bin[k], w * esz, (const char *)host_in + c0 * esz, cols * esz, w * esz, rows,
                              cudaMemcpyHostToDevice, st[k]);
        if (e != cudaSuccess) {
            s = smk_rt_fail(e, "copying host to device");
            break;
        }
        if (smk_rt_poisoning() && (e = cudaMemsetAsync(bout[k], 0xff, w * rows * esz, st[k])) != cudaSuccess) {
            s = smk_rt_fail(e, "poisoning an output buffer");
            break;
        }
        q.in = bin[k];
        q.out = bout[k];
        q.cols = (int64_t)w;
        q.in_rs = (int64_t)w;
        q.in_cs = 1;
        s = smk_rt_check_launch(smk_transpose_launch(&q, st[k]), "launching the transpose kernel");
        if (s.code != SMK_OK)
            break;
        e = cudaMemcpyAsync((char *)host_out + c0 * rows * esz, bout[k], w * rows * esz, cudaMemcpyDeviceToHost, st[k]);
        if (e != cudaSuccess)
            s = smk_rt_fail(e, "copying device to host");
    }
    for (i = 0; i < SMK_PIPELINE_STREAMS; i++)
        if (st[i]) {
            e = cudaStreamSynchronize(st[i]);
            if (e != cudaSuccess && s.code == SMK_OK)
                s = smk_rt_fail(e, "synchronising a copy stream");
            (void)cudaStreamDestroy(st[i]);
        }
    for (i = 0; i < SMK_PIPELINE_STREAMS; i++) {
        smk_rt_free(bin[i]);
        smk_rt_free(bout[i]);
    }
    return s;
}

static smk_status host_transpose(const void *host_in, void *host_out, smk_transpose_params p, size_t bytes,
                                 int c_contiguous)
{
    int mode = g_host_mode, reg_in = 0, reg_out = 0;
    smk_status s;
    cudaError_t e;
    if (mode < 0)
        mode = (c_contiguous && bytes >= SMK_PIPELINE_MIN_BYTES) ? 2 : 0;
    if (mode == 2 && !c_contiguous)
        mode = 1;
    if (mode == 0)
        return host_transpose_simple(host_in, host_out, p, bytes);
    pthread_mutex_lock(&g_register_lock);
    /* Read-write first.  Read-only registration (for read-only memory, e.g. a read-only mmap) only when
     * the output shares no page with the input: the device may not DMA into a page it holds read-only
     * (found on an H200: two small arrays on one page made the download fault). */
    reg_in = try_register((void *)host_in, bytes, cudaHostRegisterDefault);
    if (!reg_in && !pages_overlap(host_in, host_out, bytes))
        reg_in = try_register((void *)host_in, bytes, cudaHostRegisterReadOnly);
    reg_out = try_register(host_out, bytes, cudaHostRegisterDefault); /* fails, harmlessly, on a shared page */
    if (!reg_in || !reg_out)
        mode = 1; /* no overlap without page-locked memory on both ends */
    s = mode == 2 ? host_transpose_pipelined(host_in, host_out, p) : host_transpose_simple(host_in, host_out, p, bytes);
    if (reg_in && (e = cudaHostUnregister((void *)host_in)) != cudaSuccess && s.code == SMK_OK)
        s = smk_rt_fail(e, "unregistering host memory");
    if (reg_out && (e = cudaHostUnregister(host_out)) != cudaSuccess && s.code == SMK_OK)
        s = smk_rt_fail(e, "unregistering host memory");
    pthread_mutex_unlock(&g_register_lock);
    return s;
}

PyDoc_STRVAR(set_host_mode_doc,
"_set_host_mode(mode)\n--\n\n"
"Benchmarks and tests: how NumPy transposes move bytes.  -1 automatic (default), 0 pageable copies,\n"
"1 page-locked in place, 2 page-locked and pipelined in column bands over 3 streams.");

static PyObject *py_set_host_mode(PyObject *module, PyObject *arg)
{
    long m = PyLong_AsLong(arg);
    (void)module;
    if (m == -1 && PyErr_Occurred())
        return NULL;
    if (m < -1 || m > 2) {
        PyErr_SetString(PyExc_ValueError, "host mode must be -1, 0, 1 or 2");
        return NULL;
    }
    g_host_mode = (int)m;
    Py_RETURN_NONE;
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
        st = host_transpose(PyArray_DATA(src), PyArray_DATA(out), p, bytes, p.in_cs == 1);
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

PyDoc_STRVAR(parse_layout_doc,
"_parse_layout(layout, fname)\n--\n\n"
"The C enum value of a layout name (None: the default), raising exactly as the kernels' entry\n"
"points do for a bad one.");

static PyObject *py_parse_layout(PyObject *module, PyObject *args)
{
    PyObject *obj = NULL;
    const char *fname = NULL;
    int layout = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "Os:_parse_layout", &obj, &fname) || parse_layout(obj, fname, &layout) < 0)
        return NULL;
    return PyLong_FromLong(layout);
}

/* ---- device pointers (CuPy / PyTorch / CUDA array interface; smemkit/_device.py unpacks them) -- */

/* Check each non-NULL pointer lives on the current device.  0, or -1 with ValueError/CudaError set. */
static int check_device_ptrs(PyObject *module, const char *fname, const void *const *ptrs, const char *const *names,
                             int n, int known_device)
{
    int i, dev = -1, current = -1;
    if (known_device >= 0) { /* the array library told us its device: one cheap comparison */
        cudaError_t e = cudaGetDevice(&current);
        if (e != cudaSuccess) {
            raise_status(module, smk_rt_fail(e, "cudaGetDevice"));
            return -1;
        }
        if (known_device != current) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): the arrays are on CUDA device %d but smemkit runs on device %d (the current "
                         "device); make device %d current first (cupy.cuda.Device / torch.cuda.set_device)",
                         fname, known_device, current, known_device);
            return -1;
        }
        return 0;
    }
    for (i = 0; i < n; i++) {
        smk_status st;
        if (!ptrs[i])
            continue;
        st = smk_rt_check_device_ptr(ptrs[i], &dev, &current);
        if (st.code != SMK_OK && st.where && strcmp(st.where, "not device memory") == 0) {
            PyErr_Format(PyExc_ValueError, "%s(): %s is not CUDA device memory", fname, names[i]);
            return -1;
        }
        if (st.code != SMK_OK) {
            raise_status(module, st);
            return -1;
        }
        if (dev != current) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): %s is on CUDA device %d but smemkit runs on device %d (the current device); "
                         "make device %d current first (cudaSetDevice / cupy.cuda.Device / torch.cuda.set_device)",
                         fname, names[i], dev, current, dev);
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(transpose_ptr_doc,
"_transpose_ptr(src, dst, rows, cols, row_stride, col_stride, itemsize, layout, stream, device=-1)\n--\n\n"
"Enqueue the transpose of device memory on `stream` (an int handle): dst (cols x rows, C order)\n"
"= src (rows x cols, element strides row_stride/col_stride).  Asynchronous; no synchronisation.\n"
"device: the arrays' device as their library reports it, or -1 to inspect the pointers.");

static PyObject *py_transpose_ptr(PyObject *module, PyObject *args)
{
    unsigned long long src = 0, dst = 0, stream = 0;
    long long rows = 0, cols = 0, rs = 0, cs = 0;
    int esz = 0, layout = 0, device = -1;
    PyObject *layout_obj = NULL;
    smk_transpose_params p;
    smk_status st;
    const void *ptrs[2];
    static const char *const names[2] = {"the input", "the output"};
    if (!PyArg_ParseTuple(args, "KKLLLLiOK|i:_transpose_ptr", &src, &dst, &rows, &cols, &rs, &cs, &esz, &layout_obj,
                          &stream, &device))
        return NULL;
    if (parse_layout(layout_obj, "transpose", &layout) < 0)
        return NULL;
    st = smk_rt_ready();
    if (st.code != SMK_OK)
        return raise_status(module, st);
    if (rows == 0 || cols == 0)
        Py_RETURN_NONE;
    ptrs[0] = (const void *)(uintptr_t)src;
    ptrs[1] = (const void *)(uintptr_t)dst;
    if (check_device_ptrs(module, "transpose", ptrs, names, 2, device) < 0)
        return NULL;
    memset(&p, 0, sizeof p);
    p.in = ptrs[0];
    p.out = (void *)(uintptr_t)dst;
    p.rows = rows;
    p.cols = cols;
    p.in_rs = rs;
    p.in_cs = cs;
    p.esz = esz;
    p.layout = layout;
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_check_launch(smk_transpose_launch(&p, (cudaStream_t)(uintptr_t)stream), "launching the transpose kernel");
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK)
        return raise_status(module, st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(sgemm_ptr_doc,
"_sgemm_ptr(a, lda, b, ldb, c, ldc, d, ldd, M, N, K, alpha, beta, layout, stream, device=-1)\n--\n\n"
"Enqueue D = alpha*A@B + beta*C on device memory (row-major, leading dimensions in elements;\n"
"c may be 0 when beta == 0) on `stream`.  Asynchronous.");

static PyObject *py_sgemm_ptr(PyObject *module, PyObject *args)
{
    unsigned long long a = 0, b = 0, c = 0, d = 0, stream = 0;
    long long lda = 0, ldb = 0, ldc = 0, ldd = 0, M = 0, N = 0, K = 0;
    double alpha = 1.0, beta = 0.0;
    int layout = 0, rc, device = -1;
    PyObject *layout_obj = NULL;
    smk_sgemm_params p;
    smk_status st;
    const void *ptrs[4];
    static const char *const names[4] = {"a", "b", "c", "the output"};
    if (!PyArg_ParseTuple(args, "KLKLKLKLLLLddOK|i:_sgemm_ptr", &a, &lda, &b, &ldb, &c, &ldc, &d, &ldd, &M, &N, &K,
                          &alpha, &beta, &layout_obj, &stream, &device))
        return NULL;
    if (parse_layout(layout_obj, "sgemm", &layout) < 0)
        return NULL;
    st = smk_rt_ready();
    if (st.code != SMK_OK)
        return raise_status(module, st);
    if (M == 0 || N == 0)
        Py_RETURN_NONE;
    ptrs[0] = K ? (const void *)(uintptr_t)a : NULL;
    ptrs[1] = K ? (const void *)(uintptr_t)b : NULL;
    ptrs[2] = beta != 0.0 ? (const void *)(uintptr_t)c : NULL;
    ptrs[3] = (const void *)(uintptr_t)d;
    if (check_device_ptrs(module, "sgemm", ptrs, names, 4, device) < 0)
        return NULL;
    memset(&p, 0, sizeof p);
    p.A = (const float *)ptrs[0];
    p.B = (const float *)ptrs[1];
    p.C = (const float *)ptrs[2];
    p.D = (float *)(uintptr_t)d;
    p.M = M;
    p.N = N;
    p.K = K;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.ldd = ldd;
    p.alpha = (float)alpha;
    p.beta = (float)beta;
    p.layout = layout;
    Py_BEGIN_ALLOW_THREADS
    rc = smk_sgemm_launch(&p, (cudaStream_t)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    st = smk_rt_check_launch(rc, "launching the SGEMM kernel");
    if (st.code != SMK_OK)
        return raise_status(module, st);
    Py_RETURN_NONE;
}

/* ---- SGEMM ------------------------------------------------------------------------------------ */

/* float32 in any byte order is accepted (and byte-swapped on the host); anything else is refused
 * rather than silently converted. */
static int require_float32(PyArrayObject *a, const char *arg)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    if (d->kind == 'f' && PyDataType_ELSIZE(d) == 4)
        return 0;
    PyErr_Format(PyExc_TypeError,
                 "sgemm(): %s has dtype %R; sgemm computes in float32 only -- pass float32 arrays "
                 "(e.g. %s.astype(numpy.float32)); nothing is converted silently",
                 arg, (PyObject *)d, arg);
    return -1;
}

/* A native, aligned, C-contiguous float32 view or copy of a (already validated as float32). */
static PyArrayObject *as_c_float32(PyArrayObject *a)
{
    return (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, NPY_FLOAT32,
                                             NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED);
}

static size_t round4(int64_t n) { return (size_t)((n + 3) & ~(int64_t)3); }

/* Host in, host out.  Device rows are padded to a multiple of 4 floats (16 bytes) so the kernel's
 * float4 path applies to every shape.  Runs without the GIL. */
static smk_status host_sgemm(const float *A, const float *B, const float *C, float *D, smk_sgemm_params p)
{
    float *dA = NULL, *dB = NULL, *dC = NULL, *dD = NULL;
    size_t lda = round4(p.K), ldb = round4(p.N), ldd = round4(p.N);
    smk_status s = smk_rt_alloc((void **)&dA, lda * (size_t)p.M * 4);
    if (s.code == SMK_OK)
        s = smk_rt_alloc((void **)&dB, ldb * (size_t)p.K * 4);
    if (s.code == SMK_OK)
        s = smk_rt_alloc((void **)&dD, ldd * (size_t)p.M * 4);
    if (s.code == SMK_OK && C)
        s = smk_rt_alloc((void **)&dC, ldd * (size_t)p.M * 4);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dA, lda * 4, A, (size_t)p.K * 4, (size_t)p.K * 4, (size_t)p.M);
    if (s.code == SMK_OK)
        s = smk_rt_h2d_2d(dB, ldb * 4, B, (size_t)p.N * 4, (size_t)p.N * 4, (size_t)p.K);
    if (s.code == SMK_OK && C)
        s = smk_rt_h2d_2d(dC, ldd * 4, C, (size_t)p.N * 4, (size_t)p.N * 4, (size_t)p.M);
    if (s.code == SMK_OK)
        s = smk_rt_poison(dD, ldd * (size_t)p.M * 4);
    if (s.code == SMK_OK) {
        p.A = dA;
        p.B = dB;
        p.C = dC;
        p.D = dD;
        p.lda = (int64_t)lda;
        p.ldb = (int64_t)ldb;
        p.ldc = (int64_t)ldd;
        p.ldd = (int64_t)ldd;
        s = smk_rt_check_launch(smk_sgemm_launch(&p, smk_rt_stream()), "launching the SGEMM kernel");
    }
    if (s.code == SMK_OK)
        s = smk_rt_d2h_2d(D, (size_t)p.N * 4, dD, ldd * 4, (size_t)p.N * 4, (size_t)p.M);
    if (s.code == SMK_OK)
        s = smk_rt_sync();
    smk_rt_free(dA);
    smk_rt_free(dB);
    smk_rt_free(dC);
    smk_rt_free(dD);
    return s;
}

PyDoc_STRVAR(sgemm_doc,
"sgemm(a, b, c=None, *, alpha=1.0, beta=0.0, layout='swizzle')\n--\n\n"
"Return ``alpha * a @ b + beta * c`` as a new float32 array, computed on the GPU by a warp-tiled\n"
"SGEMM whose shared-memory tiles use ``layout``.  ``c`` is not modified.\n\n"
"Parameters\n----------\n"
"a : numpy.ndarray, float32, shape (M, K)\n"
"b : numpy.ndarray, float32, shape (K, N)\n"
"c : numpy.ndarray, float32, shape (M, N), optional\n"
"    Required when ``beta != 0``; when ``beta == 0`` it is not read (NaN in c does not propagate,\n"
"    as in BLAS).\n"
"alpha, beta : float\n"
"layout : {'naive', 'pad', 'swizzle'}\n"
"    Shared-memory index map of the A and B tiles.  'naive' is the article's layout, whose\n"
"    transposed A-tile store conflicts 2-way; 'pad' and 'swizzle' remove that conflict.\n\n"
"Any M, N, K >= 0 (K == 0 gives ``beta * c`` or zeros), any strides and byte order.  Other dtypes\n"
"raise TypeError: nothing is downcast silently.  Errors as for transpose().");

static PyObject *py_sgemm(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"a", "b", "c", "alpha", "beta", "layout", NULL};
    PyObject *a_obj = NULL, *b_obj = NULL, *c_obj = Py_None, *layout_obj = NULL, *sa = NULL, *sb = NULL;
    PyArrayObject *a = NULL, *b = NULL, *c = NULL, *out = NULL;
    double alpha = 1.0, beta = 0.0;
    int layout = SMK_SWIZZLE;
    smk_sgemm_params p;
    smk_status st;
    npy_intp dims[2];

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O$ddO:sgemm", kwlist, &a_obj, &b_obj, &c_obj, &alpha, &beta,
                                     &layout_obj))
        return NULL;
    if (parse_layout(layout_obj, "sgemm", &layout) < 0)
        return NULL;
    if (require_ndarray(a_obj, "sgemm", "a") < 0 || require_ndarray(b_obj, "sgemm", "b") < 0)
        return NULL;
    if (c_obj != Py_None && require_ndarray(c_obj, "sgemm", "c") < 0)
        return NULL;
    if (require_2d((PyArrayObject *)a_obj, "sgemm", "a") < 0 || require_2d((PyArrayObject *)b_obj, "sgemm", "b") < 0 ||
        (c_obj != Py_None && require_2d((PyArrayObject *)c_obj, "sgemm", "c") < 0))
        return NULL;
    if (require_float32((PyArrayObject *)a_obj, "a") < 0 || require_float32((PyArrayObject *)b_obj, "b") < 0 ||
        (c_obj != Py_None && require_float32((PyArrayObject *)c_obj, "c") < 0))
        return NULL;
    if (PyArray_DIM((PyArrayObject *)a_obj, 1) != PyArray_DIM((PyArrayObject *)b_obj, 0)) {
        sa = shape_repr((PyArrayObject *)a_obj);
        sb = shape_repr((PyArrayObject *)b_obj);
        if (sa && sb)
            PyErr_Format(PyExc_ValueError,
                         "sgemm(): inner dimensions differ: a has shape %U and b has shape %U (a.shape[1] must "
                         "equal b.shape[0])",
                         sa, sb);
        goto fail;
    }
    memset(&p, 0, sizeof p);
    p.M = PyArray_DIM((PyArrayObject *)a_obj, 0);
    p.K = PyArray_DIM((PyArrayObject *)a_obj, 1);
    p.N = PyArray_DIM((PyArrayObject *)b_obj, 1);
    p.alpha = (float)alpha;
    p.beta = (float)beta;
    p.layout = layout;
    if (c_obj != Py_None &&
        (PyArray_DIM((PyArrayObject *)c_obj, 0) != p.M || PyArray_DIM((PyArrayObject *)c_obj, 1) != p.N)) {
        sa = shape_repr((PyArrayObject *)c_obj);
        if (sa)
            PyErr_Format(PyExc_ValueError, "sgemm(): c has shape %U; expected (%lld, %lld) = (a.shape[0], b.shape[1])",
                         sa, (long long)p.M, (long long)p.N);
        goto fail;
    }
    if (beta != 0.0 && c_obj == Py_None) {
        PyErr_SetString(PyExc_ValueError, "sgemm(): beta != 0 needs c (the matrix that beta scales)");
        goto fail;
    }
    if (p.M > INT32_MAX - 256 || p.N > INT32_MAX - 256 || p.K > INT32_MAX - 256) {
        /* checked before any copy or allocation: the kernel indexes within a matrix with 32-bit ints */
        PyErr_Format(PyExc_ValueError,
                     "sgemm(): M, N and K must each be at most 2**31 - 257; got M=%lld, N=%lld, K=%lld",
                     (long long)p.M, (long long)p.N, (long long)p.K);
        goto fail;
    }

    a = as_c_float32((PyArrayObject *)a_obj);
    if (!a)
        goto fail;
    b = as_c_float32((PyArrayObject *)b_obj);
    if (!b)
        goto fail;
    if (c_obj != Py_None && beta != 0.0) {
        c = as_c_float32((PyArrayObject *)c_obj);
        if (!c)
            goto fail;
    }
    dims[0] = (npy_intp)p.M;
    dims[1] = (npy_intp)p.N;
    out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (!out)
        goto fail;

    st = smk_rt_ready();
    if (st.code != SMK_OK) {
        raise_status(module, st);
        goto fail;
    }
    if (p.M > 0 && p.N > 0) {
        const float *A = (const float *)PyArray_DATA(a), *B = (const float *)PyArray_DATA(b);
        const float *C = c ? (const float *)PyArray_DATA(c) : NULL;
        float *D = (float *)PyArray_DATA(out);
        Py_BEGIN_ALLOW_THREADS
        st = host_sgemm(A, B, C, D, p);
        Py_END_ALLOW_THREADS
        if (st.code != SMK_OK) {
            raise_status(module, st);
            goto fail;
        }
    }
    Py_DECREF(a);
    Py_DECREF(b);
    Py_XDECREF(c);
    return (PyObject *)out;
fail:
    Py_XDECREF(sa);
    Py_XDECREF(sb);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
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
    memset(t, 0, sizeof *t); /* swz_b == 0: the automatic swizzle */
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

/* ---- bank model (CPU) ------------------------------------------------------------------------- */

static int parse_kind(PyObject *obj, int *is_store)
{
    if (PyUnicode_Check(obj)) {
        if (PyUnicode_CompareWithASCIIString(obj, "load") == 0) {
            *is_store = 0;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(obj, "store") == 0) {
            *is_store = 1;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "kind must be 'load' or 'store'; got %R", obj);
    return -1;
}

/* addresses -> a C-contiguous int64 array of shape (n, 32) (1-D input of 32 gives n = 1). */
static PyArrayObject *parse_addresses(PyObject *obj, int batch)
{
    PyArrayObject *a = NULL;
    PyObject *shape = NULL;
    if (PyArray_Check(obj) && PyArray_DESCR((PyArrayObject *)obj)->kind != 'i' &&
        PyArray_DESCR((PyArrayObject *)obj)->kind != 'u') {
        PyErr_Format(PyExc_TypeError, "addresses must be integers (byte offsets); got dtype %R",
                     (PyObject *)PyArray_DESCR((PyArrayObject *)obj));
        return NULL;
    }
    a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 1, 2, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (!a) {
        if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, batch ? "addresses must be an integer array of shape (n, 32)"
                                                    : "addresses must be 32 integers, one byte offset per lane");
        }
        return NULL;
    }
    if ((!batch && (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != SMK_WARP_LANES)) ||
        (batch && PyArray_DIM(a, PyArray_NDIM(a) - 1) != SMK_WARP_LANES)) {
        shape = shape_repr(a);
        if (shape)
            PyErr_Format(PyExc_ValueError, "addresses must have %s32 entries (one per lane); got shape %U",
                         batch ? "shape (n, 32): " : "", shape);
        Py_XDECREF(shape);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static int check_instr(const long long *addr, int width, int is_store, long long index)
{
    char msg[200];
    if (smk_bank_validate(addr, width, is_store, msg, (int)sizeof msg) != SMK_BANK_OK) {
        if (index >= 0)
            PyErr_Format(PyExc_ValueError, "instruction %lld: %s", index, msg);
        else
            PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(bank_replay_doc,
"_bank_replay(addresses, width, kind)\n--\n\n"
"addresses: int array (n, 32) of byte offsets (negative = inactive lane).  Returns\n"
"(wavefronts, ideal): two int32 arrays of length n, from csrc/bank_model.c.");

static PyObject *py_bank_replay(PyObject *module, PyObject *args)
{
    PyObject *addr_obj = NULL, *kind_obj = NULL;
    PyArrayObject *a = NULL, *wf = NULL, *id = NULL;
    int width = 0, is_store = 0, err = 0;
    long long n, bad = -1, total;
    npy_intp dims[1];
    const long long *addr;
    (void)module;
    if (!PyArg_ParseTuple(args, "OiO:_bank_replay", &addr_obj, &width, &kind_obj))
        return NULL;
    if (width != 4 && width != 8 && width != 16) {
        PyErr_Format(PyExc_ValueError, "width must be 4, 8 or 16 (bytes per lane); got %d", width);
        return NULL;
    }
    if (parse_kind(kind_obj, &is_store) < 0)
        return NULL;
    a = parse_addresses(addr_obj, 1);
    if (!a)
        return NULL;
    n = PyArray_NDIM(a) == 1 ? 1 : (long long)PyArray_DIM(a, 0);
    dims[0] = (npy_intp)n;
    wf = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT32);
    id = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT32);
    if (!wf || !id)
        goto fail;
    addr = (const long long *)PyArray_DATA(a);
    Py_BEGIN_ALLOW_THREADS
    total = smk_bank_replay(addr, n, width, is_store, (int *)PyArray_DATA(wf), (int *)PyArray_DATA(id), &bad, &err);
    Py_END_ALLOW_THREADS
    if (total < 0) {
        if (bad >= 0 && bad < n)
            (void)check_instr(addr + bad * SMK_WARP_LANES, width, is_store, bad);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "instruction %lld: %s", bad, smk_bank_strerror(err));
        goto fail;
    }
    Py_DECREF(a);
    return Py_BuildValue("NN", (PyObject *)wf, (PyObject *)id);
fail:
    Py_XDECREF(a);
    Py_XDECREF(wf);
    Py_XDECREF(id);
    return NULL;
}

PyDoc_STRVAR(bank_rule_doc,
"_bank_rule(width, kind)\n--\n\n"
"(pass_lanes, phase_lanes) of the model's rule for that access width and kind.");

static PyObject *py_bank_rule(PyObject *module, PyObject *args)
{
    PyObject *kind_obj = NULL;
    int width = 0, is_store = 0;
    smk_bank_rule rule;
    (void)module;
    if (!PyArg_ParseTuple(args, "iO:_bank_rule", &width, &kind_obj) || parse_kind(kind_obj, &is_store) < 0)
        return NULL;
    if (smk_bank_get_rule(width, is_store, &rule) != SMK_BANK_OK) {
        PyErr_Format(PyExc_ValueError, "width must be 4, 8 or 16; got %d", width);
        return NULL;
    }
    return Py_BuildValue("ii", rule.pass_lanes, rule.phase_lanes);
}

/* op ("transpose" or "sgemm") and its shape tuple ((rows, cols) or (M, N, K)) into dims[]; entries in
 * [lo, hi].  Returns 1 for sgemm, 0 for transpose, -1 with ValueError set. */
static int parse_op_shape(const char *op, PyObject *shape, long long lo, long long hi, long long dims[3])
{
    int is_sgemm = strcmp(op, "sgemm") == 0, i;
    if (!is_sgemm && strcmp(op, "transpose") != 0) {
        PyErr_Format(PyExc_ValueError, "op must be 'transpose' or 'sgemm'; got '%s'", op);
        return -1;
    }
    if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != (is_sgemm ? 3 : 2)) {
        PyErr_Format(PyExc_ValueError, "%s shape must be a tuple %s", op, is_sgemm ? "(M, N, K)" : "(rows, cols)");
        return -1;
    }
    for (i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (dims[i] == -1 && PyErr_Occurred())
            return -1;
        if (dims[i] < lo || dims[i] > hi) {
            PyErr_Format(PyExc_ValueError, "%s shape entries must be in [%lld, %lld]; got %lld", op, lo, hi, dims[i]);
            return -1;
        }
    }
    return is_sgemm;
}

/* ---- access plans (CPU) ----------------------------------------------------------------------- */

PyDoc_STRVAR(plan_doc,
"_plan(op, shape, layout, itemsize=4, sms=132)\n--\n\n"
"The shared-memory instructions of one block of the kernel `op` ('transpose' or 'sgemm') for a\n"
"problem of `shape` ((rows, cols) or (M, N, K)), replayed on the host by the kernel's own index\n"
"code.  Returns a dict: config, blocks, threads, smem_bytes, accesses = [(name, width, kind,\n"
"repeats, addresses int64 (n_instr, 32))].");

static PyObject *py_plan(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"op", "shape", "layout", "itemsize", "sms", NULL};
    const char *op = NULL;
    PyObject *shape = NULL, *layout_obj = NULL, *lst = NULL, *arrays[SMK_PLAN_MAX] = {NULL};
    long long dims[3] = {0, 0, 0};
    int layout = 0, itemsize = 4, sms = 132, i, rc, ndim = 0, is_sgemm;
    smk_plan plan;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|ii:_plan", kwlist, &op, &shape, &layout_obj, &itemsize, &sms))
        return NULL;
    if (parse_layout(layout_obj, "explain", &layout) < 0)
        return NULL;
    is_sgemm = parse_op_shape(op, shape, 0, INT32_MAX, dims);
    if (is_sgemm < 0)
        return NULL;
    if (sms < 1) {
        PyErr_SetString(PyExc_ValueError, "sms must be positive");
        return NULL;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            memset(&plan, 0, sizeof plan);
        rc = is_sgemm ? smk_sgemm_plan(dims[0], dims[1], dims[2], layout, sms, &plan)
                      : smk_transpose_plan(dims[0], dims[1], itemsize, layout, &plan);
        if (rc != 0) {
            PyErr_Format(PyExc_ValueError, "no plan for %s with these arguments (itemsize must be 4 or 8 for "
                         "transpose, sgemm is float32)", op);
            goto fail;
        }
        if (pass == 0)
            for (i = 0; i < plan.n; i++) {
                npy_intp d[2] = {plan.acc[i].n_instr, 32};
                arrays[i] = PyArray_SimpleNew(2, d, NPY_INT64);
                if (!arrays[i])
                    goto fail;
                plan.acc[i].addr = (long long *)PyArray_DATA((PyArrayObject *)arrays[i]);
            }
    }
    lst = PyList_New(plan.n);
    if (!lst)
        goto fail;
    for (i = 0; i < plan.n; i++) {
        PyObject *t = Py_BuildValue("sisLO", plan.acc[i].name, plan.acc[i].width, plan.acc[i].is_store ? "store" : "load",
                                    plan.acc[i].repeats, arrays[i]);
        if (!t)
            goto fail;
        PyList_SET_ITEM(lst, i, t);
    }
    for (i = 0; i < SMK_PLAN_MAX; i++)
        Py_CLEAR(arrays[i]);
    return Py_BuildValue("{s:s,s:L,s:i,s:i,s:N}", "config", plan.config, "blocks", plan.blocks, "threads",
                         plan.threads, "smem_bytes", plan.smem_bytes, "accesses", lst);
fail:
    for (i = 0; i < SMK_PLAN_MAX; i++)
        Py_XDECREF(arrays[i]);
    Py_XDECREF(lst);
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

PyDoc_STRVAR(device_info_doc,
"_device_info()\n--\n\n"
"{'name', 'sms', 'l2_bytes', 'cc'} of the current device.  Raises CudaError without one.");

static PyObject *py_device_info(PyObject *module, PyObject *unused)
{
    char name[256];
    int sms = 0, l2 = 0, major = 0, minor = 0;
    smk_status st = smk_rt_device_info(&sms, &l2, &major, &minor);
    (void)unused;
    if (st.code != SMK_OK)
        return raise_status(module, st);
    smk_rt_device_name(name, sizeof name);
    return Py_BuildValue("{s:s,s:i,s:i,s:(ii)}", "name", name, "sms", sms, "l2_bytes", l2, "cc", major, minor);
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

PyDoc_STRVAR(mem_info_doc,
"_mem_info()\n--\n\n"
"(free, total) device memory in bytes.");

static PyObject *py_mem_info(PyObject *module, PyObject *unused)
{
    size_t free_b = 0, total_b = 0;
    smk_status st;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_mem_info(&free_b, &total_b);
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK)
        return raise_status(module, st);
    return Py_BuildValue("nn", (Py_ssize_t)free_b, (Py_ssize_t)total_b);
}

PyDoc_STRVAR(debug_fault_doc,
"_debug_fault()\n--\n\n"
"Testing aid: run a kernel that stores to an illegal address and synchronise.  Raises\n"
"smemkit.CudaError (cudaErrorIllegalAddress) and leaves the CUDA context unusable: every later\n"
"GPU call in this process raises too.  Only for tests, in a subprocess.");

static PyObject *py_debug_fault(PyObject *module, PyObject *unused)
{
    smk_status st = smk_rt_ready();
    (void)unused;
    if (st.code != SMK_OK)
        return raise_status(module, st);
    Py_BEGIN_ALLOW_THREADS
    st = smk_rt_check_launch(smk_debug_fault_launch(smk_rt_stream()), "launching the fault kernel");
    if (st.code == SMK_OK)
        st = smk_rt_sync();
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK)
        return raise_status(module, st);
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

/* Fill device memory with pseudo-random data, never zeros (timing never runs on zeros): random bits,
 * or with `floats`, float32 values in [-1, 1). */
static smk_status fill_random(void *dst, size_t bytes, int floats)
{
    size_t chunk = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20), off, i;
    uint32_t x = 0x9e3779b9u;
    uint32_t *h = (uint32_t *)malloc(chunk + 8);
    smk_status s = {SMK_OK, 0, 0, NULL};
    if (!h) {
        s.code = SMK_E_NOMEM;
        s.where = "host staging memory";
        return s;
    }
    for (i = 0; i < chunk / 4 + 2; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        if (floats) {
            float f = (float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
            memcpy(&h[i], &f, 4);
        } else {
            h[i] = x;
        }
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

typedef struct {
    smk_sgemm_params p;
    int cublas;
} sgemm_timed;

static int launch_sgemm_timed(void *ctx, cudaStream_t s)
{
    sgemm_timed *t = (sgemm_timed *)ctx;
    if (t->cublas) {
        int rc = smk_cublas_sgemm(&t->p, s);
        return rc == 0 ? (int)cudaGetLastError() : (int)cudaErrorUnknown;
    }
    return smk_sgemm_launch(&t->p, s);
}


PyDoc_STRVAR(bench_doc,
"_bench(op, shape, layouts, *, itemsize=4, variant=0, ceiling=True, warmup=10, reps=50, flush_bytes=0)\n--\n\n"
"Time `op` ('transpose' (rows, cols) or 'sgemm' (M, N, K)) for each layout name in `layouts` and,\n"
"when `ceiling`, the ceiling (cudaMemcpy D2D of the same bytes, or cuBLAS fp32 SGEMM) on\n"
"device-resident random data with CUDA events, interleaved per rep.  Returns\n"
"{'times': {name: [ms, ...]}, 'ceiling': name or None, 'ceiling_why': str}.");

static PyObject *py_bench(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"op", "shape", "layouts", "itemsize", "variant", "ceiling", "warmup", "reps",
                             "flush_bytes", NULL};
    const char *op = NULL, *why = "", *cpath = NULL;
    PyObject *shape = NULL, *layouts = NULL, *seq = NULL, *times_d = NULL, *lst = NULL, *result = NULL;
    long long dims[3] = {0, 0, 0}, flush = 0, itemsize = 4;
    int variant = 0, ceiling = 1, warmup = 10, reps = 50, i, r, nl = 0, nops = 0, is_sgemm, have_ceiling = 0;
    int lay[SMK_NUM_LAYOUTS];
    void *buf[3] = {NULL, NULL, NULL};
    float *times = NULL;
    transpose_timed tt[SMK_NUM_LAYOUTS];
    sgemm_timed sg[SMK_NUM_LAYOUTS + 1];
    copy_timed ct;
    smk_timed_op ops[SMK_NUM_LAYOUTS + 1];
    const char *names[SMK_NUM_LAYOUTS + 1];
    smk_status st;
    size_t lda = 0, ldb = 0, ldd = 0, bytes = 0;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|$LipiiL:_bench", kwlist, &op, &shape, &layouts, &itemsize,
                                     &variant, &ceiling, &warmup, &reps, &flush))
        return NULL;
    is_sgemm = parse_op_shape(op, shape, 1, ((long long)1 << 40), dims);
    if (is_sgemm < 0)
        return NULL;
    if (is_sgemm && (dims[0] > INT32_MAX - 256 || dims[1] > INT32_MAX - 256 || dims[2] > INT32_MAX - 256)) {
        PyErr_SetString(PyExc_ValueError, "sgemm shape entries must be at most 2**31 - 257");
        return NULL;
    }
    if ((!is_sgemm && itemsize != 4 && itemsize != 8) || (is_sgemm && itemsize != 4) || variant < 0 ||
        variant >= smk_transpose_num_variants() || warmup < 0 || reps < 1 || reps > 1000000 || flush < 0) {
        PyErr_SetString(PyExc_ValueError, "_bench(): itemsize, variant, warmup, reps or flush_bytes out of range");
        return NULL;
    }
    seq = PySequence_Fast(layouts, "layouts must be a sequence of layout names");
    if (!seq)
        return NULL;
    nl = (int)PySequence_Fast_GET_SIZE(seq);
    if (nl > SMK_NUM_LAYOUTS) {
        PyErr_SetString(PyExc_ValueError, "layouts: at most one of each");
        goto fail;
    }
    for (i = 0; i < nl; i++)
        if (parse_layout(PySequence_Fast_GET_ITEM(seq, i), "bench", &lay[i]) < 0)
            goto fail;
    st = smk_rt_ready();
    if (st.code != SMK_OK) {
        raise_status(module, st);
        goto fail;
    }
    if (ceiling) {
        if (is_sgemm)
            have_ceiling = smk_cublas_load(&why, &cpath);
        else
            have_ceiling = 1;
    }
    nops = nl + (have_ceiling ? 1 : 0);
    if (nops == 0) {
        PyErr_SetString(PyExc_ValueError, "_bench(): nothing to time");
        goto fail;
    }
    times = (float *)PyMem_Calloc((size_t)nops * reps, sizeof(float));
    if (!times) {
        PyErr_NoMemory();
        goto fail;
    }

    Py_BEGIN_ALLOW_THREADS
    if (!is_sgemm) {
        bytes = (size_t)dims[0] * (size_t)dims[1] * (size_t)itemsize;
        st = smk_rt_alloc(&buf[0], bytes);
        if (st.code == SMK_OK)
            st = smk_rt_alloc(&buf[1], bytes);
        if (st.code == SMK_OK)
            st = fill_random(buf[0], bytes, 0);
        for (i = 0; i < nl && st.code == SMK_OK; i++) {
            memset(&tt[i].p, 0, sizeof tt[i].p);
            tt[i].p.in = buf[0];
            tt[i].p.out = buf[1];
            tt[i].p.rows = dims[0];
            tt[i].p.cols = dims[1];
            tt[i].p.in_rs = dims[1];
            tt[i].p.in_cs = 1;
            tt[i].p.esz = (int)itemsize;
            tt[i].p.layout = lay[i];
            tt[i].variant = variant;
            ops[i].launch = launch_transpose_timed;
            ops[i].ctx = &tt[i];
            names[i] = kLayoutNames[lay[i]];
        }
        if (have_ceiling) {
            ct.dst = buf[1];
            ct.src = buf[0];
            ct.bytes = bytes;
            ops[nl].launch = launch_copy_timed;
            ops[nl].ctx = &ct;
            names[nl] = "copy";
        }
    } else {
        lda = round4(dims[2]);
        ldb = round4(dims[1]);
        ldd = round4(dims[1]);
        st = smk_rt_alloc(&buf[0], lda * (size_t)dims[0] * 4);
        if (st.code == SMK_OK)
            st = smk_rt_alloc(&buf[1], ldb * (size_t)dims[2] * 4);
        if (st.code == SMK_OK)
            st = smk_rt_alloc(&buf[2], ldd * (size_t)dims[0] * 4);
        if (st.code == SMK_OK)
            st = fill_random(buf[0], lda * (size_t)dims[0] * 4, 1);
        if (st.code == SMK_OK)
            st = fill_random(buf[1], ldb * (size_t)dims[2] * 4, 1);
        for (i = 0; i < nops && st.code == SMK_OK; i++) {
            memset(&sg[i], 0, sizeof sg[i]);
            sg[i].p.A = (const float *)buf[0];
            sg[i].p.B = (const float *)buf[1];
            sg[i].p.D = (float *)buf[2];
            sg[i].p.M = dims[0];
            sg[i].p.N = dims[1];
            sg[i].p.K = dims[2];
            sg[i].p.lda = (int64_t)lda;
            sg[i].p.ldb = (int64_t)ldb;
            sg[i].p.ldc = (int64_t)ldd;
            sg[i].p.ldd = (int64_t)ldd;
            sg[i].p.alpha = 1.0f;
            sg[i].p.beta = 0.0f;
            sg[i].p.layout = i < nl ? lay[i] : SMK_SWIZZLE;
            sg[i].cublas = i >= nl;
            ops[i].launch = launch_sgemm_timed;
            ops[i].ctx = &sg[i];
            names[i] = i < nl ? kLayoutNames[lay[i]] : "cublas";
        }
    }
    if (st.code == SMK_OK)
        st = smk_rt_time(ops, nops, warmup, reps, (size_t)flush, times);
    for (i = 0; i < 3; i++)
        smk_rt_free(buf[i]);
    if (st.code == SMK_OK)
        st = smk_rt_sync();
    Py_END_ALLOW_THREADS
    if (st.code != SMK_OK) {
        raise_status(module, st);
        goto fail;
    }
    times_d = PyDict_New();
    if (!times_d)
        goto fail;
    for (i = 0; i < nops; i++) {
        lst = PyList_New(reps);
        if (!lst)
            goto fail;
        for (r = 0; r < reps; r++) {
            PyObject *f = PyFloat_FromDouble(times[i * reps + r]);
            if (!f)
                goto fail;
            PyList_SET_ITEM(lst, r, f);
        }
        if (PyDict_SetItemString(times_d, names[i], lst) < 0)
            goto fail;
        Py_CLEAR(lst);
    }
    result = Py_BuildValue("{s:O,s:s,s:s}", "times", times_d, "ceiling",
                           have_ceiling ? (is_sgemm ? "cublas" : "copy") : "", "ceiling_why",
                           !ceiling ? "not asked for" : (have_ceiling ? (cpath ? cpath : "") : why));
    if (result && !have_ceiling && PyDict_SetItemString(result, "ceiling", Py_None) < 0)
        Py_CLEAR(result);
fail:
    PyMem_Free(times);
    Py_XDECREF(seq);
    Py_XDECREF(lst);
    Py_XDECREF(times_d);
    return result;
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
    {"sgemm", (PyCFunction)(void (*)(void))py_sgemm, METH_VARARGS | METH_KEYWORDS, sgemm_doc},
    {"_bank_replay", py_bank_replay, METH_VARARGS, bank_replay_doc},
    {"_bank_rule", py_bank_rule, METH_VARARGS, bank_rule_doc},
    {"_plan", (PyCFunction)(void (*)(void))py_plan, METH_VARARGS | METH_KEYWORDS, plan_doc},
    {"_parse_layout", py_parse_layout, METH_VARARGS, parse_layout_doc},
    {"_transpose_ptr", py_transpose_ptr, METH_VARARGS, transpose_ptr_doc},
    {"_sgemm_ptr", py_sgemm_ptr, METH_VARARGS, sgemm_ptr_doc},
    {"device_count", py_device_count, METH_NOARGS, device_count_doc},
    {"device_name", py_device_name, METH_NOARGS, device_name_doc},
    {"_device_info", py_device_info, METH_NOARGS, device_info_doc},
    {"empty_cache", py_empty_cache, METH_NOARGS, empty_cache_doc},
    {"_tile_offsets", (PyCFunction)(void (*)(void))py_tile_offsets, METH_VARARGS | METH_KEYWORDS, tile_offsets_doc},
    {"_tile_swizzle", (PyCFunction)(void (*)(void))py_tile_swizzle, METH_VARARGS | METH_KEYWORDS, tile_swizzle_doc},
    {"_swizzle", py_swizzle, METH_VARARGS, swizzle_doc},
    {"_bench", (PyCFunction)(void (*)(void))py_bench, METH_VARARGS | METH_KEYWORDS, bench_doc},
    {"_mem_info", py_mem_info, METH_NOARGS, mem_info_doc},
    {"_debug_fault", py_debug_fault, METH_NOARGS, debug_fault_doc},
    {"_set_host_mode", py_set_host_mode, METH_O, set_host_mode_doc},
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
