"""Build smemkit._C: csrc/*.cu through nvcc into objects, csrc/*.c through the host compiler, linked
against the static CUDA runtime so that `import smemkit` needs no GPU and no driver.

Environment:
  CUDA_HOME            toolkit root (else nvcc on PATH, else /usr/local/cuda)
  SMEMKIT_CUDA_ARCH    SASS targets, e.g. "90" or "80;90" (default: 80;86;89;90 plus compute_90 PTX)
  SMEMKIT_NVCC_FLAGS   extra nvcc flags (e.g. "-lineinfo" is already on; "-G" for debugging)

Importing this file never touches CUDA; the toolkit is looked up only when a build is asked for.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
CSRC = HERE / "csrc"
DEFAULT_ARCHS = ["80", "86", "89", "90"]
PTX_ARCH = "90"


def find_cuda_home():
    """Toolkit root: CUDA_HOME, then the nvcc on PATH, then /usr/local/cuda."""
    env = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if env and (Path(env) / "bin" / "nvcc").exists():
        return Path(env)
    nvcc = shutil.which("nvcc")
    if nvcc:
        return Path(nvcc).resolve().parent.parent
    if Path("/usr/local/cuda/bin/nvcc").exists():
        return Path("/usr/local/cuda")
    raise RuntimeError(
        "smemkit needs the CUDA Toolkit to build: set CUDA_HOME, put nvcc on PATH, or install it in "
        "/usr/local/cuda"
    )


def gencode_flags():
    spec = os.environ.get("SMEMKIT_CUDA_ARCH", "").strip()
    archs = [a for a in re.split(r"[;, ]+", spec) if a] if spec else DEFAULT_ARCHS
    flags = []
    for a in archs:
        a = a.replace("sm_", "").replace(".", "")
        if not a.isdigit():
            raise RuntimeError(f"SMEMKIT_CUDA_ARCH: bad architecture {a!r} (expected e.g. 90 or 80;90)")
        flags += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
    if not spec:
        flags += ["-gencode", f"arch=compute_{PTX_ARCH},code=compute_{PTX_ARCH}"]
    return flags


class CudaBuildExt(build_ext):
    """Compile the .cu sources with nvcc to objects, then let setuptools build and link the rest."""

    def build_extension(self, ext):
        import numpy

        cuda = find_cuda_home()
        nvcc = cuda / "bin" / "nvcc"
        libdirs = [d for d in (cuda / "lib64", cuda / "targets" / "x86_64-linux" / "lib", cuda / "lib")
                   if d.exists()]
        ext.include_dirs += [str(CSRC), str(cuda / "include"), numpy.get_include()]
        ext.library_dirs += [str(d) for d in libdirs]

        objdir = Path(self.build_temp) / "cuda"
        objdir.mkdir(parents=True, exist_ok=True)
        extra = shlex.split(os.environ.get("SMEMKIT_NVCC_FLAGS", ""))
        for cu in getattr(ext, "cuda_sources", []):
            obj = objdir / (Path(cu).stem + ".o")
            cmd = [str(nvcc), "-c", str(HERE / cu), "-o", str(obj), "-std=c++17", "-O3", "-lineinfo",
                   "--threads", "0", "-Xcompiler", "-fPIC", "-I", str(CSRC), *gencode_flags(), *extra]
            print(" ".join(shlex.quote(c) for c in cmd), flush=True)
            subprocess.check_call(cmd)
            ext.extra_objects.append(str(obj))
        super().build_extension(ext)


ext = Extension(
    "smemkit._C",
    sources=["csrc/module.c", "csrc/runtime.c", "csrc/bank_model.c", "csrc/ceiling.c"],
    libraries=["cudart_static", "dl", "rt", "pthread", "stdc++"],
    extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers"],
)
ext.cuda_sources = ["csrc/transpose.cu", "csrc/sgemm.cu", "csrc/debug.cu"]

setup(ext_modules=[ext], cmdclass={"build_ext": CudaBuildExt})
