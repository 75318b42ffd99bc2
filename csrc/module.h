/*
 * module.h -- what the two binding files (module.c: the module, errors, ops; module_tools.c: maps,
 * bank model, plans, timing, device facts) share.  Only they include this header and Python.h.
 */
#ifndef SMK_MODULE_H
#define SMK_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL smk_ARRAY_API
#ifndef SMK_MODULE_MAIN
#define NO_IMPORT_ARRAY /* NumPy's API table is imported once, in module.c's exec slot */
#endif
#include <numpy/arrayobject.h>

#include "runtime.h"

#define SMK_KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

extern const char *const smk_layout_names[]; /* the smk_layout enum's names, in order */
extern volatile int smk_py_sgemm_config;     /* tests: a forced SGEMM tile config (_set_knob) */
extern volatile int smk_py_sgemm_splits;     /* tests: a forced SGEMM K split (_set_knob) */
extern volatile int smk_py_gemm16_variant;   /* tests: a forced tensor-core GEMM variant (_set_knob) */
extern PyMethodDef smk_tool_methods[];       /* module_tools.c */
extern PyMethodDef smk_timer_methods[];      /* module_timer.c: smemkit.timeit's loop */

/* layout=None means the default ("swizzle").  0, or -1 with TypeError / ValueError set. */
int smk_py_parse_layout(PyObject *obj, const char *fname, int *layout);
/* An integer argument (anything with __index__; bool refused) in [lo, hi]: TypeError for other types,
 * ValueError naming fname, arg and the range otherwise -- never the OverflowError of PyArg's integer
 * codes.  obj NULL: *v keeps its default.  0, or -1 with an exception set. */
int smk_py_int_arg(PyObject *obj, const char *fname, const char *arg, long long lo, long long hi, long long *v);
/* layout= of the tensor-core GEMM: a name or a compiled-in smemkit.Swizzle (swz = b, m, s; 0,0,0 for a name). */
int smk_py_parse_gemm_layout(PyObject *obj, const char *fname, int *layout, int swz[3]);
/* alpha / beta: a real number (bool and complex excluded, numpy scalars too); TypeError / ValueError
 * naming fname and arg.  NULL obj leaves *v alone. */
int smk_py_real_arg(PyObject *obj, const char *fname, const char *arg, double *v);
/* A str of the C string s (a new reference; literals are interned once and reused), or NULL. */
PyObject *smk_py_cstr(const char *s);
/* like.new_empty(shape) of a PyTorch tensor, straight from C (a small call's per-call cost): the new
 * tensor and its data_ptr, or NULL with an exception set. */
PyObject *smk_py_torch_new_empty(PyObject *like, PyObject *shape, unsigned long long *ptr);
/* Raise the Python exception a failed smk_status stands for; returns NULL. */
PyObject *smk_py_raise_status(PyObject *module, smk_status s);

#endif /* SMK_MODULE_H */
