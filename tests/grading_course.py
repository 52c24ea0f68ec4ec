"""A scratch course graded by the real `autograder grade` command, for the engine and attack tests."""

import atexit
import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import nbformat

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission
from autograder.devtools.repo import new_course
from autograder.migrations import upgrade
from autograder.nbgrader_glue.notebook import grade_id

ASSIGNMENT = "hidden_state_activation"
CLI = str(Path(sys.executable).parent / "autograder")


def make_course(root: Path, extra_config: str = "", assignment: str = ASSIGNMENT) -> Path:
    """A course with `assignment` released by `nbgrader generate_assignment` and `extra_config` added to its
    nbgrader_config.py. The release is made once per test run (`share_releases`; else once per process) and
    copied: generating it costs nbgrader about 5 CPU-seconds (its gradebook's `alembic heads` alone a third of
    that), which some 40 courses of the suite would each pay. A course whose gradebook lives on a server
    (`db_url`) is generated on its own."""
    if "db_url" in extra_config:
        course = new_course(root, (assignment,))
        _add_config(course, extra_config)
        nbgrader(course, "generate_assignment", assignment, "--force")
        return course
    shutil.copytree(_released(assignment), root, dirs_exist_ok=True)
    _add_config(root, extra_config)
    return root


def exchange_course(prefix: str, course_id: str, extra_config: str = "") -> tuple[Path, Path]:
    """A course (`make_course`) with `course_id` and an exchange of its own, in a fresh scratch folder outside
    pytest's 0700 folders, which students, as other OS users, must pass through: (scratch, course folder)."""
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(scratch, 0o755)
    config = f'c.Exchange.root = "{scratch / "exchange"}"\nc.CourseDirectory.course_id = "{course_id}"'
    return scratch, make_course(scratch / "course", config + (f"\n{extra_config}" if extra_config else ""))


def _add_config(course: Path, extra_config: str) -> None:
    if extra_config:
        with open(course / "nbgrader_config.py", "a") as config:
            config.write("\n" + extra_config + "\n")


_releasing = threading.Lock()  # the graded class's shards ask for the same release from several threads
_shared: Path | None = None  # where every process of this test run finds the releases (`share_releases`)


def share_releases(folder: Path) -> None:
    """Keep the releases in `folder`, which every worker process of the test run sees: the first to need one
    makes it, the others wait for it (pytest-xdist runs the suite's files in several processes)."""
    global _shared
    _shared = folder


@functools.cache
def _released_once(assignment: str) -> Path:
    if _shared is None:
        scratch = Path(tempfile.mkdtemp(prefix=f"released-{assignment}-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        return _release(scratch / "course", assignment)
    made = _shared / f"released-{assignment}"
    with open(_shared / f"released-{assignment}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, by this process or its exit
        if not made.is_dir():
            building = Path(tempfile.mkdtemp(dir=_shared))
            _release(building / "course", assignment)
            os.rename(building, made)  # whole: a process that died half way left only its `building` folder
    return made / "course"


def _release(folder: Path, assignment: str) -> Path:
    course = new_course(folder, (assignment,))
    nbgrader(course, "generate_assignment", assignment, "--force")
    # Our tables at the newest revision, as in any course graded once: each copy would otherwise pay for the
    # migrations on its first command (tests/test_migrations.py is where those are tested).
    upgrade(f"sqlite:///{course / 'gradebook.db'}")
    return course


def _released(assignment: str) -> Path:
    with _releasing:
        return _released_once(assignment)


def submit(course: Path, student: str, answers=(), *, assignment: str = ASSIGNMENT, blank: bool = False,
           selfcheck: bool = False, edit=None, files: dict[str, str] | None = None) -> Path:
    """The reference solution with `answers` swapped in (the release as it came, if `blank`); `edit(notebook)`
    changes it further; `selfcheck`: with the release's selfcheck.py beside it, as a student's folder has."""
    folder = course / "submitted" / student / assignment
    path = write_submission(assignment, folder, list(answers), blank=blank, release=course / "release" / assignment)
    if selfcheck:
        shutil.copy(course / "release" / assignment / "selfcheck.py", folder)
    if edit:
        nb = nbformat.read(str(path), as_version=4)
        edit(nb)
        nbformat.write(nb, str(path))
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return path


def honest_and_blank(course: Path) -> None:
    """The two students beside every hostile one: the reference solution, and the release as it came."""
    submit(course, "honest")
    blank = course / "submitted" / "blank" / ASSIGNMENT
    blank.mkdir(parents=True)
    shutil.copy(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", blank)


def tree_digest(folder: Path) -> str:
    """Names and contents of everything under `folder`: equal digests, byte-identical trees."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def add_cell(source: str, after: str | None = None):
    """An edit that inserts a code cell (after the cell with grade_id `after`, or first)."""
    def edit(nb):
        index = 0
        if after:
            index = next(i for i, c in enumerate(nb.cells) if grade_id(c) == after) + 1
        nb.cells.insert(index, nbformat.v4.new_code_cell(source))
    return edit


def grade(course: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600,
          preexec_fn=None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   **(env or {})}
    return subprocess.run([CLI, "grade", ASSIGNMENT, *args], cwd=course, env=environment, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=preexec_fn)


def scores(course: Path, assignment: str = ASSIGNMENT) -> dict[str, dict[str, float]]:
    """Each student's score per grade cell, from the course's gradebook (wherever its settings put it)."""
    from autograder.course.settings import read_course

    return gradebook_scores(read_course(course).db_url, assignment)


def gradebook_scores(db_url: str, assignment: str) -> dict[str, dict[str, float]]:
    """Each student's score per autograded cell of `assignment`, as nbgrader's own API reads the gradebook: the one
    query every test of scores uses. A written answer (a markdown grade cell, graded by hand) is left out: no
    grading run scores it, and its 0 before anyone grades it is no score (`manual_scores` reads those)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return {s.student_id: {g.name: g.score for nb in s.notebooks for g in nb.grades if g.cell.cell_type == "code"}
                for s in gb.assignment_submissions(assignment)}


def manual_scores(db_url: str, assignment: str) -> dict[str, dict[str, tuple[float | None, bool]]]:
    """Each student's written answers (markdown grade cells) of `assignment`: (manual score, needs_manual_grade)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return {s.student_id: {g.name: (g.manual_score, bool(g.needs_manual_grade)) for nb in s.notebooks
                               for g in nb.grades if g.cell.cell_type == "markdown"}
                for s in gb.assignment_submissions(assignment)}


def result(course: Path, student: str) -> dict:
    return json.loads((course / "autograded" / student / ASSIGNMENT / "autograder-result.json").read_text())


def outputs_text(course: Path, student: str) -> str:
    nb = json.loads((course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts += [out.get("text", ""), out.get("data", {}).get("text/plain", ""), out.get("evalue", "")]
    return "\n".join(parts)
