"""Every repository path the tree names exists: in code and its comments (csrc/, smemkit/, tests/, bench/,
examples/, .ci/, docs/, setup.py, pyproject.toml, MANIFEST.in), in every .md file, and in the comment
lines of the data files (.txt, .csv).  The lab notebook lives in comments and notes, and a file moved
without them leaves them pointing nowhere; this names each stale path and where it is named.

A path is a token that starts with one of the tree's top-level directories and a slash (csrc, smemkit,
tests, bench, examples, docs, .ci), not preceded by a path or word character (so URLs and paths of
other trees, like .../x/tests/y, are not taken).  It ends at a character no file name here uses;
a `path:line` suffix is allowed.  Tokens with a glob or a placeholder in them (* ? < > { } $) are
patterns, not paths, and are skipped.  A trailing dot or dash ends a sentence, not a name.  A path
after a commit and a colon (`50bd2ca:bench/retired.sh`, as `git show` takes it) names a file of the
history and is not checked: that is how the notes cite what was retired.

One test per area of the tree, so a failure says whose references went stale (csrc/ comments after a
bench/ or docs/ move, say); each lists every stale path and the file:line that names it.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = ("csrc", "smemkit", "tests", "bench", "examples", "docs", ".ci")
CODE = {".py", ".pyi", ".c", ".h", ".cu", ".cuh", ".cpp", ".hpp", ".sh", ".md", ".in", ".toml", ".ipynb", ".cfg"}
DATA = {".txt", ".csv"}  # scanned in their '#' comment lines only

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
_PATH = re.compile(r"(?<![\w./\\-])((?:%s)/[\w./*?<>{}$+-]*)" % "|".join(re.escape(t) for t in TOP))
_HISTORY = re.compile(r"\b[0-9a-f]{7,40}:$")  # REV:path, a file of the history
_PATTERN = set("*?<>{}$")


def scanned_files():
    """The files whose text is checked, repository-relative, sorted."""
    files = {ROOT / "setup.py", ROOT / "pyproject.toml", ROOT / "MANIFEST.in", ROOT / ".ci" / "run"}
    files |= set(ROOT.glob("*.md"))
    for top in TOP:
        for p in (ROOT / top).rglob("*"):
            if p.is_file() and (p.suffix in CODE or p.suffix in DATA) and "__pycache__" not in p.parts \
                    and ".ipynb_checkpoints" not in p.parts:
                files.add(p)
    return sorted(p for p in files if p.is_file())


def named_paths(text, data=False):
    """(line number, path) of every repository path named in text (data: '#' lines only)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if data and not line.lstrip().startswith("#"):
            continue
        line = _URL.sub(" ", line)
        for m in _PATH.finditer(line):
            tok = m.group(1)
            if _PATTERN & set(tok) or _HISTORY.search(line[:m.start()]):
                continue
            tok = tok.rstrip(".-")
            out.append((n, tok))
    return out


def exists(tok):
    return (ROOT / tok.rstrip("/")).exists()


def test_path_extraction():
    """The extraction itself, on the cases that matter (so an empty scan cannot pass for a clean one)."""
    text = "\n".join([
        "see csrc/layout.h:120 and bench/timing/bench_sgemm.py, or (docs/RESULTS.md).",
        "globs csrc/*.cu, bench/**, tests/data/bank_probe_<gpu>.csv and $OUT/tests/x are not paths",
        "https://github.com/NVIDIA/cutlass/tree/main/examples/cute and ../tests/c and x/docs/y neither",
        "`tests/c/test_bank_model.c` `.ci/run` tests/data/ smemkit/_C.pyi::sgemm",
        "retired: `50bd2ca:bench/sgemm_dev.sh`",
    ])
    assert named_paths(text) == [(1, "csrc/layout.h"), (1, "bench/timing/bench_sgemm.py"), (1, "docs/RESULTS.md"),
                                 (4, "tests/c/test_bank_model.c"), (4, ".ci/run"), (4, "tests/data/"),
                                 (4, "smemkit/_C.pyi")]
    gone = "bench" "/gone.py"  # spelled in two pieces, so this file names no missing path itself
    assert named_paths(f"4 ld 0 0  # {gone}\n# from {gone}.", data=True) == [(2, gone)]
    assert named_paths(f"see {gone}:12-14") == [(1, gone)] and not exists(gone)
    assert all(exists(p) for _, p in named_paths(text))


AREAS = ["csrc", "smemkit", "tests", "bench", "examples", "docs", "top"]  # top: *.md, setup.py, .ci/ ...


def area(rel):
    first = rel.split("/")[0]
    return first if first in AREAS else "top"


def test_the_scan_covers_the_tree():
    files = scanned_files()
    rels = {f.relative_to(ROOT).as_posix() for f in files}
    assert {"README.md", "csrc/layout.h", "docs/RESULTS.md", ".ci/run", "setup.py"} <= rels
    assert {area(r) for r in rels} == set(AREAS)
    assert sum(len(named_paths(f.read_text(errors="replace"))) for f in files) > 100  # the tree names its files


@pytest.mark.parametrize("where", AREAS)
def test_every_named_path_exists(where):
    stale = []
    for f in scanned_files():
        rel = f.relative_to(ROOT).as_posix()
        if area(rel) != where:
            continue
        for n, tok in named_paths(f.read_text(errors="replace"), data=f.suffix in DATA):
            if not exists(tok):
                stale.append(f"{tok}  <- {rel}:{n}")
    if stale:
        pytest.fail(f"{len(stale)} path(s) named in {where} do not exist (moved or renamed? fix the reference):\n  "
                    + "\n  ".join(stale), pytrace=False)
