"""Submission folders built as a hostile student would build them, graded beside an honest and a blank
student by the real `autograder grade`: each costs only its own student, with a one-line reason; the run
exits 0, the others' scores are exact, and the instructor's files are untouched."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.grading_course import ASSIGNMENT, grade, honest_and_blank, make_course, result, scores, tree_digest

FULL = 46.0
NOTEBOOK = f"{ASSIGNMENT}.ipynb"


def _honest_copy(course: Path, student: str) -> Path:
    folder = course / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    shutil.copy(course / "submitted" / "honest" / ASSIGNMENT / NOTEBOOK, folder / NOTEBOOK)
    return folder


def _edit_notebook(folder: Path, edit) -> None:
    path = folder / NOTEBOOK
    nb = json.loads(path.read_text())
    edit(nb)
    path.write_text(json.dumps(nb))


def _cells(nb, grade_id=None, cell_type=None):
    def wanted(cell) -> bool:
        return ((grade_id is None or cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
                and (cell_type is None or cell["cell_type"] == cell_type))
    return [cell for cell in nb["cells"] if wanted(cell)]


def _timestamp(text: str):
    return lambda folder: (folder / "timestamp.txt").write_text(text)


def _deep(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(2000):  # deeper than PATH_MAX and Python's recursion limit
            os.mkdir("d", dir_fd=fd)
            new = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        with open(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as handle:
            handle.write("x")
    finally:
        os.close(fd)


def _claims(nb) -> None:
    """Metadata claims the gradebook contradicts: a locked cell claiming to be graded without points, an
    unknown id with points that are not a number, a bare `grade: true`, a list as an id, a markdown cell
    claiming a test's id."""
    _cells(nb, "imports")[0]["metadata"]["nbgrader"].update(grade=True, points="lots")
    plain = [c for c in nb["cells"] if c["cell_type"] == "code" and "nbgrader" not in c["metadata"]]
    plain[0]["metadata"]["nbgrader"] = {"grade": True, "grade_id": "mine", "points": "NaN", "solution": False}
    plain[1]["metadata"]["nbgrader"] = {"grade": True}
    plain[2]["metadata"]["nbgrader"] = {"grade": True, "grade_id": ["x"], "points": None}
    _cells(nb, cell_type="markdown")[0]["metadata"]["nbgrader"] = "not a dict"


def _surrogates(nb) -> None:
    _cells(nb, cell_type="markdown")[0]["source"] = "lone \ud800 surrogate"
    _cells(nb, cell_type="markdown")[1]["metadata"]["k\udfff"] = "v\ud83d"


def _nbformat3(folder: Path) -> None:
    import nbformat

    path = folder / NOTEBOOK
    nbformat.write(nbformat.convert(nbformat.read(str(path), as_version=4), 3), str(path))


# student -> (how the folder is made from the honest answer, or None for a folder made by hand;
#             the expected total, or None when the student is not graded; a text the summary must show)
HOSTILE = {
    # A timestamp.txt that is no usable time: not graded at all (never as on time), one line naming the file.
    "ts-not-a-date": (_timestamp("not a date"), None, "is not a date"),
    "ts-empty": (_timestamp(" \n"), None, "timestamp.txt: empty"),
    "ts-calendar-end": (_timestamp("9999-12-31 23:59:59 -1400"), None, "is not a date"),
    "ts-year-one": (_timestamp("0001-01-01 00:00:00 +1400"), None, "is not a date"),
    "ts-binary": (lambda f: (f / "timestamp.txt").write_bytes(b"\xff\xfe\x00"), None, "not UTF-8"),
    "ts-huge": (lambda f: (f / "timestamp.txt").write_text("2025-01-01 " * 10000), None, "larger than"),
    "ts-folder": (lambda f: (f / "timestamp.txt").mkdir(), None, "not a regular file"),
    "ts-fifo": (lambda f: os.mkfifo(f / "timestamp.txt"), None, "not a regular file"),
    "ts-dev-zero": (lambda f: os.symlink("/dev/zero", f / "timestamp.txt"), None, "a link"),
    "writes-our-names": (lambda f: [(f / n / "x").mkdir(parents=True) or (f / n / "x" / "y").write_text("y")
                                    for n in ("autograder-result.json", "selfcheck.py")], FULL,
                         "has the name of a file the grader writes"),
    "deep-folder": (_deep, FULL, "nested deeper than"),
    "sparse-4gb": (lambda f: os.truncate(os.open(f / "big.bin", os.O_CREAT | os.O_WRONLY), 4 << 30), FULL,
                   "larger than"),
    "many-files": (lambda f: [(f / f"n{i}.txt").write_text("x") for i in range(400)], FULL, "more than"),
    "fifo-and-links": (lambda f: [os.mkfifo(f / "pipe"), os.symlink("/dev/zero", f / "zero"),
                                  os.symlink("../../../gradebook.db", f / "gb.db"),
                                  os.symlink("../../../source", f / "src")], FULL, "a link"),
    "metadata-claims": (lambda f: _edit_notebook(f, _claims), FULL, None),
    "lone-surrogates": (lambda f: _edit_notebook(f, _surrogates), FULL, None),
    "nbformat-3": (_nbformat3, FULL, None),
    "not-utf8-notebook": (lambda f: (f / NOTEBOOK).write_bytes((f / NOTEBOOK).read_bytes().replace(
        b"numpy", b"n\xe9mpy", 1)), 0.0, "not UTF-8"),
    "notebook-is-fifo": (lambda f: ((f / NOTEBOOK).unlink(), os.mkfifo(f / NOTEBOOK)), 0.0, "not a regular file"),
    "notebook-deep-json": (lambda f: (f / NOTEBOOK).write_text("[" * 100000 + "]" * 100000), 0.0, "unreadable"),
}
# Folders that must not be graded at all: not a plain id, or a link on the way.
REFUSED = {
    b"ev\xffil": "not a valid student id",
    b"ev\x1b[2Jil": "not a valid student id",
    b"-rf": "not a valid student id",
    b"=cmd": "not a valid student id",
    b"link-to-honest": "is a link",
    b"link-to-source": "is a link",
    b"link-to-root": "is a link",
}


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("hostile"))
    honest_and_blank(course)
    for student, (make, _, _) in HOSTILE.items():
        make(_honest_copy(course, student))
    submitted = os.fsencode(course / "submitted")
    for name in REFUSED:
        path = os.path.join(submitted, name)
        if name == b"link-to-honest":
            os.symlink(b"honest", path)
        elif name == b"link-to-source":
            os.mkdir(path)
            os.symlink(os.fsencode(course / "source" / ASSIGNMENT), os.path.join(path, ASSIGNMENT.encode()))
        elif name == b"link-to-root":
            os.mkdir(path)
            os.symlink(b"../..", os.path.join(path, ASSIGNMENT.encode()))
        else:
            os.makedirs(os.path.join(path, ASSIGNMENT.encode()))
            shutil.copy(course / "submitted" / "honest" / ASSIGNMENT / NOTEBOOK,
                        os.path.join(path, ASSIGNMENT.encode(), NOTEBOOK.encode()))
    before = {name: tree_digest(course / name) for name in ("source", "release")}
    first = grade(course, timeout=300)
    second = grade(course, timeout=300)  # nothing new: the bad timestamps are refused again
    yield course, first, second, before
    # Deeper than shutil.rmtree's recursion can go (pytest's clean-up of old folders would choke on it).
    subprocess.run(["rm", "-rf", str(course / "submitted" / "deep-folder")], check=True)


def test_the_run_goes_on(hostile_class):
    course, first, second, before = hostile_class
    assert first.returncode == 0, first.stderr[-3000:]
    assert "Traceback" not in first.stderr + first.stdout
    assert second.returncode == 0, second.stderr[-3000:]
    got = scores(course)
    assert sum(got["honest"].values()) == FULL
    assert sum(got["blank"].values()) == 0.0
    assert {name: tree_digest(course / name) for name in ("source", "release")} == before
    graded = [student for student, (_, total, _) in HOSTILE.items() if total is not None]
    assert sorted(p.name for p in (course / "autograded").iterdir()) == sorted(["honest", "blank", *graded])
    assert sum("no usable submission time" in line for line in second.stdout.splitlines()) == len(HOSTILE) - len(graded)
    assert not (course / "autograded" / "honest" / ASSIGNMENT / "gradebook.db").exists()


@pytest.mark.parametrize("student", list(HOSTILE))
def test_each_hostile_folder_costs_its_own_student_only(hostile_class, student):
    course, first, _, _ = hostile_class
    _, total, said = HOSTILE[student]
    if total is None:  # refused: nothing graded, nothing written, one line naming the student and the file
        assert student not in scores(course) and not (course / "autograded" / student).exists()
        line = next(line for line in first.stdout.splitlines() if line.strip().startswith(f"not graded: {student}:"))
        assert said in line and f"submitted/{student}/{ASSIGNMENT}/timestamp.txt" in line
        return
    assert sum(scores(course)[student].values()) == total
    if said:
        line = next(line for line in first.stdout.splitlines() if line.strip().startswith(f"{student}:"))
        assert said in line
    autograded = course / "autograded" / student / ASSIGNMENT
    kept = [p for p in autograded.rglob("*")]
    assert all(not p.is_symlink() and (p.is_dir() or p.is_file()) for p in kept)
    assert sum(p.stat().st_blocks * 512 for p in kept if p.is_file()) < 64 * 2**20
    assert (autograded / "autograder-result.json").is_file()
    if total:
        json.loads((autograded / NOTEBOOK).read_text())
    if said and total:
        assert any(said in line for line in result(course, student)["ignored"])


@pytest.mark.parametrize("name", list(REFUSED))
def test_folders_that_are_not_a_students_own_are_refused(hostile_class, name):
    course, first, _, _ = hostile_class
    assert not os.path.lexists(os.path.join(os.fsencode(course / "autograded"), name))
    shown = ascii(os.fsdecode(name))[1:-1]
    line = next(line for line in first.stdout.splitlines() if shown in line)
    assert REFUSED[name] in line and "\x1b" not in line


def test_student_ids_on_the_command_line_are_plain_names(hostile_class):
    course, _, _, before = hostile_class
    for bad in ("../source", "..", "/etc", "a/b", "x\x1b[2J"):
        run = grade(course, "--student", bad, "--force")
        assert run.returncode == 1
        assert run.stderr.strip().count("\n") == 0 and "not a valid student id" in run.stderr
        assert "Traceback" not in run.stderr
    assert {name: tree_digest(course / name) for name in ("source", "release")} == before
