"""Execute a notebook headless and store its outputs, with no Jupyter installed (the GPU machine has none).

    python bench/run_notebook.py examples/bank_conflicts.ipynb [OUT.ipynb]

Runs the code cells in order in one namespace, as a kernel does, and writes the notebook back (in place
unless OUT is given) as nbformat 4.5: every cell with an id, each code cell with its execution_count and
outputs -- stdout / stderr as stream outputs, each matplotlib figure shown (plt.show() or still open at
the end of the cell) as an image/png display, and the value of a cell's last expression as an
execute_result (text/plain, plus text/html when it has _repr_html_, as smemkit's Tables do).  The
notebook's metadata records where it ran (metadata.smemkit: device, smemkit version).  An exception
is stored as an error output, and the script exits 1.
"""
import ast
import base64
import io
import json
import re
import sys
import traceback
from pathlib import Path

ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # nbformat 4.5's cell id


def lines(text):
    """nbformat's multi-line string: a list of lines, each but the last ending in a newline."""
    return text.splitlines(keepends=True)


class Cell:
    """The outputs of one cell as it runs: stream text merged per stream, displays in order."""

    def __init__(self):
        self.outputs = []

    def write(self, name, text):
        if not text:
            return
        last = self.outputs[-1] if self.outputs else None
        if last and last["output_type"] == "stream" and last["name"] == name:
            last["_text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": name, "_text": text})

    def display(self, data, result_count=None):
        out = {"output_type": "display_data" if result_count is None else "execute_result", "data": data,
               "metadata": {}}
        if result_count is not None:
            out["execution_count"] = result_count
        self.outputs.append(out)

    def finish(self):
        for o in self.outputs:
            if o["output_type"] == "stream":
                o["text"] = lines(o.pop("_text"))
        return self.outputs


class Stream(io.TextIOBase):
    def __init__(self, cell, name):
        self.cell, self.name = cell, name

    def write(self, s):
        self.cell.write(self.name, s)
        return len(s)


def mime(value):
    data = {"text/plain": lines(repr(value))}
    html = getattr(value, "_repr_html_", None)
    if callable(html):
        h = html()
        if h:
            data["text/html"] = lines(h)
    return data


def run(path, out_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nb = json.loads(Path(path).read_text())
    ns = {"__name__": "__main__"}
    count = 0
    current = {"cell": None}

    def show_figures(*args, **kwargs):
        for num in plt.get_fignums():
            fig = plt.figure(num)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
            current["cell"].display({"image/png": base64.b64encode(buf.getvalue()).decode("ascii"),
                                     "text/plain": [repr(fig)]})
            plt.close(fig)

    plt.show = show_figures
    failed = False
    used = set()
    for i, cell in enumerate(nb["cells"]):
        cid = cell.get("id")
        if not (isinstance(cid, str) and ID_RE.match(cid)) or cid in used:
            cid = f"cell-{i:02d}"
        cell["id"] = cid
        used.add(cid)
        if cell["cell_type"] != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        if failed:
            cell["outputs"], cell["execution_count"] = [], None
            continue
        count += 1
        out = Cell()
        current["cell"] = out
        src = "".join(cell["source"])
        old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = Stream(out, "stdout"), Stream(out, "stderr")
        try:
            tree = ast.parse(src, filename=f"<cell {count}>")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, f"<cell {count}>", "exec"), ns)
            value = None
            if last is not None:
                value = eval(compile(ast.Expression(last.value), f"<cell {count}>", "eval"), ns)
            show_figures()  # the inline backend shows what the cell left open
            if value is not None:
                out.display(mime(value), result_count=count)
        except Exception as e:  # stored like a kernel's error output
            failed = True
            sys.stdout, sys.stderr = old
            out.outputs.append({"output_type": "error", "ename": type(e).__name__, "evalue": str(e),
                                "traceback": traceback.format_exception(type(e), e, e.__traceback__)})
            print(f"cell {count} raised {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            sys.stdout, sys.stderr = old
        cell["outputs"] = out.finish()
        cell["execution_count"] = count
    import smemkit
    device = smemkit.device_name() if smemkit.is_available() else None
    nb.setdefault("metadata", {})["smemkit"] = {"executed_on": device or "no GPU", "version": smemkit.__version__}
    nb["nbformat"], nb["nbformat_minor"] = 4, 5
    Path(out_path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.exit(run(sys.argv[1], sys.argv[-1]))
