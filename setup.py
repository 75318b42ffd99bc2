"""Build smemkit._C: csrc/*.cu through nvcc into objects, csrc/*.c through the host compiler, linked
against the static CUDA runtime so that `import smemkit` needs no GPU and no driver.

Environment:
  CUDA_HOME            toolkit root (else nvcc on PATH, else /usr/local/cuda)
  SMEMKIT_CUDA_ARCH    SASS targets, e.g. "90" or "80;90", or "all" (80;86;89;90 plus compute_90 PTX).
                       Default: the compute capabilities of the GPUs nvidia-smi lists (plus PTX of the
                       newest), or, with no GPU visible, sm_80 plus compute_80 PTX (runs on any GPU of
                       compute capability 8.0 or newer; the driver compiles the PTX on first use)
  SMEMKIT_NVCC_FLAGS   extra nvcc flags (e.g. "-lineinfo" is already on; "-G" for debugging)
  SMEMKIT_BUILD_CACHE  where compiled CUDA objects are kept between builds (default build/nvcc-cache
                       beside this file); an object is reused when its source, the csrc headers it includes and the
                       nvcc command line are byte for byte the same, so pip's fresh temporary build
                       directories (the README's two commands) compile each .cu once; a source edited while
                       the build compiles it is not cached (the build stops and says so)
  SMEMKIT_BUILD_JOBS   how many nvcc processes run at once (default: the CPU count)
  SMEMKIT_SGEMM_CANDIDATES=1  also compile the SGEMM candidate tile configs that
                       smemkit.bench(..., config=...) can time (doubles the SGEMM build time)

Every .c and .cu below csrc/ is built (a new file needs no edit here; MANIFEST.in ships csrc whole);
the .cu files under csrc/hopper/ get sm_90a alone when 90 is a target (source_flags).
Importing this file never touches CUDA and never runs setup(); the toolkit is looked up only when a
build is asked for (tests/test_packaging.py imports it to test find_cuda_home).
"""
import concurrent.futures
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
CSRC = HERE / "csrc"
ALL_ARCHS = ["80", "86", "89", "90"]
ALL_PTX = "90"
NO_GPU_ARCH = "80"  # with no GPU visible: sm_80 SASS + compute_80 PTX runs on every GPU we support
# Last resort of find_cuda_home; a module attribute so that tests can point it at an empty directory.
DEFAULT_CUDA_HOME = Path("/usr/local/cuda")


def csrc_files(pattern):
    """Sorted paths relative to this file, every folder below csrc (setuptools wants relative paths)."""
    return sorted(p.relative_to(HERE).as_posix() for p in CSRC.rglob(pattern))


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


def visible_gpu_archs():
    """Compute capabilities of the GPUs nvidia-smi lists, e.g. ["90"]; [] without a GPU or driver."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    caps = {c.strip().replace(".", "") for c in out.splitlines()}
    return sorted((c for c in caps if c.isdigit()), key=int)


def target_archs():
    """(SASS architectures, PTX architecture or None) for this build; see SMEMKIT_CUDA_ARCH above."""
    spec = os.environ.get("SMEMKIT_CUDA_ARCH", "").strip()
    if spec.lower() == "all":
        return ALL_ARCHS, ALL_PTX
    if spec:
        archs = [a.replace("sm_", "").replace(".", "") for a in re.split(r"[;, ]+", spec) if a]
        bad = [a for a in archs if not a.isdigit()]
        if bad:
            raise RuntimeError(f"SMEMKIT_CUDA_ARCH: bad architecture {bad[0]!r} (expected e.g. 90, 80;90 or all)")
        return archs, None
    found = visible_gpu_archs()
    return (found, found[-1]) if found else ([NO_GPU_ARCH], NO_GPU_ARCH)


def gencode_flags():
    archs, ptx = target_archs()
    flags = []
    for a in archs:
        flags += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
    if ptx:
        flags += ["-gencode", f"arch=compute_{ptx},code=compute_{ptx}"]
    return flags


HOPPER = "csrc/hopper/"  # sm_90a-only code (wgmma, setmaxnreg): its own target, see source_flags


def source_flags(cu, flags):
    """nvcc flags of one source: `flags` (with the build's -gencode list), except that the files under
    csrc/hopper/ are compiled for sm_90a alone (plus -DSMK_HAVE_SM90A) when 90 is a target: wgmma and
    setmaxnreg exist only for the arch-specific target, which runs on compute capability 9.0 only.
    Without 90 they keep the build's targets and compile to empty kernels whose launcher falls back."""
    if not cu.startswith(HOPPER) or "90" not in target_archs()[0]:
        return list(flags)
    out, i = [], 0
    while i < len(flags):
        if flags[i] == "-gencode":
            i += 2
            continue
        out.append(flags[i])
        i += 1
    return out + ["-gencode", "arch=compute_90a,code=sm_90a", "-DSMK_HAVE_SM90A"]


INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)


def local_includes(src):
    """Every csrc file that src includes with #include "...", directly or not (resolved beside the
    including file, then in csrc/, as nvcc's -I csrc does); system headers are not followed."""
    seen, todo = [], [src]
    while todo:
        f = todo.pop()
        for name in INCLUDE.findall(f.read_bytes()):
            name = name.decode()
            for cand in (f.parent / name, CSRC / name):
                cand = cand.resolve()
                if cand.is_file():
                    if cand not in seen:
                        seen.append(cand)
                        todo.append(cand)
                    break
    return sorted(seen)


def object_key(cu, cmd):
    """Hash of what an object depends on: the nvcc command (paths relative to this file, so a moved or
    freshly unpacked tree hits the same object), the .cu and every csrc header it includes, byte for byte."""
    h = hashlib.sha256(" ".join(cmd).replace(str(HERE), ".").encode())
    for f in [cu, *local_includes(cu)]:
        h.update(f.relative_to(HERE).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


class CudaBuildExt(build_ext):
    """Compile the .cu sources with nvcc to objects (several at once), then let setuptools build and
    link the rest.  Objects live in a content-addressed cache (SMEMKIT_BUILD_CACHE), so a rebuild with
    nothing changed compiles nothing, whatever temporary directory pip builds in."""

    def build_extension(self, ext):
        import numpy

        cuda = find_cuda_home()
        nvcc = cuda / "bin" / "nvcc"
        libdirs = [d for d in (cuda / "lib64", cuda / "targets" / "x86_64-linux" / "lib", cuda / "lib")
                   if d.exists()]
        ext.include_dirs += [str(CSRC), str(cuda / "include"), numpy.get_include()]
        ext.library_dirs += [str(d) for d in libdirs]

        cache = Path(os.environ.get("SMEMKIT_BUILD_CACHE") or HERE / "build" / "nvcc-cache")
        cache.mkdir(parents=True, exist_ok=True)
        extra = shlex.split(os.environ.get("SMEMKIT_NVCC_FLAGS", ""))
        if os.environ.get("SMEMKIT_SGEMM_CANDIDATES", "") not in ("", "0"):
            extra.append("-DSMK_SGEMM_CANDIDATES")
        flags = ["-std=c++17", "-O3", "-lineinfo", "--threads", "0", "-Xcompiler", "-fPIC", "-I", str(CSRC),
                 *gencode_flags(), *extra]
        jobs = []
        for cu in getattr(ext, "cuda_sources", []):
            src = HERE / cu
            cmd = [str(nvcc), "-c", str(src), *source_flags(cu, flags)]
            obj = cache / f"{Path(cu).stem}-{object_key(src, cmd)}.o"
            ext.extra_objects.append(str(obj))
            ext.depends.append(str(obj))  # a fresh object relinks the module
            if self.force or not obj.exists():
                jobs.append((cmd, obj, src))
        n = int(os.environ.get("SMEMKIT_BUILD_JOBS") or os.cpu_count() or 1)
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max(1, n)) as pool:
            for _ in pool.map(self._nvcc, jobs):
                pass
        if jobs:
            print(f"smemkit: {len(jobs)} CUDA file(s) compiled in {time.monotonic() - t0:.0f} s "
                  f"({n} at once); objects cached in {cache}", flush=True)
        super().build_extension(ext)

    @staticmethod
    def _nvcc(job):
        cmd, obj, src = job
        tmp = obj.with_name(f"{obj.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        print(" ".join(shlex.quote(c) for c in cmd + ["-o", str(obj)]), flush=True)
        subprocess.check_call(cmd + ["-o", str(tmp)])
        stale_object_check(obj, src, cmd, tmp)
        os.replace(tmp, obj)  # atomic: a build killed half-way leaves no truncated object behind


def stale_object_check(obj, src, cmd, tmp):
    """The object's name carries the key of its sources when the build began (object_key); a source or
    header edited before nvcc finished would otherwise be cached under that old key and linked by every
    later build of the old sources.  Key again after compiling: if it moved, drop the object and stop."""
    if not obj.name.endswith(f"-{object_key(src, cmd)}.o"):
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"smemkit: {src.relative_to(HERE).as_posix()} (or a header it includes) changed while "
                           f"nvcc compiled it; nothing was cached for it -- run the build again")


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
