"""Read a notebook and find its cells: what nbgrader marks as solution, grade (test) and locked cells."""

import contextlib
import hashlib
import io
import os
import sys
from pathlib import Path
from typing import Any

from autograder.sandbox.syntax import python_source

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
NO_RESPONSE = "No response."  # nbgrader's auto comment on an answer cell left as released


class NotebookError(Exception):
    """A notebook that cannot be read; the message names the file and the problem in one line."""


def read_notebook(path: Path) -> Any:
    """A notebook of any version as nbformat's v4 NotebookNode."""
    import nbformat  # its schema validator takes a tenth of a second to import

    try:
        return nbformat.read(str(path), as_version=4)
    except FileNotFoundError:
        raise NotebookError(f"{path}: no such notebook") from None
    except Exception as exc:  # nbformat raises many types for a broken file; all mean "unreadable"
        detail = " ".join(str(exc).split())[:160]
        raise NotebookError(f"{path}: not a readable notebook ({type(exc).__name__}: {detail})") from None


def nbgrader_meta(cell: Any) -> dict[str, Any]:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def grade_id(cell: Any) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


# nbgrader's cell predicates (nbgrader.utils) for plain dict cells, which grading uses: they return the
# metadata's value as nbgrader does, and read no further than the cell's metadata.
def exercise_label(grade_cell: str) -> str:
    """A grade cell's name as a student reads it: an exercise's cell is named after the test it runs
    (`test_sigmoid`), its exercise is `sigmoid`; a written answer's cell is its own name."""
    return grade_cell.removeprefix("test_")


def is_grade(cell: dict[str, Any]) -> Any:
    meta = cell.get("metadata", {})
    return "nbgrader" in meta and meta["nbgrader"].get("grade", False)


def is_solution(cell: dict[str, Any]) -> Any:
    meta = cell.get("metadata", {})
    return "nbgrader" in meta and meta["nbgrader"].get("solution", False)


def is_locked(cell: dict[str, Any]) -> Any:
    meta = cell.get("metadata", {})
    if "nbgrader" not in meta or is_solution(cell):
        return False
    return True if is_grade(cell) else meta["nbgrader"].get("locked", False)


def nbutils() -> Any:
    """`nbgrader.utils`, imported when first needed (importing it costs a tenth of a second)."""
    from nbgrader import utils

    return utils


def node(cell: dict[str, Any]) -> Any:
    """A plain cell as nbformat's NotebookNode, for nbgrader's helpers that read attributes
    (`cell.metadata.nbgrader`)."""
    from nbformat.notebooknode import from_dict

    return from_dict(cell)


def checksum(cell: dict[str, Any]) -> str:
    """nbgrader's checksum of a cell (nbgrader.utils.compute_checksum, which the gradebook stores), on a
    plain cell: the same bytes hashed in the same order."""
    meta = cell["metadata"]["nbgrader"]
    digest = hashlib.md5()
    digest.update(cell["source"].encode("utf-8"))
    digest.update(cell["cell_type"].encode("utf-8"))
    digest.update(str(is_grade(cell)).encode("utf-8"))
    digest.update(str(is_solution(cell)).encode("utf-8"))
    digest.update(str(is_locked(cell)).encode("utf-8"))
    digest.update(meta["grade_id"].encode("utf-8"))
    if is_grade(cell):
        digest.update(str(float(meta["points"])).encode("utf-8"))
    return digest.hexdigest()


def content_checksum(cells: list[dict[str, Any]]) -> str:
    """What grading reads of a notebook, hashed: each cell's type and source, in order (SHA-256). Outputs and
    metadata are left out: a notebook saved again, run again or re-collected has the same content checksum,
    and two notebooks with the same one get the same grading."""
    digest = hashlib.sha256()
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)  # nbformat's JSON splits lines
        for part in (str(cell.get("cell_type", "")), source):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(f"{len(data)}:".encode())
            digest.update(data)
    return digest.hexdigest()


def is_test_cell(cell: Any) -> bool:
    """An autograder test cell: graded, and not a place for the student's answer."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def split_hidden(source: str) -> tuple[str, str]:
    """A test cell's source as (what students see, what its hidden regions hold), in order."""
    parts: tuple[list[str], list[str]] = ([], [])
    hidden = False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == HIDDEN_BEGIN:
            hidden = True
        elif stripped == HIDDEN_END:
            hidden = False
        else:
            parts[hidden].append(line)
    return "\n".join(parts[0]), "\n".join(parts[1])


def visible_part(source: str) -> str:
    """A test cell's source without its hidden regions (what students see)."""
    return split_hidden(source)[0]


def hidden_part(source: str) -> str:
    return split_hidden(source)[1]


class _NoIPython:
    """Stands in for `get_ipython()` outside a kernel: magics and shell escapes do nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def load_namespace(path: Path, printed: dict[int, str] | None = None) -> dict[str, Any]:
    """Run a notebook's code cells, test cells excepted, and return the names they defined; `printed`, if
    given, receives what each cell printed, by cell index.

    Runs in this process (no sandbox): for instructors checking notebooks they trust. A cell that raises
    is skipped, as in a kernel, so later cells still define their functions.
    """
    notebook = read_notebook(path)
    namespace: dict[str, Any] = {"__name__": "__main__", "get_ipython": _NoIPython}
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        for index, cell in enumerate(notebook.cells):
            if cell.get("cell_type") != "code" or is_test_cell(cell):
                continue
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(python_source(cell.source), f"<{path.name} cell {index}>", "exec"), namespace)
            except Exception:
                continue
            finally:
                if printed is not None:
                    printed[index] = out.getvalue()
    finally:
        os.chdir(cwd)
        sys.path.remove(folder)
    return namespace
