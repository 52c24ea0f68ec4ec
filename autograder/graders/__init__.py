"""Hidden graders: one package per assignment, one pytest module per graded function, judged through the
`student` fixture.

An assignment's graders import as `autograder.graders.<assignment>` wherever they live: in this folder (this
repository's course), or in a course's own folder (`c.Autograder.graders` in its nbgrader_config.py), which
`use_folder` puts ahead of this one, so a course keeps its graders and installs the framework as a dependency.
"""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def use_folder(folder: Path | None) -> None:
    """Look for assignments' graders in `folder` first (None: only in this package). The same in every
    process that grades: the command's, its workers, the formgrader's and a notebook's kernel."""
    if folder is None:
        return
    path = str(Path(folder).resolve())
    if path != str(FOLDER) and path not in __path__:
        __path__.insert(0, path)
        import importlib

        importlib.invalidate_caches()


def module_name(assignment: str, module: str = "") -> str:
    """The import name of an assignment's graders package, or of one of its modules."""
    return f"{__name__}.{assignment}" + (f".{module}" if module else "")
