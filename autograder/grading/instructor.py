"""What the instructor's folder gives every job of an assignment: its `.py` modules (what `import` finds in
the sandbox), the code cells that are the instructor's text, and the modules its notebooks import."""

import ast
import json
from pathlib import Path

from autograder.course.settings import CourseSettings
from autograder.grading.model import SourceNotebook
from autograder.nbgrader_glue.notebook import visible_part
from autograder.sandbox.syntax import python_source


def instructor_modules(source: Path, ignore: list[str]) -> dict[str, str]:
    """The `.py` files beside the instructor's notebook (e.g. `selfcheck.py`): what `import` finds in the
    sandbox instead of any file of the same name in the submission."""
    modules = {}
    for path in sorted(source.glob("*.py")) if source.is_dir() else []:
        if path.is_file() and not path.is_symlink():
            modules[path.stem] = path.read_text()
    return modules


def instructor_files(settings: CourseSettings, sources: list[SourceNotebook], assignment: str
                     ) -> tuple[dict[str, str], list[str]]:
    """What the instructor's folder gives every job of an assignment: its `.py` modules and the modules its
    notebooks import. Also marks, in `sources`, the code cells that are the instructor's text (see
    `prepare.notebook_job`: such cells are compiled once, in the zygote)."""
    source_dir = settings.path("source", ".", assignment)
    modules = instructor_modules(source_dir, settings.coursedir.ignore)
    code = instructor_code(source_dir)
    for source in sources:
        source.instructor_code = set(code.get(source.name, []))
    return modules, instructor_imports(code, modules)


def instructor_code(source: Path) -> dict[str, list[str]]:
    """Each instructor notebook's code cells that are not solution cells, as written (visible and hidden
    parts): the text a submission's cell has when the student left it as released."""
    found: dict[str, list[str]] = {}
    for path in sorted(source.glob("*.ipynb")) if source.is_dir() else []:
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue
        texts = found.setdefault(path.stem, [])
        for cell in cells:
            if not (isinstance(cell, dict) and cell.get("cell_type") == "code"):
                continue
            if (cell.get("metadata") or {}).get("nbgrader", {}).get("solution"):
                continue
            text = cell.get("source", "")
            texts.append("".join(text) if isinstance(text, list) else str(text))
    return found


def instructor_imports(code: dict[str, list[str]], modules: dict[str, str]) -> list[str]:
    """The modules the instructor's notebooks import in what students see (not their own `.py` files): the
    sandbox's zygote imports them once so that no submission pays for, say, matplotlib's start. Never the
    hidden tests' imports, nor anything of this package: no grader code may enter the sandbox."""
    found: dict[str, None] = {}
    for text in (text for texts in code.values() for text in texts):
        try:
            tree = ast.parse(python_source(visible_part(text)))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(alias.name for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module] = None
    return [name for name in found if name.split(".")[0] not in (*modules, "autograder")]
