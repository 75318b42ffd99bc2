"""Build smemkit._C: csrc/*.cu through nvcc into objects, csrc/*.c through the host compiler, linked
against the static CUDA runtime so that `import smemkit` needs no GPU and no driver.

Environment:
  CUDA_HOME            toolkit root (else nvcc on PATH, else /usr/local/cuda)
  SMEMKIT_CUDA_ARCH    SASS targets, e.g. "90" or "80;90" (default: 80;86;89;90 plus compute_90 PTX)
  SMEMKIT_NVCC_FLAGS   extra nvcc flags (e.g. "-lineinfo" is already on; "-G" for debugging)
  SMEMKIT_SGEMM_CANDIDATES=1  also compile the SGEMM candidate tile configs that
                       smemkit.bench(..., config=...) can time (doubles the SGEMM build time)

Every csrc/*.c and csrc/*.cu is built (a new file needs no edit here; MANIFEST.in ships csrc whole).
Importing this file never touches CUDA and never runs setup(); the toolkit is looked up only when a
build is asked for (tests/test_packaging.py imports it to test find_cuda_home).
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
# Last resort of find_cuda_home; a module attribute so that tests can point it at an empty directory.
DEFAULT_CUDA_HOME = Path("/usr/local/cuda")


def csrc_files(pattern):
    """Sorted paths relative to this file (setuptools wants relative source paths)."""
    return sorted(p.relative_to(HERE).as_posix() for p in CSRC.glob(pattern))


def find_cuda_home():
    """Toolkit root: CUDA_HOME (or CUDA_PATH), then the nvcc on PATH, then DEFAULT_CUDA_HOME."""
    env = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if env and (Path(env) / "bin" / "nvcc").exists():
        return Path(env)
    nvcc = shutil.which("nvcc")
    if nvcc:
        return Path(nvcc).resolve().parent.parent
    if (DEFAULT_CUDA_HOME / "bin" / "nvcc").exists():
        return DEFAULT_CUDA_HOME
    raise RuntimeError(
        "smemkit needs the CUDA Toolkit to build: set CUDA_HOME, put nvcc on PATH, or install it in "
        f"{DEFAULT_CUDA_HOME}"
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
    """Compile the .cu sources with nvcc to objects, then let setuptools build and link the rest.

    An object is rebuilt when its .cu, any csrc header or the nvcc command line changed (the command
    is kept next to the object), so switching SMEMKIT_CUDA_ARCH recompiles and an edit of a header
    that only the host code includes does not."""

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
        if os.environ.get("SMEMKIT_SGEMM_CANDIDATES", "") not in ("", "0"):
            extra.append("-DSMK_SGEMM_CANDIDATES")
        headers = [HERE / h for h in csrc_files("*.h") + csrc_files("*.cuh")]
        for cu in getattr(ext, "cuda_sources", []):
            obj = objdir / (Path(cu).stem + ".o")
            cmd = [str(nvcc), "-c", str(HERE / cu), "-o", str(obj), "-std=c++17", "-O3", "-lineinfo",
                   "--threads", "0", "-Xcompiler", "-fPIC", "-I", str(CSRC), *gencode_flags(), *extra]
            line = " ".join(shlex.quote(c) for c in cmd)
            stamp = obj.with_suffix(".cmd")
            if (self.force or not obj.exists() or not stamp.exists() or stamp.read_text() != line
                    or any(p.stat().st_mtime > obj.stat().st_mtime for p in [HERE / cu, *headers])):
                print(line, flush=True)
                subprocess.check_call(cmd)
                stamp.write_text(line)
            ext.extra_objects.append(str(obj))
            ext.depends.append(str(obj))  # a fresh object relinks the module
        super().build_extension(ext)


ext = Extension(
    "smemkit._C",
    sources=csrc_files("*.c"),
    depends=csrc_files("*.h"),
    libraries=["cudart_static", "dl", "rt", "pthread", "stdc++"],
    extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers"],
)
ext.cuda_sources = csrc_files("*.cu")

if __name__ == "__main__":  # also how setuptools.build_meta and `python setup.py` run this file
    setup(ext_modules=[ext], cmdclass={"build_ext": CudaBuildExt})
