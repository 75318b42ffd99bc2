/*
 * py_operand.h -- Python objects <-> the plain operand description (operand.h): a NumPy array or a
 * CUDA array (CuPy, PyTorch, __cuda_array_interface__, DLPack: smemkit/_device.py reads the library's
 * attributes) becomes an smk_operand; results are made beside an input (same side, same library, same
 * device); out= is taken and checked; a call's bytes are checked against the machine.  Conversion only:
 * the rules are rules.c's.
 */
#ifndef SMK_PY_OPERAND_H
#define SMK_PY_OPERAND_H

#include "py_convert.h"

/* dtype facts of an operand (esz, kind, dtype, byte order, name for messages). */
void smk_py_set_dtype(smk_operand *op, PyArray_Descr *d);
/* A NumPy array's operand (host; strides in elements). */
void smk_py_from_ndarray(PyArrayObject *a, const char *arg, smk_operand *op);
/* Any argument -> smk_operand.  0, or -1 with an exception set (TypeError for non-arrays). */
int smk_py_to_operand(PyObject *module, PyObject *obj, const char *fname, const char *arg, smk_operand *op);
/* A new C-contiguous result beside `like` (host: a NumPy array of descr; device: an array of the same
 * library on the same device, of descr or, when descr is NULL, of like's dtype) and its operand.
 * NULL with an exception set on failure. */
PyObject *smk_py_new_result(PyObject *module, PyObject *like_obj, const smk_operand *like, PyArray_Descr *descr,
                            int ndim, const int64_t *shape, smk_operand *out);
/* out=: the caller's array as the result, checked against the result's shape and dtype and against
 * the inputs (rules.c: smk_check_out), before any device work.  A new reference, or NULL. */
PyObject *smk_py_take_out(PyObject *module, PyObject *out_obj, const char *fname, const smk_operand *like, int ndim,
                          const int64_t *shape, const smk_operand *const *ins, int n, const smk_operand *may_alias,
                          smk_operand *o);
/* Host operands of a GEMM (ops[0..2], NULLs skipped) as native, aligned, C-contiguous arrays of their
 * own dtype: a copy in keep[i] when they are not (ops[i] then describes the copy).  0, or -1. */
int smk_py_stage_host(PyObject **objs, smk_operand **ops, PyObject **keep);
/* The call's device guard: a PyTorch operand's device made current (*prev: the device that
 * smk_py_leave_device(*prev) puts back, -1 for none); other libraries keep the current device.  0 / -1. */
int smk_py_enter_device(PyObject *module, const smk_operand *const ops[], int n, int *prev);
/* ... and its end: the previous device back (one without a context yet through torch, so as not to
 * create one); keeps a pending exception. */
void smk_py_leave_device(int prev);
/* Refuse what cannot fit, host first (no GPU needed), then device (for device arrays device_bytes is
 * the temporaries alone: their library allocates the result and reports its own out-of-memory).
 * 0, or -1 with an exception set. */
int smk_py_check_fits(PyObject *module, const char *fname, size_t host_bytes, size_t device_bytes);

#endif /* SMK_PY_OPERAND_H */
