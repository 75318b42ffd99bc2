"""Packaging: the stub smemkit/_C.pyi says what smemkit._C has, MANIFEST.in ships every source the
build reads, and setup.py stops with a clear message when there is no CUDA Toolkit.

When module.c gains, loses or changes a function, the stub tests fail naming the stub line to edit.
(.ci/run builds the sdist, a wheel from it, and imports that wheel from outside the tree.)"""
import ast
import builtins
import importlib.util
import inspect
import os
from pathlib import Path

import pytest

import smemkit
from smemkit import _C

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "smemkit" / "_C.pyi"


def stub_module():
    return ast.parse(STUB.read_text(), filename=str(STUB))


def stub_names():
    """name -> ast node of every public or underscore name the stub declares for the module.
    Plain assignments (`_Layout = Literal[...]`) are the stub's own type aliases, not module names."""
    out = {}
    for node in stub_module().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def runtime_names():
    return {n for n in dir(_C) if not (n.startswith("__") and n.endswith("__"))}


def runtime_functions():
    return sorted(n for n in runtime_names() if callable(getattr(_C, n)) and not isinstance(getattr(_C, n), type))


def where(node):
    return f"smemkit/_C.pyi:{node.lineno}"


def test_stub_declares_every_name_of_the_module():
    missing = sorted(runtime_names() - set(stub_names()))
    assert not missing, f"smemkit._C has {missing} but smemkit/_C.pyi does not declare them: add them to the stub"


def test_stub_declares_nothing_the_module_lacks():
    extra = {n: where(node) for n, node in stub_names().items() if n not in runtime_names()}
    assert not extra, f"the stub declares names smemkit._C does not have (remove or rename them): {extra}"


def test_stub_kind_of_each_name():
    """def for functions, class for types, annotated names for data."""
    for name, node in stub_names().items():
        if not hasattr(_C, name):
            continue  # reported by test_stub_declares_nothing_the_module_lacks
        obj = getattr(_C, name)
        if isinstance(node, ast.ClassDef):
            assert isinstance(obj, type), f"{where(node)}: {name} is a class in the stub, {type(obj)} in _C"
            for base in node.bases:
                assert issubclass(obj, getattr(builtins, ast.unparse(base))), f"{where(node)}: bases of {name}"
        elif isinstance(node, ast.FunctionDef):
            assert callable(obj) and not isinstance(obj, type), f"{where(node)}: {name} is not a function in _C"
        else:
            assert not callable(obj), f"{where(node)}: {name} is data in the stub but callable in _C"


def stub_parameters(fn):
    """[(name, kind, default)] of a stub def, as inspect.Parameter would describe them."""
    a = fn.args
    P = inspect.Parameter
    positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs] + [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
    defaults = [P.empty] * (len(positional) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
    out = [(x.arg, kind, d) for (x, kind), d in zip(positional, defaults)]
    if a.vararg:
        out.append((a.vararg.arg, P.VAR_POSITIONAL, P.empty))
    out += [(x.arg, P.KEYWORD_ONLY, P.empty if d is None else ast.literal_eval(d))
            for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append((a.kwarg.arg, P.VAR_KEYWORD, P.empty))
    return out


def runtime_parameters(obj):
    return [(p.name, p.kind, p.default) for p in inspect.signature(obj).parameters.values()]


def show(params):
    return str(inspect.Signature([inspect.Parameter(n, k, default=d) for n, k, d in params]))


@pytest.mark.parametrize("name", runtime_functions())
def test_stub_signature_matches_the_c_function(name):
    """The C functions carry __text_signature__ (docstrings starting "name(args)\\n--\\n\\n")."""
    node = stub_names().get(name)
    if not isinstance(node, ast.FunctionDef):
        pytest.fail(f"smemkit/_C.pyi has no `def {name}`: add `def {name}{inspect.signature(getattr(_C, name))}`")
    want, got = runtime_parameters(getattr(_C, name)), stub_parameters(node)
    assert got == want, (f"{where(node)}: the stub says {name}{show(got)} but smemkit._C.{name} is {name}{show(want)}"
                         " (its __text_signature__): update the stub")


@pytest.mark.parametrize("name", ["transpose", "sgemm"])
def test_python_wrappers_take_what_the_c_functions_take(name):
    assert runtime_parameters(getattr(smemkit, name)) == runtime_parameters(getattr(_C, name))


def test_py_typed_marks_the_package():
    assert (ROOT / "smemkit" / "py.typed").is_file()


# ---- setup.py ------------------------------------------------------------------------------------


@pytest.fixture
def setup_py(monkeypatch):
    """setup.py as a module: importing it must not run setup() nor look for CUDA."""
    setuptools = pytest.importorskip("setuptools")

    def no_setup(**kw):
        raise AssertionError("importing setup.py ran setup()")

    monkeypatch.setattr(setuptools, "setup", no_setup)
    spec = importlib.util.spec_from_file_location("smemkit_setup", ROOT / "setup.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def no_cuda(setup_py, monkeypatch, tmp_path):
    """No CUDA_HOME / CUDA_PATH, no nvcc on PATH, and an empty directory as the last-resort probe."""
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(setup_py.shutil, "which", lambda name, *a, **k: None)
    monkeypatch.setattr(setup_py, "DEFAULT_CUDA_HOME", tmp_path / "no-cuda")
    return setup_py


def fake_toolkit(root):
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "nvcc").write_text("#!/bin/sh\n")
    (root / "bin" / "nvcc").chmod(0o755)
    return root


def test_setup_without_cuda_says_it_needs_the_toolkit(no_cuda):
    with pytest.raises(RuntimeError, match="needs the CUDA Toolkit") as e:
        no_cuda.find_cuda_home()
    assert "CUDA_HOME" in str(e.value) and "nvcc" in str(e.value)


def test_setup_build_ext_without_cuda_says_it_needs_the_toolkit(no_cuda):
    """The error comes from the build command itself, before any compiler runs."""
    from setuptools import Distribution

    cmd = no_cuda.CudaBuildExt(Distribution({"ext_modules": [no_cuda.ext]}))
    with pytest.raises(RuntimeError, match="needs the CUDA Toolkit"):
        cmd.build_extension(no_cuda.ext)


def test_setup_cuda_home_lookup_order(no_cuda, monkeypatch, tmp_path):
    home, on_path, default = (fake_toolkit(tmp_path / d) for d in ("home", "path", "default"))
    monkeypatch.setattr(no_cuda, "DEFAULT_CUDA_HOME", default)
    assert no_cuda.find_cuda_home() == default
    monkeypatch.setattr(no_cuda.shutil, "which", lambda name, *a, **k: str(on_path / "bin" / "nvcc"))
    assert no_cuda.find_cuda_home() == on_path.resolve()
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "not-a-toolkit"))  # no bin/nvcc there: ignored
    assert no_cuda.find_cuda_home() == on_path.resolve()
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert no_cuda.find_cuda_home() == home


def test_setup_builds_every_source_in_csrc(setup_py):
    rel = lambda pattern: sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "csrc").rglob(pattern))
    assert setup_py.ext.sources == rel("*.c")
    assert setup_py.ext.cuda_sources == rel("*.cu")
    assert setup_py.ext.cuda_sources and "csrc/module.c" in setup_py.ext.sources


# ---- MANIFEST.in ---------------------------------------------------------------------------------


def shipped_by_manifest_in():
    """The files MANIFEST.in's rules select from the tree, by setuptools' own template machinery."""
    from setuptools.command.egg_info import FileList

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        fl = FileList()
        fl.findall(".")
        fl.files = []
        for line in (ROOT / "MANIFEST.in").read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                fl.process_template_line(line)
        return {Path(f).as_posix() for f in fl.files}
    finally:
        os.chdir(cwd)


def junk(p):
    return "__pycache__" in p.parts or ".pytest_cache" in p.parts or p.suffix in (".pyc", ".o", ".so")


def test_manifest_ships_every_file_in_csrc_tests_examples_bench_docs():
    pytest.importorskip("setuptools")
    shipped = shipped_by_manifest_in()
    want = {p.relative_to(ROOT).as_posix() for d in ("csrc", "tests", "examples", "bench", "docs")
            for p in (ROOT / d).rglob("*") if p.is_file() and not junk(p.relative_to(ROOT))}
    want |= {"LICENSE", "README.md", ".ci/run", "smemkit/_C.pyi", "smemkit/py.typed"}
    assert any(w.startswith("csrc/") and w.endswith(".cu") for w in want)
    assert "docs/RESULTS.md" in want  # the notes the comments cite are where the test looks
    missing = sorted(want - shipped)
    assert not missing, f"MANIFEST.in does not ship {missing}: the sdist would lack them"


# ---- metadata ------------------------------------------------------------------------------------


def test_metadata_has_author_classifiers_and_no_placeholder_urls():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["authors"] == [{"name": "smemkit developers"}]
    cls = project["classifiers"]
    assert "Typing :: Typed" in cls and "Environment :: GPU :: NVIDIA CUDA" in cls
    assert any(c.startswith("Programming Language :: Python :: 3") for c in cls)
    assert not any(c.startswith("License ::") for c in cls)  # PEP 639: the license expression says it
    for url in project.get("urls", {}).values():  # none yet; never a placeholder
        assert "example" not in url and "TODO" not in url and url.startswith("https://")


def test_editable_install_is_visible_to_type_checkers():
    """package-dir names the root, so setuptools' editable install is a plain .pth path (what mypy and
    pyright read), not an import hook they cannot follow (tests/test_typing.py checks the result)."""
    tomllib = pytest.importorskip("tomllib")
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert tool["package-dir"] == {"": "."} and tool["packages"] == ["smemkit"]


def test_setup_hopper_sources_get_sm90a_alone(setup_py, monkeypatch):
    """csrc/hopper/ (wgmma, setmaxnreg) compiles for sm_90a alone when 90 is a target, else with the
    build's own targets (empty kernels, the launcher falls back); other sources keep the build's list."""
    base = ["-O3", "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90", "-lineinfo"]
    monkeypatch.setenv("SMEMKIT_CUDA_ARCH", "80;90")
    assert setup_py.source_flags("csrc/hopper/wgmma.cu", base) == [
        "-O3", "-lineinfo", "-gencode", "arch=compute_90a,code=sm_90a", "-DSMK_HAVE_SM90A"]
    assert setup_py.source_flags("csrc/gemm16/gemm16_launch.cu", base) == base
    monkeypatch.setenv("SMEMKIT_CUDA_ARCH", "80;86")
    assert setup_py.source_flags("csrc/hopper/wgmma.cu", base) == base
    assert "csrc/hopper/wgmma.cu" in setup_py.ext.cuda_sources


def test_setup_does_not_cache_an_object_whose_sources_changed_while_it_compiled(setup_py, tmp_path, monkeypatch):
    """The object cache's key is taken when the build begins; a source edited before nvcc finished must not
    land under that key (every later build of the old sources would link it)."""
    monkeypatch.setattr(setup_py, "HERE", tmp_path)
    monkeypatch.setattr(setup_py, "CSRC", tmp_path / "csrc")
    (tmp_path / "csrc").mkdir()
    src = tmp_path / "csrc" / "k.cu"
    src.write_text('#include "k.h"\n')
    (tmp_path / "csrc" / "k.h").write_text("int a;\n")
    cmd = ["nvcc", "-c", str(src)]
    obj = tmp_path / f"k-{setup_py.object_key(src, cmd)}.o"
    tmp = tmp_path / "k.o.tmp"
    tmp.write_bytes(b"object")
    setup_py.stale_object_check(obj, src, cmd, tmp)  # unchanged: kept
    assert tmp.exists()
    (tmp_path / "csrc" / "k.h").write_text("int b;\n")  # a header edited during the compile
    with pytest.raises(RuntimeError, match="changed while nvcc compiled it"):
        setup_py.stale_object_check(obj, src, cmd, tmp)
    assert not tmp.exists() and not obj.exists()
