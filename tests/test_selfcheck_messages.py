"""What a student sees when a self-check fails: its sentence alone, without a traceback through
`selfcheck.py`, in the notebook (rendered and checked in headless Chromium) and under nbgrader's Validate;
and a notebook opened without its `selfcheck.py` says where to get it."""

import shutil

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission, wrong_answers
from tests.browser import seen_after_load
from tests.grading_course import ASSIGNMENT, make_course

# A wrong shape (the check's own sentence), and code that raises (said in one line, with the student's line).
WRONG = [next(a for a in wrong_answers(ASSIGNMENT) if a.label == "concat_weights/transposed"),
         next(a for a in wrong_answers(ASSIGNMENT) if a.label == "concat_state_input/axis-1")]
SENTENCES = {"test_concat_weights": "concat_weights(w_hh 3x2, w_hx 3x3): expected shape (3, 5)",
             "test_concat_state_input": "concat_state_input raised ValueError"}
INTERNALS = ("Traceback", "selfcheck.py", "_expect", "_call(", "File ")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return make_course(tmp_path_factory.mktemp("selfcheck-messages"))


def executed(course, folder, with_selfcheck=True):
    path = write_submission(ASSIGNMENT, folder, WRONG, release=course / "release" / ASSIGNMENT)
    if with_selfcheck:
        shutil.copy(course / "release" / ASSIGNMENT / "selfcheck.py", folder)
    nb = nbformat.read(str(path), as_version=4)
    NotebookClient(nb, timeout=60, allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    return nb


def cell_errors(nb, grade_id):
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return [o for o in cell.outputs if o.output_type == "error"]


def test_a_failing_self_check_shows_its_sentence_alone_in_the_notebook(course, tmp_path):
    nb = executed(course, tmp_path / "student")
    for cell, sentence in SENTENCES.items():
        (error,) = cell_errors(nb, cell)
        shown = "\n".join(error.traceback)
        assert sentence in shown and not any(word in shown for word in INTERNALS), shown
    html, _ = HTMLExporter().from_notebook_node(nb)
    seen = seen_after_load(html, """(() => {
      const errors = [...document.querySelectorAll("[data-mime-type='application/vnd.jupyter.stderr']")];
      return errors.map(e => e.innerText);
    })()""", tmp_path)
    for sentence in SENTENCES.values():
        visible = next(text for text in seen if sentence.split("(")[0].split(" ")[0] in text)
        assert sentence in visible and not any(word in visible for word in INTERNALS), visible
        assert len(visible.strip().splitlines()) <= 4  # the sentence and its advice, nothing else
    assert "in your code, line" in next(text for text in seen if "concat_state_input raised" in text)


def test_validate_shows_the_sentence_without_a_traceback(course, tmp_path):
    folder = tmp_path / "validate"
    path = write_submission(ASSIGNMENT, folder, WRONG, release=course / "release" / ASSIGNMENT)
    shutil.copy(course / "release" / ASSIGNMENT / "selfcheck.py", folder)
    done = nbgrader(course, "validate", str(path), check=False)
    assert "VALIDATION FAILED" in done.stdout
    for sentence in SENTENCES.values():
        assert sentence in done.stdout
    assert "selfcheck.py" not in done.stdout and "_expect" not in done.stdout, done.stdout[-3000:]


def test_a_notebook_without_its_selfcheck_says_where_to_get_it(course, tmp_path):
    nb = executed(course, tmp_path / "alone", with_selfcheck=False)
    (error,) = cell_errors(nb, "imports")
    assert "selfcheck.py is missing" in error.evalue and "same folder as the notebook" in error.evalue
