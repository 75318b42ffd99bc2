"""The house's shape, checked on the CPU from the sources (issue 25): the C files form a strict stack
(no #include circle, no circle of files calling each other's smk_* names), no csrc file is over 600
lines and no C function over 80.

The kernel files are being split by their own owners; the ones not yet in shape are listed in
PENDING and expected to fail their size checks until the coordinator empties the set."""
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
# Functions allowed past MAX_FUNCTION_LINES, each with the reason and its own cap.  Only where moving a part
# out into an inlined helper changed the SASS (measured with the SASS comparison of issue 25): nvcc optimises
# a __forceinline__ helper before inlining it, which can change a kernel's address arithmetic.
LONG_FUNCTIONS = {
    ("csrc/transpose/kernel.cuh", "transpose_kernel"): (
        105, "block setup and the odd-pitch paths as helpers changed the 1- and 2-byte kernels' SASS "
             "(up to 5 more registers); kernel.cuh's header comment says so"),
    ("csrc/transpose/skinny_flat.cuh", "skinny_flat_kernel"): (
        98, "session 50: its two cases as __forceinline__ helpers compiled to other code (-3..+4 registers, other "
            "PTX) than the build the GPU tests and Nsight Compute checked, with no device time left to check it "
            "again; split it in a session that can"),
}

# Files whose size rules are not met yet (their owners are restructuring them).  Empty it file by file.
PENDING: set[str] = set()


def sources(*patterns):
    return sorted(p for pat in patterns for p in CSRC.rglob(pat))


def rel(p):
    return p.relative_to(ROOT).as_posix()


ALL = sources("*.c", "*.h", "*.cu", "*.cuh")
CODE = sources("*.c", "*.cu")


def strip_c(text):
    """Comments, string and character literals and preprocessor lines blanked out, newlines kept."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#" or (at_line_start and c in " \t" and text[i:].lstrip(" \t").startswith("#")):
            j = i  # a directive, with its backslash continuations
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        at_line_start = c == "\n" or (at_line_start and c in " \t")
        i += 1
    return "".join(out)


TRANSPARENT = re.compile(r"(\bnamespace\b[\w\s:]*|\bextern\s*\"\"|\b(struct|class|union)\b[^=()]*)$")
NAME_BEFORE_PAREN = re.compile(r"([A-Za-z_]\w*)\s*(<[^<>]*>)?\s*$")


def functions(path):
    """[(name, first line, line count, is_static)] of the functions defined at file scope (and inside
    namespaces, extern "C" blocks and struct bodies).  A function runs from its header's first line
    to its closing brace."""
    text = strip_c(path.read_text())
    found, stack, last_end = [], [], 0  # stack entries: "transparent", "function", "other"
    for m in re.finditer(r"[{};]", text):
        ch, pos = m.group(), m.start()
        in_scope = all(s == "transparent" for s in stack)
        if ch == ";":
            if in_scope:
                last_end = pos + 1
            continue
        if ch == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function" and all(s == "transparent" for s in stack):
                name, start, static, _ = found[-1]
                found[-1] = (name, start, static, text.count("\n", 0, pos) + 1 - start + 1)
            if all(s == "transparent" for s in stack):
                last_end = pos + 1
            continue
        head = text[last_end:pos].strip()
        if not in_scope:
            stack.append("other")
        elif TRANSPARENT.search(head):
            stack.append("transparent")
            last_end = pos + 1
        elif head.endswith(")") or re.search(r"\)\s*(const|noexcept|override|->\s*[\w:<>, *&]+)\s*$", head):
            if "=" in head.split("(")[0]:
                stack.append("other")
                continue
            depth, k = 0, len(head) - 1  # the parenthesis that opens the parameter list
            while k >= 0:
                depth += head[k] == ")"
                depth -= head[k] == "("
                if head[k] == "(" and depth == 0:
                    break
                k -= 1
            pre = head[:k]
            while (mb := re.search(r"__launch_bounds__\s*\($", pre)) is not None:
                pre = pre[:mb.start()]
            nm = NAME_BEFORE_PAREN.search(pre)
            name = nm.group(1) if nm else "?"
            if name == "__launch_bounds__":
                name = "?"
            first = last_end + len(text[last_end:pos]) - len(text[last_end:pos].lstrip())
            found.append((name, text.count("\n", 0, first) + 1, "static" in pre.split(), 0))
            stack.append("function")
        else:
            stack.append("other")
    return [(name, start, count, static) for name, start, static, count in found]


def includes(path):
    """csrc files path includes with #include "..." (resolved beside it, then from csrc/)."""
    out = []
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(), re.M):
        for base in (path.parent, CSRC):
            f = (base / m.group(1)).resolve()
            if f.exists() and CSRC in f.parents:
                out.append(f)
                break
    return out


def find_cycle(graph):
    """One cycle of a {node: set(nodes)} graph as a list, or None."""
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state and (c := visit(v)):
                return c
        state[u] = 2
        stack.pop()
        return None

    for u in sorted(graph):
        if u not in state and (c := visit(u)):
            return c
    return None


def test_checker_finds_functions_and_cycles(tmp_path):
    f = tmp_path / "x.cu"
    f.write_text('#define M(x) do { x; } while (0)\nstatic const int t[] = {1, 2};\nnamespace a {\n'
                 'template <int N> __global__ void __launch_bounds__(N) k(int *p)\n{\n    if (p) { *p = 1; }\n}\n'
                 'struct S { int f() const { return 1; } };\n}\nextern "C" int smk_x(void)\n{\n'
                 '    const char *s = "{";\n    return 0;\n}\n')
    fs = {name: (start, count) for name, start, count, _ in functions(f)}
    assert fs == {"k": (4, 4), "f": (8, 1), "smk_x": (10, 5)}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_include_graph_has_no_cycle():
    graph = {rel(p): {rel(q) for q in includes(p)} for p in ALL}
    cycle = find_cycle(graph)
    assert cycle is None, f"#include circle among csrc files: {' -> '.join(cycle)}"


# A variable defined at file scope (this house writes those from column 0; bodies are indented).
DEFINED_VAR = re.compile(r"^(?!(static|extern|typedef)\b)[A-Za-z_][^\n;(){}]*?\b(smk_\w+)\s*(\[[^\]\n]*\])?\s*=", re.M)


def test_files_do_not_call_each_other_in_a_circle():
    """File A -> file B when A uses an smk_* name (function or variable) that B defines; the files
    must form a stack (headers only declare, so they are not nodes)."""
    defined = {}
    texts = {p: strip_c(p.read_text()) for p in CODE}
    for p, text in texts.items():
        for name, _, _, _ in functions(p):
            if name.startswith("smk_"):
                defined.setdefault(name, rel(p))
        for m in DEFINED_VAR.finditer(text):
            defined.setdefault(m.group(2), rel(p))
    graph = defaultdict(set)
    for p, text in texts.items():
        for name in set(re.findall(r"\bsmk_\w+", text)):
            owner = defined.get(name)
            if owner and owner != rel(p):
                graph[rel(p)].add(owner)
    cycle = find_cycle(graph)
    assert cycle is None, f"csrc files use each other's names in a circle: {' -> '.join(cycle)}"


def pending(path):
    return pytest.mark.xfail(reason="pending restructuring by its owner", strict=False) if path in PENDING else ()


@pytest.mark.parametrize("path", [pytest.param(rel(p), marks=pending(rel(p))) for p in ALL])
def test_file_length(path):
    n = (ROOT / path).read_text().count("\n")
    assert n <= MAX_FILE_LINES, f"{path} has {n} lines (at most {MAX_FILE_LINES}): split it by what it owns"


@pytest.mark.parametrize("path", [pytest.param(rel(p), marks=pending(rel(p))) for p in sources("*.c", "*.cu", "*.cuh")])
def test_function_length(path):
    long = [f"{name} (line {start}, {count} lines)" for name, start, count, _ in functions(ROOT / path)
            if count > LONG_FUNCTIONS.get((path, name), (MAX_FUNCTION_LINES,))[0]]
    assert not long, f"{path}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"
