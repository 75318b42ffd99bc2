"""The public kernels.  NumPy arrays and CUDA arrays (CuPy, PyTorch, __cuda_array_interface__, DLPack)
take one path: smemkit._C builds one operand description of each argument, checks it against one set
of rules and dispatches it (csrc/module.c -> csrc/operand.c); the functions here are those C functions.
"""
from ._C import gemm, matrix_transpose, sgemm, transpose

__all__ = ["gemm", "matrix_transpose", "sgemm", "transpose"]
