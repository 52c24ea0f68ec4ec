"""Property-based: hostile submission folders and notebooks, generated (random JSON shapes, nbgrader
metadata, cell sources with surrogates and control characters, file names that are not text, special
files, links, sizes, timestamps), and the invariants that must hold whatever they hold.

Two levels: reading and staging one submission in this process, a few hundred examples in seconds; and
whole classes through the real `autograder grade` (the sandbox, the gradebook), fewer examples, each a
class of an honest student, a blank one and a few hostile ones.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.grading_course import ASSIGNMENT, grade, honest_and_blank, make_course, scores, tree_digest

NOTEBOOK = f"{ASSIGNMENT}.ipynb"
FULL = 46.0

# Text as students can put it in a notebook's JSON: any code point, lone surrogates and controls included.
NASTY = ["\ud800", "a\udfffb", "\x1b[2J\x1b[H", "\r", "\u202e", "\x00", "=cmd|' /C calc'!A0", "[red]x[/red]",
         "<script>alert(1)</script>", "!ls\n" * 50, "%%bash\nls", "?"]
ANY_TEXT = st.one_of(st.text(st.characters(codec=None, exclude_categories=()), max_size=40),
                     st.lists(st.sampled_from(NASTY), min_size=1, max_size=3).map("".join))
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
                    max_leaves=12)
NBGRADER_KEYS = st.sampled_from(["grade", "solution", "locked", "points", "grade_id", "task", "checksum",
                                 "schema_version", "cell_type"])
GRADE_IDS = st.sampled_from(["imports", "test_sigmoid", "test_concat_weights", "concat_weights", "mine", ""])
METADATA = st.one_of(JSON, st.dictionaries(NBGRADER_KEYS, JSON | GRADE_IDS | st.booleans(), max_size=6))
NAME_BYTES = st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b
                                                       and b not in (b".", b".."))
LINK_TARGETS = st.sampled_from([b"/dev/zero", b"/etc/passwd", b"../../honest", b"../../../source",
                                b"../../../gradebook.db", b"..", b"/", b"nowhere"])


def _mutations():
    cell_edit = st.tuples(st.integers(0, 40), st.sampled_from(["metadata", "source", "cell_type", "drop",
                                                               "outputs", "nbgrader"]), METADATA, ANY_TEXT)
    top_edit = st.tuples(st.sampled_from(["nbformat", "nbformat_minor", "metadata", "cells"]), JSON)
    return st.tuples(st.lists(cell_edit, max_size=5), st.lists(top_edit, max_size=2))


def _mutated(honest: dict, mutations) -> dict:
    nb = json.loads(json.dumps(honest))
    cell_edits, top_edits = mutations
    for index, what, value, text in cell_edits:
        if not nb["cells"]:
            break
        cell = nb["cells"][index % len(nb["cells"])]
        if what == "metadata":
            cell["metadata"] = value
        elif what == "nbgrader" and isinstance(cell.get("metadata"), dict):
            cell["metadata"]["nbgrader"] = value  # (an earlier edit may have made the metadata no dict: it stays)
        elif what == "source":
            cell["source"] = text
        elif what == "cell_type":
            cell["cell_type"] = text
        elif what == "outputs":
            cell["outputs"] = value
        else:
            nb["cells"].remove(cell)
    for key, value in top_edits:
        nb[key] = value
    return nb


ENTRY = st.deferred(lambda: st.tuples(NAME_BYTES, st.one_of(
    st.tuples(st.just("file"), st.binary(max_size=64)),
    st.tuples(st.just("sparse"), st.integers(1, 8 << 30)),
    st.tuples(st.just("fifo"), st.none()),
    st.tuples(st.just("link"), LINK_TARGETS),
    st.tuples(st.just("dir"), st.lists(ENTRY, max_size=3)))))
TIMESTAMP = st.one_of(st.none(), st.tuples(st.just("text"), ANY_TEXT),
                      st.tuples(st.sampled_from(["fifo", "dir", "zero"]), st.none()))
SUBMISSION = st.fixed_dictionaries({
    "notebook": st.one_of(st.tuples(st.just("mutated"), _mutations()), st.tuples(st.just("mutated"), _mutations()),
                          st.tuples(st.just("json"), JSON),
                          st.tuples(st.just("bytes"), st.binary(max_size=200)), st.tuples(st.just("none"), st.none())),
    "entries": st.lists(ENTRY, max_size=4),
    "timestamp": TIMESTAMP,
})


def _make_entries(folder: bytes, entries) -> None:
    for name, (kind, value) in entries:
        path = os.path.join(folder, name)
        if os.path.lexists(path) or name in (NOTEBOOK.encode(), b"timestamp.txt"):
            continue
        if kind == "file":
            with open(path, "wb") as handle:
                handle.write(value)
        elif kind == "sparse":
            with open(path, "wb") as handle:
                handle.truncate(value)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "link":
            os.symlink(value, path)
        else:
            os.mkdir(path)
            _make_entries(path, value)


def _make_submission(folder: Path, honest: dict, spec) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    kind, value = spec["notebook"]
    path = folder / NOTEBOOK
    if kind == "mutated":
        path.write_text(json.dumps(_mutated(honest, value)))  # ensure_ascii: lone surrogates as escapes
    elif kind == "json":
        path.write_text(json.dumps(value))
    elif kind == "bytes":
        path.write_bytes(value)
    stamp = spec["timestamp"]
    if stamp is not None:
        kind, text = stamp
        target = folder / "timestamp.txt"
        if kind == "text":
            target.write_bytes(text.encode("utf-8", "surrogatepass"))
        elif kind == "fifo":
            os.mkfifo(target)
        elif kind == "dir":
            target.mkdir()
        else:
            os.symlink("/dev/zero", target)
    _make_entries(os.fsencode(folder), spec["entries"])


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("hostile-template"))
    honest_and_blank(course)
    honest = json.loads((course / "submitted" / "honest" / ASSIGNMENT / NOTEBOOK).read_text())
    return course, honest


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(spec=SUBMISSION)
def test_reading_and_staging_a_hostile_submission(template, tmp_path_factory, spec):
    """In this process: `prepare` gives a job or a one-line reason, never raises; the staged autograded
    folder holds only regular files and folders, within the bounds."""
    from autograder.course.settings import read_course
    from autograder.grading import prepare
    from autograder.grading.autograded import InstructorFiles, stage_autograded
    from autograder.grading.model import Outcome, SubmissionResult
    from autograder.grading.sources import read_sources_early

    course, honest = template
    settings_ = read_course(course, rooted=True)
    sources = read_sources_early(f"sqlite:///{course / 'gradebook.db'}", ASSIGNMENT)
    folder = tmp_path_factory.mktemp("sub") / "submitted" / "evil" / ASSIGNMENT
    _make_submission(folder, honest, spec)
    settings_.coursedir.submitted_directory = str(folder.parents[2] / "submitted")
    settings_.coursedir.root = str(folder.parents[2])
    prepared = prepare.prepare(settings_, sources, {}, ASSIGNMENT, "evil")
    assert (prepared.job is None) == (prepared.unreadable is not None or prepared.refused is not None)
    assert all("\n" not in line for line in [*prepared.ignored, prepared.refused or ""])
    dest = folder.parents[2] / "autograded" / "evil" / ASSIGNMENT
    outcome = Outcome(SubmissionResult("evil", ASSIGNMENT))
    staged = stage_autograded(dest, folder, InstructorFiles(course / "source" / ASSIGNMENT, []), [], prepared.files,
                              prepared.notebooks, outcome)
    kept = list(staged.rglob("*"))
    assert all(not p.is_symlink() and (p.is_dir() or p.is_file()) for p in kept)
    assert sum(p.stat().st_blocks * 512 for p in kept if p.is_file()) <= 64 * 2**20
    json.loads((staged / "autograder-result.json").read_text())
    for name in prepared.notebooks:
        json.loads((staged / f"{name}.ipynb").read_bytes().decode("utf-8"))


STUDENT = st.one_of(st.sampled_from(["eve", "mallory", "trudy"]), NAME_BYTES)
HOSTILE_CLASSES = 20


# Few classes, each of several hostile students: a run of `autograder grade` costs about 2 CPU-seconds before it
# grades anyone (the command, its sandbox, the honest and blank students), a hostile student a fraction of that.
# 20 classes of 4 to 7 draw 100 hostile students (54 mutated notebooks, 14 other JSON, 7 not JSON, 25 without a
# notebook), where 40 classes of 1 to 3 drew 77 (41, 11, 2, 23).
@settings(max_examples=HOSTILE_CLASSES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(hostile=st.lists(st.tuples(STUDENT, SUBMISSION), min_size=4, max_size=7))
def test_a_class_with_hostile_students(template, tmp_path_factory, hostile):
    """Through `autograder grade`: exit 0, no traceback, the honest and blank students' scores exact, the
    instructor's source/ and release/ byte-identical, and the run ends within its time."""
    base, honest = template
    course = tmp_path_factory.mktemp("class") / "course"
    shutil.copytree(base, course, symlinks=True)
    submitted = os.fsencode(course / "submitted")
    for student, spec in hostile:
        name = student.encode() if isinstance(student, str) else student
        if name in (b"honest", b"blank") or os.path.lexists(os.path.join(submitted, name)):
            continue
        os.mkdir(os.path.join(submitted, name))
        _make_submission(Path(os.fsdecode(os.path.join(submitted, name, ASSIGNMENT.encode()))), honest, spec)
    before = {name: tree_digest(course / name) for name in ("source", "release")}
    run = grade(course, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stdout + run.stderr
    got = scores(course)
    assert sum(got["honest"].values()) == FULL and sum(got["blank"].values()) == 0.0
    assert {name: tree_digest(course / name) for name in ("source", "release")} == before
    assert not any("\x1b" in line for line in run.stdout.splitlines())
