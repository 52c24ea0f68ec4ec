"""An instructor's own course, outside this repository, with the framework installed: an assignment made by
`autograder new`, filled in, checked, released and graded by both paths (and on a Dask cluster, whose worker
gets the course's graders with the plugin), without a file of the package changed; and its graders run
under plain pytest with their hints in words."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import distributed
import nbformat
import pytest

from autograder.devtools.repo import ROOT
from autograder.nbgrader_glue.notebook import grade_id, is_solution, is_test_cell
from tests.grading_course import gradebook_scores
from tests.test_feedback import HIDDEN_MARKERS, as_text

CLI = str(Path(sys.executable).parent / "autograder")
UV = str(Path(sys.executable).parent / "uv")
ASSIGNMENT = "tanh_step"
HINT = "tanh_step_sigmoid"
HINT_TEXT = "this is the sigmoid, 1 / (1 + e^-x): tanh(x) = (e^x - e^-x) / (e^x + e^-x) has values in (-1, 1)."
BOUNDED = '''

@pytest.mark.points(1)
def test_bounded(student):
    x = np.array([[-1000.0, 0.0, 1000.0]])
    check_array(student.tanh_step(x.copy()), ref.tanh_step(x), what="tanh_step(x of large values)",
                mistakes=mistakes(x))
'''


def package_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "autograder").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(args, cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert not check or done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} lacks {old!r}"
    path.write_text(text.replace(old, new))


def answered(notebook: Path, folder: Path, body: str) -> Path:
    """A copy of `notebook` in `folder` whose answer to tanh_step is `return <body>`."""
    folder.mkdir(parents=True)
    answer = nbformat.read(str(notebook), as_version=4)
    for cell in answer.cells:
        if is_solution(cell):
            cell.source = f"def tanh_step(x):\n    return {body}"
    nbformat.write(answer, str(folder / notebook.name))
    return folder / notebook.name


def submit(course: Path, student: str, body: str) -> None:
    folder = course / "submitted" / student / ASSIGNMENT
    answered(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder, body)
    shutil.copy(course / "release" / ASSIGNMENT / "selfcheck.py", folder)


def authored_course(tmp_path: Path) -> Path:
    """A course outside this repository with the docs' minimal config and tanh_step made by `autograder
    new`, then filled in: the solution, the reference, a mistake, its hint, the self-check, one more check."""
    course = tmp_path / "my-course"
    course.mkdir()
    assert not course.resolve().is_relative_to(ROOT)
    (course / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "my-course"\n')

    made = run(course, CLI, "new", ASSIGNMENT, "tanh_step")
    assert "wrote graders/tanh_step/test_tanh_step.py" in made.stdout
    assert 'c.Autograder.graders = "graders"' in (course / "nbgrader_config.py").read_text()

    graders = course / "graders" / ASSIGNMENT
    source = course / "source" / ASSIGNMENT
    edit(source / f"{ASSIGNMENT}.ipynb", "result = 2 * np.asarray(x)", "result = np.tanh(np.asarray(x))")
    edit(graders / "reference.py", "return 2 * np.asarray(x)", "return np.tanh(np.asarray(x))")
    edit(graders / "reference.py", '"tanh_step_halved": lambda x: np.asarray(x) / 2',
         f'"{HINT}": lambda x: 1 / (1 + np.exp(-np.asarray(x)))')
    (graders / "hints.py").write_text(f"HINTS = {{{HINT!r}: {HINT_TEXT!r}}}\n")
    edit(source / "selfcheck.py", "expected = np.array([[2.0], [4.0]])", "expected = np.tanh(x)")
    with (graders / "test_tanh_step.py").open("a") as grader:
        grader.write(BOUNDED)
    return course


def test_an_instructor_adds_an_assignment_in_a_course_of_their_own(tmp_path):
    before = package_digest()
    course = authored_course(tmp_path)
    source = course / "source" / ASSIGNMENT

    stale = run(course, CLI, "check", ASSIGNMENT, check=False)
    assert stale.returncode == 1
    assert "test_tanh_step is worth 3.0 points but its graders add up to 4" in stale.stdout
    notebook = nbformat.read(str(source / f"{ASSIGNMENT}.ipynb"), as_version=4)
    next(c for c in notebook.cells if is_test_cell(c)).metadata["nbgrader"]["points"] = 4.0
    nbformat.write(notebook, str(source / f"{ASSIGNMENT}.ipynb"))

    run(course, CLI, "release")
    checked = run(course, CLI, "check")
    assert "FAIL" not in checked.stdout and "release/tanh_step is what nbgrader generates" in checked.stdout

    submit(course, "right", "np.tanh(x)")
    submit(course, "wrong", "1 / (1 + np.exp(-x))")
    engine, on_cluster = tmp_path / "engine", tmp_path / "on-cluster"
    shutil.copytree(course, engine)
    shutil.copytree(course, on_cluster)

    run(course, "nbgrader", "autograde", ASSIGNMENT)
    run(engine, CLI, "grade", ASSIGNMENT)
    # The course's graders reach a Dask worker with the plugin, not through the course's folder.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        run(on_cluster, CLI, "grade", ASSIGNMENT, "--cluster", cluster.scheduler_address)
    by_nbgrader = gradebook_scores(f"sqlite:///{course / 'gradebook.db'}", ASSIGNMENT)
    expected = {"right": {"test_tanh_step": 4.0}, "wrong": {"test_tanh_step": 0.0}}
    assert by_nbgrader == expected
    for graded in (engine, on_cluster):
        assert gradebook_scores(f"sqlite:///{graded / 'gradebook.db'}", ASSIGNMENT) == expected, graded.name

    for graded in (course, engine, on_cluster):
        autograded = nbformat.read(str(graded / "autograded" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"),
                                   as_version=4)
        cell = next(c for c in autograded.cells if grade_id(c) == "test_tanh_step")
        text = json.dumps(cell.outputs)
        assert f"hint [{HINT}]" in text and HINT_TEXT.split(":")[0] in text, text[:2000]

    assert package_digest() == before, "a file of the framework changed"


# A course of another instructor's, with a venv of its own made as the docs say, in two places: under /tmp
# (which the sandbox replaces with each submission's own scratch folder), and inside a course in the home
# folder (which the sandbox hides).
PLACES = ("tmp", "home")
SOFTMAX = "softmax_rows"
SOFTMAX_RIGHT = ("import matplotlib.pyplot as plt\n\ndef softmax_rows(x):\n"
                 "    z = np.exp(x - np.max(x, axis=1, keepdims=True))\n    return z / z.sum(axis=1, keepdims=True)\n")
PEEK = ("import glob, os\nfound = [p for p in glob.glob('{course}/**', recursive=True)\n"
        "         if os.path.isfile(p) and '/.venv/' not in p]\n"
        "print('PEEKED', found)\n\ndef softmax_rows(x):\n    return np.asarray(x)\n")


@pytest.fixture(scope="module")
def own_courses(tmp_path_factory):
    home = Path(tempfile.mkdtemp(prefix="autograder-test-", dir=Path.home()))
    where = {"tmp": (tmp_path_factory.mktemp("outside") / "venv", tmp_path_factory.mktemp("outside") / "course"),
             "home": (home / "course" / ".venv", home / "course")}
    try:
        for venv, course in where.values():
            course.mkdir(parents=True, exist_ok=True)
            # Without pip, which nothing here runs: ensurepip's own install of it is 6 CPU-seconds a venv.
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
            # The wheels `pip install -e` would install, by uv as `make install` does ours (the Makefile says
            # why), and without rfc3987-syntax as it leaves ours. Compiled as pip's install compiles them, by
            # linking our venv's bytecode (`share_bytecode`); whatever else the course's commands import, they
            # compile once and keep, as in an instructor's shell (`in_venv`).
            for step in (["install", "-e", str(ROOT)], ["uninstall", "rfc3987-syntax"]):
                done = subprocess.run([UV, "pip", *step, "-q", "--python", str(venv / "bin" / "python")],
                                      capture_output=True, text=True, timeout=900)
                assert done.returncode == 0, done.stderr[-3000:]
            share_bytecode(venv)
        yield where
    finally:
        shutil.rmtree(home, ignore_errors=True)


def share_bytecode(venv: Path) -> None:
    """Our venv's compiled modules (`make install` compiles them) linked into `venv`'s site-packages, where uv
    linked the same files from its cache: a .pyc is checked against its source's modification time and size
    only, so these are the bytecode the course's venv would compile itself (about 4 CPU-seconds for what its
    first commands import). A file whose source differs is compiled again, as it would be anyway."""
    ours = Path(sysconfig.get_path("purelib"))
    theirs = venv / ours.relative_to(sys.prefix)
    for cache in ours.rglob("__pycache__"):
        target = theirs / cache.relative_to(ours)
        if target.parent.is_dir() and not target.exists():
            shutil.copytree(cache, target, copy_function=_link_or_copy)


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:  # another file system
        shutil.copy2(source, destination)


def in_venv(venv: Path, course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # this suite's environment sets it; an instructor's shell does not
    done = subprocess.run(args, cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert not check or done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


NO_SHIFT = "softmax_rows_no_shift"
NO_SHIFT_TEXT = "exp overflows on large inputs: subtract each row's maximum before exp (softmax is unchanged by it)."
LARGE = '''

@pytest.mark.points(1)
def test_large_values(student):
    x = np.array([[1000.0, 0.0, -1000.0], [3.0, 1.0, 2.0]])
    check_array(student.softmax_rows(x.copy()), ref.softmax_rows(x), what="softmax_rows(x of large values)",
                mistakes=mistakes(x))
'''


@pytest.mark.parametrize("place", PLACES)
def test_a_course_with_its_own_venv_grades_right_answers_and_hides_its_graders(own_courses, place):
    """The docs' minimal config and `autograder new`; a named mistake that makes the answer nan."""
    venv, course = own_courses[place]
    (course / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "my-course"\n'
                                               'c.Autograder.graders = "graders"\n')
    in_venv(venv, course, "autograder", "new", SOFTMAX, SOFTMAX)
    graders, source = course / "graders" / SOFTMAX, course / "source" / SOFTMAX
    edit(source / f"{SOFTMAX}.ipynb", "result = 2 * np.asarray(x)",
         "result = np.exp(x - np.max(x, axis=1, keepdims=True)); result = result / result.sum(axis=1, keepdims=True)")
    edit(graders / "reference.py", "return 2 * np.asarray(x)",
         "z = np.exp(x - np.max(x, axis=1, keepdims=True))\n    return z / z.sum(axis=1, keepdims=True)")
    edit(graders / "reference.py", f'"{SOFTMAX}_halved": lambda x: np.asarray(x) / 2,',
         f'"{NO_SHIFT}": lambda x: np.exp(x) / np.exp(x).sum(axis=1, keepdims=True),')
    (graders / "hints.py").write_text(f"HINTS = {{{NO_SHIFT!r}: {NO_SHIFT_TEXT!r}}}\n")
    with (graders / f"test_{SOFTMAX}.py").open("a") as grader:
        grader.write(LARGE)
    edit(source / "selfcheck.py", "expected = np.array([[2.0], [4.0]])", "expected = np.ones((2, 1))")
    notebook = nbformat.read(str(source / f"{SOFTMAX}.ipynb"), as_version=4)
    next(c for c in notebook.cells if is_test_cell(c)).metadata["nbgrader"]["points"] = 4.0
    nbformat.write(notebook, str(source / f"{SOFTMAX}.ipynb"))
    in_venv(venv, course, "autograder", "release")
    checked = in_venv(venv, course, "autograder", "check").stdout
    assert "FAIL" not in checked and "course: ok   sandbox: full isolation" in checked, checked
    release = course / "release" / SOFTMAX
    no_shift = ("def softmax_rows(x):\n    return np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)\n")
    for student, answer in (("right", SOFTMAX_RIGHT), ("peek", PEEK.format(course=course)), ("noshift", no_shift)):
        folder = course / "submitted" / student / SOFTMAX
        folder.mkdir(parents=True)
        notebook = nbformat.read(str(release / f"{SOFTMAX}.ipynb"), as_version=4)
        next(c for c in notebook.cells if is_solution(c)).source = answer
        nbformat.write(notebook, str(folder / f"{SOFTMAX}.ipynb"))
        shutil.copy(release / "selfcheck.py", folder)
    by_nbgrader = course.parent / f"{course.name}-nbgrader"
    shutil.copytree(course, by_nbgrader, ignore=shutil.ignore_patterns(".venv"))
    try:
        graded = in_venv(venv, course, "autograder", "grade", SOFTMAX)
        assert "sandbox: full isolation, all protections on" in graded.stdout
        in_venv(venv, by_nbgrader, "nbgrader", "autograde", SOFTMAX)
        for folder in (course, by_nbgrader):
            got = gradebook_scores(f"sqlite:///{folder / 'gradebook.db'}", SOFTMAX)
            assert got["right"] == {f"test_{SOFTMAX}": 4.0}, (folder.name, got)
            assert got["noshift"] == {f"test_{SOFTMAX}": 3.0}, (folder.name, got)
            in_venv(venv, folder, "nbgrader", "generate_feedback", SOFTMAX)
            page = (folder / "feedback" / "noshift" / SOFTMAX / f"{SOFTMAX}.html").read_text()
            shown = as_text(page)
            assert not [m for m in (*HIDDEN_MARKERS[:-3], "grade(", "Traceback") if m in shown], shown[-3000:]
            assert f"hint [{NO_SHIFT}]" in shown and NO_SHIFT_TEXT.split(":")[0] in shown, shown[-4000:]
        peeked = (course / "autograded" / "peek" / SOFTMAX / f"{SOFTMAX}.ipynb").read_text()
        assert "PEEKED []" in peeked, peeked[:3000]
    finally:
        shutil.rmtree(by_nbgrader, ignore_errors=True)


def test_plain_pytest_runs_the_course_graders_with_their_hints_in_words(tmp_path):
    """"Running the hidden graders yourself" in a course of one's own: the framework's pytest plugin (an
    entry point) gives `--notebook` and the `student` fixture; no conftest.py in the course."""
    course = authored_course(tmp_path)
    assert not list(course.rglob("conftest.py"))
    solution = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    right = run(course, "pytest", f"graders/{ASSIGNMENT}", "--notebook", str(solution), check=False)
    assert right.returncode == 0 and "4 passed" in right.stdout, right.stdout[-2000:] + right.stderr[-2000:]

    wrong = answered(solution, tmp_path / "wrong", "1 / (1 + np.exp(-x))")
    shutil.copy(course / "source" / ASSIGNMENT / "selfcheck.py", wrong.parent)
    failed = run(course, "pytest", f"graders/{ASSIGNMENT}", "--notebook", str(wrong), check=False)
    assert failed.returncode == 1 and "4 failed" in failed.stdout, failed.stdout[-2000:] + failed.stderr[-2000:]
    assert f"hint [{HINT}]: {HINT_TEXT}" in failed.stdout, failed.stdout[-3000:]
