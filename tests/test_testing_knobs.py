"""smemkit._testing.knobs: the C core's switches set for a block and put back (CPU: the knobs are plain
globals, settable without a device).  Every C call is recorded, so the tests see what reached C, and
the staging cap, the one knob C reports back, is checked against the pool itself."""
import re
from pathlib import Path

import pytest

import smemkit
from smemkit import _C, _testing

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def calls(monkeypatch):
    """The (name, value) pairs that reach _C._set_knob during the test, in order."""
    seen, real = [], _C._set_knob

    def record(name, value):
        real(name, value)  # raises before recording when C refuses the value
        seen.append((name, value))
    monkeypatch.setattr(_C, "_set_knob", record)
    return seen


def cap_mib():
    return _C._staging_info()["cap"] >> 20


def test_sets_then_restores(calls):
    before = _testing.current()
    with _testing.knobs(poison=True, sgemm_splits=7, staging_cap_mib=64):
        assert _testing.current() == {**before, "poison": 1, "sgemm_splits": 7, "staging_cap_mib": 64}
        assert cap_mib() == 64
    assert _testing.current() == before and cap_mib() == before["staging_cap_mib"]
    assert calls == [("poison", 1), ("sgemm_splits", 7), ("staging_cap_mib", 64),
                     ("staging_cap_mib", before["staging_cap_mib"]), ("sgemm_splits", 0), ("poison", 0)]


def test_restores_on_exception(calls):
    before = _testing.current()
    with pytest.raises(KeyError, match="inside"):
        with _testing.knobs(host_mode=2, staging_cap_mib=32):
            assert cap_mib() == 32
            raise KeyError("inside")
    assert _testing.current() == before and cap_mib() == before["staging_cap_mib"]
    assert calls[-2:] == [("staging_cap_mib", before["staging_cap_mib"]), ("host_mode", -1)]


def test_nesting_restores_the_outer_block(calls):
    with _testing.knobs(poison=1, host_mode=1):
        with _testing.knobs(poison=0, host_mode=3, transpose_odd_path=0):
            assert _testing.current()["host_mode"] == 3
        assert (_testing.current()["poison"], _testing.current()["host_mode"]) == (1, 1)
        assert _testing.current()["transpose_odd_path"] == 1
    assert (_testing.current()["poison"], _testing.current()["host_mode"]) == (0, -1)
    assert calls == [("poison", 1), ("host_mode", 1), ("poison", 0), ("host_mode", 3), ("transpose_odd_path", 0),
                     ("transpose_odd_path", 1), ("host_mode", 1), ("poison", 1), ("host_mode", -1), ("poison", 0)]


def test_unknown_knob_is_a_type_error_naming_the_valid_ones(calls):
    with pytest.raises(TypeError, match="unknown knob posion") as e:
        with _testing.knobs(sgemm_splits=2, posion=1):
            pass
    for name in _testing.KNOBS:
        assert name in str(e.value)
    assert calls == []  # checked before anything was set


@pytest.mark.parametrize("kw", [{"sgemm_splits": 1.5}, {"poison": "yes"}, {"host_mode": None}])
def test_value_of_the_wrong_type_is_a_type_error(calls, kw):
    with pytest.raises(TypeError, match=f"knobs\\(\\): {next(iter(kw))}"):
        with _testing.knobs(**kw):
            pass
    assert calls == []


def test_value_c_refuses_restores_what_was_set(calls):
    before = _testing.current()
    with pytest.raises(ValueError, match="host_mode=9"):
        with _testing.knobs(sgemm_splits=3, host_mode=9):
            pytest.fail("the block must not run")
    assert _testing.current() == before
    assert calls == [("sgemm_splits", 3), ("sgemm_splits", 0)]


def test_config_names(calls):
    names = smemkit.bench_configs("sgemm")
    with _testing.knobs(sgemm_config=names[2]):
        assert _testing.current()["sgemm_config"] == 2
    with pytest.raises(ValueError, match="not a config of this build"):
        with _testing.knobs(sgemm_config="3x3x3"):
            pass
    with _testing.knobs(gemm16_variant=smemkit.bench_configs("gemm")[1]):
        assert _testing.current()["gemm16_variant"] == 1
    assert calls == [("sgemm_config", 2), ("sgemm_config", 0), ("gemm16_variant", 1), ("gemm16_variant", 0)]


def test_as_a_decorator(calls):
    @_testing.knobs(sgemm_splits=5)
    def f():
        return _testing.current()["sgemm_splits"]
    assert f() == 5 and f() == 5
    assert _testing.current()["sgemm_splits"] == 0


def test_knob_table_matches_the_c_side():
    """A knob the C side adds (its _set_knob docstring and the stub) has to be added here, default included."""
    doc = set(re.findall(r"'(\w+)' \(", _C._set_knob.__doc__.replace("\n", " ")))
    stub = (ROOT / "smemkit" / "_C.pyi").read_text()
    lit = re.search(r"def _set_knob\(name: Literal\[(.*?)\]", stub, flags=re.S).group(1)
    assert doc == set(re.findall(r'"(\w+)"', lit)) == set(_testing.KNOBS) - set(_testing._OWN_BINDING)
    assert all(hasattr(_C, f) for f in _testing._OWN_BINDING.values())
    assert cap_mib() == _testing.KNOBS["staging_cap_mib"]  # the C default (every test puts the cap back)


def test_sgemm_choose_without_a_device():
    assert _testing.sgemm_choose(4096, 4096, 4096, 132) == _C._sgemm_choose(4096, 4096, 4096, 132)
    name, splits = _testing.sgemm_choose(64, 64, 65536, 132)
    assert name in smemkit.bench_configs("sgemm") and splits > 1


def _scripts():
    return sorted(p for d in ("bench", "examples") for p in (ROOT / d).rglob("*.py"))


def test_scripts_name_only_real_knobs():
    """Every knobs(...) call in bench/ and examples/ names knobs that exist (a typo there runs on a GPU only)."""
    import ast
    seen = 0
    for path in _scripts():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "knobs":
                names = {k.arg for k in node.keywords if k.arg}  # knobs(**d): the script checks d itself
                spread = any(k.arg is None for k in node.keywords)
                assert (names or spread) and names <= set(_testing.KNOBS), f"{path.relative_to(ROOT)}:{node.lineno}: {names}"
                seen += 1
    assert seen >= 10  # the scripts do use it


def test_scripts_do_not_reach_into_the_c_module():
    """bench/ and examples/ go through the public API or smemkit._testing, never smemkit._C's private names."""
    bad = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in _scripts()
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if re.search(r"\b_C\._\w|from smemkit import _C\b|import smemkit\._C", line)]
    assert not bad, "\n".join(bad)
