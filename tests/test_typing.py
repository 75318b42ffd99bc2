"""A user's script type-checks: mypy --strict and pyright's strict mode (basedpyright: the pyright
checker with its JavaScript inside the wheel, so it runs offline) on examples/readme_tour.py, the
README's examples as a user writes them, including ``for layout in smemkit.LAYOUTS:
smemkit.transpose(a, layout=layout)``.

Two places to find smemkit from:
  "tree"       the checkers pointed at this checkout (MYPYPATH / extraPaths): the annotations and the stub
  "installed"  the script alone in a temporary folder, smemkit found only through the environment: what
               the README's `pip install -e .` (or a wheel) shows to a type checker.  Skipped when smemkit
               is not installed in this environment (an in-place build); CI installs it editable.
Both checkers come with the test extra; without them these tests skip.
"""
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "readme_tour.py"


def installed_outside_the_tree():
    try:
        dist = importlib.metadata.distribution("smemkit")
    except importlib.metadata.PackageNotFoundError:
        return False
    return dist is not None


def prepare(tmp_path, where):
    if where == "installed" and not installed_outside_the_tree():
        pytest.skip("smemkit is not installed in this environment (pip install -e . installs it)")
    work = tmp_path / "user"
    work.mkdir()
    shutil.copy(SCRIPT, work / SCRIPT.name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    if where == "tree":
        env["MYPYPATH"] = str(ROOT)
    return work, env


@pytest.mark.parametrize("where", ["tree", "installed"])
def test_mypy_strict_on_a_readme_script(tmp_path, where):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with smemkit[test])")
    work, env = prepare(tmp_path, where)
    # silent: errors are reported for the user's script only, as for any installed package
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir",
                        str(tmp_path / "mypy-cache"), "--python-executable", sys.executable, SCRIPT.name],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "Success" in p.stdout


@pytest.mark.parametrize("where", ["tree", "installed"])
def test_pyright_strict_on_a_readme_script(tmp_path, where):
    if importlib.util.find_spec("basedpyright") is None:
        pytest.skip("basedpyright is not installed (it comes with smemkit[test])")
    work, env = prepare(tmp_path, where)
    config = {"typeCheckingMode": "strict", "pythonVersion": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    if where == "tree":
        config["extraPaths"] = [str(ROOT)]
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    p = subprocess.run([sys.executable, "-m", "basedpyright", "--pythonpath", sys.executable, SCRIPT.name],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "0 errors" in p.stdout


def test_the_typed_loop_is_in_the_script():
    """The README's loop that used to fail both checkers is what the script checks."""
    text = SCRIPT.read_text()
    assert "for layout in smemkit.LAYOUTS:" in text and "smemkit.transpose(a, layout=layout)" in text
    readme = (ROOT / "README.md").read_text()
    assert "for layout in smemkit.LAYOUTS:" in readme


def test_readme_tour_runs():
    p = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "excess wavefronts" in p.stdout


def _public_callables():
    import inspect

    import smemkit
    from smemkit.explain import Access, Explanation
    seen = []
    extra = {"Explanation": Explanation, "Access": Access}  # what explain() returns
    for name in [*smemkit.__all__, *extra]:
        obj = extra[name] if name in extra else getattr(smemkit, name)
        if inspect.ismodule(obj):  # bank_model
            seen += [(f"{name}.{n}", f) for n, f in vars(obj).items()
                     if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == obj.__name__]
        elif inspect.isclass(obj):
            seen += [(f"{name}.{n}", f) for n, f in vars(obj).items()
                     if inspect.isfunction(f) and (not n.startswith("_") or n in ("__init__", "__call__"))]
            seen += [(f"{name}.{n}", f.fget) for n, f in vars(obj).items() if isinstance(f, property)]
        elif inspect.isfunction(obj):
            seen.append((name, obj))
    return seen


def test_every_public_python_function_is_annotated():
    """Parameters and return of every public function and method written in Python (the C functions
    are described by smemkit/_C.pyi, checked by tests/test_packaging.py)."""
    import inspect
    missing = []
    items = _public_callables()
    assert len(items) > 30, items
    for name, f in items:
        sig = inspect.signature(f)
        for p in sig.parameters.values():
            if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty:
                missing.append(f"{name}({p.name})")
        if sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name} -> ?")
    assert not missing, missing
