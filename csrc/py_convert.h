/*
 * py_convert.h -- the bottom of the binding files: Python.h and NumPy included once the same way, the
 * module's state, the argument converters every binding shares (layout names, ints, reals, op
 * shapes), the exceptions a failed call raises, and the test knobs the ops read.  The binding files
 * form a stack on it:
 *
 *   py_convert.c   converters, exceptions, knobs                (uses no other binding file)
 *   py_operand.c   objects -> smk_operand, results, out=, size checks
 *   module_maps.c  layout maps, bank model, access plans        -> smk_map_methods
 *   module_tools.c timing, device facts, configs, test knobs    -> smk_tool_methods
 *   module_timer.c smemkit.timeit: Python callables timed by bench.c's loop -> smk_timer_methods
 *   module.c       the module itself and its ops (transpose, sgemm, gemm)
 *
 * Only these files include Python.h, and they only convert: the work is in files that know no Python.
 */
#ifndef SMK_PY_CONVERT_H
#define SMK_PY_CONVERT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL smk_ARRAY_API
#ifndef SMK_MODULE_MAIN
#define NO_IMPORT_ARRAY /* NumPy's API table is imported once, in module.c's exec slot */
#endif
#include <numpy/arrayobject.h>

#include "operand.h"
#include "runtime.h"

#define SMK_KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

/* The module's state (PyModule_GetState): its exception type and smemkit._device's two functions,
 * imported on first use. */
typedef struct {
    PyObject *CudaError;
    PyObject *describe, *empty;
} smk_py_state;

static inline smk_py_state *smk_py_state_of(PyObject *module) { return (smk_py_state *)PyModule_GetState(module); }

extern const char *const smk_layout_names[]; /* the smk_layout enum's names, in order */

/* Test knobs (_set_knob), read by the ops: 0 = chosen per shape, else forced. */
extern volatile int smk_py_sgemm_config;   /* an SGEMM tile config */
extern volatile int smk_py_sgemm_splits;   /* SGEMM K slices */
extern volatile int smk_py_gemm16_variant; /* a tensor-core GEMM variant */

/* layout=None means the default ("swizzle").  0, or -1 with TypeError / ValueError set. */
int smk_py_parse_layout(PyObject *obj, const char *fname, int *layout);
/* layout= of the tensor-core GEMM: a name or a compiled-in smemkit.Swizzle (swz = b, m, s; 0,0,0 for a name). */
int smk_py_parse_gemm_layout(PyObject *obj, const char *fname, int *layout, int swz[3]);
/* With the wgmma kernel chosen (gemm16_kernel knob) for a 2-byte GEMM: 0 if TMA and wgmma can express
 * the layout, else -1 with a ValueError that says why and names the layouts that work (api/wgmma.h). */
int smk_py_wgmma_layout_ok(const char *fname, int layout, const int swz[3]);
/* An integer argument (anything with __index__; bool refused) in [lo, hi]: TypeError for other types,
 * ValueError naming fname, arg and the range otherwise -- never the OverflowError of PyArg's integer
 * codes.  obj NULL: *v keeps its default.  0, or -1 with an exception set. */
int smk_py_int_arg(PyObject *obj, const char *fname, const char *arg, long long lo, long long hi, long long *v);
/* alpha / beta: a real number (bool and complex excluded, numpy scalars too); TypeError / ValueError
 * naming fname and arg.  NULL obj leaves *v alone. */
int smk_py_real_arg(PyObject *obj, const char *fname, const char *arg, double *v);
/* op name ('transpose', 'sgemm', 'gemm') and shape tuple -> SMK_OP_* (bench.h) and dims[] with entries
 * in [lo, hi] (transpose: (rows, cols), or with `batch` also (rows, cols, batch); the GEMMs: (M, N, K));
 * -1 with TypeError / ValueError set, naming fname and the entry. */
int smk_py_parse_op_shape(const char *fname, const char *op, PyObject *shape, long long lo, long long hi, int batch,
                          int64_t dims[3]);
/* A str of the C string s (a new reference; literals are interned once and reused), or NULL. */
PyObject *smk_py_cstr(const char *s);

/* Raise the Python exception a failed smk_status stands for (smemkit.CudaError, MemoryError); NULL. */
PyObject *smk_py_raise_status(PyObject *module, smk_status s);
/* Raise what an smk_error says (TypeError, ValueError, MemoryError, or the status's exception); NULL. */
PyObject *smk_py_raise_error(PyObject *module, const smk_error *e);

#endif /* SMK_PY_CONVERT_H */
